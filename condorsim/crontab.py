"""CronTab schedules ("crondor"): parse a job's five Cron* attributes, find its next run time.

How this works
--------------
* Parsing follows HTCondor's ``condor_crontab.cpp`` (htcondor-facts §2.3): a character check,
  spaces removed, the text split on ``,``, and each token read as ``a-b``, ``*`` or a single
  value, optionally with ``/n``.  Numbers are read like C ``atoi``.  A step keeps the values
  with ``value % n == 0`` (so ``1-59/2`` is the even minutes), ranges are clamped to the
  field, an out-of-range single value means the whole field, and ``*`` in the day of week adds
  nothing (no weekday restriction).  Error texts are HTCondor's, joined with no separator.
* A :class:`CronSchedule` holds the five sorted value tuples and, built once, a table of the
  allowed days for each (weekday of the 1st, length of month): the OR rule of day of month
  and day of week is resolved there, so the search never looks at a day twice.
* The next run is the earliest matching wall-clock minute at or after the start (``after``
  moved on to the next whole minute), found field by field -- month, day, hour, minute --
  with ``bisect``: no scanning minute by minute.
* Time zones: the search runs on wall-clock seconds; the UTC offset is only asked of
  ``zoneinfo`` at the start and where it changes.  A repeated wall time (DST ends) fires at
  both instants; a wall time that does not exist (DST starts) fires at the instant it maps to
  with the offset from before the change (02:30 becomes 03:30), as HTCondor's ``mktime``
  does.  See docs/crontab.md.

Pure: no clock, no I/O, no trio.  Time is epoch seconds passed in.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from condorsim.classad import ClassAd

__all__ = [
    "CRON_ATTRS",
    "CronSchedule",
    "CronTabError",
    "needs_crontab",
    "next_run_time",
    "parse_schedule",
]

#: The job ad attributes of a CronTab schedule, in HTCondor's order.
CRON_ATTRS: tuple[str, ...] = (
    "CronMinute",
    "CronHour",
    "CronDayOfMonth",
    "CronMonth",
    "CronDayOfWeek",
)
_LIMITS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
_DOW = 4
_LOWER_ATTRS = frozenset(name.lower() for name in CRON_ATTRS)
# condor_crontab.h's character class [^\/0-9,-/*\ \/*]: ",-/" is a range (",", "-", ".", "/").
_ALLOWED_CHARS = frozenset("0123456789* ,-./")
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DAY = 86400
_UTC_NAMES = frozenset({"UTC", "Etc/UTC", "GMT", "Etc/GMT"})
_YEAR_LIMIT = 30  # a satisfiable schedule matches within 8 years (29 Feb across 2100)
_SEGMENT_LIMIT = 1000  # UTC-offset changes crossed in one search


class CronTabError(ValueError):
    """An invalid CronTab schedule (or time zone, or time out of range).

    ``str()`` is HTCondor's error text, which is empty for a ``/0`` step; ``attributes``
    names the offending attributes in every case.
    """

    def __init__(self, message: str, attributes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.attributes = attributes


# --------------------------------------------------------------------------- parsing


def _atoi(text: str) -> int:
    """C ``atoi`` as glibc does it: sign, leading digits, strtol clamping, int32 wrap."""
    sign, i = 1, 0
    if text[:1] in ("-", "+"):
        sign, i = (-1 if text[0] == "-" else 1), 1
    j = i
    while j < len(text) and text[j].isdigit():
        j += 1
    value = sign * int(text[i:j] or "0")
    value = max(-(2**63), min(2**63 - 1, value))
    return (value + 2**31) % 2**32 - 2**31


def _expand(index: int, raw: str) -> tuple[int, ...] | str:
    """Expand one attribute's text into its sorted values, or return HTCondor's error text."""
    attr = CRON_ATTRS[index]
    low, high = _LIMITS[index]
    if any(ch not in _ALLOWED_CHARS for ch in raw):
        return f"Invalid parameter value '{raw}' for {attr}"
    param = raw.replace(" ", "")
    values: set[int] = set()
    for token in param.split(","):
        if not token:
            continue
        step = 1
        if "/" in token:
            token, _, step_text = token.partition("/")
            step = _atoi(step_text)
            if step == 0:
                return ""  # HTCondor fails this field without a message
        first, last = low, high
        if "-" in token:
            left, _, right = token.partition("-")
            first, last = max(_atoi(left), low), min(_atoi(right), high)
        elif "*" in token:
            if index == _DOW:
                continue  # '*' in the day of week means "no weekday restriction"
        else:
            value = _atoi(token)
            if low <= value <= high:
                first = last = value
        for value in range(first, last + 1):
            if index == _DOW and value == 7:
                value = 0
            if value % step == 0:
                values.add(value)
    if not values and index != _DOW:
        return f"Invalid cron attribute: {param}"
    return tuple(sorted(values))


@lru_cache(maxsize=4096)
def _parse_texts(texts: tuple[str, ...]) -> CronSchedule:
    expanded = [_expand(index, text) for index, text in enumerate(texts)]
    bad = tuple(CRON_ATTRS[i] for i, result in enumerate(expanded) if isinstance(result, str))
    if bad:
        message = "".join(result for result in expanded if isinstance(result, str))
        raise CronTabError(message, bad)
    minutes, hours, doms, months, dows = (r for r in expanded if not isinstance(r, str))
    return CronSchedule(minutes, hours, doms, months, dows)


def parse_schedule(fields: Mapping[str, str]) -> CronSchedule:
    """Parse a job's Cron* attributes (names case-insensitive; a missing one means ``*``).

    Other keys are ignored, so a whole job ad may be passed.  A value that is not a string
    counts as missing, as HTCondor's ``LookupString`` makes it.  Raises :class:`CronTabError`
    with HTCondor's message for an invalid schedule.
    """
    lowered = {key.lower(): value for key, value in fields.items() if key.lower() in _LOWER_ATTRS}
    texts = []
    for name in CRON_ATTRS:
        value = lowered.get(name.lower())
        texts.append(value if isinstance(value, str) else "*")
    return _parse_texts(tuple(texts))


def needs_crontab(ad_keys: Iterable[str]) -> bool:
    """True if any Cron* attribute is among ``ad_keys`` (HTCondor's CronTab::needsCronTab).

    A ClassAd (whose lookups ignore case) is asked for the five names directly, instead of
    lower-casing each of its attribute names: the schedd asks this of every job in its queue
    on every pass.
    """
    if isinstance(ad_keys, ClassAd):
        return any(name in ad_keys for name in CRON_ATTRS)
    return any(key.lower() in _LOWER_ATTRS for key in ad_keys)


def next_run_time(fields: Mapping[str, str], after: int, tz: str = "UTC") -> int:
    """The first run time of the schedule in ``fields`` strictly after ``after``.

    The result is a whole minute in epoch seconds, at or after the next whole minute after
    ``after`` (``after`` on a whole minute moves on to the following minute, as HTCondor's).
    ``tz`` is an IANA time zone name the schedule's wall-clock fields are read in.
    """
    return parse_schedule(fields).next_after(after, tz)


# --------------------------------------------------------------------------- calendar


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, doy - (153 * mp + 2) // 5 + 1


def _month_days(year: int, month: int) -> int:
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        return 29
    return _MONTH_DAYS[month - 1]


def _check_values(name: str, values: tuple[int, ...], low: int, high: int) -> tuple[int, ...]:
    clean = tuple(sorted(set(values)))
    if any(not low <= v <= high for v in clean) or (not clean and name != "days_of_week"):
        raise CronTabError(f"CronSchedule.{name} must be values in {low}..{high}: {values!r}")
    return clean


@dataclass(frozen=True)
class CronSchedule:
    """A parsed CronTab schedule: the allowed values of each field, sorted.

    ``days_of_week`` uses 0 = Sunday (7 is folded into 0); empty means no weekday
    restriction.  ``dom_restricted`` is true unless all 31 days are allowed;
    ``dow_restricted`` is true when any weekday is listed.  When both are, a day matches
    if either does (the manual's OR rule); when one is, only it applies.
    """

    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: tuple[int, ...]
    months: tuple[int, ...]
    days_of_week: tuple[int, ...]
    dom_restricted: bool = field(init=False)
    dow_restricted: bool = field(init=False)
    # Allowed days per (weekday of the 1st) * 4 + (month length - 28).
    _day_table: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = ("minutes", "hours", "days_of_month", "months", "days_of_week")
        for name, (low, high) in zip(names, _LIMITS, strict=True):
            values = getattr(self, name)
            if name == "days_of_week":
                values = tuple(0 if v == 7 else v for v in values)
                high = 6
            object.__setattr__(self, name, _check_values(name, values, low, high))
        dom_restricted = len(self.days_of_month) != 31
        dow_restricted = bool(self.days_of_week)
        object.__setattr__(self, "dom_restricted", dom_restricted)
        object.__setattr__(self, "dow_restricted", dow_restricted)
        table = []
        for first_dow in range(7):
            for length in range(28, 32):
                days = [d for d in self.days_of_month if d <= length] if dom_restricted else []
                if dow_restricted:
                    days += [
                        d
                        for d in range(1, length + 1)
                        if (first_dow + d - 1) % 7 in self.days_of_week
                    ]
                elif not dom_restricted:
                    days = list(range(1, length + 1))
                table.append(tuple(sorted(set(days))))
        object.__setattr__(self, "_day_table", tuple(table))
        if not dow_restricted and not any(
            d <= (29 if m == 2 else _MONTH_DAYS[m - 1])
            for m in self.months
            for d in self.days_of_month
        ):
            raise CronTabError(
                f"Invalid cron schedule: no day {','.join(map(str, self.days_of_month))} "
                f"in month {','.join(map(str, self.months))}",
                ("CronDayOfMonth", "CronMonth"),
            )

    def next_after(self, after: int, tz: str = "UTC") -> int:
        """The first run time strictly after ``after`` (epoch seconds), read in zone ``tz``."""
        start = after - after % 60 + 60
        if tz in _UTC_NAMES:
            return self._first_wall_at_or_after(start)
        zone = _zone(tz)
        try:
            return self._next_in_zone(start, zone)
        except (OverflowError, ValueError, OSError) as exc:
            if isinstance(exc, CronTabError):
                raise
            raise CronTabError(f"Time {after} is out of range for time zone {tz}") from None

    def _first_wall_at_or_after(self, wall: int) -> int:
        """The first matching wall-clock minute >= ``wall`` (both as seconds from 1970)."""
        wall = -(-wall // 60) * 60
        days, seconds = divmod(wall, _DAY)
        year, month0, day0 = _civil_from_days(days)
        hour0, minute0 = divmod(seconds // 60, 60)
        months, hours, minutes = self.months, self.hours, self.minutes
        for _ in range(_YEAR_LIMIT):
            for month in months[bisect_left(months, month0) :]:
                if month > month0:
                    day0, hour0, minute0 = 1, 0, 0
                first = _days_from_civil(year, month, 1)
                days_allowed = self._day_table[(first + 4) % 7 * 4 + _month_days(year, month) - 28]
                for day in days_allowed[bisect_left(days_allowed, day0) :]:
                    if day > day0:
                        hour0, minute0 = 0, 0
                    for hour in hours[bisect_left(hours, hour0) :]:
                        if hour > hour0:
                            minute0 = 0
                        i = bisect_left(minutes, minute0)
                        if i < len(minutes):
                            return (first + day - 1) * _DAY + hour * 3600 + minutes[i] * 60
            year, month0, day0, hour0, minute0 = year + 1, 1, 1, 0, 0
        raise CronTabError("Invalid cron schedule: no run time within 30 years")  # unreachable

    def _next_in_zone(self, start: int, zone: ZoneInfo) -> int:
        """Search segment by segment of constant UTC offset, from instant ``start`` on."""
        offset = _offset(zone, start)
        # Wall times skipped by a forward change map (with the old offset) into the first
        # hour(s) after it; a change in the last day may have left some of them ahead.
        gap_offset: int | None = None
        gap_end_wall = 0
        before = _offset(zone, start - _DAY)
        if before < offset:
            change = _next_change(zone, start - _DAY, start, before)
            if change is not None:
                gap_offset, gap_end_wall = before, change + offset
        t = start
        for _ in range(_SEGMENT_LIMIT):
            best = self._first_wall_at_or_after(t + offset) - offset
            if gap_offset is not None:
                wall = self._first_wall_at_or_after(t + gap_offset)
                if wall < gap_end_wall:
                    best = min(best, wall - gap_offset)
            change = _next_change(zone, t, best, offset)
            if change is None:
                return best
            new_offset = _offset(zone, change)
            if new_offset > offset:
                gap_offset, gap_end_wall = offset, change + new_offset
            else:
                gap_offset = None
            t, offset = change, new_offset
        raise CronTabError("Invalid cron schedule: too many UTC offset changes")  # unreachable


# --------------------------------------------------------------------------- time zones


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError, TypeError):
        raise CronTabError(f"Unknown time zone '{name}'") from None


def _offset(zone: ZoneInfo, instant: int) -> int:
    delta = datetime.fromtimestamp(instant, zone).utcoffset()
    return 0 if delta is None else delta // timedelta(seconds=1)


def _next_change(zone: ZoneInfo, after: int, limit: int, offset: int) -> int | None:
    """The first instant in (after, limit] whose UTC offset is not ``offset``, else None.

    Probes a day at a time, then bisects to the second: it assumes the offset changes at
    most once within any 24 hours (true of every zone in the tz database since 1970).
    """
    low = after
    while low < limit:
        high = min(low + _DAY, limit)
        if _offset(zone, high) != offset:
            while high - low > 1:
                middle = (low + high) // 2
                if _offset(zone, middle) == offset:
                    low = middle
                else:
                    high = middle
            return high
        low = high
    return None
