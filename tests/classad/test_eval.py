"""Evaluation edge cases, each checked against the expected value and against classad2."""

from __future__ import annotations

import random
from typing import Any

import pytest
from _core_reference import FAILED, ours, reference, same_value

from condorsim.classad import ERROR, UNDEFINED, ClassAd, EvalContext, parse_expr

MY = (
    "[ a = 1; b = a + 1; s = \"Hello\"; l = { 1, 2, a }; n = [ x = a; y = x + 1; z = PARENT.a ];"
    " f = 1.5; u = undefined; e = error; bb = true; self_ref = self_ref + 1; c1 = c2; c2 = c1;"
    " m = [ a = 10; k = MY.a ]; ads = { [ p = 1 ], [ p = 2 ], 3 } ]"
)
TARGET = '[ a = 100; t = 5; s = "World"; Requirements = MY.a > 50; q = MY.a; w = a; v = zz; y = b ]'

# (expression, expected value); every row is also compared with classad2.
CASES: list[tuple[str, Any]] = [
    # arithmetic and integers
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("7 / 2", 3),
    ("-7 / 2", -3),
    ("-7 % 3", -1),
    ("7.0 / 2", 3.5),
    ("1 / 0", ERROR),
    ("1 % 0", ERROR),
    ("1.0 / 0", ERROR),
    ("9223372036854775807 + 1", -9223372036854775808),
    ("-9223372036854775808 / -1", 9223372036854775807),
    ("1 + 2.5", 3.5),
    ("true + 1", 2),
    ('"a" + 1', ERROR),
    ("undefined + 1", UNDEFINED),
    ("error + undefined", ERROR),
    # comparison and meta-equality
    ('"abc" == "ABC"', True),
    ('"abc" =?= "ABC"', False),
    ("1 == 1.0", True),
    ("1 =?= 1.0", False),
    ("undefined == 1", UNDEFINED),
    ("undefined =?= undefined", True),
    ("u is undefined", True),
    ("e isnt error", False),
    ("{1} == {1}", ERROR),
    # non-strict logic
    ("false && error", False),
    ("undefined && false", False),
    ("undefined && true", UNDEFINED),
    ("error && false", ERROR),
    ("true || error", True),
    ("undefined || true", True),
    ("undefined || false", UNDEFINED),
    ('"x" && true', ERROR),
    ("true && 5", True),
    ("true && 0.0", False),
    ("false || undefined", UNDEFINED),
    ("!undefined", UNDEFINED),
    ("!5", False),
    # conditionals
    ("bb ? 1 : 2", 1),
    ("u ? 1 : 2", UNDEFINED),
    ('"x" ? 1 : 2', ERROR),
    ("0.5 ? 1 : 2", 1),
    ("a ?: 7", 1),
    ("u ?: 7", 7),
    ("e ?: 7", ERROR),
    ("true ? 1 : self_ref", 1),
    # scoping
    ("a", 1),
    ("b", 2),
    ("MY.a", 1),
    ("TARGET.a", 100),
    ("t", 5),  # not in MY: looked up in TARGET (HTCondor's non-strict evaluation)
    ("TARGET.q", 100),  # MY in TARGET's own expression is TARGET
    ("TARGET.w", 100),
    ("TARGET.v", UNDEFINED),
    ("TARGET.y", 2),  # TARGET's expression falls back to MY as well
    ("n.x", 1),
    ("n.y", 2),
    ("n.z", 1),
    ("m.k", 10),
    ("n.zz", UNDEFINED),
    ("[a = 5; b = a * 2].b", 10),
    ("[x = a].x", 1),
    ("TARGET.MY.a", 100),
    ("TARGET.TARGET.a", 1),
    ("other.a", 100),
    ("symmetricMatch", UNDEFINED),
    ("leftMatchesRight", True),
    ("RIGHT.t", 5),
    ("zz", UNDEFINED),
    # circular references fail the evaluation: ERROR
    ("self_ref", ERROR),
    ("c1", ERROR),
    ("isError(c1)", ERROR),
    # lists, subscripts, selection
    ("l", [1, 2, 1]),
    ("l[2]", 1),
    ("l[3]", ERROR),
    ("l[-1]", ERROR),
    ("l[4294967296]", 1),  # the index is a C int
    ("l[1.0]", ERROR),
    ("l[undefined]", UNDEFINED),
    ('n["X"]', 1),
    ('n["a"]', UNDEFINED),
    ("n[0]", ERROR),
    ("ads.p", [1, 2, ERROR]),
    ("{[a=1], undefined}.a", [1, UNDEFINED]),
    ("{{[a=1]}}.a", [[1]]),
    ("s.x", ERROR),
    ("u.x", UNDEFINED),
    ("e.x", ERROR),
    ("{}", []),
    # functions that need the scope
    ('eval("a + 1")', 2),
    ('eval("1 +")', ERROR),
    ("eval(5)", 5),
    ("eval(undefined)", ERROR),
    ("unparse(b)", "a + 1"),
    ("unparse(zz)", ""),
    ("unparse(1)", ERROR),
    ("ifThenElse(a > 0, \"pos\", \"neg\")", "pos"),
    ("ifThenElse(u, 1, 2)", UNDEFINED),
    ("ifThenElse(false, self_ref, 2)", 2),
    ("ifThenElse(true, 1)", ERROR),
    ("debug(a + 1)", 2),
    ("evalInEachContext(x, {n, [x = 5]})", [UNDEFINED, 5]),
    ("countMatches(p >= 2, ads)", 1),
    ("no_such_function(1)", ERROR),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_evaluation(expr: str, expected: Any) -> None:
    got = ours(expr, MY, TARGET)
    assert same_value(got, expected), got
    theirs = reference(expr, MY, TARGET)
    assert same_value(got, theirs) or (theirs == FAILED and got is ERROR), theirs


def test_time_and_random_come_from_the_context() -> None:
    ctx = EvalContext(now=1_700_000_000, rng=random.Random(7))
    assert parse_expr("time()").evaluate(ctx=ctx) == 1_700_000_000
    ad = ClassAd({"x": 1})
    assert parse_expr("CurrentTime").evaluate(ad, ctx=ctx) == 1_700_000_000
    first = parse_expr("random(1000)").evaluate(ctx=ctx)
    again = parse_expr("random(1000)").evaluate(ctx=EvalContext(rng=random.Random(7)))
    assert first == again


def test_debug_sends_a_line_to_the_context() -> None:
    lines: list[str] = []
    ctx = EvalContext(debug=lines.append)
    assert parse_expr("debug(1 + 2)").evaluate(ctx=ctx) == 3
    assert lines == ["debug(1 + 2) = 3"]


def test_evaluate_attribute_and_missing_names() -> None:
    ad = ClassAd.parse(MY)
    assert ad.evaluate("B") == 2
    assert ad.evaluate("nothing") is UNDEFINED
    assert ad.evaluate("self_ref") is ERROR
    target = ClassAd.parse(TARGET)
    assert target.evaluate("q", ad) == 100
    assert target.evaluate("y", ad) == 2
    assert target.evaluate("y") is UNDEFINED


def test_nested_ad_values_keep_their_scope_and_do_not_alias() -> None:
    ad = ClassAd.parse(MY)
    n = ad.evaluate("n")
    assert isinstance(n, ClassAd)
    assert n.evaluate("z") == 1  # PARENT is the ad n was evaluated in
    n["x"] = 99  # changing the value does not change the expression
    assert ad.evaluate("n").evaluate("x") == 1


def test_constant_expressions_are_folded_once() -> None:
    tree = parse_expr("(2 + 3) * 4 == 20 && !false")
    assert tree.evaluate() is True
    assert tree._const is True


def test_python_values_become_literals() -> None:
    ad = ClassAd()
    ad["i"] = 5
    ad["r"] = 2.5
    ad["s"] = 'q"uote'
    ad["l"] = [1, "x", [True]]
    ad["d"] = {"k": 1}
    ad["n"] = ClassAd({"z": 3})
    ad["u"] = None
    assert ad.evaluate("l") == [1, "x", [True]]
    assert ad.evaluate("d").evaluate("k") == 1
    assert parse_expr("n.z + i").evaluate(ad) == 8
    assert ad.evaluate("u") is UNDEFINED
    with pytest.raises(ValueError, match="64 bits"):
        ad["big"] = 2**70
