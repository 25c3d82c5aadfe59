"""One grid job's state machine, as HTCondor's batch (INFN) jobs go through it.

How this works
--------------
:func:`evaluate` is ``INFNBatchJob::doEvaluateState`` (``src/condor_gridmanager/
infnbatchjob.cpp``) for a simulated site: it runs the job's transitions until none applies.
A state that has written attributes the schedd must hold before the job goes on (the
sandbox id, the remote job id, the completion) waits until they are pushed (``job.dirty`` is
empty again after the gridmanager's next contact with the schedd). The table:

============  ========================================================  ==================
state         what happens                                              next
============  ========================================================  ==================
start         just adopted: a remote job id means it was submitted      submitted / submit /
              before (a restarted gridmanager takes it back)            unsubmitted / delete
unsubmitted   held/removed: done. No site serves GridResource: hold.    delete /
              Site known down: wait. Else the sandbox id (batch types)  save_sandbox
save_sandbox  GridJobId "batch <type> <sandbox>" waits to be pushed     submit
submit        submit to the site (a site found down: wait); GRID_SUBMIT submit_save
submit_save   the full GridJobId waits to be pushed                     submitted
submitted     every GRIDMANAGER_JOB_PROBE_INTERVAL: the remote state    done_save / cancel /
              (JobIdle/JobRunning, GridJobStatus); completed: on-exit   delete
              policy. Held or removed by the schedd: cancel. Gone from
              the site: hold
done_save     completed: JobStatus 4 waits to be pushed, then done;     delete / unsubmitted
              held by OnExitHold: done; OnExitRemove false: JOB_EVICTED,
              back to unsubmitted (it runs again)
cancel        the remote job is cancelled; a held job forgets it        delete
delete        DoneWithJob: Managed, the last event; forgotten once      --
              pushed (and out of the queue when completed or removed)
============  ========================================================  ==================

The site is reached through a :class:`Sites` (the gridmanager logic), which knows which
site serves the job and whether it is known to be down.
"""

from __future__ import annotations

import math
from typing import Protocol

from condorsim.classad import ClassAd, EvalContext
from condorsim.jobs.codes import HoldCode, JobStatus
from daemons.shadow.policy import PolicyAction, exit_policy

from .job import GridJob, LogEvent, make_grid_job_id
from .site import COMPLETED, IDLE, REMOVED, RUNNING, RemoteJob

NO_SITE = 'Attempts to submit failed: no site serves GridResource "{}" (SIM_GRID_SITES)'
GONE = "Job removed from batch queue manually"


class Sites(Protocol):
    """What the state machine needs of the gridmanager's sites."""

    probe_interval: float

    def serves(self, job: GridJob) -> bool: ...
    def known_down(self, job: GridJob) -> bool: ...
    def sandbox_id(self, job: GridJob) -> str: ...
    def submit(self, job: GridJob, now: float) -> RemoteJob | None: ...
    def poll(self, job: GridJob, now: float) -> RemoteJob | None: ...
    def cancel(self, job: GridJob, now: float) -> None: ...


def _stopped(job: GridJob) -> bool:
    return job.status in (JobStatus.REMOVED, JobStatus.HELD)


def evaluate(job: GridJob, sites: Sites, now: float) -> list[LogEvent]:
    """Run the job's transitions until it waits; the user-log events they wrote."""
    events: list[LogEvent] = []
    for _ in range(32):  # a few transitions at most; the bound only guards against a bug
        before = job.gm
        job.gm = _step(job, sites, now, events)
        if job.gm == before:
            return events
        job.entered = now
    raise RuntimeError(f"job {job.id}: the gridmanager's state machine does not settle")


def _clear_remote(job: GridJob, now: float) -> None:
    job.sandbox = job.remote_id = None
    job.remote_state = None
    job.set_remote_job_id(None, now)
    job.set_remote_job_status(None, now)


