"""Absolute and relative time values: their text, calendar fields and zones.

How this works
--------------
An :class:`~._values.AbsTime` is epoch seconds plus the UTC offset it is shown in; a
:class:`~._values.RelTime` is a C double of seconds. This module reads and writes their
text as HTCondor's C++ library does (``Literal::MakeAbsTime``/``MakeRelTime``,
``absTimeToString``/``relTimeToString``) and splits them into the records
``splitTime()`` returns. HTCondor does this with C calls (``mktime``, ``gmtime``,
``strftime``, ``(int)`` casts); the helpers here reproduce their results with integer
calendar arithmetic, so that any 64-bit time works and nothing reads the host's zone:
the local zone is an IANA name handed in (the evaluation context's ``tz``).

* absTime text: ``D* dddd [D* dd [D* dd [D* dd [D* dd [D* dd D*]]]]] [z|Z|+hhmm|+hh:mm]``
  (D a non-digit; fields left out are 0, so a missing day is day 0, the last day of the
  month before, as ``mktime`` normalises it). No zone means the local zone's offset.
* relTime text: ``[-][days(d|+)][hh(h|:)][mm(m|:)]ss[.fff][s]``, read from the end.
* Printing: ``YYYY-MM-DDThh:mm:ss+hh:mm`` (a zero offset prints as ``-00:00``) and
  ``[-][d+]hh:mm:ss`` with ``%02g`` seconds when there is a fraction.
"""

from __future__ import annotations

import math
import zoneinfo
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Final

from ._convert import double_to_int32
from ._values import AbsTime, Value

_DIGITS: Final = frozenset(b"0123456789")
_SPACES: Final = frozenset(b" \t\n\v\f\r")
_INT32: Final = 2**32


def c_div(a: int, b: int) -> int:
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a: int, b: int) -> int:
    """C ``%`` (the remainder takes the dividend's sign)."""
    return a - b * c_div(a, b)


def wrap32(n: int) -> int:
    """A C ``int`` result of integer arithmetic that overflowed (two's complement)."""
    return ((n + 2**31) % _INT32) - 2**31


def c_floor(x: float) -> float:
    """C ``floor`` (NaN and infinities pass through)."""
    return x if x != x or x in (math.inf, -math.inf) else float(math.floor(x))


# --------------------------------------------------------------------------- calendar


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date (month 1-12)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month 1-12, day) of a day number counted from 1970-01-01."""
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def timegm(year: int, mon0: int, mday: int, hour: int, minute: int, sec: int) -> int:
    """Epoch seconds of broken-down UTC fields, normalised as ``mktime`` does."""
    year += mon0 // 12
    mon0 %= 12
    days = days_from_civil(year, mon0 + 1, 1) + mday - 1
    return days * 86400 + hour * 3600 + minute * 60 + sec


def gm_fields(secs: int) -> tuple[int, int, int, int, int, int, int, int]:
    """``gmtime``: (year, month 1-12, day, hours, minutes, seconds, weekday 0=Sunday,
    day of the year 0-365)."""
    days, rest = divmod(secs, 86400)
    year, month, day = civil_from_days(days)
    yday = days - days_from_civil(year, 1, 1)
    return year, month, day, rest // 3600, rest % 3600 // 60, rest % 60, (days + 4) % 7, yday


def day_numbers(year: int, month: int, day: int) -> tuple[int, int]:
    """HTCondor's ``day_numbers``: (weekday, day of the year) of possibly odd fields,
    with its own leap-year rule and C integer arithmetic."""

    def fixed(y: int, m: int, d: int) -> int:
        if m <= 2:
            adjust = 0
        elif y % 4 == 0 and c_mod(y, 400) not in (100, 200, 300):
            adjust = -1
        else:
            adjust = -2
        y1 = y - 1
        return wrap32(
            365 * y1 + c_div(y1, 4) - c_div(y1, 100) + c_div(y1, 400)
            + c_div(367 * m - 362, 12) + adjust + d
        )

    day_fixed = fixed(year, month, day)
    return c_mod(day_fixed, 7), day_fixed - fixed(year, 1, 1)


# --------------------------------------------------------------------------- zones


@lru_cache(maxsize=64)
def zone(name: str) -> zoneinfo.ZoneInfo:
    """The IANA zone ``name`` (an unknown name is UTC)."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


_JANUARY: Final = datetime(2001, 1, 15)


@lru_cache(maxsize=64)
def standard(name: str) -> tuple[str, int]:
    """The zone's standard-time abbreviation and UTC offset (what tzname[0] holds)."""
    tzinfo = zone(name)
    for month in (1, 7):
        moment = _JANUARY.replace(month=month, tzinfo=tzinfo)
        if moment.dst() == timedelta(0):
            offset = moment.utcoffset()
            seconds = int(offset.total_seconds()) if offset is not None else 0
            return moment.tzname() or "", seconds
    return "", 0


