"""Built-in ClassAd functions: edge-case tables, and the functions that read the context.

The HTCONDOR table states what HTCondor gives for each case, and
``test_table_is_htcondors`` checks every row against HTCondor's own evaluator. The
other tests cover what cannot be compared with it: time, random and local time come
from the evaluation context (simulated time, seeded random source, simulated zone),
nested ads, and the documented choices where condorsim differs.
"""

from __future__ import annotations

import math
import random

import pytest
from classad2_ref import call_text, reference_eval, same_value

from condorsim.classad import ClassAd
from condorsim.classad._functions import BUILTINS
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

HTCONDOR: list[tuple[str, tuple[Value, ...], Value]] = [
    # type predicates
    ("isundefined", (U,), True),
    ("iserror", (E,), True),
    ("isstring", ("",), True),
    ("isinteger", (True,), False),
    ("isreal", (1.0,), True),
    ("isboolean", (1,), False),
    ("islist", ([],), True),
    ("isclassad", ([],), False),
    ("isinteger", (1, 2), E),
    # conversions: strings read with strtod and truncated; C casts at the edges
    ("int", ("3.7",), 3),
    ("int", ("-3.7",), -3),
    ("int", ("3abc",), 3),
    ("int", ("1e3",), 1000),
    ("int", ("0x10",), 16),
    ("int", ("abc",), E),
    ("int", ("",), E),
    ("int", (True,), 1),
    ("int", (-3.7,), -3),
    ("int", (1e30,), INT_MIN),
    ("int", (math.nan,), INT_MIN),
    ("int", (U,), U),
    ("int", ([1],), E),
    ("real", ("1.5x",), 1.5),
    ("real", ("abc",), E),
    ("real", ("inf",), math.inf),
    ("real", (True,), 1.0),
    ("real", (3,), 3.0),
    ("string", (1.5,), "1.500000000000000E+00"),
    ("string", (1e20,), "1.000000000000000E+20"),
    ("string", (0.0,), "0.0"),
    ("string", (-0.0,), "-0.0"),
    ("string", (math.nan,), 'real("NaN")'),
    ("string", (-math.inf,), 'real("-INF")'),
    ("string", (True,), "true"),
    ("string", ([1, "a", "é\n"],), '{ 1,"a","\\303\\251\\n" }'),
    ("string", ([],), "{  }"),
    ("string", (U,), U),
    ("bool", ("TRUE",), True),
    ("bool", ("yes",), U),
    ("bool", (" true",), U),
    ("bool", (0.0,), False),
    ("bool", (2,), True),
    ("bool", ([],), E),
    # rounding: round is C's rint (half to even); integers pass unchanged
    ("round", (2.5,), 2),
    ("round", (3.5,), 4),
    ("round", (-2.5,), -2),
    ("round", ("2.5",), 2),
    ("round", (True,), 1),
    ("round", (U,), E),
    ("round", (1e30,), INT_MIN),
    ("floor", (-1.5,), -2),
    ("ceiling", (-0.5,), 0),
    ("ceil", (1.2,), 2),
    # pow: integer when both are integers and the exponent >= 0
    ("pow", (2, 10), 1024),
    ("pow", (2, -1), 0.5),
    ("pow", (-3, 3), -26),
    ("pow", (3, 40), INT_MIN),
    ("pow", (0, -1), math.inf),
    ("pow", (-8, 1.0 / 3), math.nan),
    ("pow", ("2", 3), 8.0),
    ("pow", (U, 2), E),
    # quantize: up to a multiple of the base, or the first list element >= v
    ("quantize", (7, 5), 10),
    ("quantize", (-7, 5), 0),
    ("quantize", (7.5, 5), 10.0),
    ("quantize", (7, 2.5), 7.5),
    ("quantize", (7, 0), 7),
    ("quantize", (7, [4, 8, 16]), 8),
    ("quantize", (20, [4, 8, 16]), 32),
    ("quantize", (7, []), 7),
    ("quantize", (7, [4, "a"]), E),
    ("quantize", (7, "5"), 10.0),
    # strings count and cut bytes; case changes touch ASCII only
    ("size", ("é",), 2),
    ("size", (U,), U),
    ("size", (1,), E),
    ("size", ([1, 2],), 2),
    ("substr", ("abcdef", 2), "cdef"),
    ("substr", ("abcdef", -2), "ef"),
    ("substr", ("abcdef", 1, -2), "bcd"),
    ("substr", ("abcdef", 10), ""),
    ("substr", ("abcdef", -10, 2), "ab"),
    ("substr", ("abcdef", 1, 0), ""),
    ("substr", ("abcdef", 2**32 + 1), "bcdef"),
    ("substr", ("abc", U), U),
    ("substr", ("abc", 1.0), E),
    ("toupper", ("aé",), "Aé"),
    ("tolower", ("ÄB",), "Äb"),
    ("toupper", (1.5,), "1.500000000000000E+00"),
    ("toupper", (U,), U),
    ("strcat", ("a", 1, 2.5, True), "a12.500000000000000E+00true"),
    ("strcat", ("a", U, E), U),
    ("strcat", ("a", E, U), E),
    ("strcat", (), ""),
    ("join", (", ", [1, "b", U]), "1, b"),
    ("join", (["a", "b"],), "ab"),
    ("join", (",", "", "a", "", "b"), "a,,b"),
    ("join", (", ", U), U),
    ("strcmp", ("a", "B"), 1),
    ("stricmp", ("a", "B"), -1),
    ("strcmp", (1, "1"), 0),
    ("strcmp", (U, "a"), U),
    ("versioncmp", ("1.10", "1.9"), 1),
    ("versioncmp", ("abc", "ab"), 99),
    ("versioncmp", ("01", "1"), -1),
    ("versionlt", ("8.9.1", "8.10.0"), True),
    ("versiongt", (U, "1"), U),
    ("version_in_range", ("8.9", "8.1", "8.10"), True),
    ("version_in_range", (U, "1", "2"), E),
    # lists: == membership is case-insensitive; UNDEFINED elements are skipped
    ("member", ("A", ["a", "b"]), True),
    ("member", (1, [1.0]), True),
    ("member", (U, [1]), U),
    ("member", (1, U), U),
    ("member", (E, [1]), E),
    ("member", ([1], [1]), E),
    ("member", (1, [U]), False),
    ("identicalmember", ("A", ["a"]), False),
    ("identicalmember", (U, [U]), True),
    ("sum", ([],), 0),
    ("sum", ([1, 2.5],), 3.5),
    ("sum", ([1, True],), 2),
    ("sum", ([1, U],), 1),
    ("sum", ([1, "a"],), E),
    ("sum", ([INT_MAX, 1],), INT_MIN),
    ("avg", ([1, 2],), 1.5),
    ("avg", ([],), 0),
    ("min", ([],), U),
    ("min", ([1, 2.0, 0],), 0.0),
    ("max", ([1, 2],), 2),
    ("max", ([math.nan, 1],), math.nan),
    ("anycompare", ("<", [1, 2, 3], 2), True),
    ("allcompare", ("<", [], 3), True),
    ("anycompare", ("==", ["A"], "a"), True),
    ("anycompare", ("is", ["A"], "a"), False),
    ("anycompare", ("<", [3, U, 1], 2), False),
    ("anycompare", ("<", ["a", 1], 2), E),
    ("anycompare", ("LT", [1], 2), E),
    ("anycompare", (U, [1], 2), U),
    # string lists: items trimmed, empty items dropped; delimiters vary by function
    ("stringlistsize", ("a, b,c",), 3),
    ("stringlistsize", ("a\tb",), 1),
    ("stringlistsize", (" ; ", ";"), 0),
    ("stringlistsize", (U,), E),
    ("stringlistsum", ("1,2,3",), 6),
    ("stringlistsum", ("1,2.5",), 3.5),
    ("stringlistsum", ("",), 0.0),
    ("stringlistsum", ("1,x",), E),
    ("stringlistavg", ("1,2",), 1),
    ("stringlistmin", ("3,1,2",), 1),
    ("stringlistmin", ("",), U),
    ("stringlistmax", ("-5,-3",), 0),
    ("stringlistmember", ("b", "a\tb"), True),
    ("stringlistmember", ("B", "a,b"), False),
    ("stringlistimember", ("B", "a,b"), True),
    ("stringlistmember", ("a", "x; a", ";"), True),
    ("stringlistmember", (U, "a"), False),
    ("stringlistmember", (U, U), U),
    ("stringlistmember", (1, "1"), E),
    ("stringlistsubsetmatch", ("a,b", "b,a,c"), True),
    ("stringlistsubsetmatch", ("", "b"), True),
    ("stringlistsubsetmatch", (" , ", "b"), False),
    ("stringlistisubsetmatch", ("A", "a"), True),
    ("stringlistsintersect", ("a,b", "c,b"), True),
    ("stringlistsintersect", (" a ;b", "a", ";"), False),
    ("stringlistsintersect", ("a", U), U),
    # split, splitUserName, splitSlotName
    ("split", ("a b,c",), ["a", "b", "c"]),
    ("split", ("a,,b",), ["a", "", "b"]),
    ("split", ("a, ,b",), ["a", "", "b"]),
    ("split", (",a,",), ["a"]),
    ("split", ("a; ;b", ";"), ["a", " ", "b"]),
    ("split", ("",), []),
    ("split", (U,), E),
    ("splitusername", ("a@b@c",), ["a", "b@c"]),
    ("splitusername", ("a",), ["a", ""]),
    ("splitslotname", ("host",), ["", "host"]),
    ("splitslotname", ("slot1@host",), ["slot1", "host"]),
    # regular expressions (PCRE2 on bytes)
    ("regexp", ("a.c", "aéc"), False),
    ("regexp", ("a..c", "aéc"), True),
    ("regexp", ("É", "é", "i"), False),
    ("regexp", ("a", "A", "i"), True),
    ("regexp", ("a", "A", "I"), False),
    ("regexp", ("[[:alpha:]]+", "abc"), True),
    ("regexp", ("\\Qa.b\\E", "axb"), False),
    ("regexp", ("a\\z", "a\n"), False),
    ("regexp", ("a\\Z", "a\n"), True),
    ("regexp", ("a(?i)b", "aB"), True),
    ("regexp", ("^b", "a\nb", "m"), True),
    ("regexp", ("a.b", "a\nb", "s"), True),
    ("regexp", ("a b", "ab", "x"), True),
    ("regexp", ("(", "a"), E),
    ("regexp", (U, "a"), U),
    ("regexp", (1, "a"), E),
    ("regexps", ("a", "xay", "Q", "f"), "xQy"),
    ("regexps", ("a", "xyz", "Q"), ""),
    ("regexps", ("(x)|(y)", "ayb", "[\\1]"), "[]"),
    ("regexps", ("(x)|(y)", "axb", "[\\2]"), E),
    ("replace", ("a", "aXa", "b"), "bXa"),
    ("replaceall", ("a", "aXa", "b"), "bXb"),
    ("replaceall", ("^", "ab", "-"), "-ab"),
    ("replaceall", ("x*", "ab", "-"), E),
    ("replaceall", ("(?=b)", "abab", "-"), "a-ba-b"),
    ("regexpmember", ("a", ["b", "a"]), True),
    ("regexpmember", ("a", ["b", U]), U),
    ("regexpmember", ("a", ["b", 1]), E),
    ("regexpmember", ("(", ["a"]), False),
    ("stringlist_regexpmember", ("^a", "b,ab,ac"), True),
    ("stringlist_regexpmember", ("^a", ""), U),
    ("stringlist_regexpmember", ("^A", "ab", ",", "i"), True),
    # time: interval, formatTime with an explicit time (in UTC)
    ("interval", (90061,), "1+01:01:01"),
    ("interval", (-90061,), "-1+01:01:01"),
    ("interval", (-3600,), "-1:00:00"),
    ("interval", (-61,), "-1:01"),
    ("interval", ("90",), "1:30"),
    ("interval", (U,), E),
    ("formattime", (0,), "Thu Jan  1 00:00:00 1970"),
    ("formattime", (1700000000, "%Y-%m-%d %H:%M:%S"), "2023-11-14 22:13:20"),
    ("formattime", (4294967296 + 5, "%S"), "05"),
    ("formattime", (1e20, "%Y"), "1901"),
    ("formattime", (0, "%z %Q %5Y %-d"), "+0000 %Q 01970 1"),
    ("formattime", ("0", "%Y"), E),
    ("formattime", (0, U), E),
    # user maps: none configured
    ("usermap", ("a", "b", "c", "d"), "d"),
    ("usermap", ("a", "b"), U),
    ("usermap", (E, "b"), E),
]


