"""CronTab schedules: HTCondor's own results, the manual's examples, and properties.

tests/data/crontab_vectors.txt is a copy of HTCondor's results (its condor_crontab.cpp
compiled with stubs); every row is replayed, each result fed back as the next start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.crontab import (
    CRON_ATTRS,
    CronSchedule,
    CronTabError,
    needs_crontab,
    next_run_time,
    parse_schedule,
)

VECTORS = Path(__file__).parent / "data" / "crontab_vectors.txt"


def at(text: str, tz: str = "UTC") -> int:
    """Epoch seconds of a wall-clock time 'YYYY-MM-DD HH:MM' in zone tz (first occurrence)."""
    return int(datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp())


def chain(fields: dict[str, str], start: int, count: int, tz: str = "UTC") -> list[int]:
    schedule = parse_schedule(fields)
    out = []
    for _ in range(count):
        start = schedule.next_after(start, tz)
        out.append(start)
    return out


def sched(
    minute: str = "*", hour: str = "*", dom: str = "*", month: str = "*", dow: str = "*"
) -> dict[str, str]:
    return dict(zip(CRON_ATTRS, (minute, hour, dom, month, dow), strict=True))


# ------------------------------------------------------------------ HTCondor's vectors


@dataclass
class Vector:
    line: int
    fields: dict[str, str]
    start: int
    error: str | None
    results: list[int]
    defect: bool


def load_vectors() -> list[Vector]:
    rows = []
    pattern = re.compile(r"isValid=([01]) getError='(.*)' => (.*)$")
    for number, line in enumerate(VECTORS.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        head, _, rest = line.partition(" => ")
        parts = head.split("|")
        fields = {a: v for a, v in zip(CRON_ATTRS, parts[:5], strict=True) if v != "-"}
        match = pattern.match(rest.strip())
        assert match, line
        valid, error, results = match.groups()
        body, _, comment = results.partition("#")
        values = [int(item.split()[0]) for item in body.strip().rstrip(";").split(";")]
        rows.append(
            Vector(
                line=number,
                fields=fields,
                start=int(parts[5].split()[0]),
                error=None if valid == "1" else error,
                results=values if valid == "1" else [],
                defect="DEFECT" in comment,
            )
        )
    return rows


ALL_VECTORS = load_vectors()

# The DEFECT rows: a schedule restricted by day of week only.  HTCondor picks day 0 of the
# next month (= the last day of this month, a Wednesday) and then falls back to the wall
# clock.  The manual says the next matching weekday; worked out by hand from a calendar of
# January/February 2024 (Mondays 22, 29 Jan, 5, 12 Feb; Sundays 21, 28 Jan, 4 Feb), in UTC:
MANUAL_ANSWERS: dict[tuple[str, ...], list[int]] = {
    # 0 9 * * 1 from Mon 2024-01-15 12:00:10: every Monday 09:00.
    ("0", "9", "*", "*", "1"): [
        1705914000,  # 2024-01-22 09:00 = 1705881600 (midnight) + 9 h
        1706518800,  # 2024-01-29 09:00 (+7 days)
        1707123600,  # 2024-02-05 09:00 (HTCondor: Wed 2024-01-31 09:00)
        1707728400,  # 2024-02-12 09:00 (HTCondor: wall clock + 120 s)
    ],
    # 0 0 * * 7 from the same start: every Sunday midnight (7 is Sunday).
    ("0", "0", "*", "*", "7"): [
        1705795200,  # 2024-01-21 00:00
        1706400000,  # 2024-01-28 00:00
        1707004800,  # 2024-02-04 00:00 (HTCondor: Wed 2024-01-31 00:00)
    ],
}


def vector_id(v: Vector) -> str:
    return f"line{v.line}:" + "|".join(v.fields.get(a, "-") for a in CRON_ATTRS)


def test_vectors_file_has_the_rows_we_expect() -> None:
    assert len(ALL_VECTORS) == 27
    assert sum(v.defect for v in ALL_VECTORS) == 2
    assert sum(v.error is not None for v in ALL_VECTORS) == 5


@pytest.mark.parametrize(
    "vector", [v for v in ALL_VECTORS if not v.defect and v.error is None], ids=vector_id
)
def test_htcondor_vector_chain(vector: Vector) -> None:
    schedule = parse_schedule(vector.fields)
    start = vector.start
    for expected in vector.results:
        assert schedule.next_after(start) == expected
        start = expected


@pytest.mark.parametrize("vector", [v for v in ALL_VECTORS if v.error is not None], ids=vector_id)
def test_htcondor_vector_invalid(vector: Vector) -> None:
    with pytest.raises(CronTabError) as info:
        parse_schedule(vector.fields)
    assert str(info.value) == vector.error
    with pytest.raises(CronTabError):
        next_run_time(vector.fields, vector.start)


@pytest.mark.parametrize("vector", [v for v in ALL_VECTORS if v.defect], ids=vector_id)
def test_htcondor_defect_rows_follow_the_manual(vector: Vector) -> None:
    key = tuple(vector.fields.get(a, "*") for a in CRON_ATTRS)
    manual = MANUAL_ANSWERS[key]
    assert chain(vector.fields, vector.start, len(manual)) == manual
    # Up to the month's end HTCondor is right, and so are we.
    agree = [r for r, m in zip(vector.results, manual, strict=False) if r == m]
    assert agree == vector.results[:2] == manual[:2]


def test_htcondor_unit_test_chain() -> None:
    # src/condor_unit_tests/OTEST_UserPolicy.cpp: test_cron_minute, start 0, UTC.
    expected = [360, 420, 540, 2400, 2460, 2520, 3960, 4020, 4140, 6000]
    expected += [6060, 6120, 7560, 7620, 7740, 9600, 9660, 9720, 36360, 36420]
    fields = {"CronMinute": "6,7,9,40-42", "CronHour": "0-2,10, 23"}
    assert chain(fields, 0, 20) == expected


# ------------------------------------------------------------------ the manual's examples

SCHEDULE_FIELDS = dict(
    zip(CRON_ATTRS, ("minutes", "hours", "days_of_month", "months", "days_of_week"), strict=True)
)


def field_values(attr: str, text: str) -> tuple[int, ...]:
    """The values one attribute's text selects (the others left at '*')."""
    values: tuple[int, ...] = getattr(parse_schedule({attr: text}), SCHEDULE_FIELDS[attr])
    return values


