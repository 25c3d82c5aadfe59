"""The date in an event header: how the writer prints it and the reader reads it back.

How this works (`ULogEvent::formatHeader` / `readHeader`, condor_event.cpp): the
writer's format is a set of HTCondor's user log format options -- ISO_DATE (the
default: `YYYY-MM-DD HH:MM:SS`), UTC (the time in UTC, with a `Z`), SUB_SECOND
(`.mmm`), LEGACY (`MM/DD HH:MM:SS`, no year). Without UTC the time is the pool's
local time, in the IANA zone the writer is given; the host's zone is never used.

The reader accepts all of these and also `YYYY-MM-DDTHH:MM:SS`. A time without `Z`
is read in the zone it is given; a legacy date has no year, so the reader must be
given one (HTCondor takes the reader's current year, which a simulator cannot).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from condorsim.eventlog.events import EventLogError


@dataclass(frozen=True)
class FormatOptions:
    """Which of HTCondor's user log format options are on."""

    iso_date: bool = True
    utc: bool = False
    sub_second: bool = False


_SHORTHANDS = {"ISO": "ISO_DATE"}


def parse_format(fmt: str) -> FormatOptions:
    """Parse a format: `iso` (default), `utc`, `legacy`, or HTCondor's option words.

    HTCondor's words (DEFAULT_USERLOG_FORMAT_OPTIONS): ISO_DATE, UTC, SUB_SECOND,
    LEGACY, each optionally negated with `!`, separated by spaces or commas,
    applied in order to the default ISO_DATE.
    """
    iso_date, utc, sub_second = True, False, False
    for raw in fmt.replace(",", " ").split():
        negate = raw.startswith("!")
        word = raw.lstrip("!").upper()
        word = _SHORTHANDS.get(word, word)
        if word == "ISO_DATE":
            iso_date = not negate
        elif word == "UTC":
            utc = not negate
        elif word == "SUB_SECOND":
            sub_second = not negate
        elif word == "LEGACY":
            if negate:
                iso_date = True
            else:
                iso_date, utc, sub_second = False, False, False
        else:
            raise EventLogError(f"unknown event log format option {raw!r}")
    return FormatOptions(iso_date=iso_date, utc=utc, sub_second=sub_second)


def zone(name: str) -> ZoneInfo:
    """The IANA time zone `name`; raises `EventLogError` if there is no such zone."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise EventLogError(f"unknown time zone {name!r}") from None


def format_time(t: float, tz: ZoneInfo, options: FormatOptions) -> str:
    """The header date of simulated time `t` (epoch seconds)."""
    seconds = math.floor(t)
    millis = min(999, round((t - seconds) * 1_000_000) // 1000)
    when = datetime.fromtimestamp(seconds, UTC if options.utc else tz)
    if options.iso_date:
        text = when.strftime("%Y-%m-%d %H:%M:%S")
    else:
        text = when.strftime("%m/%d %H:%M:%S")
    if options.sub_second:
        text += f".{millis:03d}"
    if options.utc:
        text += "Z"
    return text


_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})$")
_LEGACY_DATE = re.compile(r"(\d{2})/(\d{1,2})$")
_TIME = re.compile(r"(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d+))?(Z?)$")


def parse_time(rest: str, tz: ZoneInfo, year: int | None) -> tuple[float, str]:
    """Read the date at the start of `rest`; return (epoch seconds, the text after it).

    Raises `ValueError` with the reason if there is no valid date there.
    """
    date_text, _, after = rest.partition(" ")
    if "T" in date_text:
        date_text, _, time_text = date_text.partition("T")
    else:
        time_text, _, after = after.partition(" ")
    legacy = _LEGACY_DATE.match(date_text)
    iso = _DATE.match(date_text)
    clock = _TIME.match(time_text)
    if clock is None or (legacy is None and iso is None):
        raise ValueError(f"no date and time in {rest[:32]!r}")
    if legacy is not None:
        if year is None:
            raise ValueError("a legacy MM/DD date has no year and none was given")
        month, day = int(legacy.group(1)), int(legacy.group(2))
    else:
        assert iso is not None
        year, month, day = (int(group) for group in iso.groups())
    hour, minute, second = (int(group) for group in clock.groups()[:3])
    fraction = float("0." + clock.group(4)) if clock.group(4) else 0.0
    try:
        naive = datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise ValueError(f"bad date: {exc}") from None
    aware = naive.replace(tzinfo=UTC if clock.group(5) else tz)
    return aware.timestamp() + fraction, after
