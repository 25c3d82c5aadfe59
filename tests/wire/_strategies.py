"""Hypothesis strategies for wire messages, built from their field annotations."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any

import msgpack
from hypothesis import strategies as st

from condorsim.classad import ClassAd, ad_from_wire
from condorsim.wire import Message
from condorsim.wire import messages as catalogue

# ClassAd attribute names: identifiers, unique regardless of case (as ClassAds compare names).
attr_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True).map(lambda s: "A" + s)
expressions = st.sampled_from(
    [b"Cpus * 2", b"MY.Memory >= TARGET.RequestMemory", b"ifThenElse(isUndefined(x), 1, 2.5)"]
)
literals = st.recursive(
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    # No infinities, NUL or lone surrogates: a list holding one of them and an expression
    # travels as ClassAd text, which does not read back equal (a ClassAd-package matter).
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=20)
    | st.just(msgpack.ExtType(1, b""))  # UNDEFINED
    | st.just(msgpack.ExtType(2, b""))  # ERROR
    | st.builds(msgpack.ExtType, st.just(3), expressions),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=8,
)


msgpack_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=12)
    | st.binary(max_size=12)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8))
)
"""Any msgpack scalar, extension types included (the fuzz tests' leaves)."""


@st.composite
def classads(draw: st.DrawFn) -> ClassAd:
    names = draw(st.lists(attr_names, max_size=8, unique_by=str.lower))
    return ad_from_wire({name: draw(literals) for name in names})


def strategy_for(tp: Any) -> st.SearchStrategy[Any]:
    """A strategy of values for a message field annotated ``tp``."""
    simple: dict[Any, st.SearchStrategy[Any]] = {
        int: st.integers(min_value=-(2**63), max_value=2**64 - 1),
        float: st.floats(allow_nan=False),
        bool: st.booleans(),
        str: st.text(max_size=30),
        bytes: st.binary(max_size=30),
    }
    if tp in simple:
        return simple[tp]
    if tp is ClassAd:
        return classads()
    if tp is Message:
        return st.sampled_from([catalogue.OK(), catalogue.ALIVE(claim_id="c")])
    if isinstance(tp, type) and issubclass(tp, Message):
        return messages_of(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        return st.one_of([st.none() if a is type(None) else strategy_for(a) for a in args])
    if origin is list:
        return st.lists(strategy_for(args[0]), max_size=4)
    if origin is tuple and args[-1] is Ellipsis:
        return st.lists(strategy_for(args[0]), max_size=4).map(tuple)
    if origin is tuple:
        return st.tuples(*(strategy_for(a) for a in args))
    if origin is dict:
        return st.dictionaries(st.text(max_size=10), strategy_for(args[1]), max_size=4)
    raise AssertionError(f"no strategy for {tp!r}")


@functools.cache
def messages_of(cls: type[Message]) -> st.SearchStrategy[Message]:
    """Messages of ``cls``, every field drawn from its annotation. Built once per class
    (a strategy is immutable): resolving the annotations is most of the cost of building
    it, and the tests draw from it for every example."""
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    return st.builds(cls, **{name: strategy_for(hints[name]) for name in names})
