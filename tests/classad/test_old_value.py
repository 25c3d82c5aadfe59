"""Old-syntax values are parsed once and remembered, with plain integers and strings made
without the parser (condorsim/classad/_parser.py ``_old_value``): always the tree the parser
makes, and the parser's error for a text it refuses."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.classad._errors import ClassAdSyntaxError
from condorsim.classad._parser import _old_value, parse_expression
from condorsim.classad._tree import ExprTree

_int_texts = st.integers(min_value=-(10**20), max_value=10**20).map(str)
_str_texts = st.text(max_size=12).map(lambda t: f'"{t}"')
_near_misses = st.sampled_from([
    "007", "-0", "--5", "+5", "1e3", "0x10", "99999999999999999999", "-9223372036854775808",
    "9223372036854775807", "9223372036854775808", '"', '""', '"a"b"', '"a\\"b"', '"a\\\\"',
    '"tab\there"', '"new\nline"', '"\x00"', '"é"', "true", "undefined", '"x" + "y"', "1 +",
    " 5", "5 ", "",
])


def _parsed(text: str) -> ExprTree | str:
    try:
        return parse_expression(text, old_syntax=True)
    except ClassAdSyntaxError as err:
        return f"error: {err}"


def _fast(text: str) -> ExprTree | str:
    try:
        return _old_value(text)
    except ClassAdSyntaxError as err:
        return f"error: {err}"


@given(st.one_of(_int_texts, _str_texts, _near_misses, st.text(max_size=16)))
@example('"plain"')
def test_the_remembered_value_is_the_parsers(text: str) -> None:
    fast, slow = _fast(text), _parsed(text)
    assert fast == slow
    if not isinstance(fast, str):
        assert isinstance(slow, ExprTree)
        assert repr(fast) == repr(slow)  # Literal(1) is not Literal(True), nor 1.0
        assert _fast(text) is fast  # remembered


def test_an_old_ad_parses_as_before_and_errors_still_say_where() -> None:
    ad = ClassAd.parse_old('A = 12\nB = "x"\nC = A + 1\nD = -3\nE = "q\\"r"')
    assert ad.lookup("A") == parse_expression("12") and ad.lookup("D") == parse_expression("-3")
    assert ad.evaluate("C") == 13 and ad.evaluate("E") == 'q"r'
    try:
        ClassAd.parse_old("A = 1\nB = 007\n")
    except ClassAdSyntaxError as err:
        assert err.line == 2 and "malformed integer" in str(err)
    else:
        raise AssertionError("007 parsed")
