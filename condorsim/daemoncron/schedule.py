"""When each cron job runs (sans-I/O): HTCondor's ``CronJob``/``CronJobMgr`` timing rules.

How this works
--------------
A :class:`CronSchedule` is fed the time and what happened to the jobs (started, could
not start, exited) and answers with :class:`Step` values: start this job, kill that one,
send it SIGHUP. :meth:`CronSchedule.poll` is called at the start, at every timer
(:meth:`next_deadline`) and after every exit; it never reads a clock.

* **Periodic**: run at the start, then every PERIOD from the start (the timer does not
  wait for the job: PERIOD is the time between starts). If the job still runs when its
  timer fires, it is killed when KILL is true, else that run is skipped.
* **WaitForExit**: run at the start; PERIOD after each exit, run again. HTCondor restarts
  at once for PERIOD 0; condorsim waits at least one second (the documented minimum), so
  a job that exits at once cannot hold simulated time at one instant for ever.
* **OneShot**: run once at the start (again after a reconfig with RECONFIG_RERUN).
* **OnDemand**: run only when asked (:meth:`demand`: the startd's benchmarks).

A job runs only while the running jobs' JOB_LOAD plus its own stays within MAX_JOB_LOAD;
otherwise it is *ready* and starts when a running job exits (``CronJobMgr::ShouldStartJob``).
A job that could not be started (a missing executable) counts as failed: a Periodic job is
tried again at its next timer, the others are not restarted, as in HTCondor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .params import CronJobParams, CronMode, CronParams

LOAD_SLACK = 1e-9


@dataclass(frozen=True)
class Step:
    """``action`` ("start", "kill" or "hup") for the job ``name``."""

    action: str
    name: str


@dataclass
class _Job:
    params: CronJobParams
    running: bool = False
    ready: bool = False
    runs: int = 0
    fails: int = 0
    last_start: float = 0.0
    last_exit: float = 0.0
    timer: float = math.inf  # when the job's run timer fires next
    repeat: bool = False  # a Periodic timer fires again every PERIOD

    @property
    def period(self) -> int:
        return self.params.period


class CronSchedule:
    """The run times of one manager's jobs (see the module doc)."""

    def __init__(self, params: CronParams, now: float) -> None:
        self.params = params
        self.jobs: dict[str, _Job] = {}
        for job in params.jobs:
            self.jobs[job.name] = self._new(job, now)

    @staticmethod
    def _new(params: CronJobParams, now: float) -> _Job:
        job = _Job(params)
        if params.mode == CronMode.PERIODIC:
            job.ready, job.timer, job.repeat = True, now + params.period, True
        elif params.mode in (CronMode.WAIT_FOR_EXIT, CronMode.ONE_SHOT):
            job.ready = True
        return job

    def load(self) -> float:
        return sum(j.params.job_load for j in self.jobs.values() if j.running)

    def next_deadline(self) -> float | None:
        times = [j.timer for j in self.jobs.values() if j.timer < math.inf]
        return min(times) if times else None

    def demand(self, names: list[str] | None = None) -> None:
        """Ask for the OnDemand jobs (all, or ``names``) to run now."""
        for job in self.jobs.values():
            if job.params.mode == CronMode.ON_DEMAND and not job.running and (
                    names is None or job.params.name in names):
                job.ready = True

    def poll(self, now: float,
             allowed: Callable[[CronJobParams], bool] | None = None) -> list[Step]:
        """Fire due timers and start the ready jobs the load (and ``allowed``: the job's
        CONDITION) lets run, in job-list order; a job held back stays ready."""
        steps: list[Step] = []
        for job in self.jobs.values():
            if job.timer > now:
                continue
            if job.repeat:
                while job.timer <= now:
                    job.timer += job.period
            else:
                job.timer = math.inf
            if job.running:
                if job.params.kill:
                    steps.append(Step("kill", job.params.name))
                continue
            job.ready = True
        load = self.load()
        for job in self.jobs.values():
            if not job.ready or job.running:
                continue
            if job.params.job_load + load > self.params.max_job_load + LOAD_SLACK:
                continue  # stays ready until a running job exits
            if allowed is not None and not allowed(job.params):
                continue
            job.ready, job.running = False, True
            job.last_start = now
            load += job.params.job_load
            steps.append(Step("start", job.params.name))
        return steps

    def started(self, name: str) -> None:
        """The job's process is running (it counts as a run)."""
        if name in self.jobs:
            self.jobs[name].runs += 1

    def start_failed(self, name: str, now: float) -> None:
        """The job could not be started at all."""
        job = self.jobs.get(name)
        if job is not None:
            job.running = False
            job.fails += 1
            job.last_exit = now

    def exited(self, name: str, now: float) -> None:
        """The job's process is gone (exit, signal or kill)."""
        job = self.jobs.get(name)
        if job is None:
            return
        job.running = False
        job.last_exit = now
        if job.params.mode == CronMode.WAIT_FOR_EXIT:
            job.timer = now + max(1, job.period)

    def reconfig(self, params: CronParams, now: float) -> tuple[list[Step], list[str]]:
        """New configuration: (HUP steps, names of jobs that are gone)."""
        steps: list[Step] = []
        old = self.jobs
        self.params = params
        self.jobs = {}
        for new in params.jobs:
            job = old.get(new.name)
            if job is None or job.params.mode != new.mode:
                self.jobs[new.name] = self._new(new, now)
                continue
            old_period = job.period
            job.params = new
            self.jobs[new.name] = job
            if new.reconfig_rerun and job.runs:
                job.ready = True
            elif job.running and new.reconfig:
                steps.append(Step("hup", new.name))
            elif not job.running and new.mode in (CronMode.PERIODIC, CronMode.WAIT_FOR_EXIT) \
                    and new.period != old_period:
                last = job.last_start if new.mode == CronMode.PERIODIC else job.last_exit
                if last + max(1, new.period) <= now:
                    job.ready = True
                    job.timer = now + new.period if job.repeat else math.inf
                else:
                    job.timer = last + max(1, new.period)
        gone = [name for name in old if name not in self.jobs]
        return steps, gone
