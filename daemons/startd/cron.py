"""One simulated machine's daemon ClassAd hooks: its startd cron jobs and its benchmarks.

How this works
--------------
Every machine a startd process hosts is a startd of its own in HTCondor, so each runs
its own STARTD_CRON jobs and BENCHMARKS (two :class:`~condorsim.daemoncron.CronRunner`),
with ``CONDORSIM_MACHINE=<name>`` added to their environment so that a script can tell
the machines apart. Their output goes to the machine's :class:`~.cronads.NamedAds`, which
every slot ad of the machine merges (``Slot.cron_merge``); a block that asks for it (or
STARTD_CRON_AUTOPUBLISH) makes the startd send the machine's slot ads at the end of the
instant. A job's CONDITION is evaluated in the machine's ad without slot attributes.

Benchmarks are OnDemand jobs (MIPS and KFLOPS by default) that run when a slot of the
machine is Unclaimed and its ``RunBenchmarks`` expression (default ``LastBenchmark == 0``:
once, at the first evaluation) is true; when they are all done the machine's
``LastBenchmark`` is the time. A benchmark whose executable is HTCondor's ``condor_mips``
or ``condor_kflops`` and does not exist here is simulated: it "prints" the machine's
fixed figure (``Mips = 10000``, ``KFlops = 1000000``, the figures the slot ads carry
anyway), so replays stay deterministic. A real executable runs as any cron job.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from condorsim.classad import ClassAd, ClassAdError, EvalContext, ExprTree, parse_expr
from condorsim.daemoncron import (
    BENCHMARKS,
    STARTD_CRON,
    CronJobParams,
    CronRunner,
    OutputBlock,
    read_cron_params,
)
from condorsim.hooks import Lookup, default_timeout
from condorsim.hooks.runner import BusyFactory

from .cronads import AUTOPUBLISH, NamedAds
from .logic import STATIC_ATTRS
from .machines import MachineSpec
from .slot import Slot

SIMULATED_BENCHMARKS = {"condor_mips": "Mips", "condor_kflops": "KFlops"}
RUN_BENCHMARKS_DEFAULT = "LastBenchmark == 0"


def simulated_benchmark(job: CronJobParams, run_dir: Path) -> str | None:
    """The output of a benchmark condorsim stands in for, or None to run the executable."""
    attr = SIMULATED_BENCHMARKS.get(os.path.basename(job.executable))
    path = job.executable if os.path.isabs(job.executable) else str(run_dir / job.executable)
    if attr is None or os.path.exists(path):
        return None
    return f"{attr} = {STATIC_ATTRS[attr]}\n--\n"


class MachineCron:
    """The cron jobs and benchmarks of one machine (see the module doc)."""

    def __init__(self, machine: MachineSpec, slots: list[Slot], common: ClassAd,
                 lookup: Lookup, *, log: Any, run_dir: Path, busy: BusyFactory | None,
                 send_ads: Callable[[list[Slot]], None]) -> None:
        self.machine = machine
        self.slots = slots
        self.common = common
        self.log = log
        self.run_dir = run_dir
        self.send_ads = send_ads
        self.last_benchmark = 0
        self.benchmarking = False
        self.ads = NamedAds()
        self._label = {"machine": machine.name}
        timeout = default_timeout(lookup)
        cron = read_cron_params(lookup, STARTD_CRON)
        bench = read_cron_params(lookup, BENCHMARKS)
        self._autopublish(lookup)
        for job in (*cron.jobs, *bench.jobs):
            self.ads.register(job)
        env = {"CONDORSIM_MACHINE": machine.name}
        self.cron = CronRunner(cron, log=log, run_dir=run_dir, publish=self._publish,
                               timeout=timeout, busy=busy, env=env, condition=self._condition,
                               label=self._label)
        self.bench = CronRunner(bench, log=log, run_dir=run_dir, publish=self._publish_bench,
                                timeout=timeout, busy=busy, env=env,
                                simulate=lambda job: simulated_benchmark(job, run_dir),
                                label=self._label)
        self.bench.on_exit = self._bench_exited
        self.run_benchmarks = self._run_benchmarks_expr(lookup)
        for slot in slots:
            slot.cron_merge = self.ads.merge if self.has_jobs else None
            slot.published["LastBenchmark"] = 0

    @property
    def has_jobs(self) -> bool:
        return bool(self.cron.params.jobs or self.bench.params.jobs)

    def _autopublish(self, lookup: Lookup) -> None:
        value = (lookup("STARTD_CRON_AUTOPUBLISH") or "never").strip().lower()
        if value not in AUTOPUBLISH:
            self.log.warning("bad_knob", knob="STARTD_CRON_AUTOPUBLISH", value=value,
                             using="Never", **self._label)
            value = "never"
        self.ads.autopublish = value

    def _run_benchmarks_expr(self, lookup: Lookup) -> ExprTree:
        text = lookup("RunBenchmarks") or RUN_BENCHMARKS_DEFAULT
        try:
            return parse_expr(text)
        except ClassAdError:  # a bad expression is HTCondor's "false"
            self.log.warning("bad_knob", knob="RunBenchmarks", value=text, using="false",
                             **self._label)
            return parse_expr("false")

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.cron.run)
            nursery.start_soon(self.bench.run)

    def reconfig(self, lookup: Lookup) -> None:
        """A condor_reconfig: new job lists and knobs (RECONFIG_RERUN jobs run again)."""
        self._autopublish(lookup)
        cron = read_cron_params(lookup, STARTD_CRON)
        bench = read_cron_params(lookup, BENCHMARKS)
        for job in (*cron.jobs, *bench.jobs):
            self.ads.register(job)
        for name in self.cron.reconfig(cron) + self.bench.reconfig(bench):
            self.ads.drop_job(name)
        self.run_benchmarks = self._run_benchmarks_expr(lookup)
        for slot in self.slots:
            slot.cron_merge = self.ads.merge if self.has_jobs else None

    # -- output ---------------------------------------------------------------------------

    def _daemon_ad(self) -> ClassAd:
        ad = self.common.copy()
        ad.update(self.machine.extra_attrs)
        ad.update({"MyType": "Machine", "Machine": self.machine.name,
                   "TotalCpus": self.machine.cpus, "TotalMemory": self.machine.memory,
                   "TotalDisk": self.machine.disk, "TotalSlots": self.machine.slots,
                   "LastBenchmark": self.last_benchmark})
        return ad

    def _condition(self, job: CronJobParams) -> bool:
        if self.benchmarking:  # no cron job starts while benchmarks run
            return False
        if job.condition is None:
            return True
        value = job.condition.evaluate(my=self._daemon_ad(), target=None,
                                       ctx=EvalContext(now=int(trio.current_time())))
        if value is not True:
            self.log.info("cron_job_condition_false", job=job.name, value=str(value),
                          **self._label)
        return value is True

    def _publish(self, job: CronJobParams, block: OutputBlock) -> None:
        update = self.ads.publish(job, block)
        self.log.info("cron_ad_published", job=job.name, tag=block.tag, update=update,
                      attrs=sorted(block.ad.keys(), key=str.lower), **self._label)
        for slot in self.slots:
            slot.cron_merge = self.ads.merge
        if update:
            self.send_ads(self.slots)

    def _publish_bench(self, job: CronJobParams, block: OutputBlock) -> None:
        self.ads.publish(job, block, tagged=False)
        self.log.info("benchmark_published", job=job.name,
                      attrs=sorted(block.ad.keys(), key=str.lower), **self._label)
        for slot in self.slots:
            slot.cron_merge = self.ads.merge

    # -- benchmarks -----------------------------------------------------------------------

    def check_benchmarks(self, now: float, slot_ad: Callable[[Slot], ClassAd]) -> None:
        """Start the benchmarks when an Unclaimed slot's RunBenchmarks is true."""
        if self.benchmarking or not self.bench.params.jobs:
            return
        for slot in self.slots:
            if slot.state.value != "Unclaimed" or slot.activity.value != "Idle":
                continue
            value = self.run_benchmarks.evaluate(my=slot_ad(slot), target=None,
                                                 ctx=EvalContext(now=int(now)))
            if value is True:
                self.benchmarking = True
                self.log.info("benchmarks_started", slot=slot.name, **self._label)
                self.bench.demand()
            return

    def _bench_exited(self, name: str) -> None:
        if self.benchmarking and not self.bench.running() and not any(
                j.ready for j in self.bench.schedule.jobs.values()):
            self.benchmarking = False
            self.last_benchmark = int(trio.current_time())
            for slot in self.slots:
                slot.published["LastBenchmark"] = self.last_benchmark
            self.log.info("benchmarks_completed", **self._label)
            self.cron.wake()
