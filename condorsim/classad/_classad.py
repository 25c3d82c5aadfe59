"""The ClassAd container: a case-insensitive mapping from attribute names to expressions.

How this works
--------------
A :class:`ClassAd` keeps two dicts keyed by the lower-cased name: the expression
(an :class:`ExprTree`) and the name as first spelled. Setting an attribute accepts an
ExprTree or a plain Python value (bool, int, float, str, list, dict, ClassAd,
UNDEFINED, ERROR, None), which becomes a literal tree.

A ClassAd is also a ClassAd *value* (``ClassAdValue``): a nested ad. Its ``_parent``
is the ad it is nested in, for scoping. Evaluating a nested-ad literal gives a view
that shares the literal's dicts with ``_parent`` set to the ad the literal was
evaluated in; the view copies the dicts before its first change (copy on write), so
changing a value never changes an expression.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

from ._errors import ClassAdError
from ._parser import looks_like_new_syntax, parse_new_ad, parse_old_ad
from ._tree import NOT_CONST, AdExpr, ExprTree, ListExpr, Literal
from ._unparse import name_text, unparse, unparse_attributes
from ._values import (
    ERROR,
    INT_MAX,
    INT_MIN,
    UNDEFINED,
    AbsTime,
    ClassAdValue,
    EvalContext,
    RelTime,
    Value,
)

SPECIAL_NAMES: frozenset[str] = frozenset(
    {"my", "self", "parent", "root", "toplevel", "currenttime"})
"""Names an unscoped reference resolves without an attribute of that name (lower-cased)."""


class ClassAdValueError(ClassAdError, ValueError):
    """A Python value that has no ClassAd equivalent (e.g. an int beyond 64 bits)."""


_LITERALS: dict[tuple[type, Any], Literal] = {}
"""The literal tree of each str, int and bool value made lately (keyed with the type: 1
and true differ; floats are left out, 0.0 and -0.0 being equal keys). Trees are
immutable, so ads share them, as the wire decoder's literals are shared; bounded."""
_LITERALS_MAX = 16384
_LITERAL_MAX_TEXT = 1024


def _kept(t: type, value: Any) -> Literal:
    tree = Literal(value)
    if t is not str or len(value) <= _LITERAL_MAX_TEXT:
        if len(_LITERALS) >= _LITERALS_MAX:
            _LITERALS.clear()  # a bound, not an order: the values in use come back at once
        _LITERALS[(t, value)] = tree
    return tree


