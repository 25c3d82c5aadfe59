"""ClassAd.evaluate answers a literal attribute without the evaluator, with the same values."""

from __future__ import annotations

from condorsim.classad import ERROR, UNDEFINED, ClassAd


def test_values_are_those_of_the_evaluator() -> None:
    ad = ClassAd.parse('[ A = 1; b = "x"; C = A + 1; U = undefined; E = error; F = 2.5;'
                       " Folded = 3 * 4; Inner = [ X = 1; Y = A ]; L = { 1, A } ]")
    assert ad.evaluate("a") == 1 and ad.evaluate("A") == 1
    assert ad.evaluate("B") == "x"
    assert ad.evaluate("C") == 2
    assert ad.evaluate("U") is UNDEFINED and ad.evaluate("E") is ERROR
    assert ad.evaluate("F") == 2.5
    assert ad.evaluate("Folded") == 12 and ad.evaluate("Folded") == 12
    assert ad.evaluate("Missing") is UNDEFINED
    inner = ad.evaluate("Inner")
    assert isinstance(inner, ClassAd)
    assert inner.evaluate("X") == 1
    assert inner.evaluate("Y") == 1  # found in the enclosing ad
    assert inner.evaluate("A") == 1
    assert ad.evaluate("L") == [1, 1]


def test_a_changed_attribute_gives_its_new_value() -> None:
    ad = ClassAd({"JobStatus": 1})
    assert ad.evaluate("JobStatus") == 1
    ad["JobStatus"] = 2
    assert ad.evaluate("JobStatus") == 2
    del ad["JobStatus"]
    assert ad.evaluate("JobStatus") is UNDEFINED
