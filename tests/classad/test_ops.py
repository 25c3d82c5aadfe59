"""ClassAd operators on values: edge-case tables, and differential tests against classad2.

Every table row states what HTCondor gives; ``test_tables_are_htcondors`` checks each
row against HTCondor's own evaluator, so the tables cannot drift from the reference.
"""

from __future__ import annotations

import math

import pytest
from classad2_ref import binary_text, reference_eval, same_value, unary_text
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad._ops import (
    BINARY_OPS,
    UNARY_OPS,
    logic_value,
    logical_and,
    logical_or,
)
from condorsim.classad._values import ERROR, INT_MAX, INT_MIN, UNDEFINED, AbsTime, RelTime

U, E = UNDEFINED, ERROR
NAN = math.nan
INF = math.inf

BINARY_CASES = [
    # 64-bit integer arithmetic wraps
    ("+", 1, 2, 3),
    ("+", INT_MAX, 1, INT_MIN),
    ("-", INT_MIN, 1, INT_MAX),
    ("*", INT_MAX, 2, -2),
    ("*", 10**12, 10**12, 2003764205206896640),
    # division truncates toward zero; by zero is ERROR; INT_MIN / -1 is INT_MAX
    ("/", 7, 2, 3),
    ("/", -7, 2, -3),
    ("/", 7, -2, -3),
    ("/", 1, 0, E),
    ("/", INT_MIN, -1, INT_MAX),
    # % takes the sign of the dividend; INT_MIN % -1 is 0; real % is always ERROR
    ("%", -7, 2, -1),
    ("%", 7, -2, 1),
    ("%", 1, 0, E),
    ("%", INT_MIN, -1, 0),
    ("%", 5.5, 2, E),
    ("%", 5, 2.5, E),
    # reals: a +inf result is ERROR (C's HUGE_VAL check), -inf and NaN pass
    ("/", 1.0, 0, E),
    ("/", -1.0, 0, -INF),
    ("/", 1.0, -0.0, -INF),
    ("/", 0.0, 0.0, NAN),
    ("*", 1e308, 10, E),
    ("*", -1e308, 10, -INF),
    ("+", -INF, 1, -INF),
    ("*", -INF, -1, E),
    ("+", 1, 2.5, 3.5),
    ("-", 0.0, 0.0, 0.0),
    # booleans count as 0/1 in arithmetic
    ("+", True, 1, 2),
    ("*", True, True, 1),
    ("/", True, 2, 0),
    ("+", True, 0.5, 1.5),
    # strings, lists are ERROR; ERROR beats UNDEFINED whichever side
    ("+", "a", 1, E),
    ("+", [1], 1, E),
    ("+", U, 1, U),
    ("*", U, 0, U),
    ("+", U, E, E),
    ("+", E, U, E),
    ("+", "a", U, U),
    # comparisons: strings case-insensitively (ASCII only, byte order)
    ("==", "a", "A", True),
    ("<", "a", "B", True),
    ("<", "_", "A", True),
    ("<", "a", "_", False),
    ("==", "Ä", "ä", False),
    ("<", "ä", "Ä", False),
    ("<", "abc", "abcd", True),
    ("!=", "a", "A", False),
    # numbers across int/real, as C doubles; booleans as 0/1
    ("==", 1, 1.0, True),
    ("==", INT_MAX, 9223372036854775808.0, True),
    ("<", INT_MAX, 9223372036854775808.0, False),
    ("==", True, 1, True),
    ("==", True, 1.0, True),
    ("<", 1, True, False),
    ("<", True, 2, True),
    (">", True, False, True),
    ("==", 1.5, True, False),
    ("==", 0.0, -0.0, True),
    ("==", NAN, NAN, False),
    ("!=", NAN, NAN, True),
    ("<", NAN, 1, False),
    # string against anything else, lists and ads: ERROR
    ("==", "1", 1, E),
    ("==", "true", True, E),
    ("==", [1, 2], [1, 2], E),
    ("==", [1], "a", E),
    ("<", E, "a", E),
    ("==", U, U, U),
    ("==", U, 1, U),
    ("==", [], U, U),
    ("==", E, U, E),
    ("==", U, E, E),
    # =?= / is: same type and value; never UNDEFINED; lists ERROR
    ("=?=", 1, 1.0, False),
    ("=?=", U, U, True),
    ("=?=", E, E, True),
    ("=?=", U, E, False),
    ("=?=", "a", "A", False),
    ("=?=", "a", 1, False),
    ("=?=", True, 1, False),
    ("=?=", 0.0, -0.0, True),
    ("=?=", NAN, NAN, False),
    ("=?=", [1, 2], [1, 2], E),
    ("=?=", [1], U, False),
    ("=!=", [1], [1], E),
    ("=!=", 1, 1.0, True),
    ("is", 1, 1.0, False),
    ("isnt", 1, 1, False),
    ("isnt", "a", "A", True),
    ("isnt", U, U, False),
    # bitwise: integers only (booleans are ERROR)
    ("&", 3, 5, 1),
    ("|", 3, 5, 7),
    ("^", 3, 5, 6),
    ("&", True, False, E),
    ("&", 1, True, E),
    ("|", 1.0, 1, E),
    ("&", U, 1, U),
    ("&", U, E, E),
    # shifts behave as on x86-64
    ("<<", 1, 63, INT_MIN),
    ("<<", 1, 64, 1),
    ("<<", 1, 65, 2),
    ("<<", 1, -1, INT_MIN),
    (">>", -8, 1, -4),
    (">>", 5, 64, 5),
    (">>", 5, 65, 2),
    (">>", 5, -1, 0),
    (">>", -5, 64, -1),
    (">>", -5, 65, -1),
    (">>", -5, -1, -5),
    (">>", -5, 0, -5),
    (">>>", -8, 1, 9223372036854775804),
    (">>>", -5, 0, 0),
    (">>>", -5, 64, 0),
    (">>>", -5, 65, 9223372036854775805),
    (">>>", -5, -1, 1),
    (">>>", 5, 64, 5),
    (">>>", 5, -1, 0),
]

