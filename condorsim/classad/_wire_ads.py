"""The two ClassAd subclasses of the wire form (:mod:`._wire`), and its shared literals.

They live apart from :mod:`._wire` because that module may be compiled with mypyc
(docs/performance.md, issue 16: compiled modules): a compiled class cannot subclass the
interpreted, slotted :class:`ClassAd`, and :class:`LazyAd` replaces two of its slots with
properties, which compiled code would not see. Here they stay plain Python classes;
:mod:`._wire` makes and reads them.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from ._classad import SPECIAL_NAMES, ClassAd
from ._tree import ExprTree, Literal
from ._values import UNDEFINED, EvalContext, Value


@functools.lru_cache(maxsize=8192, typed=True)
def _literal(value: str | int | bool | float) -> Literal:
    """The shared literal of a checked scalar (``typed``: 1 and true are distinct keys)."""
    return Literal(value)


class SealedAd(ClassAd):
    """A ClassAd that keeps its wire form once :func:`ad_to_wire` made it, for an ad sent
    many times unchanged (the collector's stored ads, in every query's answer). Any change
    drops the kept form. The kept dict is shared: callers of ``ad_to_wire`` only read it."""

    __slots__ = ("_wire",)

    def __init__(self, attrs: Any = None) -> None:
        self._wire: dict[str, Any] | None = None
        super().__init__(attrs)

    @classmethod
    def of(cls, ad: ClassAd) -> SealedAd:
        """A sealed copy of ``ad`` (the expressions, being immutable, are shared)."""
        sealed = cls()
        sealed._attrs = dict(ad._attrs)
        sealed._names = dict(ad._names)
        return sealed

    def __setitem__(self, name: str, value: Any) -> None:
        self._wire = None
        super().__setitem__(name, value)

    def __delitem__(self, name: str) -> None:
        self._wire = None
        super().__delitem__(name)

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        self._wire = None
        super().update(other, **kwargs)

    def clear(self) -> None:
        self._wire = None
        super().clear()


_ATTRS_SLOT: Final[Any] = ClassAd.__dict__["_attrs"]  # the base's slots, under LazyAd's
_NAMES_SLOT: Final[Any] = ClassAd.__dict__["_names"]  # properties


def _lazy_slot(slot: Any) -> Any:
    """A property over one of ClassAd's slots that first makes a LazyAd's trees."""

    def get(self: LazyAd) -> Any:
        if self._pending is not None:
            self._fill()
        return slot.__get__(self)

    def set_(self: LazyAd, value: Any) -> None:
        if self._pending is not None:
            self._fill()
        slot.__set__(self, value)

    return property(get, set_)


class LazyAd(ClassAd):
    """The ad of a wire map that :func:`ad_from_wire_lazy` checked in full, whose literal
    trees are made when the ad is first used as a whole: until then :meth:`evaluate` of a
    plain string, integer or boolean attribute (or a missing one) reads the map's value, which
    is what its literal evaluates to. For an ad a daemon receives and mostly drops unread (the
    schedd reads a matched slot ad's Name and MyAddress, and claims with the startd's own).
    Any other use makes the whole ad first: it is then the ad :func:`ad_from_wire` makes."""

    __slots__ = ("_pending",)

    def __init__(self, attrs: Any = None) -> None:
        self._pending: tuple[dict[str, Any], dict[str, str]] | None = None
        super().__init__(attrs)

    def _fill(self) -> None:
        """Make the trees of the checked values (the others were made by the check)."""
        pending = self._pending
        assert pending is not None
        self._pending = None
        values, names = pending
        literal = _literal
        attrs: dict[str, ExprTree] = {}
        for key, value in values.items():  # a value left as it came is one of these
            t = type(value)
            attrs[key] = literal(value) if t is str or t is bool or t is int else value
        _ATTRS_SLOT.__set__(self, attrs)
        _NAMES_SLOT.__set__(self, names)

    # the base's two dicts, made from the pending values at their first use
    _attrs = _lazy_slot(_ATTRS_SLOT)
    _names = _lazy_slot(_NAMES_SLOT)

    def evaluate(self, name: str, target: ClassAd | None = None,
                 ctx: EvalContext | None = None) -> Value:
        pending = self._pending
        if pending is not None:
            key = name.lower()
            value = pending[0].get(key)
            t = type(value)
            if t is str or t is int or t is bool:
                return value
            if value is None and target is None and key not in SPECIAL_NAMES:
                return UNDEFINED  # as ClassAd.evaluate: no attribute, no enclosing ad
        return super().evaluate(name, target, ctx)
