"""Durations and moments of scenario files.

How this works
--------------
A *duration* is a TOML integer (seconds) or a string of number+unit groups, units in
the order ``d h m s``, each at most once: ``"90s"``, ``"15m"``, ``"1h30m"``, ``"1d"``,
``"0"``. A string of digits alone is seconds too. A *signed* duration (only
``clock_offset`` uses one) may start with ``+`` or ``-``.

A *moment* is a duration from the scenario's start, a TOML datetime with an offset
(absolute), or ``"end"``. :func:`parse_moment` turns it into simulated epoch seconds
(``start + duration``) or the sentinel :data:`END`.

:func:`format_duration` writes the canonical text back (``5400`` -> ``"1h30m"``), so
that ``parse_duration(format_duration(n)) == n``.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Final, Literal, TypeAlias

from ._errors import BadValue

MAX_SIM_DURATION: Final = 10 * 365 * 86400
"""The longest duration a scenario may give: 10 years (see ``_limits``)."""

__all__ = [
    "END",
    "Moment",
    "datetime_seconds",
    "format_duration",
    "format_moment",
    "parse_duration",
    "parse_moment",
    "type_name",
]

END: Final = "end"
"""The moment after the run stops (``at = "end"``)."""

Moment: TypeAlias = int | Literal["end"]
"""Simulated epoch seconds, or :data:`END`."""

_UNITS: Final = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
_DURATION: Final = re.compile(r"(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?")
_EXAMPLES: Final = '"90s", "15m", "2h", "1h30m", "1d" or a number of seconds'


def type_name(value: object) -> str:
    """How a TOML value's type is named in messages ("a string", "an integer", ...)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, _dt.datetime):
        return "a datetime"
    if isinstance(value, _dt.date):
        return "a date"
    if isinstance(value, _dt.time):
        return "a time"
    return type(value).__name__


def parse_duration(value: object, *, signed: bool = False) -> int:
    """Seconds of a duration (see the module doc); raises BadValue."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadValue(f"expected a duration ({_EXAMPLES}), found {type_name(value)}")
    if isinstance(value, int):
        if value < 0 and not signed:
            raise BadValue(f"a duration cannot be negative ({value})")
        return _within_limit(value, value)
    text = value
    sign = 1
    if signed and text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if len(text) > 40:
        raise BadValue(f"{value[:40]!r}... is not a duration (expected {_EXAMPLES})")
    if text.isascii() and text.isdigit():
        return _within_limit(value, sign * int(text))
    match = _DURATION.fullmatch(text)
    if not text or match is None:
        if text[:1] == "-" and not signed:
            raise BadValue(f"a duration cannot be negative ({value!r})")
        raise BadValue(f"{value!r} is not a duration (expected {_EXAMPLES})")
    seconds = sum(int(n) * size for n, (_, size) in zip(match.groups(), _UNITS, strict=True) if n)
    return _within_limit(value, sign * seconds)


def _within_limit(value: object, seconds: int) -> int:
    """``seconds``, unless longer than MAX_SIM_DURATION (condorsim.scenario._limits)."""
    if abs(seconds) > MAX_SIM_DURATION:
        shown = f"{value!r} ({abs(seconds):,} s)" if isinstance(value, str) else f"{value:,} s"
        raise BadValue(f"{shown} exceeds the limit of {MAX_SIM_DURATION:,} s = 10 years of "
                       "simulated time (MAX_SIM_DURATION)")
    return seconds


def format_duration(seconds: int) -> str:
    """The canonical text of a duration: ``0`` -> ``"0s"``, ``5400`` -> ``"1h30m"``."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    rest = abs(seconds)
    parts: list[str] = []
    for unit, size in _UNITS:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return sign + "".join(parts)


def datetime_seconds(value: _dt.datetime) -> int:
    """Epoch seconds of a TOML datetime, which must carry an offset and whole seconds."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise BadValue(
            f"the datetime {value.isoformat()} has no offset: add one (Z or +hh:mm) "
            "so it names one instant"
        )
    if value.microsecond:
        raise BadValue(f"the datetime {value.isoformat()} has a fraction of a second; "
                       "simulated time counts whole seconds")
    return int(value.timestamp())


def parse_moment(value: object, start: int) -> Moment:
    """Simulated epoch seconds of a moment, or END; raises BadValue."""
    if value == END:
        return END
    if isinstance(value, _dt.datetime):
        return datetime_seconds(value)
    if isinstance(value, _dt.date | _dt.time):
        raise BadValue(
            f"expected a duration from the start, a datetime with an offset or \"end\", "
            f"found {type_name(value)} ({value.isoformat()})"
        )
    if isinstance(value, str) and _looks_like_datetime(value):
        raise BadValue(f"{value!r} is not a duration; write an absolute time as a TOML "
                       "datetime without quotes (e.g. at = 2026-01-01T10:00:00Z)")
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadValue(
            f"expected a duration from the start, a datetime with an offset or \"end\", "
            f"found {type_name(value)}"
        )
    return start + parse_duration(value)


def format_moment(moment: Moment, start: int) -> str:
    """A moment as text: ``"end"``, or its distance from the start (``"1h30m"``)."""
    if moment == END:
        return END
    assert isinstance(moment, int)
    return format_duration(moment - start)


def _looks_like_datetime(text: str) -> bool:
    return re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text) is not None