@pytest.mark.parametrize(
    ("attr", "text", "values"),
    [
        ("CronMonth", "*", tuple(range(1, 13))),
        ("CronHour", "0-4", (0, 1, 2, 3, 4)),
        ("CronMinute", "15,20,25,30", (15, 20, 25, 30)),
        ("CronHour", "0-3,9-12,15", (0, 1, 2, 3, 9, 10, 11, 12, 15)),
        ("CronMinute", "15,15,20", (15, 20)),  # "multiple entries of the same value are ignored"
        ("CronMinute", "10-30/5", (10, 15, 20, 25, 30)),
        ("CronHour", "*/3", (0, 3, 6, 9, 12, 15, 18, 21)),
        ("CronHour", "0-23/2", tuple(range(0, 24, 2))),
        ("CronDayOfWeek", "0", (0,)),
        ("CronDayOfWeek", "7", (0,)),  # "Sunday is 0 or 7"
        ("CronDayOfWeek", "5-7", (0, 5, 6)),
    ],
)
def test_manual_operators(attr: str, text: str, values: tuple[int, ...]) -> None:
    assert field_values(attr, text) == values


def test_manual_missing_attributes_default_to_every_value() -> None:
    schedule = parse_schedule({"CronMinute": "0"})
    assert schedule.hours == tuple(range(24))
    assert schedule.days_of_month == tuple(range(1, 32))
    assert schedule.months == tuple(range(1, 13))
    assert schedule.days_of_week == ()  # no weekday restriction
    assert not schedule.dom_restricted and not schedule.dow_restricted