@pytest.mark.parametrize(("name", "args", "expected"), HTCONDOR)
def test_builtin(name: str, args: tuple[Value, ...], expected: Value) -> None:
    assert same_value(BUILTINS[name](CTX, args), expected)


def test_table_is_htcondors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    import time

    time.tzset()
    try:
        wrong = [
            (name, args, expected)
            for name, args, expected in HTCONDOR
            if not same_value(reference_eval(call_text(name, args)), expected)
        ]
    finally:
        monkeypatch.undo()
        time.tzset()
    assert wrong == []


def test_the_names_policies_use_are_all_there() -> None:
    wanted = """strcat substr size toupper tolower strcmp stricmp int real string bool floor
    ceiling round pow quantize isundefined iserror isstring isinteger isreal isboolean islist
    isclassad member identicalmember sum avg min max stringlistmember stringlistimember
    stringlistsize stringlistsum stringlistmin stringlistmax stringlistavg stringlistsintersect
    stringlistsubsetmatch regexp regexps regexpmember replace replaceall join split
    splitusername splitslotname anycompare allcompare time interval formattime random
    versioncmp versionlt versionle versiongt versionge versioneq version_in_range""".split()
    assert set(wanted) <= set(BUILTINS)
    assert all(name == name.lower() for name in BUILTINS)


