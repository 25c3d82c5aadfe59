"""Parsing: precedence, associativity, literals, names, both ad syntaxes, syntax errors."""

from __future__ import annotations

import itertools
import math

import pytest
from _core_reference import reference_parses

from condorsim.classad import ERROR, UNDEFINED, ClassAd, ClassAdSyntaxError, parse_expr
from condorsim.classad._tree import AttrRef, BinaryOp, Conditional, Elvis, Literal, Paren, UnaryOp

# (text, canonical form that shows how it grouped): same as classad2 prints it
PRECEDENCE = [
    ("1+2*3", "1 + 2 * 3"),
    ("a || b && c", "a || b && c"),
    ("a ? b : c ? d : e", "a ? b : c ? d : e"),
    ("a =?= b =!= c", "a is b isnt c"),
    ("!a && !b", " !a &&  !b"),
    ("a IS b", "a is b"),
    ("x ?: y ?: z", "x ?: y ?: z"),
    ("- -1", " --1"),
    ("- 1", " - 1"),
    ("-(1)", " -(1)"),
    ("a-1", "a - 1"),
    ("2*-1", "2 * -1"),
    ("a.b.c", "a.b.c"),
    ("a[1][2]", "a[1][2]"),
    ("f(1,2)", "f(1,2)"),
    ("TARGET . a", "TARGET.a"),
]


@pytest.mark.parametrize(("text", "canonical"), PRECEDENCE)
def test_canonical_grouping(text: str, canonical: str) -> None:
    assert str(parse_expr(text)) == canonical


def test_binary_operators_are_left_associative() -> None:
    tree = parse_expr("8 - 4 - 2")
    assert isinstance(tree, BinaryOp) and isinstance(tree.left, BinaryOp)
    assert tree.left.op == "-" and tree.right == Literal(2)
    assert parse_expr("8 / 4 / 2").evaluate() == 1
    assert parse_expr("2 - 3 - 4").evaluate() == -5


def test_precedence_levels_from_lowest_to_highest() -> None:
    # Each operator binds tighter than the one before it.
    ops = ["||", "&&", "|", "^", "&", "==", "<", "<<", "+", "*"]
    for low, high in itertools.pairwise(ops):
        tree = parse_expr(f"a {low} b {high} c")
        assert isinstance(tree, BinaryOp) and tree.op == low, (low, high)
        assert isinstance(tree.right, BinaryOp) and tree.right.op == high


def test_conditional_is_right_associative_and_takes_an_or_condition() -> None:
    tree = parse_expr("a || b ? c : d ? e : f")
    assert isinstance(tree, Conditional)
    assert isinstance(tree.cond, BinaryOp) and tree.cond.op == "||"
    assert isinstance(tree.otherwise, Conditional)
    low = parse_expr("1 + undefined ? : 5")  # '? :' with a space: lowest precedence
    assert isinstance(low, Conditional) and low.then is None
    assert low.evaluate() == 5


def test_elvis_without_space_binds_tightest() -> None:
    # HTCondor 24: 'a ?: b' binds tighter than any operator, even unary ones
    tree = parse_expr("1 + undefined ?: 5")
    assert isinstance(tree, BinaryOp) and isinstance(tree.right, Elvis)
    assert tree.evaluate() == 6
    assert parse_expr("- undefined ?: 2").evaluate() == -2
    assert parse_expr("undefined ?: {1, 2}[1]").evaluate() == 2


def test_parentheses_stay_in_the_tree() -> None:
    tree = parse_expr("(1 + 2) * 3")
    assert isinstance(tree, BinaryOp) and isinstance(tree.left, Paren)
    assert str(tree) == "(1 + 2) * 3"


LITERALS = [
    ("9223372036854775807", 9223372036854775807),
    ("-9223372036854775808", -9223372036854775808),
    ("9223372036854775808", 0),  # out of range reads as 0, as classad2
    ("-9223372036854775809", 0),
    ("0", 0),
    ("1.5", 1.5),
    (".5", 0.5),
    ("-.5", -0.5),
    ("1e5", 100000.0),
    ("1E+5", 100000.0),
    ("08.5", 8.5),
    ("0e1", 0.0),
    ("0x1.8", 1.5),
    ("1e400", math.inf),
    ('"a\\tb"', "a\tb"),
    ('"\\101\\12"', "A\n"),
    ('"\\400"', " 0"),
    ('"\\q"', "q"),
    ('"a" "b"', "ab"),
    ('"a"\n  "b"', "ab"),
    ('"\\303\\251"', "é"),
    ('"é"', "é"),
    ("TRUE", True),
    ("False", False),
    ("UnDefined", UNDEFINED),
    ("ERROR", ERROR),
]