def test_manual_top_of_every_hour_submitted_at_0930() -> None:
    # "if a job is submitted at 9:30am, then the next deferral time will be ... 10:00am"
    assert next_run_time({"CronMinute": "0", "CronHour": "*"}, at("2024-06-03 09:30")) == at(
        "2024-06-03 10:00"
    )


def test_manual_rounds_up_to_the_next_minute() -> None:
    every = {"CronMinute": "*"}
    assert next_run_time(every, at("2024-06-03 09:30") + 59) == at("2024-06-03 09:31")
    # On a whole minute HTCondor still moves on to the next one.
    assert next_run_time(every, at("2024-06-03 09:30")) == at("2024-06-03 09:31")
    assert next_run_time(every, at("2024-06-03 09:30") - 1) == at("2024-06-03 09:30")


def test_manual_23_minutes_after_every_two_hours() -> None:
    runs = chain(sched("23", "0-23/2"), at("2024-01-15 10:07"), 8)
    expected = ["10:23", "12:23", "14:23", "16:23", "18:23", "20:23", "22:23"]
    assert runs == [at(f"2024-01-15 {t}") for t in expected] + [at("2024-01-16 00:23")]


def test_manual_every_15_minutes() -> None:
    runs = chain({"CronMinute": "*/15"}, at("2024-12-31 23:20"), 4)
    assert runs == [at(t) for t in ("2024-12-31 23:30", "2024-12-31 23:45", "2025-01-01 00:00")] + [
        at("2025-01-01 00:15")
    ]


def test_manual_may_example_as_intended() -> None:
    # "Run at 10:30pm on each of May 10th to May 20th, as well as every remaining Monday
    # within the month of May", written as meant: 22:30 and Monday (=1).  (The manual's own
    # text says hour 20 and day of week 2 = Tuesday; that one is a vector row above.)
    fields = sched("30", "22", "10-20", "5", "1")
    days_2024 = [6, *range(10, 21), 27]  # Mondays in May 2024: 6, 13, 20, 27
    runs = chain(fields, at("2024-01-01 00:00"), len(days_2024) + 1)
    assert runs == [at(f"2024-05-{d:02d} 22:30") for d in days_2024] + [at("2025-05-05 22:30")]


def test_manual_january_18th_every_10_and_6_minutes_before_noon() -> None:
    fields = sched("*/10,*/6", "0-11", "18", "1", "*")
    minutes = sorted(set(range(0, 60, 10)) | set(range(0, 60, 6)))
    expected = [at(f"2024-01-18 {h:02d}:{m:02d}") for h in range(12) for m in minutes]
    runs = chain(fields, at("2024-01-01 00:00"), len(expected) + 1)
    assert runs == [*expected, at("2025-01-18 00:00")]


def test_manual_or_rule_when_both_day_fields_are_restricted() -> None:
    # The 13th and every Friday (vector row too), here across a month boundary.
    runs = chain(sched("0", "0", "13", "*", "5"), at("2024-09-25 00:00"), 4)
    assert runs == [at(f"2024-{d} 00:00") for d in ("09-27", "10-04", "10-11", "10-13")]


def test_only_the_restricted_day_field_applies() -> None:
    assert chain(sched("0", "0", "1", "*", "*"), at("2024-01-15 00:00"), 2) == [
        at("2024-02-01 00:00"),
        at("2024-03-01 00:00"),
    ]
    # Day of week only, across the end of a month (HTCondor's defect; the manual's answer).
    assert chain(sched("0", "12", "*", "*", "1-5"), at("2024-08-30 13:00"), 2) == [
        at("2024-09-02 12:00"),
        at("2024-09-03 12:00"),
    ]
    # "1-31" is not a restriction either: only the weekdays apply.
    assert next_run_time(sched("0", "0", "1-31", "*", "6"), at("2024-01-15 00:00")) == at(
        "2024-01-20 00:00"
    )


def test_nonexistent_dates_are_skipped() -> None:
    assert chain(sched("0", "0", "30", "2,3", "*"), at("2024-01-01 00:00"), 2) == [
        at("2024-03-30 00:00"),
        at("2025-03-30 00:00"),
    ]
    # 29 Feb across 2100, which is not a leap year.
    assert next_run_time(sched("0", "0", "29", "2"), at("2096-03-01 00:00")) == at(
        "2104-02-29 00:00"
    )


