"""str() of a tree keeps the text it made: the same text every time, and no other."""

from __future__ import annotations

from condorsim.classad import ClassAd, parse_expr
from condorsim.classad._unparse import unparse


def test_str_is_the_canonical_text_every_time() -> None:
    tree = parse_expr('MY.Cpus>2&&(TARGET.Owner=="alice"||x[1] =?= undefined)')
    first = str(tree)
    assert first == unparse(tree)
    assert str(tree) == first
    assert first == 'MY.Cpus > 2 && (TARGET.Owner == "alice" || x[1] is undefined)'


def test_old_syntax_text_is_not_taken_from_the_kept_text() -> None:
    tree = parse_expr('a == "tab\\there"')
    assert str(tree) == 'a == "tab\\there"'
    assert unparse(tree, old_syntax=True) == 'a == "tab\there"'


def test_equal_trees_keep_their_own_text() -> None:
    lower, upper = parse_expr("[ a = 1 ].a"), parse_expr("[ A = 1 ].a")
    assert lower == upper
    assert (str(lower), str(upper)) == ("[ a = 1 ].a", "[ A = 1 ].a")


def test_a_changed_attribute_shows_its_new_text() -> None:
    ad = ClassAd.parse("[ Req = Cpus > 2; N = [ a = 1 ] ]")
    assert str(ad["Req"]) == "Cpus > 2"
    ad["Req"] = parse_expr("Cpus > 3")
    assert str(ad["Req"]) == "Cpus > 3"
    nested = ad.evaluate("N")
    assert isinstance(nested, ClassAd)
    nested["b"] = 2  # a view of the literal: copied on write, the literal's text stays
    assert str(ad["N"]) == "[ a = 1 ]"
