"""Built-in functions against HTCondor's C++ evaluator (classad2), on generated values.

Each case calls our function directly on values and evaluates the same call, written
as ClassAd text, with classad2; results must agree in type and value. Three sources
of cases: a fixed grid of awkward values (every function, every pair of arguments),
hypothesis with per-function argument strategies, and data/regressions_values.txt --
every case ever found to differ, replayed for good.

``time``, ``random`` and ``formatTime()`` without arguments read the host clock in
HTCondor and are tested against the evaluation context in test_functions.py instead;
``userHome`` looks up real accounts in HTCondor and is not compared either.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from classad2_ref import (
    ReferenceRefused,
    binary_text,
    call_text,
    decode,
    literal,
    ours_normal,
    reference_eval,
    same_value,
    unary_text,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad._functions import BUILTINS
from condorsim.classad._ops import BINARY_OPS, UNARY_OPS
from condorsim.classad._values import (
    ERROR,
    INT_MAX,
    INT_MIN,
    UNDEFINED,
    AbsTime,
    EvalContext,
    RelTime,
    Value,
)

U, E = UNDEFINED, ERROR
CTX = EvalContext()
NOT_COMPARED = {"time", "random", "userhome", "currenttime", "daytime", "timezoneoffset"}
"""Functions reading HTCondor's host clock or accounts (test_functions.py checks ours)."""
CLOCK_WITHOUT_ARGUMENTS = {"formattime", "abstime"}
"""With no argument these read the host clock too."""
COMPARED = sorted(set(BUILTINS) - NOT_COMPARED)
REGRESSIONS = Path(__file__).parent / "data" / "regressions_values.txt"
EXAMPLES = int(os.environ.get("CLASSAD_DIFF_EXAMPLES", "60"))
"""Hypothesis examples per function; raise it to hunt for new differences."""


@pytest.fixture(autouse=True, scope="module")
def _reference_in_utc() -> Iterator[None]:
    """classad2's formatTime uses the process time zone; ours uses ctx.tz (UTC here)."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if saved is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = saved
    time.tzset()


def _times_in_lists(values: tuple[Value, ...] | list[Value], nested: bool = False) -> Iterator[Value]:
    for v in values:
        if type(v) is list:
            yield from _times_in_lists(v, True)
        elif nested and type(v) in (AbsTime, RelTime):
            yield v


def differs(name: str, args: tuple[Value, ...]) -> tuple[Value, Value] | None:
    """(ours, HTCondor's) when our function disagrees with HTCondor, else None."""
    if any(not literal(t).startswith('absTime("') for t in _times_in_lists(args)):
        # written as a call in a list, which HTCondor prints unevaluated (the "lists
        # are values" difference of docs/classad.md)
        return None
    try:
        theirs = reference_eval(call_text(name, args))
    except ReferenceRefused:
        return None
    ours = ours_normal(BUILTINS[name](CTX, args), CTX)
    return None if same_value(ours, theirs) else (ours, theirs)


# --------------------------------------------------------------------------- the grid

GRID: list[Value] = [
    0, 1, -1, 2, 7, -7, 2**31 + 3, INT_MAX, INT_MIN,
    0.0, -0.0, 1.5, -2.5, 2.5, 1e30, math.nan, math.inf,
    True, False,
    "", "a", "A", "abc", "3.7", "1e3", "0x10", " 5", "-5", "inf", "é", "'", 'a"b', "x\\y",
    "a,b", "a, b ,c", "1,2.5", "a@b", "true", "x*", "(a)", "1.10",
    U, E, [], [1, 2.0], ["a", "b"], [1, U], [True],
    AbsTime(0, 0), AbsTime(1000000000, 3600), AbsTime(-5, -18000), AbsTime(86399, -1),
    RelTime(0.0), RelTime(2.5), RelTime(-3605.25), RelTime(1e10), [AbsTime(7, 0)],
]  # fmt: skip


@pytest.mark.parametrize("name", COMPARED)
def test_function_on_grid_matches_htcondor(name: str) -> None:
    cases: Iterator[tuple[Value, ...]] = itertools.chain(
        [()],
        ((a,) for a in GRID),
        itertools.product(GRID, repeat=2),
        itertools.islice(itertools.product(GRID, repeat=3), 0, None, 29),
    )
    wrong = []
    for args in cases:
        if name in CLOCK_WITHOUT_ARGUMENTS and not args:
            continue
        found = differs(name, args)
        if found is not None:
            wrong.append((args, *found))
    assert wrong[:5] == []


# --------------------------------------------------------------------------- hypothesis

_INT_EDGES = [0, 1, -1, 2, 3, -3, 5, 10, 31, 32, 2**31 - 1, 2**31, -(2**31), 2**32 + 1]
_INT_EDGES += [INT_MAX, INT_MIN, 10**12, 1700000000]
ints = st.one_of(st.sampled_from(_INT_EDGES), st.integers(INT_MIN, INT_MAX), st.integers(-20, 20))
reals = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 3.5, 1e-9, 1e300, 2.0**63, math.nan]),
    st.floats(),
    st.floats(-100, 100),
)
_WORDS = [
    "", "a", "A", "true", "FALSE", "3.7", " 5 ", "1e3", "0x1A", "-0", "inf", "nan", "12abc",
    "a,b", "a, b ,c", "a;b", "user@host", "slot1@host", "1.2.3", "é", "日本", 'a"b', "'",
]  # fmt: skip
words = st.sampled_from(_WORDS)
strings = st.one_of(
    words,
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]), max_size=8),
    st.text("ab AB,;\t.@1-", max_size=8),
)
abstimes = st.builds(
    AbsTime,
    st.one_of(st.integers(-(2**31), 2**31 - 1), st.sampled_from([0, -1, 86399, 951782400])),
    st.one_of(st.integers(-840, 840).map(lambda m: m * 60), st.sampled_from([0, 1, -1, 3601])),
)
reltimes = st.builds(RelTime, st.one_of(reals, st.floats(-1e6, 1e6), st.integers(-10**6, 10**6).map(float)))
times = st.one_of(abstimes, reltimes)
scalars = st.one_of(ints, reals, strings, st.booleans(), st.sampled_from([U, E]), times)
values = st.one_of(scalars, st.lists(scalars, max_size=4))