# ------------------------------------------------------------------ HTCondor's parsing quirks


@pytest.mark.parametrize(
    ("attr", "text", "values"),
    [
        ("CronMinute", "1-59/2", tuple(range(2, 59, 2))),  # modulo steps, not "every 2nd from 1"
        ("CronMonth", "*/2", (2, 4, 6, 8, 10, 12)),
        ("CronDayOfMonth", "*/2", tuple(range(2, 32, 2))),
        ("CronMinute", "61", tuple(range(60))),  # out of range: every value
        ("CronHour", "25", tuple(range(24))),
        ("CronMinute", "-5", (0, 1, 2, 3, 4, 5)),  # leading '-': from the field's minimum
        ("CronMinute", "58-70", (58, 59)),  # clamped
        ("CronHour", "0-2,10, 23", (0, 1, 2, 10, 23)),  # spaces removed
        ("CronDayOfWeek", "*/2", ()),  # '*' adds nothing to the day of week
        ("CronDayOfWeek", "", ()),  # an empty day-of-week list is allowed
        ("CronMinute", "5,,7", (5, 7)),
    ],
)
def test_htcondor_parsing_quirks(attr: str, text: str, values: tuple[int, ...]) -> None:
    assert field_values(attr, text) == values


@pytest.mark.parametrize(
    ("fields", "message", "attributes"),
    [
        (
            {"CronMinute": "abc", "CronHour": "5-3"},
            "Invalid parameter value 'abc' for CronMinuteInvalid cron attribute: 5-3",
            ("CronMinute", "CronHour"),
        ),
        ({"CronHour": "*/0"}, "", ("CronHour",)),
        ({"CronMonth": "1\t2"}, "Invalid parameter value '1\t2' for CronMonth", ("CronMonth",)),
        (
            {"CronDayOfWeek": "mon"},
            "Invalid parameter value 'mon' for CronDayOfWeek",
            ("CronDayOfWeek",),
        ),
        ({"CronHour": " , "}, "Invalid cron attribute: ,", ("CronHour",)),
        ({"CronDayOfMonth": "30", "CronMonth": "2"}, None, ("CronDayOfMonth", "CronMonth")),
    ],
)
def test_invalid_schedules(
    fields: dict[str, str], message: str | None, attributes: tuple[str, ...] | None
) -> None:
    with pytest.raises(CronTabError) as info:
        parse_schedule(fields)
    if message is not None:
        assert str(info.value) == message
    if attributes is not None:
        assert info.value.attributes == attributes


def test_attribute_names_are_case_insensitive_and_other_keys_ignored() -> None:
    fields = {"cronminute": "5", "CRONHOUR": "6", "Owner": "alice", "CronPrepTime": "300"}
    assert next_run_time(fields, at("2024-01-01 00:00")) == at("2024-01-01 06:05")


def test_non_string_values_count_as_missing() -> None:
    # HTCondor reads the attributes with LookupString: CronMinute = 5 (an integer) is '*'.
    fields: dict[str, object] = {"CronMinute": 5, "CronHour": "6"}
    assert next_run_time(fields, at("2024-01-01 00:00")) == at("2024-01-01 06:00")  # type: ignore[arg-type]


def test_needs_crontab() -> None:
    assert needs_crontab(["Owner", "cronDayOfWeek"])
    assert not needs_crontab(["Owner", "CronPrepTime", "DeferralTime"])
    assert not needs_crontab([])


def test_needs_crontab_asks_a_classad_for_its_cron_attributes_in_any_case() -> None:
    assert needs_crontab(ClassAd({"Owner": "alice", "crondayofweek": "1"}))
    assert needs_crontab(ClassAd({"CRONMINUTE": "*/5"}))
    assert not needs_crontab(ClassAd({"Owner": "alice", "CronPrepTime": 60}))


