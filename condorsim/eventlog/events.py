"""What the user job event log holds: event names and numbers, events, usage values.

How this works: `EVENT_NUMBERS` is HTCondor's table of event types (the names of
`htcondor.JobEventType`, the numbers of `ULogEventNumber`), shared by the writer
and the reader. An `Event` is one event read back: its type name, number, job id,
time (epoch seconds) and a dict of fields named as `htcondor.JobEventLog` names
them (HoldReasonCode, ReturnValue, RunRemoteUsage, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

EVENT_NUMBERS: dict[str, int] = {
    "SUBMIT": 0,
    "EXECUTE": 1,
    "EXECUTABLE_ERROR": 2,
    "CHECKPOINTED": 3,
    "JOB_EVICTED": 4,
    "JOB_TERMINATED": 5,
    "IMAGE_SIZE": 6,
    "SHADOW_EXCEPTION": 7,
    "GENERIC": 8,
    "JOB_ABORTED": 9,
    "JOB_SUSPENDED": 10,
    "JOB_UNSUSPENDED": 11,
    "JOB_HELD": 12,
    "JOB_RELEASED": 13,
    "NODE_EXECUTE": 14,
    "NODE_TERMINATED": 15,
    "POST_SCRIPT_TERMINATED": 16,
    "GLOBUS_SUBMIT": 17,
    "GLOBUS_SUBMIT_FAILED": 18,
    "GLOBUS_RESOURCE_UP": 19,
    "GLOBUS_RESOURCE_DOWN": 20,
    "REMOTE_ERROR": 21,
    "JOB_DISCONNECTED": 22,
    "JOB_RECONNECTED": 23,
    "JOB_RECONNECT_FAILED": 24,
    "GRID_RESOURCE_UP": 25,
    "GRID_RESOURCE_DOWN": 26,
    "GRID_SUBMIT": 27,
    "JOB_AD_INFORMATION": 28,
    "JOB_STATUS_UNKNOWN": 29,
    "JOB_STATUS_KNOWN": 30,
    "JOB_STAGE_IN": 31,
    "JOB_STAGE_OUT": 32,
    "ATTRIBUTE_UPDATE": 33,
    "PRESKIP": 34,
    "CLUSTER_SUBMIT": 35,
    "CLUSTER_REMOVE": 36,
    "FACTORY_PAUSED": 37,
    "FACTORY_RESUMED": 38,
    "NONE": 39,
    "FILE_TRANSFER": 40,
    "RESERVE_SPACE": 41,
    "RELEASE_SPACE": 42,
    "FILE_COMPLETE": 43,
    "FILE_USED": 44,
    "FILE_REMOVED": 45,
}
EVENT_NAMES: dict[int, str] = {number: name for name, number in EVENT_NUMBERS.items()}

# An event whose number is not in the table is read as this (HTCondor's FutureEvent).
FUTURE_EVENT = "FUTURE_EVENT"


class EventLogError(Exception):
    """An event log that cannot be read, or an event we refuse to write."""


FieldValue = str | int | float | bool | dict[str, str] | dict[str, str | int | bool]


@dataclass(frozen=True)
class Event:
    """One event of a user job event log, as read back."""

    type: str
    number: int
    cluster: int
    proc: int
    timestamp: float
    fields: dict[str, FieldValue] = field(default_factory=dict)
    subproc: int = 0
    line: int = 0  # where its header is in the file (1-based)


@dataclass(frozen=True)
class Rusage:
    """User and system CPU seconds, written as `Usr d hh:mm:ss, Sys d hh:mm:ss`."""

    usr: int = 0
    sys: int = 0

    def __str__(self) -> str:
        return f"Usr {_dhms(self.usr)}, Sys {_dhms(self.sys)}"


def _dhms(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days} {hours:02d}:{minutes:02d}:{secs:02d}"


_RUSAGE = re.compile(r"\s*Usr (-?\d+) (-?\d+):(-?\d+):(-?\d+), Sys (-?\d+) (-?\d+):(-?\d+):(-?\d+)")


def parse_rusage(text: str) -> Rusage | None:
    """The Rusage a `Usr d hh:mm:ss, Sys d hh:mm:ss` text starts with, or None."""
    match = _RUSAGE.match(text)
    if match is None:
        return None
    n = [int(group) for group in match.groups()]
    return Rusage(
        usr=n[0] * 86400 + n[1] * 3600 + n[2] * 60 + n[3],
        sys=n[4] * 86400 + n[5] * 3600 + n[6] * 60 + n[7],
    )


@dataclass(frozen=True)
class ResourceUsage:
    """One row of the `Partitionable Resources` table of a termination or eviction."""

    name: str
    usage: int | float | None = None
    request: int | float | None = None
    allocated: int | float | None = None


@dataclass(frozen=True)
class ToE:
    """HTCondor's termination-of-execution tag (the job's ``ToE`` attribute, ToE.cpp).

    ``how_code`` 0 is OF_ITS_OWN_ACCORD (the payload exited; ``exit_by_signal`` and
    ``exit_value`` say how), 1 DEACTIVATE_CLAIM, 2 DEACTIVATE_CLAIM_FORCIBLY (``who`` stopped
    it). ``when`` is epoch seconds, printed in UTC as ``2026-01-01T00:01:00Z``.
    """

    who: str = "itself"
    how: str = "OF_ITS_OWN_ACCORD"
    how_code: int = 0
    when: int = 0
    exit_by_signal: bool | None = None
    exit_value: int = 0

    def line(self) -> str:
        """The line a terminate event ends with (after an empty line), without newlines."""
        when = datetime.fromtimestamp(self.when, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if self.how_code == 0:
            if self.exit_by_signal is True and self.exit_value == 0:
                return f"Job terminated of its own accord at {when}."
            what = "signal" if self.exit_by_signal else "exit-code"
            return f"Job terminated of its own accord at {when} with {what} {self.exit_value}."
        return (f"Job terminated by {self.who} at {when} (using method {self.how_code}: "
                f"{self.how}).")

    def fields(self) -> dict[str, str | int | bool]:
        """The tag as JobEventLog reports it (the ``ToE`` field of JOB_TERMINATED)."""
        out: dict[str, str | int | bool] = {"Who": self.who, "How": self.how,
                                            "HowCode": self.how_code, "When": self.when}
        if self.how_code == 0 and self.exit_by_signal is not None:
            out["ExitBySignal"] = self.exit_by_signal
            out["ExitSignal" if self.exit_by_signal else "ExitCode"] = self.exit_value
        return out
