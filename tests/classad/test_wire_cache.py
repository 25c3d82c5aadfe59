"""The wire form's caches change nothing a caller can see: same ads, no shared state."""

from __future__ import annotations

import math

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import (
    UNDEFINED,
    ClassAd,
    ClassAdWireError,
    _wire,
    ad_from_wire,
    ad_to_wire,
    parse_expr,
)


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


# -- the ads a pool sends again and again (issue 16, P2) ------------------------------------


def test_a_named_ad_decoded_again_is_an_equal_independent_ad() -> None:
    from condorsim.classad import ad_from_wire_named

    wire = ad_to_wire(ClassAd.parse('[ Name = "slot1@m"; Cpus = 4; Req = MY.Cpus > 2 ]'))
    one = ad_from_wire_named(dict(wire))
    two = ad_from_wire_named(dict(wire))
    assert one == two == ad_from_wire(wire)
    one["Cpus"] = 1
    one["Extra"] = 2
    three = ad_from_wire_named(dict(wire))
    assert two.evaluate("Cpus") == 4 and "Extra" not in two
    assert three.evaluate("Cpus") == 4 and "Extra" not in three


@pytest.mark.parametrize("before, after", [(1, True), (1, 1.0), (0.0, -0.0), (2, 3), ("a", "b"),
                                           ([1, 2], [1, 2.0]), ([0.0], [-0.0])])
def test_a_named_ad_that_changed_in_value_or_type_is_decoded_anew(before: object,
                                                                   after: object) -> None:
    from condorsim.classad import ad_from_wire_named

    ad_from_wire_named({"Name": "slot2@m", "X": before})
    ad = ad_from_wire_named({"Name": "slot2@m", "X": after})
    if isinstance(after, list):
        assert str(ad["X"]) == str(ad_from_wire({"X": after})["X"])
        return
    value = ad["X"].literal_value
    assert type(value) is type(after) and value == after
    if isinstance(after, float):
        assert math.copysign(1, value) == math.copysign(1, after)


def test_a_bad_named_ad_is_refused_every_time() -> None:
    from condorsim.classad import ad_from_wire_named

    for _ in range(2):
        with pytest.raises(ClassAdWireError):
            ad_from_wire_named({"Name": "slot3@m", "X": msgpack.ExtType(3, b"1 +")})


def test_a_sealed_ad_sends_what_it_holds_after_a_change() -> None:
    from condorsim.classad import SealedAd

    ad = SealedAd.of(ClassAd.parse('[ Name = "s"; Cpus = 4 ]'))
    first = ad_to_wire(ad)
    assert ad_to_wire(ad) is first  # kept
    ad["Cpus"] = 8
    assert ad_to_wire(ad)["Cpus"] == 8
    ad.update({"Memory": 10})
    assert ad_to_wire(ad)["Memory"] == 10
    del ad["Memory"]
    assert "Memory" not in ad_to_wire(ad)
    assert _through_bytes(ad) == ClassAd.parse('[ Name = "s"; Cpus = 8 ]')


def test_a_named_ad_passed_on_sends_the_map_it_came_in_until_changed() -> None:
    """A negotiator's slot ad goes on to the schedd in PERMISSION_AND_AD as it came from
    the collector; changed (a preempting match's copy gets the priorities), it is encoded
    anew."""
    from condorsim.classad import ad_from_wire_named

    wire = ad_to_wire(ClassAd.parse('[ Name = "slot4@m"; Cpus = 4; Req = MY.Cpus > 2 ]'))
    for _ in range(2):  # decoded anew, then from the cache
        received = dict(wire)
        ad = ad_from_wire_named(received)
        assert ad_to_wire(ad) is received
        assert _through_bytes(ad) == ad_from_wire(wire)
    ad["Cpus"] = 1
    assert ad_to_wire(ad) is not received and ad_to_wire(ad)["Cpus"] == 1
    assert received["Cpus"] == 4  # the map it came in is not changed
    copy = ad_from_wire_named(dict(wire)).copy()
    copy["RemoteUserPrio"] = 2.5
    assert ad_to_wire(copy)["RemoteUserPrio"] == 2.5