def test_unknown_time_zone() -> None:
    with pytest.raises(CronTabError, match="Unknown time zone 'Mars/Olympus'"):
        next_run_time({"CronMinute": "0"}, 0, "Mars/Olympus")
    with pytest.raises(CronTabError):
        next_run_time({"CronMinute": "0"}, 0, "../etc/passwd")


def test_schedule_built_directly_is_normalised_and_checked() -> None:
    schedule = CronSchedule((5, 5, 1), (0,), tuple(range(1, 32)), (1,), (7, 1))
    assert schedule.minutes == (1, 5) and schedule.days_of_week == (0, 1)
    assert schedule == parse_schedule(sched("1,5", "0", "*", "1", "1,7"))
    with pytest.raises(CronTabError):
        CronSchedule((60,), (0,), (1,), (1,), ())
    with pytest.raises(CronTabError):
        CronSchedule((), (0,), (1,), (1,), ())


# ------------------------------------------------------------------ time zones


def test_dst_gap_runs_at_the_shifted_time() -> None:
    # HTCondor (mktime) verified with TZ=America/Chicago: a missing 02:30 becomes 03:30.
    tz = "America/Chicago"
    runs = chain(sched("30", "2"), at("2024-03-09 12:00", tz), 3, tz)
    assert runs == [
        at("2024-03-10 03:30", tz),
        at("2024-03-11 02:30", tz),
        at("2024-03-12 02:30", tz),
    ]
    assert runs[0] == int(datetime(2024, 3, 10, 8, 30, tzinfo=UTC).timestamp())


def test_dst_gap_when_the_start_is_just_after_the_change() -> None:
    tz = "America/Chicago"
    start = int(datetime(2024, 3, 10, 8, 10, tzinfo=UTC).timestamp())  # 03:10 CDT
    assert next_run_time(sched("45", "2"), start, tz) == int(
        datetime(2024, 3, 10, 8, 45, tzinfo=UTC).timestamp()
    )


def test_dst_half_hour_gap_lord_howe() -> None:
    # 2024-10-06 02:00 +10:30 -> 02:30 +11:00; 02:15 maps to 02:45 +11:00 = 15:45 UTC the 5th.
    start = at("2024-10-06 00:00", "Australia/Lord_Howe")
    assert next_run_time(sched("15", "2"), start, "Australia/Lord_Howe") == int(
        datetime(2024, 10, 5, 15, 45, tzinfo=UTC).timestamp()
    )


def test_dst_repeated_hour_fires_at_both_instants() -> None:
    tz = "America/New_York"
    runs = chain(sched("30", "1"), at("2024-11-02 12:00", tz), 3, tz)
    utc = [datetime(2024, 11, 3, 5, 30), datetime(2024, 11, 3, 6, 30), datetime(2024, 11, 4, 6, 30)]
    assert runs == [int(d.replace(tzinfo=UTC).timestamp()) for d in utc]


def test_dst_repeated_hour_keeps_real_intervals() -> None:
    # Every 15 minutes from 01:50 EDT: the next is 01:00 EST, 10 minutes later.
    tz = "America/New_York"
    start = int(datetime(2024, 11, 3, 5, 50, tzinfo=UTC).timestamp())
    assert chain({"CronMinute": "*/15"}, start, 2, tz) == [start + 600, start + 1500]


def test_berlin_summer_offset() -> None:
    assert next_run_time(sched("0", "9"), at("2024-07-01 00:00"), "Europe/Berlin") == int(
        datetime(2024, 7, 1, 7, 0, tzinfo=UTC).timestamp()
    )


# ------------------------------------------------------------------ properties

ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"]
LIMITS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


