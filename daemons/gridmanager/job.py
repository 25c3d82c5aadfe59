"""The gridmanager's copy of one grid job: its attributes, what changed, the events to log.

How this works
--------------
A :class:`GridJob` holds the job ad the gridmanager took from the schedd and the set of
attributes changed since the last push (``dirty``, pushed with GRIDMAN_UPDATE). Its methods
are HTCondor's ``BaseJob`` operations (``src/condor_gridmanager/basejob.cpp``), each fed
``now`` and returning the user-log events to write (:class:`LogEvent`):

* :meth:`running`, :meth:`idle`, :meth:`completed`, :meth:`held`, :meth:`removed` change
  ``JobStatus`` (with ``EnteredCurrentStatus``) and keep the run-time bookkeeping of
  ``UpdateRuntimeStats``: a run starts (``ShadowBday``, ``JobStartDate``,
  ``JobCurrentStartDate``, ``JobCurrentStartExecutingDate``, ``NumJobStarts``,
  ``JobRunCount``) and ends (``RemoteWallClockTime`` += its length; ``ShadowBday`` undefined);
* :meth:`set_remote_job_id` / :meth:`set_remote_job_status` keep ``GridJobId``,
  ``GridJobStatus`` and ``LastRemoteStatusUpdate``;
* :meth:`resource_down` / :meth:`resource_up` write 026 / 025 and keep
  ``GridResourceUnavailableTime``;
* :meth:`from_schedd` is ``JobAdUpdateFromSchedd``: the schedd held, removed or completed
  the job (its attributes are taken as they are, not dirty);
* :meth:`done` is ``DoneWithJob``: ``Managed`` becomes "ScheddDone" (completed or removed:
  the job then leaves the queue) or "Schedd" (held or idle), with the last event.

A cleared attribute is set to ``undefined``, as the gridmanager's SetAttribute of "Undefined".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd, parse_expr
from condorsim.jobs.codes import JobStatus
from condorsim.jobs.dirty import DirtyAd
from condorsim.jobs.managed import MANAGED_DONE, MANAGED_SCHEDD

UNDEFINED_EXPR = parse_expr("undefined")

# JobAdUpdateFromSchedd: what a hold or removal in the schedd brings along.
HELD_REMOVED_ATTRS = ("JobStatus", "HoldReason", "HoldReasonCode", "HoldReasonSubCode",
                      "LastHoldReason", "ReleaseReason", "LastReleaseReason",
                      "EnteredCurrentStatus", "NumSystemHolds", "RemoveReason")


@dataclass(frozen=True)
class LogEvent:
    """A user-log event to write: ``kind`` is an EventLogWriter method's event."""

    kind: str
    t: float
    fields: dict[str, Any] = field(default_factory=dict)


def batch_type(grid_resource: str) -> str:
    """The batch system of a GridResource ("batch slurm ..." -> "slurm"), else its type."""
    words = grid_resource.split()
    if len(words) > 1 and words[0] == "batch":
        return words[1]
    return words[0] if words else "batch"


def parse_grid_job_id(grid_job_id: str, grid_resource: str) -> tuple[str | None, str | None]:
    """(sandbox id, remote job id) of a GridJobId; either may be missing.

    A batch job's is ``batch <type> <sandbox id> [<remote id>]``
    (INFNBatchJob::SetRemoteIds); any other type's is ``<GridResource> <remote id>``.
    """
    words = grid_job_id.split()
    if not words:
        return None, None
    if words[0] == "batch":
        return (words[2] if len(words) > 2 else None), (words[3] if len(words) > 3 else None)
    rest = grid_job_id[len(grid_resource):].strip() if grid_job_id.startswith(grid_resource) \
        else words[-1]
    return None, rest or None


def make_grid_job_id(grid_resource: str, sandbox: str | None, remote_id: str | None) -> str:
    """The GridJobId for a sandbox and a remote job (see :func:`parse_grid_job_id`)."""
    words = grid_resource.split()
    if words and words[0] == "batch":
        out = f"batch {batch_type(grid_resource)} {sandbox}" if sandbox else ""
        return f"{out} {remote_id}" if out and remote_id else out
    return f"{grid_resource} {remote_id}" if remote_id else ""


def _int(value: object, default: int = 0) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return default