def test_every_builtin_survives_any_argument_count_and_type() -> None:
    awkward: list[Value] = [
        U, E, 1, -1.5, "x", True, [], [U], ClassAd(), AbsTime(-5, 3600), RelTime(-1e300),
        RelTime(math.nan),
    ]  # fmt: skip
    kinds = (bool, int, float, str, list, ClassAd, AbsTime, RelTime)
    for name, function in BUILTINS.items():
        for n in range(5):
            for arg in awkward:
                result = function(CTX, (arg,) * n)
                assert type(result) in kinds or result is U or result is E, (name, n, arg)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('strcat("a", 1, toUpper("b"))', "a1B"),
        ('stringListIMember("X", "a, x")', True),
        (r'regexps("(\\w+)@(\\w+)", "joe@host", "\\2")', "host"),
        ("quantize(1000, {512, 1024, 2048})", 1024),
        ("interval(time() - 109939)", "1+01:01:01"),
        ("1 + 2 * 3 == 7 && !(5 < 3)", True),
    ],
)
def test_end_to_end_through_the_parser(text: str, expected: Value) -> None:
    from condorsim.classad import parse_expr

    value = parse_expr(text).evaluate(ctx=EvalContext(now=200000))
    assert same_value(value, expected)


# --------------------------------------------------------------------------- the context


