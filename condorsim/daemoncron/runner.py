"""Running one daemon's cron jobs: the thin trio driver of a :class:`.CronSchedule`.

How this works
--------------
A :class:`CronRunner` owns a schedule and a task that sleeps until the schedule's next
timer (or a wake-up: an exit, an on-demand request, a reconfig), then carries out the
steps. A job runs through :func:`condorsim.hooks.run_hook` (so it takes no simulated
time) as HTCondor starts it: ``<executable> <JobName> <ARGS...>``, stdin ``/dev/null``, the
daemon's environment plus ``<MGR>_INTERFACE_VERSION=1``, ``<SUBSYS>_CRON_NAME=<MGR>``, the
daemon's extra variables and the job's ENV, in CWD (by default, and for relative paths, the
run directory; HTCondor's daemons run it where they run). When it is gone its output is read (:mod:`.output`) and every block is handed
to ``publish`` -- whatever the exit status (HTCondor publishes the output of a job that
failed too). A job that exits non-zero, or dies of a signal, is logged with its stdout and
stderr when ``<MGR>_CRON_LOG_NON_ZERO_EXIT`` is true (``cron_job_failed``); a signal or a
timeout is always logged.

``simulate`` lets the daemon stand in for a job (the startd's benchmarks): when it returns
text for a job, that text is the job's output and nothing is run.
"""

from __future__ import annotations

import math
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from condorsim.hooks import HookCall, HookResult, run_hook
from condorsim.hooks.runner import BusyFactory

from .output import OutputBlock, read_output
from .params import CronJobParams, CronParams
from .schedule import CronSchedule, Step

Publish = Callable[[CronJobParams, OutputBlock], None]
"""Called with each block a job produced, in order, at the instant the job exited."""


class CronRunner:
    """Runs one manager's jobs (see the module doc)."""

    def __init__(self, params: CronParams, *, log: Any, run_dir: Path, publish: Publish,
                 timeout: float, busy: BusyFactory | None = None,
                 env: Mapping[str, str] | None = None,
                 condition: Callable[[CronJobParams], bool] | None = None,
                 simulate: Callable[[CronJobParams], str | None] | None = None,
                 label: Mapping[str, Any] | None = None) -> None:
        self.schedule = CronSchedule(params, trio.current_time())
        self.log = log
        self.run_dir = run_dir
        self.publish = publish
        self.timeout = timeout
        self.busy = busy
        self.env = dict(env or {})
        self.condition = condition
        self.simulate = simulate
        self.label = dict(label or {})
        self.on_exit: Callable[[str], None] | None = None
        self._wake = trio.Event()
        self._scopes: dict[str, trio.CancelScope] = {}
        self._pids: dict[str, int] = {}
        self._nursery: trio.Nursery | None = None
        for problem in params.problems:
            log.warning("cron_job_skipped", manager=params.kind.base, error=problem,
                        **self.label)

    @property
    def params(self) -> CronParams:
        return self.schedule.params

    def wake(self) -> None:
        self._wake.set()

    def demand(self, names: list[str] | None = None) -> None:
        """Run the OnDemand jobs (all, or ``names``) now."""
        self.schedule.demand(names)
        self.wake()

    def running(self) -> int:
        return sum(1 for j in self.schedule.jobs.values() if j.running)

    def reconfig(self, params: CronParams) -> list[str]:
        """Take a new configuration; returns the names of the jobs that are gone."""
        for problem in params.problems:
            self.log.warning("cron_job_skipped", manager=params.kind.base, error=problem,
                             **self.label)
        steps, gone = self.schedule.reconfig(params, trio.current_time())
        for name in gone:
            scope = self._scopes.get(name)
            if scope is not None:
                scope.cancel()
        self._carry_out(steps)
        self.wake()
        return gone

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            while True:
                now = trio.current_time()
                self._carry_out(self.schedule.poll(now, self.condition))
                deadline = self.schedule.next_deadline()
                with trio.move_on_at(deadline if deadline is not None else math.inf):
                    await self._wake.wait()
                self._wake = trio.Event()

    def _carry_out(self, steps: list[Step]) -> None:
        for step in steps:
            if step.action == "start":
                assert self._nursery is not None
                self._nursery.start_soon(self._run_job, step.name)
            elif step.action == "kill":
                self.log.info("cron_job_killed", job=step.name, why="still running at its "
                              "next period (KILL)", **self.label)
                scope = self._scopes.get(step.name)
                if scope is not None:
                    scope.cancel()
            elif step.action == "hup" and step.name in self._pids:
                try:
                    os.kill(self._pids[step.name], signal.SIGHUP)
                except ProcessLookupError:
                    pass

    def _call(self, job: CronJobParams) -> HookCall:
        kind = self.params.kind
        env = {f"{kind.env_name}_INTERFACE_VERSION": "1",
               f"{kind.subsystem}_CRON_NAME": kind.env_name, **self.env, **job.env}
        path = job.executable
        if not os.path.isabs(path):
            path = str(self.run_dir / path)
        cwd = job.cwd or "."
        if not os.path.isabs(cwd):
            cwd = str(self.run_dir / cwd)
        return HookCall(name=f"{kind.base}_{job.name}", path=path,
                        args=(job.name, *job.args), env=env, cwd=cwd, timeout=self.timeout)

    async def _run_job(self, name: str) -> None:
        job = self.schedule.jobs[name].params
        text = self.simulate(job) if self.simulate is not None else None
        if text is not None:
            self.schedule.started(name)
            self.log.info("cron_job_simulated", job=name, **self.label)
            self._finish(job, text)
            return
        call = self._call(job)
        result: HookResult | None = None
        with trio.CancelScope() as scope:
            self._scopes[name] = scope
            result = await run_hook(call, self.busy,
                                    on_start=lambda pid: self._pids.__setitem__(name, pid))
        self._scopes.pop(name, None)
        self._pids.pop(name, None)
        now = trio.current_time()
        if result is None:  # killed (KILL at the next period, or the job left the list)
            self.schedule.started(name)
            self.schedule.exited(name, now)
            self._exited(name)
            return
        if result.error is not None:
            self.log.warning("cron_job_not_started", job=name, path=call.path,
                             error=result.error, **self.label)
            self.schedule.start_failed(name, now)
            self._exited(name)
            return
        self.schedule.started(name)
        self._report(job, result)
        self._finish(job, result.stdout)

    def _report(self, job: CronJobParams, result: HookResult) -> None:
        fields = {"job": job.name, "path": result.call.path, "status": result.status_text(),
                  **self.label}
        if result.timed_out:
            self.log.warning("cron_job_timed_out", timeout=result.call.timeout, **fields)
        failed = result.signal is not None or (
            result.exit_code != 0 and self.params.log_non_zero_exit)
        if failed:
            self.log.warning("cron_job_failed", stdout=result.stdout[:4000],
                             stderr=result.stderr[:4000], **fields)
        else:
            self.log.info("cron_job_exited", **fields)

    def _finish(self, job: CronJobParams, text: str) -> None:
        now = trio.current_time()
        for block in read_output(text, job.prefix, int(now)):
            for line in block.bad_lines:
                self.log.warning("cron_output_bad_line", job=job.name, line=line[:500],
                                 **self.label)
            if len(block.ad):
                self.publish(job, block)
        self.schedule.exited(job.name, now)
        self._exited(job.name)

    def _exited(self, name: str) -> None:
        if self.on_exit is not None:
            self.on_exit(name)
        self.wake()