UNARY_CASES = [
    ("-", INT_MIN, INT_MIN),
    ("-", 5, -5),
    ("-", 0.0, -0.0),
    ("-", True, E),
    ("-", "a", E),
    ("-", [1], E),
    ("-", U, U),
    ("-", E, E),
    ("+", 5, 5),
    ("+", 1.5, 1.5),
    ("+", True, E),
    ("+", "a", E),
    ("+", [1], E),
    ("+", U, U),
    ("+", E, E),
    ("!", True, False),
    ("!", 1, False),
    ("!", 2, False),
    ("!", 0, True),
    ("!", 0.0, True),
    ("!", NAN, False),
    ("!", "a", E),
    ("!", [1], E),
    ("!", U, U),
    ("!", E, E),
    ("~", 5, -6),
    ("~", True, E),
    ("~", 1.0, E),
    ("~", U, U),
    ("~", E, E),
]


@pytest.mark.parametrize(("op", "a", "b", "expected"), BINARY_CASES)
def test_binary_operator(op: str, a: object, b: object, expected: object) -> None:
    assert same_value(BINARY_OPS[op](a, b), expected)


@pytest.mark.parametrize(("op", "a", "expected"), UNARY_CASES)
def test_unary_operator(op: str, a: object, expected: object) -> None:
    assert same_value(UNARY_OPS[op](a), expected)


def test_tables_are_htcondors() -> None:
    wrong = [
        (op, a, b, expected)
        for op, a, b, expected in BINARY_CASES
        if not same_value(reference_eval(binary_text(op, a, b)), expected)
    ]
    wrong += [
        (op, a, None, expected)
        for op, a, expected in UNARY_CASES
        if not same_value(reference_eval(unary_text(op, a)), expected)
    ]
    assert wrong == []