def test_time_is_the_simulated_now() -> None:
    assert BUILTINS["time"](EvalContext(now=1_700_000_123), ()) == 1_700_000_123
    assert BUILTINS["time"](CTX, (1,)) is E


def test_random_comes_from_the_seeded_source() -> None:
    draw = BUILTINS["random"]
    first = [draw(EvalContext(rng=random.Random(7)), (10,)) for _ in range(3)]
    again = [draw(EvalContext(rng=random.Random(7)), (10,)) for _ in range(3)]
    assert first == again
    ctx = EvalContext(rng=random.Random(1))
    ints = [draw(ctx, (6,)) for _ in range(200)]
    assert set(ints) == set(range(6))
    reals = [draw(ctx, ()) for _ in range(200)]
    assert all(type(r) is float and 0.0 <= r < 1.0 for r in reals)
    scaled = [draw(ctx, (2.5,)) for _ in range(50)]
    assert all(0.0 <= r < 2.5 for r in scaled)


@pytest.mark.parametrize("bound", [0, -3, 0.0, -1.5, "5", U, True, 2**32])
def test_random_with_a_bound_it_cannot_use_is_error(bound: Value) -> None:
    # 2**32 is 0 once truncated to HTCondor's 32-bit int
    assert BUILTINS["random"](CTX, (bound,)) is E