def _moment(tz: str, secs: int) -> datetime | None:
    try:
        return datetime.fromtimestamp(secs, zone(tz))
    except (OverflowError, OSError, ValueError):
        return None


def utc_offset(tz: str, secs: int) -> int:
    """HTCondor's ``timezone_offset(secs, false)``: the zone's UTC offset at that time."""
    if tz == "UTC":
        return 0
    moment = _moment(tz, secs)
    if moment is None:
        return standard(tz)[1]
    offset = moment.utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _standard_offset_at(tz: str, secs: int) -> int:
    """``timezone_offset(secs, true)``: the offset less an hour while DST is on."""
    moment = _moment(tz, secs)
    if moment is None:
        return standard(tz)[1]
    offset = moment.utcoffset()
    seconds = int(offset.total_seconds()) if offset is not None else 0
    dst = moment.dst()
    return seconds - 3600 if dst else seconds


def local_fields(tz: str, secs: int) -> tuple[int, int, int, int, int, int, int, int]:
    """``localtime`` in zone ``tz``: the fields of :func:`gm_fields` for local time."""
    return gm_fields(secs + utc_offset(tz, secs))


# --------------------------------------------------------------------------- reading


def _digits_at(b: bytes | bytearray, i: int, width: int) -> int:
    """C ``atoi`` of ``b[i:i+width]`` (``b[i]`` is a digit)."""
    n = 0
    for byte in b[i : i + width]:
        if byte not in _DIGITS:
            break
        n = n * 10 + byte - 48
    return n


def _zone_suffix(b: bytearray) -> tuple[bool, int, int]:
    """HTCondor's ``extractTimeZone``: strip a trailing ``+hhmm`` / ``-hhmm``."""
    tail = b[-5:]
    if len(tail) == 5 and tail[0] in b"+-" and all(c in _DIGITS for c in tail[1:]):
        del b[-5:]
        hours = (tail[1] - 48) * 10 + tail[2] - 48
        minutes = (tail[3] - 48) * 10 + tail[4] - 48
        return (True, hours, minutes) if tail[0] == 43 else (True, -hours, -minutes)
    return False, 0, 0


def parse_abstime(text: str, tz: str = "UTC") -> AbsTime | None:
    """The absolute time of ``absTime("text")``, or None where HTCondor refuses it."""
    b = bytearray(text.encode("utf-8", "surrogateescape"))
    n = len(b)
    i = n - 1
    while i >= 0 and b[i] in _SPACES:
        i -= 1
    has_zone, tzhr, tzmin = False, 0, 0
    if i > 0 and b[i] in b"zZ":
        has_zone = True
        del b[i]
    elif n > 5 and b[n - 5] in b"+-":
        has_zone, tzhr, tzmin = _zone_suffix(b)
    elif n > 6 and b[n - 6] in b"+-" and b[n - 3] == 58:
        del b[n - 3]
        has_zone, tzhr, tzmin = _zone_suffix(b)
    n = len(b)

    def next_digit(k: int) -> int:
        while k < n and b[k] not in _DIGITS:
            k += 1
        return k

    i = next_digit(0)
    if i > n - 4:
        return None
    fields = [_digits_at(b, i, 4) - 1900, 0, 0, 0, 0, 0]  # year, mon0, mday, h, m, s
    i += 4
    for slot in range(1, 6):
        i = next_digit(i)
        if i <= n - 2:
            value = _digits_at(b, i, 2)
            fields[slot] = value - 1 if slot == 1 else value
            i += 2
    i = next_digit(i)
    if i <= n - 1:
        return None  # digits left over
    year, mon0, mday, hour, minute, sec = fields
    wall = timegm(year + 1900, mon0, mday, hour, minute, sec)
    made = wall - standard(tz)[1]  # mktime() with tm_isdst = 0
    if made == -1:
        return None
    offset = tzhr * 3600 + tzmin * 60 if has_zone else utc_offset(tz, made)
    if offset == -1:
        return None
    return AbsTime(made + _standard_offset_at(tz, made) - offset, offset)


def _rev_number(b: bytes, i: int) -> tuple[bytes, int]:
    """The digits ending at ``b[i]`` (read backwards) and the index before them."""
    end = i
    while i >= 0 and b[i] in _DIGITS:
        i -= 1
    return bytes(b[i + 1 : end + 1]), i


def _c_int(digits: bytes) -> int:
    """``std::from_chars`` into an int: 0 when empty or when it does not fit."""
    if not digits:
        return 0
    value = int(digits)
    return value if value < 2**31 else 0