LOGIC_CASES = [
    (True, True),
    (False, False),
    (2, True),
    (0, False),
    (0.5, True),
    (-0.0, False),
    (NAN, True),
    (U, U),
    (E, E),
    ("a", E),
    ([1], E),
]


@pytest.mark.parametrize(("v", "expected"), LOGIC_CASES)
def test_logic_value(v: object, expected: object) -> None:
    assert logic_value(v) is expected


def test_logic_values_agree_with_htcondor_conditional() -> None:
    for v, expected in LOGIC_CASES:
        chosen = reference_eval(f"({unary_text('', v)}) ? 1 : 0")
        if expected is True or expected is False:
            assert chosen == (1 if expected else 0)
        else:
            assert chosen is expected


_LOGIC_OPERANDS = [True, False, 2, 0, 0.0, U, E, "a", [1]]


@pytest.mark.parametrize("a", _LOGIC_OPERANDS)
@pytest.mark.parametrize("b", _LOGIC_OPERANDS)
def test_logical_and_or_as_htcondor(a: object, b: object) -> None:
    assert same_value(logical_and(a, b), reference_eval(binary_text("&&", a, b)))
    assert same_value(logical_or(a, b), reference_eval(binary_text("||", a, b)))


# --------------------------------------------------------------------------- differential

_INT_EDGES = [0, 1, -1, 2, -2, 3, 7, -7, 63, 64, 65, -64, 2**31, -(2**31), 2**53 + 1]
_INT_EDGES += [INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, 10**12]
_REAL_EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-300, 5e-324, 1e300, -1e308]
_REAL_EDGES += [1.7976931348623157e308, INF, -INF, NAN, 2.0**63, -(2.0**63), 2.0**53]

ints = st.one_of(st.sampled_from(_INT_EDGES), st.integers(INT_MIN, INT_MAX), st.integers(-99, 99))
reals = st.one_of(st.sampled_from(_REAL_EDGES), st.floats(), st.floats(-1e3, 1e3))
strings = st.one_of(
    st.sampled_from(["", "a", "A", "b", "_", "abc", "ABC", "é", "É", "1", "true"]),
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]), max_size=6),
)
_TIME_EDGES = [
    AbsTime(0, 0), AbsTime(5, 3600), AbsTime(5, 0), AbsTime(-1, -18000), AbsTime(2**31 - 1, 0),
    RelTime(0.0), RelTime(-0.0), RelTime(2.5), RelTime(-3.0), RelTime(1e300), RelTime(5e9),
    RelTime(NAN), RelTime(INF),
]  # fmt: skip
times = st.one_of(
    st.sampled_from(_TIME_EDGES),
    st.builds(
        AbsTime, st.integers(-(2**31), 2**31 - 1), st.integers(-50400, 50400).map(lambda m: m * 60)
    ),
    st.builds(RelTime, reals),
)
scalars = st.one_of(ints, reals, strings, st.booleans(), st.sampled_from([U, E]), times)
values = st.one_of(scalars, st.lists(scalars, max_size=3))


@pytest.mark.parametrize("op", sorted(BINARY_OPS))
@settings(deadline=None, max_examples=150)
@given(a=values, b=values)
def test_binary_operator_matches_htcondor(op: str, a: object, b: object) -> None:
    assert same_value(BINARY_OPS[op](a, b), reference_eval(binary_text(op, a, b)))


@pytest.mark.parametrize("op", sorted(UNARY_OPS))
@settings(deadline=None, max_examples=150)
@given(a=values)
def test_unary_operator_matches_htcondor(op: str, a: object) -> None:
    assert same_value(UNARY_OPS[op](a), reference_eval(unary_text(op, a)))


@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_operator_grid_matches_htcondor(op: str) -> None:
    grid = [*_INT_EDGES, *_REAL_EDGES, True, False, "", "a", "A", "é", U, E, [], [1]]
    grid += _TIME_EDGES
    wrong = [
        (a, b)
        for a in grid
        for b in grid
        if not same_value(BINARY_OPS[op](a, b), reference_eval(binary_text(op, a, b)))
    ]
    assert wrong == []
