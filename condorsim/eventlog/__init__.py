"""The user job event log in HTCondor's format: written by the schedd and shadow,
readable by `htcondor.JobEventLog` and by `read_events`.

How this works: `events` holds the event table and the value types, `dates` the
header date formats, `writer` and `usage` the writing, `reader` and `bodies` the
reading. See docs/formats.md.
"""

from condorsim.eventlog.dates import FormatOptions, parse_format
from condorsim.eventlog.events import (
    EVENT_NAMES,
    EVENT_NUMBERS,
    Event,
    EventLogError,
    ResourceUsage,
    Rusage,
    ToE,
    parse_rusage,
)
from condorsim.eventlog.reader import parse_events, read_events
from condorsim.eventlog.writer import EventLogWriter

__all__ = [
    "EVENT_NAMES",
    "EVENT_NUMBERS",
    "Event",
    "EventLogError",
    "EventLogWriter",
    "FormatOptions",
    "ResourceUsage",
    "Rusage",
    "ToE",
    "parse_events",
    "parse_format",
    "parse_rusage",
    "read_events",
]
