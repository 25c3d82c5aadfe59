"""The msgpack wire form of a ClassAd, and its validating decoder.

How this works
--------------
``ad_to_wire`` maps each attribute name (as spelled) to:

* a native msgpack value for a literal bool, int, float or str;
* an array for a list literal whose items are all encodable this way (recursively);
* ``ExtType(1, b"")`` for UNDEFINED and ``ExtType(2, b"")`` for ERROR;
* ``ExtType(4, packb(ad_to_wire(nested)))`` for a nested ad literal;
* ``ExtType(5, packb([secs, offset]))`` for an absolute-time literal and
  ``ExtType(6, packb(secs))`` (a float) for a relative-time literal, exact (their text
  would round a relative time to 6 digits and an offset to minutes);
* ``ExtType(3, <canonical ClassAd text, UTF-8>)`` for any other expression (also for a
  string that is not valid UTF-8, whose text escapes the bytes).

``ad_from_wire`` accepts what ``msgpack.unpackb(..., raw=False)`` returns and checks
every part; anything else raises :class:`ClassAdWireError` naming the attribute, so a
bad peer cannot crash a daemon. Round trips give back equal ads.

Caches
------
Both directions are the hot path of every daemon (each ad update, query result and job
ad), and the same values pass again and again: a startd's slot ads differ from its last
update in a few attributes. Decoding keeps two bounded LRU caches of trees already
built: short scalars (str, int, bool, and floats other than zero and NaN, whose
equality is not identity of value) and expression texts up to :data:`CACHE_MAX_TEXT`
bytes, which would otherwise be lexed and parsed again. Trees are immutable (their
compiled closure and constant value are caches of the tree alone), so sharing one
between ads is safe, and a shared tree is compiled once. Checks that name an attribute
run before a cache is asked; a text that does not parse is never cached. Encoding keeps
the text of the expression trees it last unparsed, by identity (two equal trees may
spell a nested ad's names differently), so an ad sent again, or a tree that came off the
wire, is not unparsed again.

Two more, for the ads a pool sends again and again unchanged (issue 16, P2: a negotiator
asks the collector for every slot ad every cycle): a :class:`SealedAd` (the collector's
stored ads) keeps its wire form once made, until it is changed; and
:func:`ad_from_wire_named`, for the ads of a query result, keeps the last ad decoded under
each ``Name`` with the map it came from and hands out a copy of it when the same bytes
come again (compared as ``msgpack.packb`` would pack them: typed, so ``1``, ``1.0`` and
``true``, or ``0.0`` and ``-0.0``, are different). Either gives an ad equal to the one made anew.
A SealedAd keeps its packed bytes too (:func:`sealed_bytes`), which a query result splices
(condorsim.wire.codec).
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import compress
from operator import eq, itemgetter, not_
from typing import Any, Final, NamedTuple

import msgpack

from ._classad import SPECIAL_NAMES, ClassAd
from ._errors import ClassAdSyntaxError, ClassAdWireError
from ._parser import parse_expression
from ._tree import NOT_CONST, AdExpr, ExprTree, ListExpr, Literal
from ._unparse import unparse
from ._values import ERROR, INT_MAX, INT_MIN, UNDEFINED, AbsTime, EvalContext, RelTime, Value

EXT_UNDEFINED: Final = 1
EXT_ERROR: Final = 2
EXT_EXPRESSION: Final = 3
EXT_CLASSAD: Final = 4
EXT_ABSTIME: Final = 5
EXT_RELTIME: Final = 6

MAX_NESTING: Final = 32
"""Deepest nesting of lists and ads accepted from the wire."""

CACHE_MAX_TEXT: Final = 1024
"""Longest string (characters) or expression text (bytes) whose tree is cached."""


@functools.lru_cache(maxsize=8192, typed=True)
def _literal(value: str | int | bool | float) -> Literal:
    """The shared literal of a checked scalar (``typed``: 1 and true are distinct keys)."""
    return Literal(value)


@functools.lru_cache(maxsize=4096)
def _expression(data: bytes) -> ExprTree:
    """The parsed tree of an expression's UTF-8 text (raises as the parser does)."""
    return parse_expression(data.decode("utf-8"))


def _parse_data(data: bytes) -> ExprTree:
    if len(data) <= CACHE_MAX_TEXT:
        return _expression(data)
    return parse_expression(data.decode("utf-8"))


