"""Local and scheduler universe jobs: run on the submit host by the schedd, no matchmaking.

How this works
--------------
HTCondor's schedd never negotiates for these (facts 1.1: submit leaves HasJobDeferral out of
a local job's Requirements for that reason). Its ``AddRunnableLocalJobs`` walks the idle local
(JobUniverse 12) and scheduler (7) jobs in priority order and starts each one whose
universe's start expression -- ``START_LOCAL_UNIVERSE`` (default ``TotalLocalJobsRunning <
200``) or ``START_SCHEDULER_UNIVERSE`` (``TotalSchedulerJobsRunning < 500``) -- and whose own
Requirements are true against the schedd's ad (which carries Arch, OpSys, Memory, Disk,
Cpus and the Total*Jobs* counts). A local job gets a local condor_starter
(``JICLocalSchedd``), a scheduler job is spawned by the schedd itself.

:class:`LocalJobs` is the logic, fed by the schedd's runner (no I/O but the queue's own
files): :meth:`runnable` picks what to start, :meth:`start` records the start as the schedd
does (``mark_serial_job_running`` + ``add_shadow_birthdate``), :meth:`began` the start of
execution, :meth:`exited` the payload's exit with the job's policy, :meth:`stopped` a job
stopped at someone's request (hold, remove, vacate), :meth:`suspend` / :meth:`resume`.
What each writes to the user log follows HTCondor:

* local: 001 when the payload starts (after any deferral wait: the local starter checks
  DeferralTime as any starter does), then 005 (exit), 004 "terminated and was requeued"
  (OnExitRemove false) or 004 "evicted" (held or removed: the schedd then writes 012 or 009);
  010/011 around a suspension;
* scheduler: 001 at spawn, 005 (exit), 004 requeued; a hold writes only 012. The exit
  policy's "remove" completes the job, as ``scheduler_univ_job_exit`` does.

Neither increments NumJobCompletions (only HTCondor's shadow does). The runtime is the
simulated payload's (``+SimRuntime``, a sleep's argument, SIM_DEFAULT_RUNTIME) as in the
starter. docs/schedd.md, "Local and scheduler universe".
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd, ClassAdError, EvalContext, ExprTree, parse_expr
from condorsim.eventlog import EventLogError, EventLogWriter, Rusage
from condorsim.eventlog.joblog import user_log_path
from condorsim.jobs.codes import HoldCode, JobStatus, Universe
from daemons.shadow.policy import PolicyAction, exit_policy
from daemons.starter.logic import (
    DeferralAction,
    PayloadClock,
    deferral_decision,
    payload_exit_code,
    payload_runtime,
)

from .autocluster import priority_key
from .queue import JobQueue, _int
from .running import mark_stopped, stop_accounting, update_cron
from .store import JobId, JobSet, job_str

LOCAL_UNIVERSES = frozenset({int(Universe.LOCAL), int(Universe.SCHEDULER)})

DEFAULT_START = {
    int(Universe.LOCAL): "TotalLocalJobsRunning < 200",
    int(Universe.SCHEDULER): "TotalSchedulerJobsRunning < 500",
}
"""START_LOCAL_UNIVERSE and START_SCHEDULER_UNIVERSE defaults (param_info.in)."""


def universe_of(ad: ClassAd) -> int:
    return _int(ad, "JobUniverse", int(Universe.VANILLA))


def is_local(ad: ClassAd) -> bool:
    """A job the schedd runs itself (local or scheduler universe)."""
    return universe_of(ad) in LOCAL_UNIVERSES


class Phase(enum.Enum):
    WAITING = "waiting"  # for its DeferralTime (local universe)
    RUNNING = "running"


@dataclass
class LocalRun:
    """One running local or scheduler universe job."""

    job: JobId
    universe: int
    phase: Phase
    wake_at: float
    """When the runner must call back: the deferral time, or the payload's exit."""
    clock: PayloadClock | None = None
    runtime: float = 0.0
    suspended_at: float | None = None
    exit_at: float | None = None
    """When the payload exited (its exit is being written, maybe again)."""
    exit_failures: int = 0
    """Times the exit could not be written to the queue (:meth:`LocalJobs.exit_failed`)."""
    gave_up: bool = False
    """The exit was given up on: the job is to be requeued (:meth:`LocalJobs.requeue`)."""


