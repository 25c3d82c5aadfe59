"""The wire form's caches change nothing a caller can see: same ads, no shared state."""

from __future__ import annotations

import math

import msgpack
import pytest

from condorsim.classad import ClassAd, ClassAdWireError, _wire, ad_from_wire, ad_to_wire, parse_expr


def _through_bytes(ad: ClassAd) -> ClassAd:
    return ad_from_wire(msgpack.unpackb(msgpack.packb(ad_to_wire(ad)), raw=False))


def test_typed_scalars_stay_distinct_whatever_was_decoded_first() -> None:
    first = ad_from_wire({"A": 1, "B": 1.0, "C": True, "D": 0.0, "E": -0.0, "F": "1"})
    again = ad_from_wire({"F": "1", "E": -0.0, "D": 0.0, "C": True, "B": 1.0, "A": 1})
    for ad in (first, again):
        values = {name: ad[name].literal_value for name in "ABCDEF"}
        assert [type(values[n]) for n in "ABCDEF"] == [int, float, bool, float, float, str]
        assert math.copysign(1, values["D"]) == 1.0
        assert math.copysign(1, values["E"]) == -1.0
        assert str(ad["E"]) == "-0.0"


def test_nan_round_trips() -> None:
    ad = ad_from_wire({"X": float("nan")})
    assert math.isnan(ad["X"].literal_value)
    assert math.isnan(ad_from_wire({"X": float("nan")})["X"].literal_value)


def test_an_ad_decoded_twice_is_two_independent_ads() -> None:
    wire = ad_to_wire(ClassAd.parse('[ Cpus = 4; Req = MY.Cpus > 2 && TARGET.X == "a" ]'))
    one, two = ad_from_wire(wire), ad_from_wire(wire)
    assert one == two
    one["Cpus"] = 1
    one["Extra"] = parse_expr("Cpus + 1")
    assert two.evaluate("Cpus") == 4 and "Extra" not in two
    # The expression tree may be shared; its value depends on the ad it is evaluated in.
    target = ClassAd({"X": "a"})
    assert one["Req"].evaluate(one, target) is False
    assert two["Req"].evaluate(two, target) is True


def test_a_bad_expression_is_refused_every_time() -> None:
    bad = {"Req": msgpack.ExtType(3, b"Cpus >")}
    for _ in range(2):
        with pytest.raises(ClassAdWireError, match="'Req': bad expression"):
            ad_from_wire(bad)


def test_checks_still_name_the_attribute_for_values_seen_before() -> None:
    ad_from_wire({"Ok": "x"})
    with pytest.raises(ClassAdWireError, match="'Bad': NUL"):
        ad_from_wire({"Bad": "x\0"})
    with pytest.raises(ClassAdWireError, match="'Big': integer"):
        ad_from_wire({"Big": 2**63})


def test_encoding_follows_a_changed_attribute() -> None:
    ad = ClassAd.parse("[ Req = Cpus > 2 ]")
    assert ad_to_wire(ad)["Req"] == msgpack.ExtType(3, b"Cpus > 2")
    ad["Req"] = parse_expr("Cpus > 3")
    assert ad_to_wire(ad)["Req"] == msgpack.ExtType(3, b"Cpus > 3")


def test_equal_trees_keep_their_own_spelling() -> None:
    # Equal as trees (a nested ad's names compare without case), different as text.
    lower = ClassAd.parse("[ X = [ a = 1 ].a ]")
    upper = ClassAd.parse("[ X = [ A = 1 ].a ]")
    assert lower["X"] == upper["X"]
    assert ad_to_wire(lower)["X"] != ad_to_wire(upper)["X"]
    assert ad_to_wire(upper)["X"].data.startswith(b"[ A = 1 ]")


def test_long_values_round_trip_uncached() -> None:
    long_text = "x" * (_wire.CACHE_MAX_TEXT + 1)
    long_expr = " || ".join(f"Attr{i} == {i}" for i in range(200))
    ad = ClassAd({"S": long_text, "E": parse_expr(long_expr)})
    assert _through_bytes(ad) == ad
    assert _through_bytes(ad) == ad


def test_caches_are_bounded() -> None:
    for i in range(_wire._TEXTS_MAX + 500):
        ad = ClassAd({"E": parse_expr(f"Cpus > {i}"), "S": f"s{i}", "I": i})
        assert _through_bytes(ad) == ad
    assert len(_wire._TEXTS) <= _wire._TEXTS_MAX
    assert _wire._expression.cache_info().currsize <= 4096
    assert _wire._literal.cache_info().currsize <= 8192
