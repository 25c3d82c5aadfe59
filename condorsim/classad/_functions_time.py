"""Built-in ClassAd functions on time: absTime, relTime, splitTime, formatTime and friends.

How this works
--------------
Time comes from the evaluation context: ``time()`` is ``ctx.now`` (simulated epoch
seconds) and local time is in ``ctx.tz``, the simulated host's zone -- never the real
host's clock or zone. Each function converts its arguments with the C casts HTCondor's
``fnCall.cpp`` uses (an integer becomes a 32-bit ``int``, a real is truncated by
``(int)``, a relative time read as ``time_t`` goes through ``(int)``), so out-of-range
input gives what HTCondor gives.

``formatTime`` splits its time into calendar fields as ``splitTime`` does (an integer or
real is an absolute time in the local zone; a split-time record is read field by field),
works out the weekday and day of the year with HTCondor's ``day_numbers`` and hands
the fields to C's ``strftime`` with no zone information: ``%z`` is always ``+0000`` and
``%Z`` is the zone's standard abbreviation.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Final

from ._classad import ClassAd
from ._convert import double_to_int32, int64_to_int32, to_integer
from ._time import (
    c_div,
    c_mod,
    day_numbers,
    gm_fields,
    local_fields,
    split_abstime,
    split_reltime,
    standard,
    timegm,
    utc_offset,
)
from ._tree import Literal
from ._values import ERROR, UNDEFINED, AbsTime, EvalContext, RelTime, Value

_CONVERSION: Final = re.compile(r"%[-_0^#]?[0-9]*[EO]?(.|$)", re.DOTALL)
Fields = tuple[int, int, int, int, int, int]
"""(year, month 1-12, day, hours, minutes, seconds) as C's ``struct tm`` would hold them."""


def time_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """time(): the current (simulated) time in epoch seconds."""
    if args:
        return ERROR
    return ctx.now


def current_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """currentTime() (and absTime()): now, shown in the local zone's offset."""
    if args:
        return ERROR
    now = int(ctx.now)
    return AbsTime(now, utc_offset(ctx.tz, now))