def arguments(*parts: st.SearchStrategy[Value], optional: int = 0) -> st.SearchStrategy:
    """Argument tuples: the given parts, the last ``optional`` of them may be left off."""
    full = st.tuples(*parts)
    shorter = [st.tuples(*parts[: len(parts) - k]) for k in range(1, optional + 1)]
    return st.one_of(full, *shorter)


list_strings = st.text("ab ,;\t1.2-+eExX0", max_size=10)
delimiters = st.text(" ,;a\t", max_size=3)
numbers = st.one_of(ints, reals, st.booleans(), st.sampled_from(["2", "1.5", "x", U, E]))
_PATTERNS = [
    "a", "^a", "a$", "(a)(b)?", "a|b", "[a-c]+", "\\d+", "(x)|(y)", "a*", "x*", "^", "$",
    "\\bab", "[[:alpha:]]+", "\\Qa.b\\E", "a\\z", "a\\Z", "(?i)a", "a(?i)b|c", "é",
    "(?<n>a)\\k<n>", ".", "..", "a{2}", "a{,2}", "\\h", "\\s+", "(?=b)", "b+", "(", "[]a]",
]  # fmt: skip
patterns = st.one_of(
    st.sampled_from(_PATTERNS),
    st.text("ab.*+?|()[]^$\\{},12dws", max_size=7),
)
UNSUPPORTED_PCRE = ("(?|", "(?^", "(*", "\\K", "\\p", "\\G", "(?R", "(?&", "\\g")
"""PCRE2 constructs Python's re cannot run (a pattern using one gives ERROR)."""
patterns = patterns.filter(lambda p: not any(u in p for u in UNSUPPORTED_PCRE))
targets = st.text("abAB xy\n.é12_{},", max_size=8)
replacements = st.text("ab\\0123-[]", max_size=6)
options = st.one_of(st.text("imsxfgIq", max_size=3), st.sampled_from([U, E, 1]))
comparison_ops = st.sampled_from(["<", "<=", "==", "!=", ">", ">=", "is", "isnt", "=?=", "LT"])
versions = st.text("0123.ab-", max_size=6)
_CONVERSIONS = [
    "%Y", "%m", "%d", "%H", "%M", "%S", "%j", "%a", "%A", "%b", "%B", "%c", "%x", "%X",
    "%p", "%U", "%W", "%u", "%w", "%e", "%Z", "%z", "%s", "%%", "%Q", "%5Y", "%-d",
    "%_m", "%Ey", "%Oy", "%D", "%F", "%T", "%r", "x", " ", "é",
]  # fmt: skip
formats = st.lists(st.sampled_from(_CONVERSIONS), max_size=5).map("".join)
moments = st.one_of(
    st.integers(-(2**31), 2**31 - 1), st.sampled_from(_INT_EDGES), reals, abstimes, reltimes
)
offsets = st.one_of(st.integers(-50400, 50400), reals, reltimes, st.sampled_from([-1, "x", U]))

