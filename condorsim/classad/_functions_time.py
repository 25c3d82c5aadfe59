"""Built-in ClassAd functions on time: time, formatTime, interval.

How this works
--------------
Time comes from the evaluation context: ``time()`` is ``ctx.now`` (simulated epoch
seconds) and local time is in ``ctx.tz``, the simulated host's zone -- never the real
host's clock or zone. ``formatTime`` does what HTCondor does: it takes the time as a
32-bit C int, shifts it by the zone's UTC offset, splits it into calendar fields and
hands those to C's ``strftime`` with no zone information, so ``%z`` is always
``+0000`` and ``%Z`` is the zone's standard abbreviation.
"""

from __future__ import annotations

import re
import time
import zoneinfo
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Final

from ._convert import double_to_int32, int64_to_int32, to_integer
from ._values import ERROR, EvalContext, Value

_CONVERSION: Final = re.compile(r"%[-_0^#]?[0-9]*[EO]?(.|$)", re.DOTALL)
_JANUARY: Final = datetime(2001, 1, 15)


def time_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """time(): the current (simulated) time in epoch seconds."""
    if args:
        return ERROR
    return ctx.now


@lru_cache(maxsize=64)
def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def _utc_offset(zone: zoneinfo.ZoneInfo, secs: int) -> int:
    offset = datetime.fromtimestamp(secs, zone).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


@lru_cache(maxsize=64)
def _standard(name: str) -> tuple[str, int]:
    """The zone's standard-time abbreviation and UTC offset (what tzname[0] holds)."""
    zone = _zone(name)
    for month in (1, 7):
        moment = _JANUARY.replace(month=month, tzinfo=zone)
        if moment.dst() == timedelta(0):
            offset = moment.utcoffset()
            seconds = int(offset.total_seconds()) if offset is not None else 0
            return moment.tzname() or "", seconds
    return "", 0


def format_epoch(secs: int, fmt: str, tz: str) -> str:
    """HTCondor's formatTime of an epoch time (already a 32-bit int) in zone ``tz``."""
    zone = _zone(tz)
    wall = secs + _utc_offset(zone, secs)
    abbreviation, standard_offset = _standard(tz)

    def fix(m: re.Match[str]) -> str:
        kind = m.group(1)
        if kind == "Z":
            return abbreviation.replace("%", "%%")
        if kind == "z":
            return "+0000"
        if kind == "s":
            return str(wall - standard_offset)
        return m.group(0)

    fields = time.gmtime(wall)
    plain = time.struct_time((*fields[:8], 0))
    try:
        return time.strftime(_CONVERSION.sub(fix, fmt), plain)
    except (ValueError, UnicodeError):
        return ""


def format_time(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """formatTime([t [, format]]): t (default now) as text, strftime format (default %c)."""
    if len(args) == 0:
        return format_epoch(int64_to_int32(ctx.now), "%c", ctx.tz)
    if len(args) > 2:
        return ERROR
    t = args[0]
    if type(t) is int:
        secs = int64_to_int32(t)
    elif type(t) is float:
        secs = double_to_int32(t)
    else:
        return ERROR
    fmt = args[1] if len(args) == 2 else "%c"
    if type(fmt) is not str:
        return ERROR
    return format_epoch(secs, fmt, ctx.tz)


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
    "formattime": format_time,
    "interval": interval,
}