_SCALARS = st.one_of(st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=64),
                     st.sampled_from([0.0, -0.0, 1.0]), st.text(max_size=3))
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3),
                    st.builds(msgpack.ExtType, st.sampled_from([3, 6]),
                              st.binary(max_size=3)))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["A", "B", "C", "Name"]), _VALUES, max_size=4),
       st.dictionaries(st.sampled_from(["A", "B", "C", "Name"]), _VALUES, max_size=4))
def test_a_named_map_is_the_same_exactly_when_its_bytes_are(a: dict, b: dict) -> None:
    """The cache of named ads compares a map with the last one of its name without packing
    it; it says "the same" exactly when msgpack packs the two into the same bytes."""
    for other in (b, dict(a), {**a, **dict(list(b.items())[:1])}, dict(reversed(a.items()))):
        same = _wire._same_map(other, _wire._named(a, ClassAd()))
        assert same == (msgpack.packb(a) == msgpack.packb(other))


_DECODABLE = st.one_of(st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=64),
                       st.sampled_from([0.0, -0.0, 1.0]), st.text("ab\u00e9", max_size=3),
                       st.lists(st.one_of(st.integers(0, 1), st.sampled_from([0.0, -0.0])),
                                max_size=2))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_DECODABLE, _DECODABLE, st.booleans()), min_size=1, max_size=5))
def test_a_named_ad_updated_in_a_few_values_is_the_ad_decoded_anew(values: list) -> None:
    """A slot ad that comes again with some values changed keeps the trees of the others;
    it is the ad a fresh decode gives, value types and all."""
    from condorsim.classad import ad_from_wire_named

    before = {"Name": "slot9@m", **{f"A{i}": a for i, (a, _, _) in enumerate(values)}}
    after = {"Name": "slot9@m", **{f"A{i}": b if change else a
                                  for i, (a, b, change) in enumerate(values)}}
    ad_from_wire_named(before)
    got = ad_from_wire_named(dict(after))
    want = ad_from_wire(after)
    assert str(got) == str(want)
    for name in want:
        if want[name].is_literal:
            a, b = got[name].literal_value, want[name].literal_value
            assert type(a) is type(b) and str(a) == str(b)
        else:  # a list
            assert str(got[name]) == str(want[name])


_LAZY_VALUES = st.one_of(_DECODABLE, st.integers(), st.text("a\0", max_size=2),
                         st.builds(msgpack.ExtType, st.sampled_from([1, 3, 6, 9]),
                                   st.binary(max_size=3)))


def _decoded_or_refused_alike(wire: dict) -> ClassAd | None:
    """The ad a full decode makes of ``wire``; None when it refuses it, after checking that
    the lazy decode refuses it with the same error."""
    from condorsim.classad import ad_from_wire_lazy

    try:
        return ad_from_wire(wire)
    except ClassAdWireError as e:
        with pytest.raises(ClassAdWireError) as got:
            ad_from_wire_lazy(wire)
        assert str(got.value) == str(e)
        return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "a", "B", "Name", "", "x\0"]), _LAZY_VALUES),
                max_size=5),
       st.lists(st.sampled_from(["A", "b", "NAME", "Missing", "MY"]), max_size=3))
def test_a_lazy_ad_is_checked_now_and_is_the_ad_decoded_in_full(
        pairs: list, reads: list) -> None:
    """A slot ad the schedd receives in PERMISSION_AND_AD is checked when it arrives (the same
    error as a full decode, for any malformed map) and makes its trees at first use: what it
    evaluates to before and after, and the ad it then is, are those of a full decode."""
    from condorsim.classad import LazyAd, ad_from_wire_lazy

    wire = dict(pairs)
    want = _decoded_or_refused_alike(wire)
    if want is None:
        return
    lazy = ad_from_wire_lazy(wire)
    assert type(lazy) is LazyAd

    def same(a: object, b: object) -> bool:  # MY is the ad itself
        if isinstance(b, ClassAd):
            return isinstance(a, ClassAd) and a == b
        return type(a) is type(b) and str(a) == str(b)

    for name in reads:  # before the trees are made (plain values, missing names)...
        assert same(lazy.evaluate(name), want.evaluate(name))
    assert lazy == want and str(lazy) == str(want) and list(lazy) == list(want)
    for name in reads:  # ... and after
        assert same(lazy.evaluate(name), want.evaluate(name))
    assert ad_to_wire(lazy) == ad_to_wire(want)