def _is_utf8(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _encode_data(tree: ExprTree) -> Any:
    """The wire value of a literal / list / ad tree, or None when it needs text."""
    t = type(tree)
    if t is Literal:
        assert isinstance(tree, Literal)
        value = tree.value
        if value is UNDEFINED:
            return msgpack.ExtType(EXT_UNDEFINED, b"")
        if value is ERROR:
            return msgpack.ExtType(EXT_ERROR, b"")
        t = type(value)
        if t is str and not _is_utf8(value):
            return None
        if t is AbsTime:
            return msgpack.ExtType(EXT_ABSTIME, msgpack.packb([value.secs, value.offset]))
        if t is RelTime:
            return msgpack.ExtType(EXT_RELTIME, msgpack.packb(value.secs))
        return value
    if t is ListExpr:
        assert isinstance(tree, ListExpr)
        items = []
        for item in tree.items:
            encoded = _encode_data(item)
            if encoded is None:
                return None
            items.append(encoded)
        return items
    if t is AdExpr:
        assert isinstance(tree, AdExpr)
        return msgpack.ExtType(EXT_CLASSAD, msgpack.packb(_encode_pairs(tree.pairs())))
    return None


_TEXTS: OrderedDict[int, tuple[ExprTree, msgpack.ExtType]] = OrderedDict()
_TEXTS_MAX: Final = 4096


def _encode_tree(tree: ExprTree) -> Any:
    if type(tree) is Literal:  # the common case first: a plain literal is its value
        assert isinstance(tree, Literal)
        value = tree.value
        t = type(value)
        if t is int or t is bool or t is float or (t is str and value.isascii()):
            return value
    hit = _TEXTS.get(id(tree))
    if hit is not None and hit[0] is tree:  # the entry keeps the tree alive: ids not reused
        return hit[1]
    encoded = _encode_data(tree)
    if encoded is None:
        encoded = msgpack.ExtType(EXT_EXPRESSION, unparse(tree).encode("utf-8"))
        if len(encoded.data) <= CACHE_MAX_TEXT:
            _TEXTS[id(tree)] = (tree, encoded)
            if len(_TEXTS) > _TEXTS_MAX:
                _TEXTS.popitem(last=False)
    return encoded


tree_to_wire = _encode_tree
"""The wire value of one attribute's tree, as :func:`ad_to_wire` puts it in the ad's map
(for an ad whose map is made as the ad is built: the startd's slot ads)."""


def _encode_pairs(pairs: Iterable[tuple[str, ExprTree]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, tree in pairs:
        if type(tree) is Literal:  # _encode_tree's first case inline: most values are these
            value = tree.value
            t = type(value)
            if t is int or t is bool or t is float or (t is str and value.isascii()):
                out[name] = value
                continue
        out[name] = _encode_tree(tree)
    return out


class SealedAd(ClassAd):
    """A ClassAd that keeps its wire form once :func:`ad_to_wire` made it, for an ad sent
    many times unchanged (the collector's stored ads, in every query's answer). Any change
    drops the kept form. The kept dict is shared: callers of ``ad_to_wire`` only read it."""

    __slots__ = ("_packed", "_wire")

    def __init__(self, attrs: Any = None) -> None:
        self._wire: dict[str, Any] | None = None
        self._packed: bytes | None = None  # msgpack.packb of _wire (sealed_bytes)
        super().__init__(attrs)

    @classmethod
    def of(cls, ad: ClassAd) -> SealedAd:
        """A sealed copy of ``ad`` (the expressions, being immutable, are shared). A
        :class:`LazyAd` not used as a whole yet gives a :class:`StoredAd`: lazy as well, its
        wire form made of the map it came from."""
        if type(ad) is LazyAd and cls is SealedAd:
            stored = _stored(ad)
            if stored is not None:
                return stored
        sealed = cls()
        sealed._attrs = dict(ad._attrs)
        sealed._names = dict(ad._names)
        return sealed

    def __setitem__(self, name: str, value: Any) -> None:
        self._wire = self._packed = None
        super().__setitem__(name, value)

    def __delitem__(self, name: str) -> None:
        self._wire = self._packed = None
        super().__delitem__(name)

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        self._wire = self._packed = None
        super().update(other, **kwargs)

    def clear(self) -> None:
        self._wire = self._packed = None
        super().clear()


def ad_to_wire(ad: ClassAd) -> dict[str, Any]:
    """The msgpack-ready dict of ``ad`` (see the module doc for the layout)."""
    if type(ad) is SealedAd or type(ad) is StoredAd:
        assert isinstance(ad, SealedAd)
        wire = ad._wire
        if wire is None:
            wire = ad._wire = _encode_pairs(zip(ad._names.values(), ad._attrs.values(), strict=True))
        return wire
    return _encode_pairs(zip(ad._names.values(), ad._attrs.values(), strict=True))


def sealed_bytes(ad: SealedAd) -> bytes:
    """``msgpack.packb(ad_to_wire(ad), use_bin_type=True)``, kept with the ad's wire form
    until it is changed: the collector answers a query by splicing its stored ads' bytes
    (condorsim.wire.codec) instead of packing every ad again."""
    packed = ad._packed
    if packed is None or ad._wire is None:
        packed = ad._packed = msgpack.packb(ad_to_wire(ad), use_bin_type=True)
    return packed


_ZERO: Final = Literal(0.0)
_MINUS_ZERO: Final = Literal(-0.0)


def _decode(value: Any, attr: str, depth: int) -> ExprTree:
    if depth > MAX_NESTING:
        raise ClassAdWireError(f"attribute {attr!r}: nested more than {MAX_NESTING} levels")
    t = type(value)
    if t is str:
        if "\0" in value:
            raise ClassAdWireError(f"attribute {attr!r}: NUL character in a string")
        return _literal(value) if len(value) <= CACHE_MAX_TEXT else Literal(value)
    if t is bool:
        return _literal(value)
    if t is float:
        if value:
            return _literal(value) if value == value else Literal(value)
        # 0.0 and -0.0 are equal, so one cache key: each sign has its own shared tree
        return _ZERO if math.copysign(1.0, value) > 0 else _MINUS_ZERO
    if t is int:
        if value < INT_MIN or value > INT_MAX:
            raise ClassAdWireError(f"attribute {attr!r}: integer {value} outside 64 bits")
        return _literal(value)
    if t is list or t is tuple:
        return ListExpr(tuple(_decode(item, attr, depth + 1) for item in value))
    if t is msgpack.ExtType:
        code, data = value.code, value.data
        if code == EXT_UNDEFINED or code == EXT_ERROR:
            if data != b"":
                raise ClassAdWireError(f"attribute {attr!r}: ext type {code} carries data")
            return Literal(UNDEFINED if code == EXT_UNDEFINED else ERROR)
        if code == EXT_EXPRESSION:
            try:
                return _parse_data(data)
            except UnicodeDecodeError:
                raise ClassAdWireError(f"attribute {attr!r}: expression is not UTF-8") from None
            except ClassAdSyntaxError as err:
                raise ClassAdWireError(f"attribute {attr!r}: bad expression: {err}") from None
        if code == EXT_ABSTIME or code == EXT_RELTIME:
            return Literal(_decode_time(code, data, attr))
        if code == EXT_CLASSAD:
            try:
                inner = msgpack.unpackb(data, raw=False, strict_map_key=True)
            except Exception as err:  # msgpack raises several unrelated types
                raise ClassAdWireError(f"attribute {attr!r}: bad nested ad: {err}") from None
            return AdExpr(_decode_pairs(inner, depth + 1, attr))
        raise ClassAdWireError(f"attribute {attr!r}: unknown ext type {code}")
    raise ClassAdWireError(f"attribute {attr!r}: a {t.__name__} is not a ClassAd value")


def _decode_time(code: int, data: bytes, attr: str) -> AbsTime | RelTime:
    """The time value of an ext-5 / ext-6 payload (checked)."""
    try:
        inner = msgpack.unpackb(data, raw=False)
    except Exception as err:  # msgpack raises several unrelated types
        raise ClassAdWireError(f"attribute {attr!r}: bad time value: {err}") from None
    if code == EXT_RELTIME:
        if type(inner) is not float:
            raise ClassAdWireError(f"attribute {attr!r}: a relative time is not a float")
        return RelTime(inner)
    if (
        type(inner) is not list
        or len(inner) != 2
        or any(type(x) is not int for x in inner)
        or not INT_MIN <= inner[0] <= INT_MAX
        or not -(2**31) <= inner[1] < 2**31
    ):
        raise ClassAdWireError(f"attribute {attr!r}: an absolute time is not [secs, offset]")
    return AbsTime(inner[0], inner[1])


def _decode_pairs(mapping: Any, depth: int, where: str = "") -> list[tuple[str, ExprTree]]:
    if not isinstance(mapping, Mapping):
        what = f"nested ad in {where!r}" if where else "ClassAd"
        raise ClassAdWireError(f"{what} is a {type(mapping).__name__}, not a map")
    pairs: list[tuple[str, ExprTree]] = []
    for name, value in mapping.items():
        if type(name) is not str or not name or "\0" in name:
            raise ClassAdWireError(f"attribute name {name!r} is not a non-empty string")
        t = type(value)  # the common cases inline; _decode has them all
        if (t is str and len(value) <= CACHE_MAX_TEXT and "\0" not in value) or t is bool or \
                (t is int and INT_MIN <= value <= INT_MAX):
            pairs.append((name, _literal(value)))
        else:
            pairs.append((name, _decode(value, name, depth)))
    return pairs


_LOWERED: dict[str, str] = {}
"""Attribute names already checked, each lower-cased (bounded: cleared when full)."""
_LOWERED_MAX: Final = 16384


def _checked_key(name: Any) -> str:
    """The lower-cased key of an attribute name not in :data:`_LOWERED` yet, checked (and
    kept there); raises ClassAdWireError for a name that is not a non-empty string."""
    if type(name) is not str or not name or "\0" in name:
        raise ClassAdWireError(f"attribute name {name!r} is not a non-empty string")
    if len(_LOWERED) >= _LOWERED_MAX:
        _LOWERED.clear()
    key = _LOWERED[name] = name.lower()
    return key


class _FullShape(NamedTuple):
    """The attribute names of a wire map :func:`ad_from_wire` decoded, checked then, and the
    types of its values; a map with the same names in the same order and values of the same
    types is decoded by :func:`_shaped_ad`."""

    wire_names: tuple[str, ...]
    keys: tuple[str, ...]  # lower-cased
    names: dict[str, str]  # lower-cased -> as spelled
    types: tuple[type, ...]
    strs: Any  # an itemgetter of the strings (None for none)
    ints: Any  # the same for the integers
    others: tuple[int, ...]  # the places of values neither a str, an int nor a bool


_FULL_SHAPES: OrderedDict[tuple[str, ...], _FullShape | None] = OrderedDict()
"""Names of the maps decoded lately -> their shape (None: seen once, not learnt yet). A
daemon receives ads of a few shapes again and again (the job ads of a submit file, the slot
ads of a startd, a starter's updates); bounded, the oldest out first."""
_FULL_SHAPES_MAX: Final = 256
_PLACEHOLDER: Final = True
"""Stands for a value not made by :func:`_literal` in the shaped pass (a cached key)."""


def _learn_full_shape(wire_names: tuple[str, ...], mapping: dict[Any, Any],
                      ad: ClassAd) -> None:
    """Keep the shape of ``mapping``, just decoded into ``ad`` by the general loop, once its
    names came twice (again if its values' types changed)."""
    shapes = _FULL_SHAPES
    if wire_names not in shapes:
        if len(shapes) >= _FULL_SHAPES_MAX:
            shapes.popitem(last=False)
        shapes[wire_names] = None
        return
    if len(ad._attrs) != len(wire_names):  # two names the same lower-cased: no shape
        return
    types = tuple(map(type, mapping.values()))
    strs = [i for i, t in enumerate(types) if t is str]
    ints = [i for i, t in enumerate(types) if t is int]
    others = tuple(i for i, t in enumerate(types) if t is not str and t is not int
                   and t is not bool)
    shapes[wire_names] = _FullShape(wire_names, tuple(ad._attrs), dict(ad._names), types,
                                    _getter(strs), _getter(ints), others)
    shapes.move_to_end(wire_names)


def _plain(wire: tuple[Any, ...], shape: _FullShape | _Shape) -> bool:
    """Whether a map's values ``wire`` have ``shape``'s types and its strings and integers
    are plain ones (short, no NUL, 64 bits): C-level passes over all of them at once."""
    if tuple(map(type, wire)) != shape.types:
        return False
    if shape.strs is not None:
        strs = shape.strs(wire)
        if max(map(len, strs)) > CACHE_MAX_TEXT or "\0" in "".join(strs):
            return False
    if shape.ints is not None:
        ints = shape.ints(wire)
        if min(ints) < INT_MIN or max(ints) > INT_MAX:
            return False
    return True


def _shaped_ad(mapping: dict[Any, Any], shape: _FullShape) -> ClassAd | None:
    """The ad :func:`ad_from_wire` makes of ``mapping``, which has ``shape``'s names, when its
    values have the shape's types and its strings and integers are plain ones (short, no
    NUL, 64 bits): checked by C-level passes, the literals made by one ``map``. None
    otherwise (the general loop decides, and raises where the map is bad)."""
    wire = tuple(mapping.values())
    if not _plain(wire, shape):
        return None
    others = shape.others
    if others:
        plain = list(wire)
        for i in others:
            plain[i] = _PLACEHOLDER
        trees: list[ExprTree] = list(map(_literal, plain))
        wire_names = shape.wire_names
        for i in others:  # in the map's order: the first bad one raises, as the loop's
            trees[i] = _decode(wire[i], wire_names[i], 0)
        attrs: dict[str, ExprTree] = dict(zip(shape.keys, trees, strict=True))
    else:
        attrs = dict(zip(shape.keys, map(_literal, wire), strict=True))
    ad = ClassAd.__new__(ClassAd)
    ad._attrs = attrs
    ad._names = dict(shape.names)
    ad._parent = None
    ad._shared = False
    return ad


def ad_from_wire(mapping: Any) -> ClassAd:
    """The ClassAd of a decoded wire map; raises ClassAdWireError on malformed input.

    A map with the names (in the same order) of one decoded twice lately is decoded by
    :func:`_shaped_ad`, in C-level passes over its values; the same ad either way."""
    if type(mapping) is dict:  # the common case in one pass: what _decode_pairs checks
        wire_names = tuple(mapping)
        shape = _FULL_SHAPES.get(wire_names)
        if shape is not None:
            try:
                shaped = _shaped_ad(mapping, shape)
            except RecursionError:
                raise ClassAdWireError("ClassAd nested too deeply") from None
            if shaped is not None:
                return shaped
        ad = ClassAd()
        attrs, names = ad._attrs, ad._names
        lowered = _LOWERED
        literal = _literal
        try:
            # the name's check and the plain-literal test are ad_from_wire_lazy's too, kept
            # inline in both (a helper would cost a call per attribute): change them together
            for name, value in mapping.items():
                key = lowered.get(name) if type(name) is str else None
                if key is None:
                    key = _checked_key(name)
                t = type(value)
                if (t is str and len(value) <= CACHE_MAX_TEXT and "\0" not in value) or \
                        t is bool or (t is int and INT_MIN <= value <= INT_MAX):
                    tree: ExprTree = literal(value)
                else:
                    tree = _decode(value, name, 0)
                if key not in names:
                    names[key] = name
                attrs[key] = tree
        except RecursionError:
            raise ClassAdWireError("ClassAd nested too deeply") from None
        _learn_full_shape(wire_names, mapping, ad)
        return ad
    try:
        return ClassAd._from_pairs(_decode_pairs(mapping, 0))
    except RecursionError:
        raise ClassAdWireError("ClassAd nested too deeply") from None


# Name -> the last ad of each name decoded by ad_from_wire_named: the map, the ad's attrs
# and names, the map's value types and where its floats and lists are; bounded (oldest out
# first)
_NAMED: OrderedDict[str, _Named] = OrderedDict()
_NAMED_MAX: Final = 50_000


class _Named(NamedTuple):
    wire: dict[str, Any]
    attrs: dict[str, ExprTree]
    names: dict[str, str]
    types: tuple[type, ...]
    special: tuple[int, ...]  # the positions of its floats and lists


_SPECIAL: dict[tuple[type, ...], tuple[int, ...]] = {}
"""The positions of the floats and lists of a map whose values have these types (a startd's
slot ads share a few such tuples); bounded."""
_SPECIAL_MAX: Final = 4096


def _named(wire: dict[str, Any], ad: ClassAd) -> _Named:
    types = tuple(map(type, wire.values()))
    special = _SPECIAL.get(types)
    if special is None:
        if len(_SPECIAL) >= _SPECIAL_MAX:
            _SPECIAL.clear()
        special = _SPECIAL[types] = tuple(
            i for i, t in enumerate(types) if t is float or t is list)
    return _Named(wire, dict(ad._attrs), dict(ad._names), types, special)


def _same_map(new: dict[str, Any], old: _Named) -> bool:
    """Whether ``new`` is the same bytes on the wire as the map of ``old`` (``msgpack.packb``
    of each equal), without packing them: equal, keys in the same order, values of the same
    types (``1``, ``1.0`` and ``true`` are equal in Python), a zero float of the same sign,
    and a list (whose items could differ so) compared packed. The same map is the same
    (a payload's ads cut by their bytes share the map of equal bytes: condorsim.wire.codec)."""
    wire = old.wire
    if new is wire:
        return True
    if new != wire or list(new) != list(wire) or tuple(map(type, new.values())) != old.types:
        return False
    if old.special:
        values, before = list(new.values()), list(wire.values())
        for i in old.special:
            a, b = values[i], before[i]
            if type(a) is float:
                if a == 0.0 and math.copysign(1.0, a) != math.copysign(1.0, b):
                    return False
            elif msgpack.packb(a) != msgpack.packb(b):
                return False
    return True


def _changed(new: dict[str, Any], old: _Named) -> ClassAd | None:
    """The ad of ``new``, a map with the names of ``old``'s in the same order (a slot ad
    updated: a few values changed): a value the same as before (by the test of
    :func:`_same_map`) keeps its tree, the others are decoded and checked. None when a
    value does not decode (:func:`ad_from_wire` then says why).

    With every value of the type it had, the values that changed are found by comparing
    the two maps' values in C (``map(operator.eq, ...)``), a float or list among the equal
    ones looked at as :func:`_same_map` does; the ad is the old one's trees with those few
    decoded anew. Otherwise each value is looked at in turn (:func:`_changed_each`)."""
    values = list(new.values())
    if tuple(map(type, values)) != old.types:
        return _changed_each(new, old)
    before = list(old.wire.values())
    equal = list(map(eq, values, before))
    for i in old.special:
        if equal[i]:
            a, b = values[i], before[i]
            if type(a) is float:
                equal[i] = a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b)
            else:
                equal[i] = msgpack.packb(a) == msgpack.packb(b)
    attrs = dict(old.attrs)
    changed = list(compress(range(len(equal)), map(not_, equal)))
    if changed:
        keys, names = list(old.attrs), list(new)
        literal = _literal
        try:
            for i in changed:
                value = values[i]
                t = type(value)
                if (t is str and len(value) <= CACHE_MAX_TEXT and "\0" not in value) or \
                        t is bool or (t is int and INT_MIN <= value <= INT_MAX):
                    attrs[keys[i]] = literal(value)
                else:
                    attrs[keys[i]] = _decode(value, names[i], 0)
        except (ClassAdWireError, RecursionError):
            return None
    ad = ClassAd()
    ad._attrs, ad._names = attrs, dict(old.names)
    return ad


def _changed_each(new: dict[str, Any], old: _Named) -> ClassAd | None:
    """:func:`_changed`, value by value (some value's type is not what it was)."""
    attrs: dict[str, ExprTree] = {}
    literal = _literal
    try:
        for key, tree, name, value, before in zip(old.attrs, old.attrs.values(), new,
                                                  new.values(), old.wire.values(),
                                                  strict=True):
            t = type(value)
            if t is type(before) and value == before and (
                    (t is not float or value != 0.0 or
                     math.copysign(1.0, value) == math.copysign(1.0, before)) and
                    (t is not list or msgpack.packb(value) == msgpack.packb(before))):
                attrs[key] = tree
            elif (t is str and len(value) <= CACHE_MAX_TEXT and "\0" not in value) or \
                    t is bool or (t is int and INT_MIN <= value <= INT_MAX):
                attrs[key] = literal(value)
            else:
                attrs[key] = _decode(value, name, 0)
    except (ClassAdWireError, RecursionError):
        return None
    ad = ClassAd()
    ad._attrs, ad._names = attrs, dict(old.names)
    return ad


def ad_from_wire_named(mapping: Any) -> ClassAd:
    """:func:`ad_from_wire`, for the ads of a query result: an ad with a string ``Name``
    that comes again in exactly the same bytes as the last one of that name is a copy of
    the ad made then (see the module doc). It is a :class:`SealedAd` keeping ``mapping`` as
    its wire form: a negotiator passing a slot ad on in PERMISSION_AND_AD sends the map it
    received instead of encoding the ad again (until the ad is changed)."""
    name = mapping.get("Name") if type(mapping) is dict else None
    if type(name) is not str:
        return ad_from_wire(mapping)
    hit = _NAMED.get(name)
    ad = SealedAd()
    if hit is not None and _same_map(mapping, hit):
        ad._attrs = dict(hit.attrs)
        ad._names = dict(hit.names)
        ad._wire = mapping
        return ad
    fresh = None
    if hit is not None and len(hit.attrs) == len(mapping) and list(mapping) == list(hit.wire):
        fresh = _changed(mapping, hit)
    if fresh is None:
        fresh = ad_from_wire(mapping)
    ad._attrs, ad._names, ad._wire = fresh._attrs, fresh._names, mapping
    if hit is not None:
        del _NAMED[name]
    _NAMED[name] = _named(mapping, ad)
    if len(_NAMED) > _NAMED_MAX:
        _NAMED.popitem(last=False)
    return ad


_ATTRS_SLOT: Final[Any] = ClassAd.__dict__["_attrs"]  # the base's slots, under the
_NAMES_SLOT: Final[Any] = ClassAd.__dict__["_names"]  # properties of LazyAd and StoredAd

_Pending = tuple[dict[str, Any], dict[str, str], dict[str, Any] | None,
                 tuple[tuple[str, str], ...]]
"""What a :class:`LazyAd` or :class:`StoredAd` holds until its trees are made: each
attribute's value by lower-cased name (a plain string, integer or boolean as it came, any
other value its tree), the names as spelled, and for a LazyAd whose map may serve as a
wire form (:func:`ad_from_wire_lazy`'s ``kept``) that map, with the (name, key) of the
values made into trees; None and () otherwise."""


def _lazy_slot(slot: Any) -> Any:
    """A property over one of ClassAd's slots that first makes a lazy ad's trees."""

    def get(self: Any) -> Any:
        if self._pending is not None:
            self._fill()
        return slot.__get__(self)

    def set_(self: Any, value: Any) -> None:
        if self._pending is not None:
            self._fill()
        slot.__set__(self, value)

    return property(get, set_)


def _fill(self: Any) -> None:
    """Make the trees of a lazy ad's checked values (the others were made by the check)."""
    pending = self._pending
    assert pending is not None
    self._pending = None
    values, names = pending[0], pending[1]
    literal = _literal
    attrs: dict[str, ExprTree] = {}
    for key, value in values.items():  # a value left as it came is one of these
        t = type(value)
        attrs[key] = literal(value) if t is str or t is bool or t is int else value
    _ATTRS_SLOT.__set__(self, attrs)
    _NAMES_SLOT.__set__(self, names)


def _evaluate(self: Any, name: str, target: ClassAd | None = None,
              ctx: EvalContext | None = None) -> Value:
    """A lazy ad's evaluate: a plain value, a constant tree or a missing name read from the
    pending values (what ClassAd.evaluate returns for them); anything else makes the trees."""
    pending = self._pending
    if pending is not None:
        key = name.lower()
        value = pending[0].get(key)
        t = type(value)
        if t is str or t is int or t is bool:
            return value
        if value is None:
            if target is None and key not in SPECIAL_NAMES:
                return UNDEFINED  # as ClassAd.evaluate: no attribute, no enclosing ad
        else:
            const = value._const
            if const is not NOT_CONST:  # as ClassAd.evaluate: a literal needs no evaluation
                return const
    return ClassAd.evaluate(self, name, target, ctx)


def _contains(self: Any, name: object) -> bool:
    pending = self._pending
    if pending is not None:
        return isinstance(name, str) and name.lower() in pending[0]
    return ClassAd.__contains__(self, name)


def _names_of(self: Any) -> tuple[str, ...]:
    pending = self._pending
    if pending is not None:  # the names of a trace record, of each ad sent
        return tuple(pending[1].values())
    return ClassAd.names(self)


class _Lazy:
    """What :class:`LazyAd` and :class:`StoredAd` share: pending values (each class's own
    ``_pending`` slot) read by ``evaluate``, ``in`` and ``names``, and the base's two dicts
    made from them at their first use. First among the bases, so that its properties stand
    in front of :class:`ClassAd`'s slots."""

    __slots__ = ()
    _pending: _Pending | None

    def __init__(self, attrs: Any = None) -> None:
        self._pending = None  # type: ignore[misc]  # the slot is each subclass's own
        super().__init__(attrs)  # type: ignore[call-arg]  # ClassAd's, next in the MRO

    _fill = _fill
    # the base's two dicts, made from the pending values at their first use
    _attrs = _lazy_slot(_ATTRS_SLOT)
    _names = _lazy_slot(_NAMES_SLOT)
    evaluate = _evaluate
    __contains__ = _contains
    names = _names_of


class LazyAd(_Lazy, ClassAd):
    """The ad of a wire map that :func:`ad_from_wire_lazy` checked in full, whose literal
    trees are made when the ad is first used as a whole: until then :meth:`evaluate` of a
    plain string, integer or boolean attribute, a constant, or a missing one reads the pending
    values, which is what its literal evaluates to, and ``in`` and :meth:`names` read their
    names. For an ad a
    daemon receives and mostly drops unread (the schedd reads a matched slot ad's Name and
    MyAddress, and claims with the startd's own), or stores (the collector: a LazyAd of an
    update, made a :class:`StoredAd` by :meth:`SealedAd.of`).
    Any other use makes the whole ad first: it is then the ad :func:`ad_from_wire` makes."""

    __slots__ = ("_pending",)


class StoredAd(_Lazy, SealedAd):
    """A :class:`SealedAd` made of a :class:`LazyAd` whose map serves as its wire form
    (:meth:`SealedAd.of`; the collector's stored ads, issue 16): lazy as the LazyAd, and
    its wire form that map, each value made into a tree encoded again (as
    :func:`ad_to_wire` would), until the ad is used as a whole. Setting a name to a tree
    while it is lazy sets the value in the kept wire form too (the collector's
    LastHeardFrom); any other change makes the trees and drops the wire form, as a
    SealedAd's. Its wire form and packed bytes are always those of the ad made in full."""

    __slots__ = ("_pending",)

    def __setitem__(self, name: str, value: Any) -> None:
        pending, wire = self._pending, self._wire
        if pending is not None and wire is not None and isinstance(value, ExprTree) and \
                type(name) is str and name and name.isascii() and "\0" not in name:
            # ClassAd.__setitem__'s checks pass for this name and tree: _store's work, on
            # the pending values and the wire form
            values, names = pending[0], pending[1]
            key = name.lower()
            spelled = names.get(key)
            if spelled is None:
                spelled = names[key] = name
            values[key] = value
            wire[spelled] = _encode_tree(value)  # the names are the wire form's keys
            self._packed = None
            return
        super().__setitem__(name, value)


def _stored(ad: LazyAd) -> StoredAd | None:
    """The :class:`StoredAd` of ``ad``, a LazyAd not used as a whole whose map was kept;
    None for any other."""
    pending = ad._pending
    if pending is None or pending[2] is None:
        return None
    values, names, mapping, others = pending
    wire = dict(mapping)  # type: ignore[arg-type]  # not None: tested above
    for name, key in others:  # the values that are trees, encoded as ad_to_wire does
        wire[name] = _encode_tree(values[key])
    stored = StoredAd.__new__(StoredAd)
    stored._parent = None
    stored._shared = False
    stored._pending = (dict(values), dict(names), None, ())
    stored._wire = wire
    stored._packed = None
    return stored


class _Shape(NamedTuple):
    """The names of a wire map checked by :func:`ad_from_wire_lazy` (no two the same
    lower-cased), and the types of its values then, by kind."""

    wire_names: list[str]
    keys: tuple[str, ...]
    names: dict[str, str]  # key -> name as spelled
    types: tuple[type, ...]
    strs: Any  # an itemgetter of the values' plain strings (a tuple of them), or None
    ints: Any  # the same for the integers
    others: tuple[int, ...]  # the places of the values made into trees (neither, nor a bool)
    other_names: tuple[tuple[str, str], ...]  # and their (name, key)


_LAZY_SHAPES: dict[tuple[str, ...], _Shape] = {}
"""The shapes of the last maps :func:`ad_from_wire_lazy` decoded in full, by their names:
the last of each (a pool's slot ads have a few, claimed or not, and its collector receives
schedd and submitter ads between them); bounded (cleared when full)."""
_LAZY_SHAPES_MAX: Final = 64


def _getter(places: list[int]) -> Any:
    """An itemgetter giving a tuple of the items at ``places`` (None for none)."""
    if not places:
        return None
    if len(places) == 1:
        return lambda values: (values[places[0]],)
    return itemgetter(*places)


def _learn_shape(mapping: dict[Any, Any], values: dict[str, Any], names: dict[str, str]) -> None:
    """Keep the shape of ``mapping``, just decoded into ``values`` and ``names``."""
    if len(values) != len(mapping):  # two names the same lower-cased: no shape
        return
    if len(_LAZY_SHAPES) >= _LAZY_SHAPES_MAX:
        _LAZY_SHAPES.clear()  # a bound, not an order: the shapes in use come back at once
    types = tuple(map(type, mapping.values()))
    strs = [i for i, t in enumerate(types) if t is str]
    ints = [i for i, t in enumerate(types) if t is int]
    others = tuple(i for i, t in enumerate(types) if t is not str and t is not int
                   and t is not bool)
    wire_names, keys = list(mapping), tuple(values)
    _LAZY_SHAPES[tuple(wire_names)] = _Shape(wire_names, keys, dict(names), types,
                                             _getter(strs), _getter(ints), others,
                                             tuple((wire_names[i], keys[i]) for i in others))


def _lazy_shaped(mapping: dict[Any, Any], kept: bool = False) -> _Pending | None:
    """The pending values :func:`ad_from_wire_lazy` makes of ``mapping``, when it has the
    names of a kept shape (so checked then) and values of the same types, its strings and
    integers plain ones (short, no NUL, 64 bits): checked by C-level passes over them. None
    otherwise (the general loop decides, and raises where the map is bad)."""
    shape = _LAZY_SHAPES.get(tuple(mapping))
    if shape is None:
        return None
    wire = tuple(mapping.values())
    if not _plain(wire, shape):
        return None
    values = dict(zip(shape.keys, wire, strict=True))
    keys, wire_names = shape.keys, shape.wire_names
    for i in shape.others:  # in the map's order: the first bad one raises, as the loop's
        values[keys[i]] = _decode(wire[i], wire_names[i], 0)
    if kept:
        return values, dict(shape.names), mapping, shape.other_names
    return values, dict(shape.names), None, ()


def ad_from_wire_lazy(mapping: Any, kept: bool = False) -> ClassAd:
    """:func:`ad_from_wire` with every check made now and the literal trees left to the
    ad's first use as a whole (a :class:`LazyAd`); raises as :func:`ad_from_wire` does.
    A map of a shape seen last time (:func:`_lazy_shaped`) is checked by C-level passes.

    ``kept``: ``mapping`` is what msgpack decoded (its strings are UTF-8) and no one
    changes it; the ad keeps it, when no two of its names are the same lower-cased, for
    :meth:`SealedAd.of` to make the wire form of a :class:`StoredAd` of it."""
    if type(mapping) is not dict:
        return ad_from_wire(mapping)
    try:
        shaped = _lazy_shaped(mapping, kept)
    except RecursionError:
        raise ClassAdWireError("ClassAd nested too deeply") from None
    if shaped is not None:
        ad = LazyAd.__new__(LazyAd)
        ad._parent = None
        ad._shared = False
        ad._pending = shaped
        return ad
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    others: list[tuple[str, str]] = []
    lowered = _LOWERED
    try:
        # the same checks as ad_from_wire's loop, kept inline in both: change them together
        for name, value in mapping.items():
            key = lowered.get(name) if type(name) is str else None
            if key is None:
                key = _checked_key(name)
            t = type(value)
            if not ((t is str and len(value) <= CACHE_MAX_TEXT and "\0" not in value) or
                    t is bool or (t is int and INT_MIN <= value <= INT_MAX)):
                value = _decode(value, name, 0)  # a tree: checked, made now
                others.append((name, key))
            if key not in names:
                names[key] = name
            values[key] = value
    except RecursionError:
        raise ClassAdWireError("ClassAd nested too deeply") from None
    _learn_shape(mapping, values, names)
    ad = LazyAd.__new__(LazyAd)
    ad._parent = None
    ad._shared = False
    ad._pending = (values, names, mapping, tuple(others)) if kept and \
        len(values) == len(mapping) else (values, names, None, ())
    return ad