def to_tree(value: Any) -> ExprTree:
    """An ExprTree for a Python value or an ExprTree (returned as is)."""
    if isinstance(value, ExprTree):
        return value
    t = type(value)
    if t is str or t is int or t is bool:
        hit = _LITERALS.get((t, value))
        if hit is not None:  # checked when it was made
            return hit
    if t is str:
        if "\0" in value:
            raise ClassAdValueError("a ClassAd string cannot contain a NUL character")
        if not value.isascii():
            try:
                value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raise ClassAdValueError(f"{value!r} has no byte form (a lone surrogate)") from None
        return _kept(t, value)
    if t is bool:
        return _kept(t, value)
    if t is float:
        return Literal(value)
    if t is int:
        if value < INT_MIN or value > INT_MAX:
            raise ClassAdValueError(f"integer {value} does not fit in 64 bits")
        return _kept(t, value)
    if value is UNDEFINED or value is ERROR or t is AbsTime or t is RelTime:
        return Literal(value)
    if value is None:
        return Literal(UNDEFINED)
    if isinstance(value, ClassAd):
        return AdExpr(list(zip(value._names.values(), value._attrs.values(), strict=True)))
    if isinstance(value, Mapping):
        return AdExpr([(str(k), to_tree(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return ListExpr(tuple(to_tree(v) for v in value))
    if isinstance(value, int):  # an int subclass such as an IntEnum
        return to_tree(int(value))
    raise ClassAdValueError(f"no ClassAd value for a {t.__name__}: {value!r}")


class ClassAd(ClassAdValue, MutableMapping[str, ExprTree]):
    """A ClassAd: attribute names (case-insensitive, spelling kept) to expressions."""

    __slots__ = ("_attrs", "_names", "_parent", "_shared")

    _attrs: dict[str, ExprTree]
    _names: dict[str, str]
    _parent: ClassAd | None
    _shared: bool

    def __init__(
        self, attrs: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None
    ) -> None:
        self._attrs = {}
        self._names = {}
        self._parent = None
        self._shared = False
        if attrs is not None:
            self.update(attrs)  # each name checked and each value made a tree, as ad[name] = ...

    @classmethod
    def _view(
        cls, attrs: dict[str, ExprTree], names: dict[str, str], parent: ClassAd | None
    ) -> ClassAd:
        """A nested-ad value sharing ``attrs``/``names`` (copied on first change)."""
        ad = cls.__new__(cls)
        ad._attrs = attrs
        ad._names = names
        ad._parent = parent
        ad._shared = True
        return ad

    @classmethod
    def _from_pairs(cls, pairs: Iterable[tuple[str, ExprTree]]) -> ClassAd:
        ad = cls()
        attrs = ad._attrs
        names = ad._names
        for name, tree in pairs:
            key = name.lower()
            if key not in names:
                names[key] = name
            attrs[key] = tree
        return ad

    # -- parsing -----------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> ClassAd:
        """Parse either syntax: new (``[ a = 1; ]``) when the text starts with '['."""
        if looks_like_new_syntax(text):
            return cls.parse_new(text)
        return cls.parse_old(text)

    @classmethod
    def parse_new(cls, text: str) -> ClassAd:
        """Parse a new-syntax ClassAd ``[ name = expr; ... ]``."""
        return cls._from_pairs(parse_new_ad(text))

    @classmethod
    def parse_old(cls, text: str) -> ClassAd:
        """Parse old-syntax ``Name = expr`` lines (as ``condor_q -l`` prints)."""
        return cls._from_pairs(parse_old_ad(text))

    # -- mapping protocol ------------------------------------------------------------

    def _own(self) -> None:
        if self._shared:
            self._attrs = dict(self._attrs)
            self._names = dict(self._names)
            self._shared = False

    def __getitem__(self, name: str) -> ExprTree:
        return self._attrs[name.lower()]

    def __setitem__(self, name: str, value: Any) -> None:
        if not isinstance(name, str) or not name or "\0" in name:
            raise ClassAdValueError(f"attribute names are non-empty strings, not {name!r}")
        if not name.isascii():
            to_tree(name)  # same byte-form check as for string values
        self._store(name, to_tree(value))

    def _store(self, name: str, tree: ExprTree) -> None:
        """Set a checked ``name`` to ``tree``; a name already present keeps its spelling."""
        if self._shared:
            self._own()
        key = name.lower()
        if key not in self._names:
            self._names[key] = name
        self._attrs[key] = tree

    def __delitem__(self, name: str) -> None:
        key = name.lower()
        if key not in self._attrs:
            raise KeyError(name)
        if self._shared:
            self._own()
        del self._attrs[key]
        del self._names[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names.values()))

    def names(self) -> tuple[str, ...]:
        """The attribute names as spelled, in the order iteration gives them (one call,
        without the mapping protocol's per-name steps)."""
        return tuple(self._names.values())

    def __len__(self) -> int:
        return len(self._attrs)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._attrs

    def lookup(self, name: str) -> ExprTree | None:
        """The expression of attribute ``name`` (any case), or None."""
        return self._attrs.get(name.lower())

    def trees(self, lowered: tuple[str, ...]) -> tuple[ExprTree | None, ...]:
        """The expressions of the already lower-cased names (None where missing), at once."""
        return tuple(map(self._attrs.get, lowered))

    def spelling(self, name: str) -> str | None:
        """The attribute name as this ad spells it, or None when absent."""
        return self._names.get(name.lower())

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        """Set every attribute of ``other`` (a ClassAd, mapping or pairs) on this ad."""
        if isinstance(other, ClassAd):
            if self._shared:
                self._own()
            for key, tree in other._attrs.items():
                if key not in self._names:
                    self._names[key] = other._names[key]
                self._attrs[key] = tree
        else:
            items = other.items() if isinstance(other, Mapping) else other
            if self._shared:
                self._own()
            attrs, names = self._attrs, self._names
            for name, value in items:
                # __setitem__'s and _store's work inline for the common case (a plain ASCII
                # name); any other name takes __setitem__ itself, with its checks and errors
                if type(name) is str and name and name.isascii() and "\0" not in name:
                    tree = value if isinstance(value, ExprTree) else to_tree(value)
                    key = name.lower()
                    if key not in names:
                        names[key] = name
                    attrs[key] = tree
                else:
                    self[name] = value
        for name, value in kwargs.items():
            self[name] = value

    def copy(self) -> ClassAd:
        """A copy of this ad (the expressions, being immutable, are shared)."""
        ad = ClassAd()
        ad._attrs = dict(self._attrs)
        ad._names = dict(self._names)
        return ad

    def clear(self) -> None:
        self._attrs = {}
        self._names = {}
        self._shared = False

    # -- evaluation ------------------------------------------------------------------

    def evaluate(
        self, name: str, target: ClassAd | None = None, ctx: EvalContext | None = None
    ) -> Value:
        """The value of attribute ``name`` with this ad as MY (and ``target`` as TARGET).

        As HTCondor's ``EvaluateAttr``: the name is looked up in this ad and its
        enclosing ads; a missing attribute is UNDEFINED.
        """
        key = name.lower()
        tree = self._attrs.get(key)
        if tree is not None:  # a literal (or folded constant) needs no evaluation
            const = tree._const
            if const is not NOT_CONST:
                return const
        elif target is None and self._parent is None and key not in SPECIAL_NAMES:
            return UNDEFINED  # no attribute, no enclosing ad, no other ad: nothing to find
        from ._compile import evaluate_attribute

        return evaluate_attribute(self, name, target, ctx)

    # -- text --------------------------------------------------------------------------

    def pairs(self) -> list[tuple[str, ExprTree]]:
        """(name as spelled, expression) for every attribute, in insertion order."""
        return list(zip(self._names.values(), self._attrs.values(), strict=True))

    def __str__(self) -> str:
        return unparse_attributes(self.pairs())

    def __repr__(self) -> str:
        return f"ClassAd.parse_new({unparse_attributes(self.pairs())!r})"

    def to_long(self) -> str:
        """Old-syntax text: one ``Name = expression`` line per attribute, as ``condor_q -l``."""
        lines = [
            f"{name_text(name, True)} = {unparse(tree, old_syntax=True)}\n"
            for name, tree in self.pairs()
        ]
        return "".join(lines)

    # -- comparison ------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassAd):
            return NotImplemented
        return self._attrs == other._attrs

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, ClassAd):
            return NotImplemented
        return self._attrs != other._attrs

    __hash__ = None  # type: ignore[assignment]