def test_a_lazy_ad_changed_before_use_keeps_its_other_values() -> None:
    from condorsim.classad import ad_from_wire_lazy

    lazy = ad_from_wire_lazy({"Name": "slot1@m", "Cpus": 4, "Req": msgpack.ExtType(3, b"Cpus > 2")})
    assert lazy.evaluate("name") == "slot1@m" and lazy.evaluate("Nope") is UNDEFINED
    lazy["Cpus"] = 1
    assert lazy.evaluate("Req") is False and lazy.evaluate("Name") == "slot1@m"
    assert list(lazy) == ["Name", "Cpus", "Req"]
    copy = lazy.copy()
    del lazy["Name"]
    assert copy.evaluate("Name") == "slot1@m" and "Name" not in lazy


_SHAPED_VALUES = st.one_of(_LAZY_VALUES, st.just("x" * (_wire.CACHE_MAX_TEXT + 1)),
                           st.integers(-(2**64), 2**64))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "Name", "Cpus", "Req"]), _DECODABLE,
                          _SHAPED_VALUES, st.booleans()), min_size=1, max_size=5,
                unique_by=lambda p: p[0]),
       st.lists(st.sampled_from(["A", "b", "NAME", "Missing"]), max_size=3))
def test_a_lazy_ad_of_the_last_shape_is_checked_and_decoded_as_any(
        items: list, reads: list) -> None:
    """The slot ads of a storm's PERMISSION_AND_ADs have one shape (names, value types):
    a map with the last one's names and types is checked by passes over its strings and
    integers. It gives what a full decode gives: the same error for a bad value (a NUL, an
    integer past 64 bits), the same ad (a long string is a tree) -- and it is that path
    that decodes it when the checks pass."""
    from condorsim.classad import ad_from_wire_lazy

    first = {name: a for name, a, _, _ in items}
    ad_from_wire_lazy(first)  # learns the shape
    # each value again, or another (of the same type or not)
    second = {name: b if change else a for name, a, b, change in items}
    want = _decoded_or_refused_alike(second)
    if want is None:
        return
    shaped = _wire._lazy_shaped(second)
    plain = all(type(v) is not str or (len(v) <= _wire.CACHE_MAX_TEXT and "\0" not in v)
                for v in second.values())
    if [type(v) for v in first.values()] == [type(v) for v in second.values()] and plain:
        assert shaped is not None
    lazy = ad_from_wire_lazy(second)
    for name in reads:
        a, b = lazy.evaluate(name), want.evaluate(name)
        assert type(a) is type(b) and str(a) == str(b)
    assert lazy == want and str(lazy) == str(want) and list(lazy) == list(want)
    assert ad_to_wire(lazy) == ad_to_wire(want)


def test_a_lazy_ad_of_another_shape_is_decoded_by_the_loop() -> None:
    from condorsim.classad import ad_from_wire_lazy

    _wire._LAZY_SHAPES.clear()  # the shapes other tests left (of these names in any order)
    ad_from_wire_lazy({"Name": "slot1@m", "Cpus": 4})
    assert _wire._lazy_shaped({"Name": "slot2@m", "Cpus": 8}) is not None
    assert _wire._lazy_shaped({"Name": "slot2@m", "Cpus": "8"}) is None  # a type changed
    assert _wire._lazy_shaped({"Cpus": 8, "Name": "slot2@m"}) is None  # another order
    with pytest.raises(ClassAdWireError, match="'Name': NUL"):
        ad_from_wire_lazy({"Name": "slot\0", "Cpus": 8})
    with pytest.raises(ClassAdWireError, match="outside 64 bits"):
        ad_from_wire_lazy({"Name": "slot2@m", "Cpus": 2**63})
    twice = {"Name": "a", "name": "b"}
    assert str(ad_from_wire_lazy(twice)) == str(ad_from_wire(twice))
    assert tuple(twice) not in _wire._LAZY_SHAPES  # two names alike: no shape kept


