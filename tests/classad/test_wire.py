"""The msgpack wire form: layout, lossless round trips, and rejection of bad input."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_eval_diff import EXPRESSIONS

from condorsim.classad import (
    ERROR,
    UNDEFINED,
    ClassAd,
    ClassAdWireError,
    ad_from_wire,
    ad_to_wire,
    parse_expr,
)


def test_layout() -> None:
    ad = ClassAd.parse(
        '[ Name = "slot1"; Cpus = 4; Load = 0.5; Busy = false; U = undefined; E = error;'
        " L = { 1, \"a\", true }; Req = Cpus > 2; N = [ a = 1; b = a ]; LE = { 1, x } ]"
    )
    wire = ad_to_wire(ad)
    assert wire["Name"] == "slot1" and wire["Cpus"] == 4 and wire["Load"] == 0.5
    assert wire["Busy"] is False
    assert wire["U"] == msgpack.ExtType(1, b"")
    assert wire["E"] == msgpack.ExtType(2, b"")
    assert wire["L"] == [1, "a", True]
    assert wire["Req"] == msgpack.ExtType(3, b"Cpus > 2")
    assert wire["LE"] == msgpack.ExtType(3, b"{ 1,x }")
    assert wire["N"].code == 4
    assert msgpack.unpackb(wire["N"].data, raw=False) == {"a": 1, "b": msgpack.ExtType(3, b"a")}
    back = ad_from_wire(msgpack.unpackb(msgpack.packb(wire), raw=False))
    assert back == ad
    assert list(back) == list(ad)
    assert back.evaluate("N").evaluate("b") == 1


VALUES = st.recursive(
    st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(),
        st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=8),
        st.just(UNDEFINED),
        st.just(ERROR),
    ),
    lambda children: st.lists(children, max_size=3),
    max_leaves=6,
)


@st.composite
def ads(draw: st.DrawFn, depth: int = 0) -> ClassAd:
    ad = ClassAd()
    text = st.characters(blacklist_characters="\0", blacklist_categories=("Cs",))
    names = draw(st.lists(st.text(text, min_size=1, max_size=6), max_size=5, unique_by=str.lower))
    for name in names:
        kind = draw(st.integers(0, 3 if depth < 2 else 2))
        if kind == 0:
            ad[name] = draw(VALUES)
        elif kind == 1:
            ad[name] = parse_expr(draw(EXPRESSIONS))
        elif kind == 2:
            ad[name] = draw(st.text(text, max_size=5).map(lambda s: s + "\udcff"))  # not UTF-8
        else:
            ad[name] = draw(ads(depth + 1))
    return ad


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(ads())
def test_round_trip_is_lossless(ad: ClassAd) -> None:
    data = msgpack.packb(ad_to_wire(ad))
    back = ad_from_wire(msgpack.unpackb(data, raw=False))
    assert back == ad
    assert list(back) == list(ad)


BAD: list[tuple[Any, str]] = [
    ([1, 2], "not a map"),
    ({1: 2}, "attribute name"),
    ({"": 1}, "attribute name"),
    ({"a": None}, "'a'"),
    ({"a": {"x": 1}}, "'a'"),
    ({"a": 2**64}, "outside 64 bits"),
    ({"a": msgpack.ExtType(1, b"x")}, "carries data"),
    ({"a": msgpack.ExtType(3, b"1 +")}, "bad expression"),
    ({"a": msgpack.ExtType(3, b"\xff")}, "not UTF-8"),
    ({"a": msgpack.ExtType(4, b"\xc1")}, "bad nested ad"),
    ({"a": msgpack.ExtType(4, msgpack.packb([1]))}, "not a map"),
    ({"a": msgpack.ExtType(9, b"")}, "unknown ext type"),
    ({"a": b"bytes"}, "'a'"),
    ({"a": "nul\0"}, "NUL"),
]


@pytest.mark.parametrize(("data", "message"), BAD)
def test_malformed_input_raises_our_error(data: Any, message: str) -> None:
    with pytest.raises(ClassAdWireError, match=message):
        ad_from_wire(data)


def test_deep_nesting_is_refused() -> None:
    inner: Any = 1
    for _ in range(40):
        inner = msgpack.ExtType(4, msgpack.packb({"x": inner}))
    with pytest.raises(ClassAdWireError, match="nested"):
        ad_from_wire({"a": inner})
    deep_list: Any = 1
    for _ in range(40):
        deep_list = [deep_list]
    with pytest.raises(ClassAdWireError, match="nested"):
        ad_from_wire({"a": deep_list})
