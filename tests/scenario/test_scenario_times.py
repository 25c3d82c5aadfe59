"""Durations and moments: the forms a user may write, and the ones refused."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.scenario import END, format_duration, format_moment, parse_duration, parse_moment
from condorsim.scenario._errors import BadValue
from condorsim.scenario._limits import MAX_SIM_DURATION

START = 1767225600  # 2026-01-01T00:00:00Z


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90), ("15m", 900), ("2h", 7200), ("1h30m", 5400), ("1d", 86400),
        ("1d2h3m4s", 93784), ("0s", 0), ("0", 0), ("600", 600), (600, 600), (0, 0),
        ("1h90m", 9000), ("007m", 420),
    ],
)
def test_durations(text: object, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "'' is not a duration"),
        ("1m1h", "'1m1h' is not a duration"),  # units in the order d h m s
        ("1h 30m", "'1h 30m' is not a duration"),
        ("1.5h", "'1.5h' is not a duration"),
        ("1w", "'1w' is not a duration"),
        ("1H", "'1H' is not a duration"),
        ("h", "'h' is not a duration"),
        ("1h1h", "'1h1h' is not a duration"),
        ("-5m", "a duration cannot be negative ('-5m')"),
        (-5, "a duration cannot be negative (-5)"),
        ("+5m", "'+5m' is not a duration"),
        ("٣s", "'٣s' is not a duration"),  # only ASCII digits
        (1.5, "expected a duration (\"90s\", \"15m\", \"2h\", \"1h30m\", \"1d\" or a "
              "number of seconds), found a float"),
        (True, "found a boolean"),
    ],
)
def test_bad_durations(text: object, message: str) -> None:
    with pytest.raises(BadValue) as caught:
        parse_duration(text)
    assert message in caught.value.message


@pytest.mark.parametrize(("text", "seconds"),
                         [("-90s", -90), ("+1h", 3600), ("-0", 0), (-30, -30), ("2m", 120)])
def test_signed_durations(text: object, seconds: int) -> None:
    assert parse_duration(text, signed=True) == seconds


@pytest.mark.parametrize(("seconds", "text"),
                         [(0, "0s"), (90, "1m30s"), (5400, "1h30m"), (86400, "1d"),
                          (93784, "1d2h3m4s"), (-90, "-1m30s")])
def test_format_duration(seconds: int, text: str) -> None:
    assert format_duration(seconds) == text


@settings(deadline=None, max_examples=300)
@given(st.integers(min_value=-MAX_SIM_DURATION, max_value=MAX_SIM_DURATION))
def test_duration_round_trip(seconds: int) -> None:
    assert parse_duration(format_duration(seconds), signed=True) == seconds
    if seconds >= 0:
        assert parse_duration(format_duration(seconds)) == seconds


@settings(deadline=None, max_examples=200)
@given(st.lists(st.integers(min_value=0, max_value=999), min_size=4, max_size=4),
       st.lists(st.booleans(), min_size=4, max_size=4))
def test_any_unit_groups_parse(counts: list[int], present: list[bool]) -> None:
    text = "".join(f"{n}{u}" for n, u, p in zip(counts, "dhms", present, strict=True) if p)
    expected = sum(n * size for n, size, p in
                   zip(counts, (86400, 3600, 60, 1), present, strict=True) if p)
    if text:
        assert parse_duration(text) == expected


def test_moments() -> None:
    assert parse_moment("10m", START) == START + 600
    assert parse_moment(0, START) == START
    assert parse_moment("end", START) == END
    moment = dt.datetime(2026, 1, 1, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=-6)))
    assert parse_moment(moment, START) == START + 16 * 3600


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (dt.datetime(2026, 1, 1, 10, 0), "the datetime 2026-01-01T10:00:00 has no offset: "
                                         "add one (Z or +hh:mm) so it names one instant"),
        (dt.datetime(2026, 1, 1, 10, 0, 0, 500000, tzinfo=dt.UTC),
         "has a fraction of a second; simulated time counts whole seconds"),
        (dt.date(2026, 1, 1), "found a date (2026-01-01)"),
        (dt.time(10, 0), "found a time (10:00:00)"),
        ("2026-01-01T10:00:00Z", "'2026-01-01T10:00:00Z' is not a duration; write an absolute "
                                 "time as a TOML datetime without quotes"),
        ("End", "'End' is not a duration"),
        ([1], "found an array"),
    ],
)
def test_bad_moments(value: object, message: str) -> None:
    with pytest.raises(BadValue) as caught:
        parse_moment(value, START)
    assert message in caught.value.message


def test_format_moment() -> None:
    assert format_moment(START + 5400, START) == "1h30m"
    assert format_moment(END, START) == "end"
