"""A DerivedAd (a SealedAd's copy that encodes only what was set on it) has the wire form
the plain way gives the same ad: the same names in the same order, the same values."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.classad import (
    ClassAd,
    ClassAdValueError,
    DerivedAd,
    SealedAd,
    ad_to_wire,
    derive,
    parse_expr,
)
from condorsim.classad._wire import _encode_pairs

NAMES = ["Name", "name", "NAME", "State", "Activity", "Cpus", "LoadAvg", "START", "start",
         "Requirements", "X", "y", "Zz", "ñame"]
VALUES = st.one_of(
    st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.booleans(),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=6),
    st.sampled_from(["Cpus > 1", "START && TARGET.X == 2", "{1, 2}", "[a = 1]",
                     "undefined"]).map(parse_expr),
)


def _plain(ad: ClassAd) -> list[tuple[str, bytes]]:
    """The plain way's wire form, item by item, each value packed (types, float signs)."""
    wire = _encode_pairs(zip(ad._names.values(), ad._attrs.values(), strict=True))
    return [(k, msgpack.packb(v)) for k, v in wire.items()]


def _kept(ad: ClassAd) -> list[tuple[str, bytes]]:
    return [(k, msgpack.packb(v)) for k, v in ad_to_wire(ad).items()]


@st.composite
def steps(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(["set", "update", "update_ad", "update_pairs", "kwargs",
                                 "del", "clear", "pop", "setdefault", "bad"]))
    pairs = draw(st.lists(st.tuples(st.sampled_from(NAMES), VALUES), max_size=4))
    return kind, pairs


def _apply(ad: ClassAd, kind: str, pairs: list[tuple[str, Any]]) -> None:
    if kind == "set":
        for name, value in pairs:
            ad[name] = value
    elif kind == "update":
        ad.update(dict(pairs))
    elif kind == "update_ad":
        other = ClassAd()
        for name, value in pairs:
            other[name] = value
        ad.update(other)
    elif kind == "update_pairs":
        ad.update(iter(pairs))
    elif kind == "kwargs":
        ad.update(**{name: value for name, value in pairs if name.isascii()})
    elif kind == "del":
        for name, _ in pairs:
            if name in ad:
                del ad[name]
    elif kind == "clear":
        ad.clear()
    elif kind == "pop":
        for name, _ in pairs:
            ad.pop(name, None)
    elif kind == "setdefault":
        for name, value in pairs:
            ad.setdefault(name, value)
    elif kind == "bad":  # a bad name part way through: what was set before it stays set
        with pytest.raises(ClassAdValueError):
            ad.update([*pairs, ("", 1)])


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(NAMES), VALUES), max_size=10),
       st.lists(steps(), max_size=6))
def test_a_derived_ad_encodes_as_the_plain_way(base_pairs: list[tuple[str, Any]],
                                               ops: list[tuple[str, Any]]) -> None:
    base = SealedAd()
    for name, value in base_pairs:
        base[name] = value
    derived = derive(base)
    plain = base.copy()
    assert type(derived) is DerivedAd
    assert _kept(derived) == _plain(plain)
    for kind, pairs in ops:
        _apply(derived, kind, pairs)
        _apply(plain, kind, pairs)
        assert derived == plain
        assert derived.names() == plain.names()
        assert _kept(derived) == _plain(plain)
    before = _plain(plain)
    base["Later"] = 1  # a change to the base after the copy does not reach it
    base["Name"] = "changed"
    assert _kept(derived) == before


def test_unchanged_attributes_keep_the_bases_wire_values() -> None:
    base = SealedAd.of(ClassAd({"Name": "slot1@m", "Req": parse_expr("Cpus > 1"),
                                "State": ""}))
    ad = derive(base)
    ad.update({"State": "Unclaimed", "New": 2})
    ad["name"] = "slot1@m"  # set again: the base's spelling and place stay
    assert list(ad_to_wire(ad).items()) == [
        ("Name", "slot1@m"), ("Req", msgpack.ExtType(3, b"Cpus > 1")),
        ("State", "Unclaimed"), ("New", 2)]
    del ad["New"]
    assert ad._base_wire is None and list(ad_to_wire(ad)) == ["Name", "Req", "State"]