def _step(job: GridJob, sites: Sites, now: float, events: list[LogEvent]) -> str:
    state = job.gm
    if state == "start":
        if job.status == JobStatus.COMPLETED:
            return "delete"
        if job.remote_id is not None:
            return "cancel" if _stopped(job) else "submitted"
        if job.sandbox is not None:
            if _stopped(job):
                if job.status == JobStatus.HELD:
                    _clear_remote(job, now)
                return "delete"
            return "submit"
        return "unsubmitted"
    if state == "unsubmitted":
        if _stopped(job) or job.status == JobStatus.COMPLETED:
            return "delete"
        if not sites.serves(job):
            events += job.held(NO_SITE.format(job.grid_resource), HoldCode.UNSPECIFIED, 0, now)
            return "delete"
        if sites.known_down(job):
            return state
        if job.grid_resource.split()[0] == "batch":
            job.sandbox = sites.sandbox_id(job)
            job.set_remote_job_id(make_grid_job_id(job.grid_resource, job.sandbox, None), now)
            return "save_sandbox"
        return "submit"
    if state in ("save_sandbox", "submit_save", "done_save") and job.dirty:
        return state  # waits for the schedd to hold what was written
    if state == "save_sandbox":
        return "submit"
    if state == "submit":
        if _stopped(job):
            if job.status == JobStatus.HELD:
                _clear_remote(job, now)
            return "delete"
        remote = sites.submit(job, now) if not sites.known_down(job) else None
        if remote is None:
            return state  # the site is down: wait for it
        job.remote_id = remote.remote_id
        job.set_remote_job_id(make_grid_job_id(job.grid_resource, job.sandbox or None,
                                               remote.remote_id), now)
        events.append(LogEvent("grid_submit", now, {"resource": job.grid_resource,
                                                    "job_id": job.string("GridJobId") or ""}))
        return "submit_save"
    if state == "submit_save":
        if _stopped(job):
            return "cancel"
        job.next_poll = now + sites.probe_interval
        return "submitted"
    if state == "submitted":
        if _stopped(job):
            return "cancel"
        if job.next_poll == math.inf:  # taken back by a restarted gridmanager
            job.next_poll = now + sites.probe_interval
        if job.remote_state not in (COMPLETED, REMOVED) and now >= job.next_poll and \
                not sites.known_down(job):  # no polls while the site is known down
            job.next_poll = now + sites.probe_interval
            remote = sites.poll(job, now)
            if remote is not None:
                events += _process_remote(job, remote, now)
        if job.remote_state == COMPLETED:
            events += _terminated(job, now)
            return "done_save"
        if job.remote_state == REMOVED:
            _clear_remote(job, now)
            events += job.held(GONE, HoldCode.UNSPECIFIED, 0, now)
            return "delete"
        return state
    if state == "done_save":
        if job.status != JobStatus.COMPLETED and not _stopped(job):
            # OnExitRemove was false: the job is submitted again and runs from the start
            _clear_remote(job, now)
            events += job.idle(now)
            return "unsubmitted"
        if job.status == JobStatus.HELD:
            _clear_remote(job, now)
        return "delete"
    if state == "cancel":
        sites.cancel(job, now)
        if job.status == JobStatus.HELD:
            _clear_remote(job, now)
        return "delete"
    if state == "delete":
        if not job.finished:
            events += job.done(now)
        return state
    raise RuntimeError(f"job {job.id}: unknown gridmanager state {state!r}")


def _process_remote(job: GridJob, remote: RemoteJob, now: float) -> list[LogEvent]:
    """INFNBatchJob::ProcessRemoteAd: what the batch system said of the job."""
    events: list[LogEvent] = []
    if remote.state == IDLE:
        events += job.idle(now)
    elif remote.state == RUNNING:
        events += job.running(now)
    job.remote_state = remote.state
    job.set_remote_job_status(remote.state, now)
    if remote.state == COMPLETED:
        job.set("ExitCode", remote.exit_code if remote.exit_code is not None else 0)
        job.set("RemoteUserCpu", float(int(remote.runtime or 0)))
        job.set("RemoteSysCpu", 0.0)
    return events


def _terminated(job: GridJob, now: float) -> list[LogEvent]:
    """BaseJob::JobTerminated -> EvalOnExitJobExpr: completed, held or run again."""
    if job.status in (JobStatus.HELD, JobStatus.COMPLETED, JobStatus.REMOVED):
        return []
    if job.ad.lookup("ExitSignal") is None and job.ad.lookup("ExitCode") is None:
        job.set("ExitBySignal", False)
        job.set("ExitCode", 0)
    outcome = exit_policy(with_current_run(job, now), int(now))
    if outcome.action is not PolicyAction.REMOVE:
        job.set("ExitBySignal", False)
        job.clear("ExitCode")
        job.clear("ExitSignal")
    if outcome.action is PolicyAction.REMOVE:
        job.completed(now)
        return []
    if outcome.action is PolicyAction.HOLD:
        return job.held(outcome.reason, outcome.code, outcome.subcode, now)
    return []  # STAYS_IN_QUEUE: cleaned up and submitted again


def with_current_run(job: GridJob, now: float) -> ClassAd:
    """The job ad with RemoteWallClockTime counting the current run (UpdateJobTime)."""
    ad = job.ad.copy()
    bday = ad.evaluate("ShadowBday", ctx=EvalContext(now=int(now)))
    if isinstance(bday, int):
        wall = ad.evaluate("RemoteWallClockTime")
        ad["RemoteWallClockTime"] = (float(wall) if type(wall) in (int, float) else 0.0) + \
            (int(now) - bday)
    return ad
