"""A virtual-time day of a pool, every daemon a process (issue: matchmaking and execution).

The reference workload: 200 slots (20 machines x 10), 5,000 jobs of 5 to 60 minutes, default
knobs, one simulated day. Printed: simulated seconds per wall second, jobs completed per wall
second, peak memory of the pool's processes, and how wall time grows when jobs and slots
double. ``BENCH_POOL_SCALE`` scales jobs and slots together; the default 0.05 (10 slots, 250 jobs)
keeps `make bench` to minutes, 1.0 is the issue's full workload (about an hour of wall time today).
"""

from __future__ import annotations

import os
import random
import resource
import tempfile
import time
from pathlib import Path

from condorsim.replay.runner import replay
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


def run(machines: int, slots: int, jobs: int) -> tuple[float, float, int, bool]:
    scenario = parse_scenario(scenario_text(machines, slots, jobs), source="<bench>",
                              base_dir=Path(tempfile.gettempdir()))
    t0 = time.perf_counter()
    outcome = replay(scenario)
    wall = time.perf_counter() - t0
    simulated = outcome.final_time - scenario.start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, simulated, peak_kb, outcome.ok


def main() -> list[str]:
    scale = float(os.environ.get("BENCH_POOL_SCALE", "0.05"))
    machines, slots, jobs = max(1, round(20 * scale)), 10, max(1, round(5000 * scale))
    lines = []
    wall, simulated, peak_kb, ok = run(machines, slots, jobs)
    lines.append(
        f"{machines * slots} slots, {jobs} jobs of 5-60 min, one simulated day: "
        f"{wall:.1f} s wall, {simulated / wall:,.0f} simulated s per wall s, "
        f"{jobs / wall:,.1f} jobs completed per wall s, all completed: {ok}"
    )
    lines.append(f"peak memory of the largest daemon process: {peak_kb / 1024:,.0f} MiB")
    wall2, _sim2, peak2, ok2 = run(machines * 2, slots, jobs * 2)
    lines.append(
        f"doubled ({machines * 2 * slots} slots, {jobs * 2} jobs): {wall2:.1f} s wall "
        f"= {wall2 / wall:.2f}x; all completed: {ok2}; peak {peak2 / 1024:,.0f} MiB"
    )
    return lines