def _by_the_loop(wire: dict) -> ClassAd:
    """The ad of ``wire`` made attribute by attribute (no shape asked)."""
    return ClassAd._from_pairs(_wire._decode_pairs(wire, 0))


def _seen_twice(wire: dict) -> None:
    for _ in range(2):
        try:
            ad_from_wire(wire)
        except ClassAdWireError:
            pass


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "Name", "Cpus", "Req", "F"]), _DECODABLE,
                          _SHAPED_VALUES, st.booleans()), min_size=1, max_size=6,
                unique_by=lambda p: p[0]))
def test_an_ad_of_a_shape_seen_before_is_the_ad_the_loop_makes(items: list) -> None:
    """A daemon receives ads of a few shapes (names in order, value types) again and again:
    once a shape came twice, a map of it is checked and made by passes over all its values.
    It gives what the attribute-by-attribute loop gives: the same error for a bad value (a
    NUL, an integer past 64 bits, a bad expression), the same ad, in the same order, with
    the same values down to a float's sign -- and it is that path that decodes the map
    when its types are the shape's and its strings plain."""
    first = {name: a for name, a, _, _ in items}
    _wire._FULL_SHAPES.clear()
    _seen_twice(first)
    second = {name: b if change else a for name, a, b, change in items}
    try:
        want = _by_the_loop(second)
    except ClassAdWireError as e:
        with pytest.raises(ClassAdWireError) as got_error:
            ad_from_wire(second)
        assert str(got_error.value) == str(e)
        return
    shape = _wire._FULL_SHAPES.get(tuple(second))
    plain = all(type(v) is not str or (len(v) <= _wire.CACHE_MAX_TEXT and "\0" not in v)
                for v in second.values())
    if shape is not None and [type(v) for v in first.values()] == \
            [type(v) for v in second.values()] and plain:
        assert _wire._shaped_ad(second, shape) is not None
    got = ad_from_wire(second)
    assert got == want and str(got) == str(want) and list(got) == list(want)
    assert msgpack.packb(ad_to_wire(got)) == msgpack.packb(ad_to_wire(want))


def test_a_shaped_ad_is_an_independent_ad() -> None:
    wire = {"Name": "slot1@m", "Cpus": 4, "Load": 0.0, "Req": msgpack.ExtType(3, b"Cpus > 2")}
    _wire._FULL_SHAPES.clear()
    _seen_twice(wire)
    a, b = ad_from_wire(wire), ad_from_wire(wire)
    assert type(_wire._FULL_SHAPES[tuple(wire)]).__name__ == "_FullShape"
    a["Cpus"] = 1
    a["Extra"] = 2
    del a["Name"]
    assert b.evaluate("Cpus") == 4 and b.evaluate("Name") == "slot1@m" and "Extra" not in b
    assert list(ad_from_wire(wire)) == ["Name", "Cpus", "Load", "Req"]
    assert ad_from_wire(wire).evaluate("Req") is True


def test_names_alike_but_for_case_keep_no_shape() -> None:
    twice = {"Name": "a", "name": "b"}
    _wire._FULL_SHAPES.clear()
    _seen_twice(twice)
    assert _wire._FULL_SHAPES[tuple(twice)] is None
    assert str(ad_from_wire(twice)) == str(_by_the_loop(twice))


def test_shapes_are_bounded() -> None:
    _wire._FULL_SHAPES.clear()
    for i in range(_wire._FULL_SHAPES_MAX + 50):
        _seen_twice({f"A{i}": i})
    assert len(_wire._FULL_SHAPES) <= _wire._FULL_SHAPES_MAX