def test_random_takes_at_most_one_argument() -> None:
    assert BUILTINS["random"](CTX, (1, 2)) is E


def test_format_time_without_arguments_formats_now() -> None:
    assert BUILTINS["formattime"](EvalContext(now=0), ()) == "Thu Jan  1 00:00:00 1970"
    assert BUILTINS["formattime"](EvalContext(now=86400 * 366), ()) == "Sat Jan  2 00:00:00 1971"


@pytest.mark.parametrize(
    ("tz", "t", "expected"),
    [
        ("UTC", 1700000000, "2023-11-14 22:13:20 UTC +0000"),
        ("Europe/Berlin", 1700000000, "2023-11-14 23:13:20 CET +0000"),
        # summer time: the shift includes DST, the abbreviation stays the standard one
        ("Europe/Berlin", 1690000000, "2023-07-22 06:26:40 CET +0000"),
        ("America/Chicago", 1690000000, "2023-07-21 23:26:40 CST +0000"),
        ("Not/A_Zone", 0, "1970-01-01 00:00:00 UTC +0000"),
    ],
)
def test_format_time_shows_local_time_of_the_context_zone(tz: str, t: int, expected: str) -> None:
    ctx = EvalContext(tz=tz)
    assert BUILTINS["formattime"](ctx, (t, "%Y-%m-%d %H:%M:%S %Z %z")) == expected


def test_format_time_s_is_the_wall_clock_read_in_standard_time() -> None:
    assert BUILTINS["formattime"](EvalContext(), (1700000000, "%s")) == "1700000000"
    berlin = EvalContext(tz="Europe/Berlin")
    assert BUILTINS["formattime"](berlin, (1690000000, "%s")) == str(1690000000 + 3600)


# --------------------------------------------------------------------------- nested ads


def test_functions_on_a_nested_ad() -> None:
    ad = ClassAd.parse("[a = 1; b = 2]")
    assert BUILTINS["size"](CTX, (ad,)) == 2
    assert BUILTINS["isclassad"](CTX, (ad,)) is True
    assert BUILTINS["member"](CTX, (ad, [1])) is E
    assert BUILTINS["string"](CTX, (ad,)) == "[ a = 1; b = 2 ]"
    assert BUILTINS["int"](CTX, (ad,)) is E


# --------------------------------------------------------------------------- choices


def test_version_functions_accept_any_spelling() -> None:
    # HTCondor recognises versionLE etc. only in that spelling (other spellings: ERROR)
    assert BUILTINS["versionle"](CTX, ("1", "2")) is True


def test_user_home_gives_the_default_or_undefined() -> None:
    # HTCondor looks the account up on the real host; a simulated host has none
    home = BUILTINS["userhome"]
    assert home(CTX, ("root",)) is U
    assert home(CTX, ("root", "/home/x")) == "/home/x"
    assert home(CTX, (U,)) is U
    assert home(CTX, (1,)) is E
    assert home(CTX, (1, "/d")) == "/d"
    assert home(CTX, ()) is E


def test_substr_through_a_character_gives_a_replacement_character() -> None:
    # HTCondor returns the cut bytes (its Python binding cannot even decode them)
    assert BUILTINS["substr"](CTX, ("héllo", 2, 1)) == "\ufffd"
