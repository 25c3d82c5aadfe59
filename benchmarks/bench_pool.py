"""A virtual-time day of a pool, every daemon a process (issue: matchmaking and execution).

The reference workload: 200 slots (20 machines x 10), 5,000 jobs of 5 to 60 minutes, default
knobs, one simulated day. Printed: simulated seconds per wall second, jobs completed per wall
second, peak memory of the pool's processes (the sum of every process's peak RSS, and the
largest), CPU seconds by process, how many distinct simulated instants carried a message
per simulated hour, the clock coordination's cost (jumps, RUNs to processes, and of those the
HOLDs: a message that reached a frozen process, docs/runtime.md), and how wall time grows
when jobs and slots double.
``BENCH_POOL_SCALE`` scales jobs and slots together; the default 1.0 is the issue's full
workload, run after half of it (100 slots, 2,500 jobs), so the growth on doubling is measured
in the same run (about a quarter of an hour in all); 0.05 (10 slots, 250 jobs) is a quick
look. docs/performance.md has the measured times at each scale.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bench_scale import PeakMemory
from condorsim.replay.runner import replay
from condorsim.replay.scratch import scratch_dir, scratch_parent
from condorsim.scenario import parse_scenario


def scenario_text(machines: int, slots: int, jobs: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    runtimes = "\n".join(str(rng.randint(300, 3600)) for _ in range(jobs))
    return f'''
[scenario]
name = "bench: {machines * slots} slots, {jobs} jobs"
start = 2026-01-05T00:00:00Z
until = "1d"
max = "1d"
seed = {seed}

[[machine]]
name = "exec"
count = {machines}
slots = {slots}
cpus = {slots}
memory = {slots * 2048}

[[submit]]
owner = "alice"
text = """
executable = /bin/sleep
+SimRuntime = $(rt)
request_memory = 1024
queue rt from (
{runtimes}
)
"""

[[expect]]
constraint = "JobStatus == 4"
count = {jobs}
description = "every job completed within the day"
'''


@dataclass
class PoolRun:
    """The figures of one replay."""

    wall: float
    simulated: float
    ok: bool
    instants: int
    messages: int
    peaks: PeakMemory
    coordination: dict[str, int]


def count_instants(trace: Path) -> tuple[int, int]:
    """(distinct simulated instants at which a message was sent, messages) of a trace."""
    times = set()
    messages = 0
    with open(trace, encoding="utf-8") as f:
        for line in f:
            times.add(json.loads(line)["t"])
            messages += 1
    return len(times), messages


def run(machines: int, slots: int, jobs: int) -> PoolRun:
    """Replay the workload of ``machines`` x ``slots`` slots and ``jobs`` jobs."""
    scenario = parse_scenario(scenario_text(machines, slots, jobs), source="<bench>",
                              base_dir=Path(tempfile.gettempdir()))
    keep = Path(scratch_dir("condorsim-bench-pool-"))  # where a replay without --keep runs
    try:
        t0 = time.perf_counter()
        with PeakMemory() as peaks:
            outcome = replay(scenario, keep=keep)
        wall = time.perf_counter() - t0
        instants, messages = count_instants(keep / "trace.jsonl")
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    return PoolRun(wall, outcome.final_time - scenario.start, outcome.ok, instants, messages,
                   peaks, outcome.coordination)


def _describe(r: PoolRun, jobs: int) -> list[str]:
    hours = r.simulated / 3600
    cpu = r.peaks.cpu_by_name()
    largest = max(r.peaks.peaks.values(), default=0)
    return [
        f"{r.wall:.1f} s wall, {r.simulated / r.wall:,.0f} simulated s per wall s, "
        f"{jobs / r.wall:,.1f} jobs completed per wall s, all completed: {r.ok}",
        f"{r.instants:,} simulated instants ({r.instants / hours:,.0f} per simulated hour, "
        f"{r.wall / max(r.instants, 1) * 1000:.1f} ms wall each), {r.messages:,} messages",
        _coordination(r),
        f"peak memory: {r.peaks.total_kib() / 1024:,.0f} MiB summed over "
        f"{len(r.peaks.peaks)} processes, largest {largest / 1024:,.0f} MiB",
        "CPU s by process: " + ", ".join(
            f"{name} {sec:.1f}" for name, sec in sorted(cpu.items(), key=lambda kv: -kv[1])),
    ]


def _coordination(r: PoolRun) -> str:
    """What the virtual clock's coordination cost (docs/runtime.md, "report and freeze")."""
    c = r.coordination
    jumps = max(c.get("jumps", 0), 1)
    return (f"{c.get('jumps', 0):,} jumps of the clock, {c.get('runs', 0):,} RUNs to processes "
            f"({c.get('runs', 0) / jumps:.1f} per jump), of them {c.get('holds', 0):,} for a "
            f"message without a stamp that reached a frozen process (HOLD; "
            f"{c.get('holds', 0) / jumps:.1f} per jump); {c.get('self_thaws', 0):,} times a "
            f"stamped message thawed a frozen process ({c.get('self_thaws', 0) / jumps:.1f} "
            "per jump, no RUN needed)")


def _workload(scale: float) -> tuple[int, int, int]:
    """(machines, slots per machine, jobs) of the reference workload at ``scale``."""
    return max(1, round(20 * scale)), 10, max(1, round(5000 * scale))


def main() -> list[str]:
    scale = float(os.environ.get("BENCH_POOL_SCALE", "1.0"))
    machines, slots, jobs = _workload(scale)
    h_machines, _, h_jobs = _workload(scale / 2)
    half = run(h_machines, slots, h_jobs)
    full = run(machines, slots, jobs)
    what = ("the full bench day" if scale == 1.0 else
            f"scale {scale:g} of the bench day (BENCH_POOL_SCALE=1 is the full one)")
    growth = full.wall / half.wall
    lines = [
        f"P1 ({what}): {machines * slots} slots, {jobs} jobs of 5-60 min, one simulated day: "
        f"{full.simulated / full.wall:,.0f}x real time (target >= 1,440x at full scale: the "
        f"day in <= 60 s wall), all completed: {full.ok}",
        f"growth: doubling jobs and slots ({h_machines * slots} slots, {h_jobs} jobs -> "
        f"{machines * slots}, {jobs}) took {growth:.2f}x the wall time (target <= 2.2x)",
        f"run directories in {scratch_parent()} (a replay's throwaway run directory: "
        "condorsim/replay/scratch.py)",
        "where the time went, the day:",
    ]
    lines += ["  " + line for line in _describe(full, jobs)]
    lines.append(f"  {full.messages / max(jobs, 1):,.1f} messages per job")
    lines.append(f"where the time went, half of it ({h_machines * slots} slots, {h_jobs} jobs):")
    lines += ["  " + line for line in _describe(half, h_jobs)]
    return lines