def parse_reltime(text: str) -> float | None:
    """The seconds of ``relTime("text")``, or None where HTCondor refuses it."""
    b = text.encode("utf-8", "surrogateescape")
    i = len(b) - 1

    def skip_spaces(k: int) -> int:
        while k >= 0 and b[k] in _SPACES:
            k -= 1
        return k

    i = skip_spaces(i)
    secs = 0.0
    if i >= 0 and (b[i] in b"sS" or b[i] in _DIGITS):
        if b[i] in b"sS":
            i -= 1
        i = skip_spaces(i)
        whole, i = _rev_number(b, i)
        number = whole
        if i >= 0 and b[i] == 46:  # '.'
            front, i = _rev_number(b, i - 1)
            number = front + b"." + whole
        secs = float(number) if number not in (b"", b".") else 0.0
    units = []
    for letters in (b"mM:", b"hH:", b"dD+"):
        i = skip_spaces(i)
        value = 0
        if i >= 0 and b[i] in letters:
            i = skip_spaces(i - 1)
            digits, i = _rev_number(b, i)
            value = _c_int(digits)
        units.append(value)
    minutes, hours, days = units
    i = skip_spaces(i)
    negative = i >= 0 and b[i] == 45  # '-'
    if negative:
        i -= 1
    i = skip_spaces(i)
    if i >= 0:
        return None
    whole_part = wrap32(days * 86400 + hours * 3600 + minutes * 60)
    total = whole_part + secs
    return -total if negative else total


# --------------------------------------------------------------------------- writing


def abstime_text(t: AbsTime) -> str:
    """``absTimeToString``: ``YYYY-MM-DDThh:mm:ss`` then the offset as ``+hh:mm``."""
    year, month, day, hour, minute, sec, _, _ = gm_fields(t.secs + t.offset)
    tzsecs = t.offset
    if tzsecs > 0:
        sign = "+"
    else:
        sign = "-"
        tzsecs = wrap32(-tzsecs)
    zone_text = f"{sign}{c_div(tzsecs, 3600):02d}:{c_mod(c_div(tzsecs, 60), 60):02d}"
    return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{sec:02d}{zone_text}"


def reltime_text(r: float) -> str:
    """``relTimeToString``: ``[-][d+]hh:mm:ss``, shorter when days/hours are 0."""
    sign = ""
    if r < 0:
        sign = "-"
        r = -r
    fraction = r - c_floor(r)
    total = double_to_int32(r)
    hrs = c_mod(total, 86400)
    mins = c_mod(hrs, 3600)
    secs = c_mod(mins, 60) + fraction
    days, hrs, mins = c_div(total, 86400), c_div(hrs, 3600), c_div(mins, 60)
    whole = fraction == 0
    sec_text = f"{double_to_int32(secs):02d}" if whole else f"{secs:02g}"
    if days:
        return f"{sign}{days}+{hrs:02d}:{mins:02d}:{sec_text}"
    if hrs:
        return f"{sign}{hrs:02d}:{mins:02d}:{sec_text}"
    if mins:
        return f"{sign}{mins:02d}:{sec_text}"
    return sign + sec_text


def rel_to_time_t(r: float) -> int:
    """``IsRelativeTimeValue(time_t&)``: the seconds through a C ``(int)`` cast."""
    return double_to_int32(r)


# --------------------------------------------------------------------------- splitting


def split_abstime(t: AbsTime) -> list[tuple[str, Value]]:
    """The attributes of ``splitTime()`` of an absolute time."""
    year, month, day, hour, minute, sec, _, _ = gm_fields(t.secs + t.offset)
    return [
        ("Type", "AbsoluteTime"), ("Year", year), ("Month", month), ("Day", day),
        ("Hours", hour), ("Minutes", minute), ("Seconds", sec), ("Offset", t.offset),
    ]  # fmt: skip


def split_reltime(r: float) -> list[tuple[str, Value]]:
    """The attributes of ``splitTime()`` of a relative time (Seconds is a real)."""
    negative = r < 0
    if negative:
        r = -r
    total = double_to_int32(r)
    hrs = c_mod(total, 86400)
    mins = c_mod(hrs, 3600)
    secs = c_mod(mins, 60) + (r - c_floor(r))
    days, hrs, mins = c_div(total, 86400), c_div(hrs, 3600), c_div(mins, 60)
    if negative:
        if days > 0:
            days = -days
        elif hrs > 0:
            hrs = -hrs
        elif mins > 0:
            mins = -mins
        else:
            secs = -secs
    return [
        ("Type", "RelativeTime"), ("Days", days), ("Hours", hrs), ("Minutes", mins),
        ("Seconds", float(secs)),
    ]  # fmt: skip
