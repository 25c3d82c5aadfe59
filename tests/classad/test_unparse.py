"""Canonical text: what HTCondor prints, and what reads back to the same tree."""

from __future__ import annotations

import math

import pytest
from _core_reference import classad2, reference_ad_text, same_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_eval_diff import EXPRESSIONS

from condorsim.classad import ClassAd, parse_expr

# Texts whose canonical form is exactly classad2's str().
SAME_AS_CLASSAD2 = [
    "1+2*3",
    "(1+2)*3",
    "a&&b||!c",
    "a =?= b",
    "a=!=b",
    "x ? y : z",
    "x?:y",
    "MY.a + TARGET.b",
    ".abs",
    "'odd name' + 'true'",
    "parent.x",
    "strcat(\"a\",b,1)",
    '"tab\\there \\"quoted\\" back\\\\slash"',
    '"é"',
    '"\\001\\177"',
    "1.5",
    "0.1",
    "1e300",
    "-0.0",
    "0.0",
    "1e400",
    "123456789.123",
    "-9223372036854775808",
    "a[0].b",
    "- -1",
    "~a | b ^ c & d",
    "a >>> 2 << 1 >> 3",
    "undefined",
    "ERROR",
    "TRUE",
]


@pytest.mark.parametrize("text", SAME_AS_CLASSAD2)
def test_text_is_what_classad2_prints(text: str) -> None:
    assert str(parse_expr(text)) == str(classad2.ExprTree(text))


def test_lists_and_ads_print_on_one_line() -> None:
    assert str(parse_expr("{1, a, {}}")) == "{ 1,a,{  } }"
    assert str(parse_expr("[a = 1; b = [ ]]")) == "[ a = 1; b = [  ] ]"


def test_reals_that_need_seventeen_digits_keep_them() -> None:
    x = 0.1 + 0.2
    text = str(parse_expr(repr(x)))
    assert text == "3.0000000000000004E-01"
    assert classad2.ExprTree(text).eval() == x


def test_unary_minus_of_a_number_keeps_reading_back() -> None:
    # HTCondor prints " -1" here, which it then reads as the literal -1
    assert str(parse_expr("- 1")) == " - 1"
    assert same_tree(str(parse_expr("- 1")), "- 1")
    assert same_tree(str(parse_expr("- 1[0]")), "- 1[0]")


@settings(deadline=None, max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS)
def test_text_reads_back_to_the_same_tree(text: str) -> None:
    tree = parse_expr(text)
    canonical = str(tree)
    assert parse_expr(canonical) == tree
    assert same_tree(canonical, text), canonical


@settings(deadline=None, max_examples=300)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_real_reads_back_exactly(x: float) -> None:
    text = str(parse_expr(repr(x)))
    assert parse_expr(text).evaluate() == x
    assert math.copysign(1.0, classad2.ExprTree(text).eval()) == math.copysign(1.0, x)
    assert classad2.ExprTree(text).eval() == x


def test_ad_text_reads_in_classad2() -> None:
    ad = ClassAd.parse(
        '[ Name = "slot1@host"; Memory = 1024; Load = 0.25; Req = TARGET.x > 1 && y;'
        " L = { 1, \"a\", [ q = 1 ] }; N = [ a = 1; b = a ]; 'odd name' = true; U = undefined ]"
    )
    ours = {k.lower(): v for k, v in ((name, ad.lookup(name)) for name in ad)}
    theirs = reference_ad_text(str(ad))
    assert set(theirs) == set(ours)
    for name, tree in ours.items():
        assert tree is not None
        assert classad2.ExprTree(theirs[name]) == classad2.ExprTree(str(tree)), name


def test_long_form_is_what_condor_q_prints() -> None:
    ad = ClassAd.parse(
        '[ e = a =?= b && !c && "x\\"y" == d; l = { 1, 2.5, "x" }; n = [ a = 1; b = "q\\"r" ];'
        ' r1 = 1.0; r2 = 1e20; r3 = 0.1; r5 = 1e-5; r6 = -0.0; s1 = "a\\"b"; s2 = "a\\\\b";'
        ' s3 = "a\\\\"; s4 = "tab\\there"; s5 = "x\\\\\\"y" ]'
    )
    assert ad.to_long() == classad2.ClassAd(str(ad)).printOld()
    back = ClassAd.parse_old(ad.to_long())
    assert back == ad