@st.composite
def field_text(draw: st.DrawFn, index: int) -> tuple[str, set[int]]:
    """A random field text and the set HTCondor's rules give it (an independent model)."""
    low, high = LIMITS[index]
    dow = index == 4
    items = []
    values: set[int] = set()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["value", "value", "range", "from-min", "star", "wild"]))
        if kind == "value":
            v = draw(st.integers(low, high))
            text, base = str(v), [v]
        elif kind == "wild":  # a single value out of range means the whole field
            v = draw(st.integers(high + 1, high + 40))
            text, base = str(v), list(range(low, high + 1))
        elif kind == "range":
            a = draw(st.integers(low, high))
            b = draw(st.integers(a, high + 5))
            text, base = f"{a}-{b}", list(range(a, min(b, high) + 1))
        elif kind == "from-min":  # "-5" is low-5
            b = draw(st.integers(low, high))
            text, base = f"-{b}", list(range(low, b + 1))
        else:
            text, base = "*", ([] if dow else list(range(low, high + 1)))
        step = 1
        if draw(st.booleans()):
            step = draw(st.integers(1, high))
            text += f"/{step}"
        for v in base:
            v = 0 if dow and v == 7 else v
            if v % step == 0:
                values.add(v)
        items.append(text)
    separator = draw(st.sampled_from([",", ", ", " , "]))
    return separator.join(items), values


@st.composite
def schedules(draw: st.DrawFn) -> tuple[dict[str, str], list[set[int]]]:
    fields, sets = {}, []
    for index, attr in enumerate(CRON_ATTRS):
        if draw(st.booleans()):
            text, values = draw(field_text(index))
            fields[attr] = text
        else:
            low, high = LIMITS[index]
            values = set() if index == 4 else set(range(low, high + 1))
        sets.append(values)
    return fields, sets


def satisfiable(sets: list[set[int]]) -> bool:
    _, _, doms, months, dows = sets
    if dows or len(doms) == 31:
        return True
    lengths = {
        m: (29 if m == 2 else [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1])
        for m in months
    }
    return any(d <= lengths[m] for m in months for d in doms)


def day_matches(sets: list[set[int]], day: date) -> bool:
    _, _, doms, months, dows = sets
    if day.month not in months:
        return False
    weekday = (day.weekday() + 1) % 7  # cron: 0 = Sunday
    dom_r, dow_r = len(doms) != 31, bool(dows)
    if dom_r and dow_r:
        return day.day in doms or weekday in dows
    if dom_r:
        return day.day in doms
    if dow_r:
        return weekday in dows
    return True


def fire_instants(wall: datetime, zone: ZoneInfo) -> set[int]:
    """Instants a matching wall time fires at: both if repeated, the fold=0 one if skipped."""
    first = int(wall.replace(tzinfo=zone, fold=0).timestamp())
    second = int(wall.replace(tzinfo=zone, fold=1).timestamp())
    exists = datetime.fromtimestamp(first, zone).replace(tzinfo=None) == wall
    return {first, second} if exists else {first}