@dataclass
class Outcome:
    """What an exit or a stop did, for the runner's log."""

    job: JobId
    became: str
    events: list[str] = field(default_factory=list)


class LocalJobs:
    """The schedd's local and scheduler universe jobs (see the module comment)."""

    def __init__(self, queue: JobQueue, *, host: str, default_runtime: float,
                 start_exprs: dict[int, str] | None = None, tz: str = "UTC",
                 cleanup_retry_delay: int = 30, max_cleanup_retries: int = 5) -> None:
        self.queue = queue
        # LOCAL_UNIVERSE_JOB_CLEANUP_RETRY_DELAY, LOCAL_UNIVERSE_MAX_JOB_CLEANUP_RETRIES
        self.cleanup_retry_delay = max(1, cleanup_retry_delay)
        self.max_cleanup_retries = max_cleanup_retries
        self.host = host
        self.default_runtime = default_runtime
        self.tz = tz
        self.start_exprs: dict[int, ExprTree] = {}
        for universe, text in {**DEFAULT_START, **(start_exprs or {})}.items():
            self.start_exprs[universe] = parse_expr(text)
        self.running: dict[JobId, LocalRun] = {}
        self._idle_cache: tuple[object, list[JobId]] = (None, [])
        self._local_set: JobSet | None = None

    # -- the schedd's ad ---------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """TotalLocalJobsIdle/Running and TotalSchedulerJobsIdle/Running."""
        q = self.queue
        out = {"TotalLocalJobsIdle": 0, "TotalLocalJobsRunning": 0,
               "TotalSchedulerJobsIdle": 0, "TotalSchedulerJobsRunning": 0}
        for run in self.running.values():
            word = "Local" if run.universe == Universe.LOCAL else "Scheduler"
            out[f"Total{word}JobsRunning"] += 1
        for job in self._idle_local():
            word = "Local" if universe_of(q.jobs[job]) == Universe.LOCAL else "Scheduler"
            out[f"Total{word}JobsIdle"] += 1
        return out

    def has_idle(self) -> bool:
        """Whether a local or scheduler job waits to start."""
        return bool(self._idle_local())

    def _idle_local(self) -> list[JobId]:
        """The idle local and scheduler jobs not running, in the queue's order: found once
        per state of the queue and of the running set (the schedd asks at every ad and
        every instant that may start one; most queues have none)."""
        q = self.queue
        key = (q.store.version, frozenset(self.running))
        if self._idle_cache[0] != key:
            if self._local_set is None:
                self._local_set = JobSet(q.store, is_local)
            idle = [j for j in self._local_set.ordered()
                    if q.status(j) == JobStatus.IDLE and j not in self.running]
            self._idle_cache = (key, idle)
        return self._idle_cache[1]

    def ad_attrs(self) -> dict[str, Any]:
        """What the schedd's ad says about its local jobs (Scheduler::publish)."""
        attrs: dict[str, Any] = dict(self.counts())
        attrs["START_LOCAL_UNIVERSE"] = self.start_exprs[int(Universe.LOCAL)]
        attrs["START_SCHEDULER_UNIVERSE"] = self.start_exprs[int(Universe.SCHEDULER)]
        return attrs

    # -- starting ----------------------------------------------------------------------------
    def runnable(self, schedd_ad: ClassAd, now: int) -> list[JobId]:
        """The idle local and scheduler jobs to start now, in priority order.

        Each one started counts against the start expressions of the next (HTCondor bumps
        its running tallies as it goes, for the same reason).
        """
        q = self.queue
        ad = schedd_ad.copy()
        counts = self.counts()
        ad.update(counts)
        ctx = EvalContext(now=now, tz=self.tz)
        chosen: list[JobId] = []
        idle = list(self._idle_local())
        for job in sorted(idle, key=lambda j: priority_key(j, q.jobs[j])):
            job_ad = q.jobs[job]
            if _int(job_ad, "JobCoolDownExpiration") >= now:
                continue
            universe = universe_of(job_ad)
            start = self.start_exprs[universe]
            if start.evaluate(my=ad, target=job_ad, ctx=ctx) is not True:
                continue
            requirements = job_ad.lookup("Requirements")
            if requirements is not None and \
                    requirements.evaluate(my=job_ad, target=ad, ctx=ctx) is not True:
                continue
            chosen.append(job)
            word = "Local" if universe == Universe.LOCAL else "Scheduler"
            counts[f"Total{word}JobsRunning"] += 1
            counts[f"Total{word}JobsIdle"] -= 1
            ad.update(counts)
        return chosen

    def start(self, job: JobId, now: int) -> LocalRun:
        """The schedd starts the job (HTCondor's mark_serial_job_running and
        add_shadow_birthdate); a scheduler job's payload begins at once."""
        q = self.queue
        ad = q.jobs[job]
        universe = universe_of(ad)
        extra: dict[str, Any] = {
            "LastSuspensionTime": 0, "OrigMaxHosts": _int(ad, "MaxHosts", 1), "CurrentHosts": 1,
            "ShadowBday": now, "JobCurrentStartDate": now,
        }
        if ad.lookup("JobStartDate") is None:
            extra["JobStartDate"] = now
        previous = ad.lookup("JobCurrentStartDate")
        if previous is not None:
            extra["JobLastStartDate"] = previous
        if universe == Universe.SCHEDULER:
            extra["JobRunCount"] = _int(ad, "JobRunCount") + 1
            extra["NumJobStarts"] = _int(ad, "NumJobStarts") + 1
        else:
            starts = _int(ad, "NumShadowStarts") + 1
            extra["NumShadowStarts"] = starts
            extra["JobRunCount"] = starts
        q.set_status(job, JobStatus.RUNNING, now, extra)
        q.has_shadow.add(job)  # its local starter (or the process itself) is its shadow record
        run = LocalRun(job, universe, Phase.WAITING, float(now))
        self.running[job] = run
        if universe == Universe.SCHEDULER:
            self._begin(run, now)
        return run

    def user_log_error(self, run: LocalRun) -> str | None:
        """Why a local job's user log cannot be opened (``JICLocalSchedd::initLocalUserLog``
        opens it as the local starter starts), or None."""
        if run.universe != Universe.LOCAL:
            return None
        path = user_log_path(self.queue.jobs[run.job])
        if path is None:
            return None
        try:
            EventLogWriter(path).check_open()
        except EventLogError as e:
            return str(e)
        return None

    def user_log_failed(self, job: JobId, now: int) -> Outcome:
        """The local starter could not open the user log: the job is held, "Failed to
        initialize user log", code 22 (UnableToInitUserLog), subcode 0."""
        self.queue.hold(job, "Failed to initialize user log",
                        HoldCode.UNABLE_TO_INIT_USER_LOG, 0, now)
        return self.stopped(job, "hold", now)

    def deferral(self, run: LocalRun, now: int) -> tuple[str, str]:
        """A local job about to begin: ("run" | "wait" | "abort", the starter's message).

        The local starter checks DeferralTime as any starter does (facts 1.3)."""
        decision = deferral_decision(self.queue.jobs[run.job], now, job_str(run.job))
        if decision.action is DeferralAction.WAIT:
            run.wake_at = float(now + decision.delay)
            return "wait", decision.message
        if decision.action is DeferralAction.ABORT:
            return "abort", decision.message
        return "run", decision.message

    def began(self, run: LocalRun, now: int) -> None:
        """A local job's payload starts: NumJobStarts++ and the execute event."""
        q = self.queue
        ad = q.jobs[run.job]
        q.store.change(run.job, {"NumJobStarts": _int(ad, "NumJobStarts") + 1,
                                 "JobCurrentStartExecutingDate": now})
        self._begin(run, now)

    def _begin(self, run: LocalRun, now: int) -> None:
        ad = self.queue.jobs[run.job]
        run.phase = Phase.RUNNING
        run.runtime = payload_runtime(ad, self.default_runtime, now)
        run.clock = PayloadClock(float(now), run.runtime)
        run.wake_at = float(now) + run.runtime
        self.queue.userlogs.execute(ad, now, self.host)

    # -- while it runs -----------------------------------------------------------------------
    def suspend(self, job: JobId, now: int) -> bool:
        run = self.running.get(job)
        if run is None or run.clock is None or not run.clock.suspend(float(now)):
            return False
        q = self.queue
        ad = q.jobs[job]
        q.set_status(job, JobStatus.SUSPENDED, now, {
            "TotalSuspensions": _int(ad, "TotalSuspensions") + 1, "LastSuspensionTime": now})
        q.userlogs.suspended(ad, now)
        run.wake_at = float("inf")
        return True

    def resume(self, job: JobId, now: int) -> bool:
        run = self.running.get(job)
        if run is None or run.clock is None or not run.clock.resume(float(now)):
            return False
        q = self.queue
        ad = q.jobs[job]
        spent = now - _int(ad, "LastSuspensionTime", now)
        q.set_status(job, JobStatus.RUNNING, now, {
            "CumulativeSuspensionTime": _int(ad, "CumulativeSuspensionTime") + spent,
            "LastSuspensionTime": 0})
        q.userlogs.unsuspended(ad, now)
        finish = run.clock.finish_time()
        run.wake_at = finish if finish is not None else float("inf")
        return True

    # -- the end -----------------------------------------------------------------------------
    def exited(self, job: JobId, now: int) -> Outcome:
        """The payload exited: exit attributes, then the job's policy (PERIODIC_THEN_EXIT).
        A change the queue refuses raises ScheddError and leaves the job running here, to
        be tried again (:meth:`exit_failed`)."""
        run = self.running[job]
        if run.exit_at is None:
            run.exit_at = float(now)
        outcome = self._exited(run, int(run.exit_at), now)
        self.running.pop(job, None)
        return outcome

    def exit_failed(self, run: LocalRun, now: int) -> bool:
        """The exit (or the requeue after giving it up) could not be written: try again in
        LOCAL_UNIVERSE_JOB_CLEANUP_RETRY_DELAY; False once the exit has failed more than
        LOCAL_UNIVERSE_MAX_JOB_CLEANUP_RETRIES times (the local starter's EXCEPT in
        ``JICLocalSchedd::retryJobCleanup``): the job is then to be requeued."""
        run.wake_at = float(now + self.cleanup_retry_delay)
        if run.gave_up:
            return True
        run.exit_failures += 1
        if run.exit_failures > self.max_cleanup_retries:
            run.gave_up = True
            return False
        return True

    def requeue(self, job: JobId, now: int) -> Outcome:
        """The local starter gave up on writing the exit (it died of its EXCEPT): the schedd
        requeues the job, as it does when a local starter exits with an exception."""
        q = self.queue
        stop_accounting(q, job, now)
        mark_stopped(q, job, now)
        self.running.pop(job, None)
        update_cron(q, job, now, self.tz, force=True)
        return Outcome(job, "requeued")

    def _exited(self, run: LocalRun, at: int, now: int) -> Outcome:
        q = self.queue
        job = run.job
        ad = q.jobs[job]
        code = payload_exit_code(ad, at)
        changes: dict[str, Any] = {"ExitCode": code, "ExitBySignal": False, "ExitStatus": code}
        if run.universe == Universe.LOCAL:
            changes["ToE"] = ClassAd({"Who": "itself", "How": "OF_ITS_OWN_ACCORD", "HowCode": 0,
                                      "When": at, "ExitBySignal": False, "ExitCode": code})
        q.store.change(job, changes)
        # the local starter reports the payload's usage; for a scheduler job HTCondor's
        # schedd writes zeros (WriteTerminateToUserLog)
        usage = Rusage(usr=int(run.clock.running_seconds(at))) \
            if run.clock and run.universe == Universe.LOCAL else Rusage()
        decision = exit_policy(q.jobs[job], now)
        if decision.action is PolicyAction.REMOVE and (
                decision.attr == "OnExitRemove" or run.universe == Universe.SCHEDULER):
            stop_accounting(q, job, now)
            q.set_status(job, JobStatus.COMPLETED, now)
            q.userlogs.terminated(q.jobs[job], now, return_value=code, usage=usage)
            q.leave(job, now)
            return Outcome(job, "completed", ["JOB_TERMINATED"])
        if decision.action is PolicyAction.STAY:
            q.store.change(job, {"RequeueReason": decision.reason})
            stop_accounting(q, job, now)
            q.userlogs.requeued(q.jobs[job], now, return_value=code, reason=decision.reason,
                                usage=usage)
            mark_stopped(q, job, now)
            update_cron(q, job, now, self.tz, force=True)
            return Outcome(job, "requeued", ["JOB_EVICTED"])
        if decision.action is PolicyAction.REMOVE:  # PeriodicRemove at exit (local)
            stop_accounting(q, job, now)
            q.userlogs.evicted(q.jobs[job], now, usage=usage)
            q.remove(job, decision.reason, now)
            return Outcome(job, "removed", ["JOB_EVICTED", "JOB_ABORTED"])
        stop_accounting(q, job, now)
        if run.universe == Universe.LOCAL:
            q.userlogs.evicted(q.jobs[job], now, usage=usage)
        q.hold(job, decision.reason, decision.code, decision.subcode, now,
               system=decision.attr != "OnExitHold")
        return Outcome(job, "held", ["JOB_HELD"])

    def stopped(self, job: JobId, action: str, now: int) -> Outcome:
        """The job was held, removed or vacated while it ran (the queue already says so for
        a hold or a removal); the payload is killed."""
        q = self.queue
        run = self.running.pop(job)
        usage = Rusage(usr=int(run.clock.running_seconds(now)) if run.clock else 0)
        stop_accounting(q, job, now)
        status = q.status(job)
        if run.universe == Universe.LOCAL and run.phase is Phase.RUNNING:
            q.userlogs.evicted(q.jobs[job], now, usage=usage)
        if status == JobStatus.REMOVED:
            q.leave(job, now)
            return Outcome(job, "removed")
        if status == JobStatus.HELD:
            return Outcome(job, "held")
        mark_stopped(q, job, now)
        return Outcome(job, "requeued")

    def missed_deferral(self, job: JobId, now: int) -> Outcome:
        """A local job that missed its deferral time: evicted, then held with code 20."""
        q = self.queue
        self.running.pop(job)
        stop_accounting(q, job, now)
        q.userlogs.evicted(q.jobs[job], now, usage=Rusage())
        q.hold(job, "Job missed deferred execution time",
               HoldCode.MISSED_DEFERRED_EXECUTION_TIME, 0, now)
        q.cron_cache.discard(job)
        return Outcome(job, "held", ["JOB_EVICTED", "JOB_HELD"])

    def forget(self, jobs: Iterable[JobId]) -> None:
        for job in jobs:
            self.running.pop(job, None)


def start_expressions(get: Any) -> dict[int, str]:
    """START_LOCAL_UNIVERSE and START_SCHEDULER_UNIVERSE from the configuration (``get``
    returns a knob's value or None); refused with the knob's name when unparseable."""
    out: dict[int, str] = {}
    for universe, knob in ((int(Universe.LOCAL), "START_LOCAL_UNIVERSE"),
                           (int(Universe.SCHEDULER), "START_SCHEDULER_UNIVERSE")):
        text = get(knob)
        if text:
            try:
                parse_expr(text)
            except ClassAdError as e:
                raise ValueError(f"{knob} = {text!r} is not a ClassAd expression: {e}") from None
            out[universe] = text
    return out