def time_zone_offset(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """timeZoneOffset(): the local zone's UTC offset now, a relative time."""
    if args:
        return ERROR
    return RelTime(float(utc_offset(ctx.tz, int(ctx.now))))


def day_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """dayTime(): the local time of day now, a relative time."""
    if args:
        return ERROR
    _, _, _, hours, minutes, seconds, _, _ = local_fields(ctx.tz, int(ctx.now))
    return RelTime(float(hours * 3600 + minutes * 60 + seconds))


def _as_seconds(v: Value) -> int | None:
    """An absTime()/splitTime() argument as HTCondor's C ``int`` seconds, or None."""
    t = type(v)
    if t is int:
        return int64_to_int32(v)
    if t is float:
        return double_to_int32(v)
    if t is RelTime:
        return double_to_int32(v.secs)
    return None


def abs_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """absTime([t [, offset]]): an absolute time from epoch seconds or a relative time.

    A string that was not a literal (``absTime(strcat(...))``) comes back unchanged, as
    in HTCondor, whose parser turns ``absTime("literal")`` into a time value itself.
    """
    if not args:
        return current_time(ctx, args)
    if len(args) > 2:
        return ERROR
    offset = None
    if len(args) == 2:
        offset = _as_seconds(args[1])
        if offset is None:
            return ERROR
    arg = args[0]
    t = type(arg)
    if arg is UNDEFINED:
        return UNDEFINED
    if t is str or t is AbsTime:
        return arg
    secs = None if t is bool else _as_seconds(arg)
    if secs is None:
        return ERROR
    if offset is None:
        offset = utc_offset(ctx.tz, secs)
    if t is int and offset == -1:
        return ERROR
    return AbsTime(secs, offset)


def rel_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """relTime(t): a relative time from seconds (an integer is cut to a C int)."""
    if len(args) != 1:
        return ERROR
    arg = args[0]
    t = type(arg)
    if t is float or t is RelTime:
        return arg if t is RelTime else RelTime(arg)
    if t is int:
        return RelTime(float(int64_to_int32(arg)))
    if t is AbsTime:
        return RelTime(float(arg.secs))
    if t is str:
        return RelTime(0.0)  # HTCondor reads a non-literal string as no time at all
    if arg is UNDEFINED:
        return UNDEFINED
    return ERROR


def split_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """splitTime(t): a record of t's calendar fields (Type, Year... or Days...)."""
    if len(args) != 1:
        return ERROR
    arg = args[0]
    if arg is UNDEFINED:
        return UNDEFINED
    if type(arg) is RelTime:
        pairs = split_reltime(arg.secs)
    else:
        when = _absolute(ctx, arg)
        if when is None:
            return ERROR
        pairs = split_abstime(when)
    return ClassAd._from_pairs((name, Literal(value)) for name, value in pairs)


def _absolute(ctx: EvalContext, v: Value) -> AbsTime | None:
    """An integer, real or absolute time as an absolute time in the local zone."""
    t = type(v)
    if isinstance(v, AbsTime):
        return v
    if t is not int and t is not float:
        return None
    secs = _as_seconds(v)
    assert secs is not None
    return AbsTime(secs, utc_offset(ctx.tz, secs))


def _record_fields(ctx: EvalContext, ad: ClassAd) -> Fields:
    """The calendar fields of a split-time record (a missing or non-integer one is 0)."""

    def field(name: str) -> int | None:
        value = ad.evaluate(name, ctx=ctx)
        return int64_to_int32(value) if type(value) is int else None

    year, month = field("Year"), field("Month")
    return (
        1900 if year is None else year,
        1 if month is None else month,
        field("Day") or 0,
        field("Hours") or 0,
        field("Minutes") or 0,
        field("Seconds") or 0,
    )


def format_fields(fields: Fields, fmt: str, tz: str) -> str:
    """C ``strftime`` of calendar fields with no zone data (zone ``tz`` for %Z, %s)."""
    year, month, day, hours, minutes, seconds = fields
    abbreviation, standard_offset = standard(tz)

    def fix(m: re.Match[str]) -> str:
        kind = m.group(1)
        if kind == "Z":
            return abbreviation.replace("%", "%%")
        if kind == "z":
            return "+0000"
        if kind == "s":
            return str(timegm(year, month - 1, day, hours, minutes, seconds) - standard_offset)
        return m.group(0)

    weekday, yearday = day_numbers(year, month, day)
    plain = (year, month, day, hours, minutes, seconds, (weekday + 6) % 7, yearday + 1, 0)
    try:
        return time.strftime(_CONVERSION.sub(fix, fmt), time.struct_time(plain))
    except (ValueError, OverflowError, UnicodeError):
        return ""


def format_epoch(secs: int, fmt: str, tz: str) -> str:
    """HTCondor's formatTime of epoch seconds (already a C int) in zone ``tz``."""
    return format_fields(gm_fields(secs + utc_offset(tz, secs))[:6], fmt, tz)


def format_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """formatTime([t [, format]]): t (default now) as text, strftime format (default %c)."""
    if len(args) == 0:
        return format_epoch(int64_to_int32(ctx.now), "%c", ctx.tz)
    if len(args) > 2:
        return ERROR
    t = args[0]
    if isinstance(t, ClassAd):
        fields = _record_fields(ctx, t)
    else:
        when = _absolute(ctx, t)
        if when is None:
            return ERROR
        fields = gm_fields(when.secs + when.offset)[:6]
    fmt = args[1] if len(args) == 2 else "%c"
    if type(fmt) is not str:
        return ERROR
    return format_fields(fields, fmt, ctx.tz)


_ABSOLUTE_FIELDS: Final = {
    "getyear": 0, "getmonth": 1, "getdayofmonth": 2, "gethours": 3, "getminutes": 4,
    "getseconds": 5, "getdayofweek": 6, "getdayofyear": 7,
}  # fmt: skip
_RELATIVE_FIELDS: Final[dict[str, Callable[[int], int]]] = {
    "getdays": lambda s: c_div(s, 86400),
    "gethours": lambda s: c_div(c_mod(s, 86400), 3600),
    "getminutes": lambda s: c_div(c_mod(s, 3600), 60),
    "getseconds": lambda s: c_mod(s, 60),
}


def _make_get_field(name: str) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    """getYear(t) ... getSeconds(t): one field of an absolute (local) or relative time."""
    index = _ABSOLUTE_FIELDS.get(name)
    relative = _RELATIVE_FIELDS.get(name)

    def get_field(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) != 1:
            return ERROR
        arg = args[0]
        if type(arg) is AbsTime:
            if index is None:
                return ERROR
            return local_fields(ctx.tz, arg.secs)[index]
        if type(arg) is RelTime:
            if relative is None:
                return ERROR
            return relative(double_to_int32(arg.secs))
        return ERROR

    return get_field


def interval(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """interval(seconds): "[-]d+hh:mm:ss", shorter forms when days or hours are 0."""
    if len(args) != 1:
        return ERROR
    total = to_integer(args[0])
    if type(total) is not int:
        return ERROR
    total = int64_to_int32(total)
    sign = -1 if total < 0 else 1
    magnitude = abs(total)
    days = sign * (magnitude // 86400)
    hours = sign * (magnitude % 86400 // 3600)
    minutes = magnitude % 3600 // 60
    seconds = magnitude % 60
    if days:
        return f"{days}+{abs(hours):02d}:{minutes:02d}:{seconds:02d}"
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    if minutes:
        return f"{sign * minutes}:{seconds:02d}"
    return str(sign * seconds)


TIME_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "time": time_,
    "currenttime": current_time,
    "timezoneoffset": time_zone_offset,
    "daytime": day_time,
    "abstime": abs_time,
    "reltime": rel_time,
    "splittime": split_time,
    "formattime": format_time,
    "interval": interval,
    **{name: _make_get_field(name) for name in (*_ABSOLUTE_FIELDS, "getdays")},
}