class GridJob(DirtyAd):
    """One job the gridmanager manages (see the module comment)."""

    def __init__(self, ad: ClassAd) -> None:
        super().__init__(ad)
        self.cluster = _int(self.ad.evaluate("ClusterId"))
        self.proc = _int(self.ad.evaluate("ProcId"))
        self.id = f"{self.cluster}.{self.proc}"
        self.status = _int(self.ad.evaluate("JobStatus"), JobStatus.IDLE)
        resource = self.ad.evaluate("GridResource")
        self.grid_resource = " ".join(resource.split()) if isinstance(resource, str) else ""
        self.execute_logged = self.terminate_logged = self.abort_logged = False
        self.hold_logged = False
        self.resource_is_down = False  # BaseJob::resourceDown: 026 written, 025 not yet
        self.destroy = False  # deleteFromSchedd: DestroyProc with the final push
        self.finished = False  # deleteFromGridmanager: forget the job after the final push
        # The state machine's (machine.py): its state, when it entered it, the next status
        # poll, and the remote job as known from GridJobId (batch: "batch <type> <sandbox>
        # <remote id>").
        self.gm = "start"
        self.entered = 0.0
        self.next_poll = math.inf
        self.remote_state: str | None = None
        self.sandbox, self.remote_id = parse_grid_job_id(self.string("GridJobId") or "",
                                                         self.grid_resource)

    # -- attributes ---------------------------------------------------------------------------
    def clear(self, name: str) -> None:
        """Set ``name`` to undefined (the gridmanager's AssignExpr(name, "Undefined"))."""
        if name in self.ad:
            self.set(name, UNDEFINED_EXPR)

    def number(self, name: str, default: int = 0) -> int:
        return _int(self.ad.evaluate(name), default)

    def string(self, name: str) -> str | None:
        value = self.ad.evaluate(name)
        return value if isinstance(value, str) else None

    # -- JobStatus ----------------------------------------------------------------------------
    def _status(self, status: int, now: float) -> None:
        self.status = status
        self.set("JobStatus", status)
        self.set("EnteredCurrentStatus", int(now))

    def running(self, now: float) -> list[LogEvent]:
        """BaseJob::JobRunning: the remote job runs (EXECUTE, once per run)."""
        if self.status in (JobStatus.RUNNING, JobStatus.HELD, JobStatus.REMOVED):
            return []
        self._status(JobStatus.RUNNING, now)
        self.runtime_stats(now)
        if self.execute_logged:
            return []
        self.execute_logged = True
        return [LogEvent("execute", now, {"host": self.grid_resource})]

    def idle(self, now: float) -> list[LogEvent]:
        """BaseJob::JobIdle: back to Idle (JOB_EVICTED if it was running)."""
        if self.status in (JobStatus.IDLE, JobStatus.HELD, JobStatus.REMOVED):
            return []
        was_running = self.status == JobStatus.RUNNING
        self._status(JobStatus.IDLE, now)
        self.runtime_stats(now)
        if not was_running:
            return []
        self.execute_logged = False
        return [LogEvent("evicted", now)]

    def completed(self, now: float) -> None:
        """BaseJob::JobCompleted."""
        if self.status in (JobStatus.COMPLETED, JobStatus.HELD, JobStatus.REMOVED):
            return
        self._status(JobStatus.COMPLETED, now)
        self.runtime_stats(now)

    def held(self, reason: str, code: int, subcode: int, now: float) -> list[LogEvent]:
        """BaseJob::JobHeld: the gridmanager puts the job on hold (a system hold)."""
        if self.status == JobStatus.HELD:
            return []
        if self.status == JobStatus.REMOVED:
            self.set("JobStatusOnRelease", int(JobStatus.REMOVED))
        self._status(JobStatus.HELD, now)
        self.set("HoldReason", reason)
        self.set("HoldReasonCode", code)
        self.set("HoldReasonSubCode", subcode)
        release = self.string("ReleaseReason")
        if release is not None:
            self.set("LastReleaseReason", release)
        self.clear("ReleaseReason")
        self.set("NumSystemHolds", self.number("NumSystemHolds") + 1)
        self.runtime_stats(now)
        return self._hold_event(now)

    def _hold_event(self, now: float) -> list[LogEvent]:
        if self.hold_logged:
            return []
        self.hold_logged = True
        return [LogEvent("held", now, {"reason": self.string("HoldReason"),
                                       "code": self.number("HoldReasonCode"),
                                       "subcode": self.number("HoldReasonSubCode")})]

    def removed(self, reason: str, now: float) -> None:
        """BaseJob::JobRemoved (the gridmanager's own periodic policy removes the job)."""
        if self.status == JobStatus.REMOVED:
            return
        self._status(JobStatus.REMOVED, now)
        self.set("RemoveReason", reason)
        self.runtime_stats(now)

    def runtime_stats(self, now: float) -> None:
        """BaseJob::UpdateRuntimeStats: a run starts or ends."""
        bday = self.ad.evaluate("ShadowBday")
        t = int(now)
        if self.status == JobStatus.RUNNING and not isinstance(bday, int):
            self.set("ShadowBday", t)
            if self.ad.lookup("JobStartDate") is None:
                self.set("JobStartDate", t)
            current = self.ad.evaluate("JobCurrentStartDate")
            if isinstance(current, int):
                self.set("JobLastStartDate", current)
            self.set("JobCurrentStartDate", t)
            self.set("JobCurrentStartExecutingDate", t)
            starts = self.number("NumJobStarts") + 1
            self.set("NumJobStarts", starts)
            self.set("JobRunCount", starts)
        elif self.status != JobStatus.RUNNING and isinstance(bday, int):
            wall = self.ad.evaluate("RemoteWallClockTime")
            total = float(wall) if type(wall) in (int, float) else 0.0
            self.set("RemoteWallClockTime", total + (t - bday))
            self.clear("WallClockCheckpoint")
            self.clear("ShadowBday")

    # -- the remote job -----------------------------------------------------------------------
    def set_remote_job_id(self, job_id: str | None, now: float) -> None:
        """BaseJob::SetRemoteJobId: GridJobId (None clears it)."""
        old = self.string("GridJobId") or None
        if old == job_id:
            return
        if old is None:
            self.set("LastRemoteStatusUpdate", int(now))
        if job_id:
            self.set("GridJobId", job_id)
        else:
            self.clear("GridJobId")
            self.set("LastRemoteStatusUpdate", 0)
            self.set("CurrentStatusUnknown", False)

    def set_remote_job_status(self, status: str | None, now: float) -> None:
        """BaseJob::SetRemoteJobStatus: GridJobStatus, the remote state's name."""
        if status:
            self.set("LastRemoteStatusUpdate", int(now))
        if (self.string("GridJobStatus") or None) == status:
            return
        if status:
            self.set("GridJobStatus", status)
        else:
            self.clear("GridJobStatus")

    def resource_down(self, now: float) -> list[LogEvent]:
        """BaseJob::NotifyResourceDown: 026 once per outage."""
        if self.resource_is_down:
            return []
        self.resource_is_down = True
        self.set("GridResourceUnavailableTime", int(now))
        return [LogEvent("grid_resource_down", now, {"resource": self.grid_resource})]

    def resource_up(self, now: float) -> list[LogEvent]:
        """BaseJob::NotifyResourceUp: 025 after an outage."""
        if not self.resource_is_down:
            return []
        self.resource_is_down = False
        self.clear("GridResourceUnavailableTime")
        return [LogEvent("grid_resource_up", now, {"resource": self.grid_resource})]

    # -- the schedd's side --------------------------------------------------------------------
    def from_schedd(self, ad: ClassAd, now: float) -> list[LogEvent]:
        """BaseJob::JobAdUpdateFromSchedd for a job the schedd holds, removes or completes."""
        new = _int(ad.evaluate("JobStatus"), self.status)
        if new == self.status:
            return []
        if new == JobStatus.REMOVED and self.status == JobStatus.HELD and \
                self.number("JobStatusOnRelease", JobStatus.IDLE) == JobStatus.REMOVED:
            return []
        if new == JobStatus.COMPLETED:
            self.status = new
            return []
        if new not in (JobStatus.REMOVED, JobStatus.HELD):
            return []
        for name in HELD_REMOVED_ATTRS:
            tree = ad.lookup(name)
            if tree is not None:
                self.ad[name] = tree
            elif name in self.ad:
                del self.ad[name]
            self.dirty.discard(name)
        events = self._hold_event(now) if new == JobStatus.HELD else []
        self.status = new
        self.runtime_stats(now)
        return events

    def done(self, now: float) -> list[LogEvent]:
        """BaseJob::DoneWithJob: hand the job back to the schedd, with the last event."""
        self.finished = True
        events: list[LogEvent] = []
        if self.status == JobStatus.COMPLETED:
            self.set("Managed", MANAGED_DONE)
            if not self.terminate_logged:
                self.terminate_logged = True
                events.append(LogEvent("terminated", now))
            self.destroy = True
        elif self.status == JobStatus.REMOVED:
            self.set("Managed", MANAGED_DONE)
            if not self.abort_logged:
                self.abort_logged = True
                events.append(LogEvent("aborted", now, {"reason": self.string("RemoveReason")}))
            self.destroy = True
        else:
            self.set("Managed", MANAGED_SCHEDD)
            if self.status == JobStatus.HELD:
                events += self._hold_event(now)
        return events