def brute_force_next(sets: list[set[int]], after: int, tz: str) -> int:
    """The earliest fire instant >= the next whole minute: by day, then by minute."""
    zone = ZoneInfo(tz)
    start = (after // 60 + 1) * 60
    day = datetime.fromtimestamp(start, zone).date() - timedelta(days=1)
    minutes, hours = sorted(sets[0]), sorted(sets[1])
    best: int | None = None
    best_wall = datetime(9000, 1, 1)  # until something is found
    while best is None or datetime.combine(day, time()) <= best_wall + timedelta(days=1):
        if day_matches(sets, day):
            for h in hours:
                for m in minutes:
                    wall = datetime.combine(day, time(h, m))
                    if wall > best_wall + timedelta(hours=3):
                        break
                    for instant in fire_instants(wall, zone):
                        if instant >= start and (best is None or instant < best):
                            best, best_wall = instant, wall
        day += timedelta(days=1)
    return best


@settings(deadline=None, max_examples=300)
@given(schedules())
def test_parse_matches_the_model(case: tuple[dict[str, str], list[set[int]]]) -> None:
    fields, sets = case
    valid = all(sets[i] for i in range(4)) and satisfiable(sets)
    if not valid:
        with pytest.raises(CronTabError):
            parse_schedule(fields)
        return
    schedule = parse_schedule(fields)
    got = [schedule.minutes, schedule.hours, schedule.days_of_month, schedule.months]
    assert got == [tuple(sorted(s)) for s in sets[:4]]
    assert schedule.days_of_week == tuple(sorted(sets[4]))


@settings(deadline=None, max_examples=300)
@given(
    schedules(),
    st.integers(0, 4102444800 - 10 * 366 * 86400),
    st.sampled_from(ZONES),
)
def test_next_run_is_the_earliest_matching_minute(
    case: tuple[dict[str, str], list[set[int]]], after: int, tz: str
) -> None:
    fields, sets = case
    assume(all(sets[i] for i in range(4)) and satisfiable(sets))
    result = next_run_time(fields, after, tz)
    assert result % 60 == 0
    assert result >= (after // 60 + 1) * 60 > after
    # (1) it fires at a matching wall time in tz, (3) nothing earlier does.
    assert result == brute_force_next(sets, after, tz)


def offset_changes(tz: str, years: range) -> list[int]:
    """The instants a zone's UTC offset changes in the given years (probe daily, bisect)."""
    zone = ZoneInfo(tz)

    def offset(t: int) -> timedelta | None:
        return datetime.fromtimestamp(t, zone).utcoffset()

    out = []
    t = int(datetime(years.start, 1, 1, tzinfo=UTC).timestamp())
    end = int(datetime(years.stop, 1, 1, tzinfo=UTC).timestamp())
    while t < end:
        low, high = t, t + 86400
        if offset(low) != offset(high):
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if offset(middle) == offset(low) else (low, middle)
            out.append(high)
        t += 86400
    return out


CHANGES = [(tz, t) for tz in ZONES[1:] for t in offset_changes(tz, range(2024, 2026))]
CHANGES += [(tz, t) for tz in ZONES[1:] for t in offset_changes(tz, range(2090, 2091))]


def test_offset_changes_found() -> None:
    # Two a year for each of New York, Berlin and Lord Howe.
    assert len(CHANGES) == 3 * 3 * 2


@settings(deadline=None, max_examples=300)
@given(
    st.sampled_from(["*/5", "0", "30", "0-59/7", "*", "15,45", "59"]),
    st.sampled_from(["*", "1-3", "2", "0,12", "1", "3"]),
    st.sampled_from(CHANGES),
    st.integers(-4 * 3600, 4 * 3600),
)
def test_next_run_near_dst_changes(
    minute: str, hour: str, change: tuple[str, int], offset: int
) -> None:
    tz, instant = change
    fields = {"CronMinute": minute, "CronHour": hour}
    schedule = parse_schedule(fields)
    sets = [set(schedule.minutes), set(schedule.hours), set(range(1, 32)), set(range(1, 13)), set()]
    after = instant + offset
    assert schedule.next_after(after, tz) == brute_force_next(sets, after, tz)


JUNK = st.text(alphabet="0123456789*-/,. \tabcX;+#\n", max_size=12)


@settings(deadline=None, max_examples=300)
@given(st.lists(st.one_of(st.none(), JUNK), min_size=5, max_size=5), st.integers(0, 4102444800))
def test_junk_text_gives_crontab_error_and_nothing_else(
    texts: list[str | None], after: int
) -> None:
    fields = {a: t for a, t in zip(CRON_ATTRS, texts, strict=True) if t is not None}
    bad_chars = [a for a, t in fields.items() if set(t) - set("0123456789*-/,. ")]
    try:
        schedule = parse_schedule(fields)
    except CronTabError as error:
        for attr in bad_chars:
            assert f"Invalid parameter value '{fields[attr]}' for {attr}" in str(error)
            assert attr in error.attributes
        return
    assert not bad_chars
    result = schedule.next_after(after)
    assert result > after and result % 60 == 0


def test_sub_minute_offset_runs_on_the_wall_clock_minute() -> None:
    # Africa/Monrovia was UTC-0:44:30 until 1972: 12:00:00 local is 12:44:30 UTC.
    start = int(datetime(1971, 6, 1, 0, 0, tzinfo=UTC).timestamp())
    result = next_run_time(sched("0", "12"), start, "Africa/Monrovia")
    assert result == int(datetime(1971, 6, 1, 12, 44, 30, tzinfo=UTC).timestamp())
