"""Reading a user job event log back into `Event`s, as `htcondor.JobEventLog` does.

How this works: the text is cut into events at the `...` lines; an event whose
`...` has not been written yet is not returned (a writer may be half-way through
it). Each event's header gives its number, job id and time (`dates.parse_time`);
its body is read by the parser for its type in `bodies`, which accepts what
HTCondor's `readEvent` accepts and names the fields as JobEventLog does. A line
that is not a header where one must be, or a body HTCondor would refuse, raises
`EventLogError` naming the file and the line.
"""

from __future__ import annotations

import os
import re
from zoneinfo import ZoneInfo

from condorsim.eventlog.bodies import BODY_PARSERS, BodyError, parse_future_event
from condorsim.eventlog.dates import parse_time, zone
from condorsim.eventlog.events import EVENT_NAMES, FUTURE_EVENT, Event, EventLogError

_HEADER = re.compile(r"(\d{3}) \((-?\d+)\.(-?\d+)\.(-?\d+)\) (.*)$")


def _is_sync(line: str) -> bool:
    return line == "..." or line == "...\r"


def read_events(
    path: str | os.PathLike[str], *, tz: str = "UTC", year: int | None = None
) -> list[Event]:
    """Every complete event in the log at `path`, in order.

    Times without `Z` are read in the IANA zone `tz`; `year` is the year of
    legacy `MM/DD` dates (required only if the log has one).
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as stream:
            text = stream.read().decode("utf-8", "replace")
    except OSError as exc:
        raise EventLogError(f"cannot read {name}: {exc.strerror}") from None
    return parse_events(text, name=name, tz=tz, year=year)


def parse_events(
    text: str, *, name: str = "<event log>", tz: str = "UTC", year: int | None = None
) -> list[Event]:
    """The complete events in `text` (see `read_events`); `name` is used in messages."""
    zoneinfo = zone(tz)
    lines = text.split("\n")
    events: list[Event] = []
    index = 0
    while index < len(lines):
        header = lines[index]
        if index == len(lines) - 1 and not header:
            break  # the text ended with a newline
        end = index + 1
        while end < len(lines) and not _is_sync(lines[end]):
            end += 1
        if end >= len(lines):
            break  # no `...` yet: the event is not complete
        body = lines[index + 1 : end]
        events.append(_event(header.rstrip("\r"), body, index + 1, name, zoneinfo, year))
        index = end + 1
    return events


def _event(
    header: str, rest: list[str], lineno: int, name: str, tz: ZoneInfo, year: int | None
) -> Event:
    match = _HEADER.match(header)
    if match is None:
        raise EventLogError(f"{name}: line {lineno}: not an event header: {header[:60]!r}")
    number = int(match.group(1))
    cluster, proc, subproc = (int(match.group(i)) for i in (2, 3, 4))
    try:
        timestamp, first = parse_time(match.group(5), tz, year)
    except ValueError as exc:
        raise EventLogError(f"{name}: line {lineno}: {exc}") from None
    body = [first, *(line.rstrip("\r") for line in rest)]
    event_type = EVENT_NAMES.get(number, FUTURE_EVENT)
    parser = BODY_PARSERS.get(event_type, parse_future_event)
    try:
        fields = parser(body)
    except BodyError as exc:
        raise EventLogError(
            f"{name}: line {lineno + exc.index}: {event_type} event: {exc.reason}"
        ) from None
    return Event(
        type=event_type,
        number=number,
        cluster=cluster,
        proc=proc,
        subproc=subproc,
        timestamp=timestamp,
        fields=fields,
        line=lineno,
    )