@pytest.mark.parametrize(("text", "value"), LITERALS)
def test_literal_values(text: str, value: object) -> None:
    tree = parse_expr(text)
    got = tree.evaluate()
    assert type(got) is type(value) and (got is value or got == value)


BAD = [
    ("010", 1, 1),
    ("0x10", 1, 1),
    ("00", 1, 1),
    ("1.", 1, 1),
    ("1e", 1, 1),
    ("1K", 1, 2),
    ('"abc', 1, 1),
    ('"\\0"', 1, 1),
    ("a +", 1, 4),
    ("(a", 1, 3),
    ("f(1 2)", 1, 5),
    ("a ? b", 1, 6),
    ("a =? b", 1, 3),
    ("[a = 1", 1, 7),
    ("{1, 2", 1, 6),
    ("a b", 1, 3),
    ("1 /* open", 1, 3),
    ("a\n  + * b", 2, 5),
    ("a.5", 1, 2),
    ("is", 1, 1),
    ("@", 1, 1),
]


@pytest.mark.parametrize(("text", "line", "column"), BAD)
def test_syntax_errors_name_the_position(text: str, line: int, column: int) -> None:
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_expr(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert str(info.value).startswith(f"line {line}, column {column}: ")
    # HTCondor rejects the same text
    assert not reference_parses(text)


def test_syntax_error_says_what_was_expected() -> None:
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_expr("f(1 2)")
    assert "',' or ')'" in str(info.value)


def test_deep_nesting_is_a_syntax_error_not_a_crash() -> None:
    with pytest.raises(ClassAdSyntaxError, match="nested"):
        parse_expr("(" * 500 + "1" + ")" * 500)
    assert parse_expr("(" * 50 + "1" + ")" * 50).evaluate() == 1


def test_long_flat_chains_parse_and_evaluate() -> None:
    text = " && ".join(f"x{i} =?= undefined" for i in range(2000))
    assert parse_expr(text).evaluate() is True
    assert parse_expr(" + ".join(["1"] * 3000)).evaluate() == 3000


def test_names_comments_and_scopes() -> None:
    tree = parse_expr("MY.a + TARGET.b // comment\n + 'odd name' /* c */ + .abs")
    refs = [n for n in tree.walk() if isinstance(n, AttrRef)]
    names = {(r.name, r.absolute) for r in refs}
    assert ("odd name", False) in names and ("abs", True) in names
    assert {"MY", "TARGET"} <= {r.name for r in refs}


def test_function_arguments_may_be_separated_by_semicolons() -> None:
    assert str(parse_expr("strcat(a;b)")) == "strcat(a,b)"


def test_unary_minus_of_attribute() -> None:
    tree = parse_expr("-a")
    assert isinstance(tree, UnaryOp) and tree.op == "-"


def test_new_syntax_ad() -> None:
    ad = ClassAd.parse("[ a = 1; ; B = a + 1; a = 3; ]")
    assert list(ad) == ["a", "B"]
    assert ad.evaluate("b") == 4
    with pytest.raises(ClassAdSyntaxError) as info:
        ClassAd.parse("[ a = 1; b = ]")
    assert (info.value.line, info.value.column) == (1, 14)


def test_old_syntax_ad_as_condor_q_prints_it() -> None:
    text = (
        "# a comment\n"
        "MyType = \"Job\"\n"
        "\n"
        "   # indented comment\n"
        "Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Arch == \"X86_64\")\n"
        "RequestMemory = 2048\n"
        "Path = \"C:\\temp\\\"\n"
        "Quote = \"say \\\"hi\\\" now\"\n"
        "'odd' = 1\n"
    )
    ad = ClassAd.parse(text)
    assert ad.evaluate("RequestMemory") == 2048
    assert ad.evaluate("Path") == "C:\\temp\\"
    assert ad.evaluate("Quote") == 'say "hi" now'
    assert ad.lookup("'odd'") is not None


def test_old_syntax_errors_give_the_file_line() -> None:
    with pytest.raises(ClassAdSyntaxError) as info:
        ClassAd.parse_old("A = 1\nB = 2 +\nC = 3\n")
    assert info.value.line == 2
    assert "B" in str(info.value)
    with pytest.raises(ClassAdSyntaxError) as info:
        ClassAd.parse_old("A = 1\njust words\n")
    assert info.value.line == 2


def test_auto_detects_the_syntax() -> None:
    assert ClassAd.parse("  // c\n[ a = 1 ]").evaluate("a") == 1
    assert ClassAd.parse("a = 1\nb = a").evaluate("b") == 1