DOMAIN = {
    "substr": arguments(strings, ints, ints, optional=1),
    "strcmp": arguments(strings, strings),
    "stricmp": arguments(strings, strings),
    "pow": arguments(numbers, numbers),
    "quantize": arguments(numbers, st.one_of(numbers, st.lists(numbers, max_size=3))),
    "round": arguments(numbers),
    "floor": arguments(numbers),
    "ceiling": arguments(numbers),
    "int": arguments(st.one_of(strings, numbers)),
    "real": arguments(st.one_of(strings, numbers)),
    "bool": arguments(st.one_of(strings, numbers)),
    "interval": arguments(st.one_of(ints, reals, strings)),
    "member": arguments(scalars, st.lists(scalars, max_size=4)),
    "identicalmember": arguments(scalars, st.lists(scalars, max_size=4)),
    "sum": arguments(st.lists(numbers, max_size=4)),
    "avg": arguments(st.lists(numbers, max_size=4)),
    "min": arguments(st.lists(numbers, max_size=4)),
    "max": arguments(st.lists(numbers, max_size=4)),
    "anycompare": arguments(comparison_ops, st.lists(scalars, max_size=4), scalars),
    "allcompare": arguments(comparison_ops, st.lists(scalars, max_size=4), scalars),
    "split": arguments(st.text("a b,\t;@", max_size=8), delimiters, optional=1),
    "splitusername": arguments(st.text("ab@.", max_size=6)),
    "splitslotname": arguments(st.text("ab@1", max_size=6)),
    "join": arguments(st.one_of(strings, values), st.lists(values, max_size=3)),
    "regexp": arguments(patterns, targets, options, optional=1),
    "regexps": arguments(patterns, targets, replacements, options, optional=1),
    "replace": arguments(patterns, targets, replacements, options, optional=1),
    "replaceall": arguments(patterns, targets, replacements, options, optional=1),
    "regexpmember": arguments(patterns, st.lists(st.one_of(targets, scalars), max_size=3)),
    "stringlist_regexpmember": arguments(
        patterns, list_strings, delimiters, st.text("imsxIMSX", max_size=2), optional=2
    ),
    "formattime": arguments(moments, formats, optional=1),
    "abstime": arguments(moments, offsets, optional=1),
    "reltime": arguments(moments),
    "splittime": arguments(moments),
    "versioncmp": arguments(versions, versions),
    "versionlt": arguments(versions, versions),
    "versiongt": arguments(versions, versions),
    "version_in_range": arguments(versions, versions, versions),
}
for _name in ("stringlistsize", "stringlistsum", "stringlistavg", "stringlistmin"):
    DOMAIN[_name] = arguments(list_strings, delimiters, optional=1)
DOMAIN["stringlistmax"] = DOMAIN["stringlistsum"]
for _name in ("stringlistmember", "stringlistimember", "stringlistsubsetmatch"):
    DOMAIN[_name] = arguments(list_strings, list_strings, delimiters, optional=1)
DOMAIN["stringlistisubsetmatch"] = DOMAIN["stringlistsubsetmatch"]
DOMAIN["stringlistsintersect"] = DOMAIN["stringlistmember"]
for _name in ("getyear", "getmonth", "getdayofyear", "getdayofmonth", "getdayofweek",
              "getdays", "gethours", "getminutes", "getseconds"):
    DOMAIN[_name] = arguments(moments)

any_arguments = st.lists(values, max_size=4).map(tuple)


@pytest.mark.parametrize("name", COMPARED)
@settings(deadline=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_function_matches_htcondor(name: str, data: st.DataObject) -> None:
    strategy = DOMAIN.get(name, any_arguments)
    args = data.draw(st.one_of(strategy, any_arguments) if name in DOMAIN else strategy)
    if name in CLOCK_WITHOUT_ARGUMENTS and not args:
        return
    assert differs(name, args) is None, (name, args)


# --------------------------------------------------------------------------- regressions


def _regressions() -> list[tuple[str, tuple[Value, ...], Value]]:
    cases = []
    for line in REGRESSIONS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, args, expected = line.split("\t")[:3]
        cases.append((name, tuple(decode(json.loads(args))), decode(json.loads(expected))))
    return cases


def _evaluate(name: str, args: tuple[Value, ...]) -> tuple[Value, Value]:
    """(ours, HTCondor's) for a function name, "op:<op>" or "unary:<op>"."""
    if name.startswith("op:"):
        op = name[3:]
        return BINARY_OPS[op](*args), reference_eval(binary_text(op, *args))
    if name.startswith("unary:"):
        op = name[6:]
        return UNARY_OPS[op](*args), reference_eval(unary_text(op, *args))
    return BUILTINS[name](CTX, args), reference_eval(call_text(name, args))


@pytest.mark.parametrize(("name", "args", "expected"), _regressions())
def test_regression(name: str, args: tuple[Value, ...], expected: Value) -> None:
    ours, theirs = _evaluate(name, args)
    assert same_value(theirs, expected), "the recorded expectation is not HTCondor's"
    assert same_value(ours, expected)
