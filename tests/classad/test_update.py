"""ClassAd.update from a mapping or pairs: names keep their first spelling, values become
trees, a bad name or value is refused as ``ad[name] = value`` refuses it, and a nested ad
read out of another is copied before it changes (its parent is left as it was)."""

from __future__ import annotations

import pytest

from condorsim.classad import ClassAd, parse_expr
from condorsim.classad._wire import ad_from_wire_lazy


def test_update_keeps_the_first_spelling_and_makes_trees() -> None:
    ad = ClassAd({"Cpus": 1})
    ad.update({"CPUS": 4, "Name": "slot1", "Req": parse_expr("Cpus > 2")})
    assert ad.names() == ("Cpus", "Name", "Req")
    assert ad.evaluate("cpus") == 4 and ad.evaluate("name") == "slot1"
    assert ad.evaluate("Req") is True
    ad.update([("Mémoire", 2), ("Memory", 3)])  # a non-ASCII name takes __setitem__'s way
    assert ad.evaluate("Mémoire") == 2 and ad.evaluate("MEMORY") == 3


@pytest.mark.parametrize("bad", [{"": 1}, {"a\0b": 1}, {3: 1}, {"x": "a\0b"}, {"x": object()}])
def test_update_refuses_what_setitem_refuses(bad: dict) -> None:
    ad, other = ClassAd({"Keep": 1}), ClassAd({"Keep": 1})
    with pytest.raises(Exception) as refused:
        ad.update(bad)
    with pytest.raises(type(refused.value)):
        for name, value in bad.items():
            other[name] = value
    assert ad.evaluate("Keep") == 1


def test_update_of_a_nested_ad_leaves_its_parent_alone() -> None:
    outer = ClassAd({"Inner": parse_expr("[A = 1; B = 2]")})
    inner = outer.evaluate("Inner")
    assert isinstance(inner, ClassAd)
    inner.update({"A": 10, "C": 3})
    assert (inner.evaluate("A"), inner.evaluate("C")) == (10, 3)
    again = outer.evaluate("Inner")
    assert isinstance(again, ClassAd)
    assert again.evaluate("A") == 1 and "C" not in again


def test_update_of_a_lazy_ad_keeps_its_other_values() -> None:
    ad = ad_from_wire_lazy({"Name": "slot1", "Cpus": 4})
    ad.update({"Cpus": 8, "State": "Claimed"})
    assert ad.names() == ("Name", "Cpus", "State")
    assert [ad.evaluate(n) for n in ad.names()] == ["slot1", 8, "Claimed"]


def test_a_new_ad_from_a_mapping_pairs_or_an_ad_is_the_ad_set_one_by_one() -> None:
    values = {"Cpus": 4, "Name": "slot1", "Req": parse_expr("Cpus > 2"), "CPUS": 8}
    one_by_one = ClassAd()
    for name, value in values.items():
        one_by_one[name] = value
    for made in (ClassAd(values), ClassAd(list(values.items())), ClassAd(ClassAd(values))):
        assert made.names() == one_by_one.names() == ("Cpus", "Name", "Req")
        assert made.evaluate("Cpus") == 8 and made.evaluate("Req") is True
    with pytest.raises(Exception, match="attribute names"):
        ClassAd({"": 1})
