"""The small formatters HTCondor's tools share: times, dates, values, the time zone.

How this works
--------------
* :func:`format_time` is HTCondor's ``format_time``: ``%3d+%02d:%02d:%02d`` (days, then
  hours, minutes, seconds), so ``  0+00:05:00`` is twelve characters wide.
* :func:`format_date` is ``format_date``: ``%2d/%-2d %02d:%02d`` (month/day hour:minute)
  in local time; negative times are ``    ???    ``.
* :func:`value_text` is how ``%v`` and ``-af`` show a value: strings as they are,
  anything else in old ClassAd syntax (``undefined``, ``2.0``, ``{ 1,2 }``).
* :func:`tool_zone` is the zone the tools print local times in: the pool's
  ``SIM_TIMEZONE`` when the pool sets one (a simulated pool lives in its own zone), else
  ``$TZ``, else UTC. HTCondor's tools use the host's local time; the pool's zone is the
  simulated host's.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from condorsim.classad import ClassAd, parse_expr, unparse_value


def format_time(seconds: int) -> str:
    """``d+hh:mm:ss`` with the days right-aligned in three places (HTCondor's format_time)."""
    negative = seconds < 0
    days, rest = divmod(abs(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if negative:  # C's / and % truncate towards zero
        days, hours, minutes, secs = -days, -hours, -minutes, -secs
    return f"{days:3d}+{hours:02d}:{minutes:02d}:{secs:02d}"


def local_time(t: float, tz: str) -> datetime:
    """``t`` (epoch seconds) in the zone ``tz``."""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    return datetime.fromtimestamp(t, zone)


def format_date(t: int, tz: str) -> str:
    """``M/D  HH:MM`` as condor_q's SUBMITTED column shows it (HTCondor's format_date)."""
    if t < 0:
        return "    ???    "
    d = local_time(t, tz)
    return f"{d.month:2d}/{d.day:<2d} {d.hour:02d}:{d.minute:02d}"


def value_text(value: object) -> str:
    """A value as ``%v`` prints it: strings unquoted, anything else in old ClassAd syntax."""
    if type(value) is str:
        return value
    holder = ClassAd()
    holder["v"] = parse_expr(unparse_value(value))
    return holder.to_long()[len("v = "):-1]


def tool_zone(home: Path | None = None) -> str:
    """The time zone the tools show local times in (see the module comment)."""
    from condorsim import pool as poolmod

    home = poolmod.pool_home() if home is None else home
    config = home / "condor_config"
    if config.is_file():
        from condorsim.config import Config, ConfigError

        try:
            zone = Config.load(config, env={}).get("SIM_TIMEZONE")
        except ConfigError:
            zone = None
        if zone:
            return zone
    return os.environ.get("TZ") or "UTC"
