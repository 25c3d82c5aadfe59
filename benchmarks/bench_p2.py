"""Issue 16's P2: a large pool with a deep queue, every daemon a process.

The target: 10,000 slots (500 machines x 20) and 100,000 queued jobs of ten hours, every
slot Running by 30 simulated minutes, under 4 GiB summed over the pool's processes, in at
most 10 minutes of wall time on 2 cores. ``make bench`` runs it at a tenth of that by
default (``BENCH_P2_SCALE``, default 0.1: 1,000 slots and 10,000 jobs, the same ratio of
jobs to slots); ``BENCH_P2_SCALE=1`` is the full size. Printed against those targets: the
wall time to 30 simulated minutes, whether every slot ran a job then, the summed peak
memory, the schedd's peak per job in the queue and the execute side's (startd, collector,
negotiator) per slot, the negotiation cycles' wall time and when every slot was running.

"Every slot Running" is read from the starters' log (a ``job_started`` record per job, at
most 30 simulated minutes in): a scenario expectation would have the replay process fetch
every job ad of the queue (and the replay fetches them all again at its end), 100,000 ads at
full size, which is the harness's memory, not the pool's. ``BENCH_P2_CHECK=1`` checks with
the expectation (and the final job ads) instead.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_scale import GIB, RUNNING_BY, SLOTS_PER_MACHINE, replay_measured
from benchmarks.bench_scale import scenario_text as scale_text
from condorsim.replay.explain import read_log_records
from condorsim.replay.scratch import scratch_dir
from condorsim.scenario import parse_scenario

FULL_MACHINES = 500
FULL_JOBS = 100_000


def scenario_text(machines: int, jobs: int, expect: bool = True) -> str:
    """``machines`` x 20 slots, ``jobs`` ten-hour jobs: every slot Running by 30 minutes
    (``expect``: checked by an expectation)."""
    slots = machines * SLOTS_PER_MACHINE
    text = scale_text(machines, jobs)
    head, _, _ = text.partition("[[expect]]")
    if not expect:
        return head
    return head + f'''[[expect]]
at = "{RUNNING_BY}"
constraint = "JobStatus == 2"
count = {slots}
description = "every slot runs a job"
'''


def cycle_walls(records: list[dict[str, Any]]) -> list[float]:
    """The wall seconds of each negotiation cycle (the negotiator's ``cycle_finished``)."""
    return [float(r["wall_seconds"]) for r in records
            if r.get("event") == "cycle_finished"
            and isinstance(r.get("wall_seconds"), int | float)]


def started(records: list[dict[str, Any]], by: float) -> list[float]:
    """The wall times (epoch) of the starters' ``job_started`` records at simulated time
    ``by`` or before (the bench's jobs outlast the run: one per slot), in order."""
    return sorted(float(r["wall_time"]) for r in records
                  if r.get("event") == "job_started"
                  and isinstance(r.get("wall_time"), int | float)
                  and isinstance(r.get("sim_time"), int | float) and r["sim_time"] <= by)


def all_running_wall(records: list[dict[str, Any]], slots: int, start: float,
                     by: float = float("inf")) -> float | None:
    """Wall seconds from ``start`` (epoch) until the ``slots``-th job started (by simulated
    time ``by``), or None if fewer did."""
    walls = started(records, by)
    return walls[slots - 1] - start if len(walls) >= slots else None


def cycle_lines(cycles: list[float], running: float | None, slots: int) -> list[str]:
    if cycles:
        line = (f"  negotiation cycle wall: longest {max(cycles):.2f} s, median "
                f"{statistics.median(cycles):.2f} s over {len(cycles)} cycles (target at full "
                f"size: <= 5 s)")
    else:
        line = "  negotiation cycle wall: no cycle_finished record with wall_seconds"
    when = (f"  every slot Running after {running:.1f} s wall ({slots:,} jobs started)"
            if running is not None else f"  fewer than {slots:,} jobs started")
    return [line, when]


def _seconds(duration: str) -> float:
    """``"30m"`` -> 1800.0 (the bench's RUNNING_BY)."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return float(duration[:-1]) * units[duration[-1]]


def main() -> list[str]:
    scale = float(os.environ.get("BENCH_P2_SCALE", "0.1"))
    machines = max(1, round(FULL_MACHINES * scale))
    jobs = max(1, round(FULL_JOBS * scale))
    slots = machines * SLOTS_PER_MACHINE
    check = os.environ.get("BENCH_P2_CHECK", "") == "1"
    keep = Path(scratch_dir("bench-p2-"))  # where a replay without --keep runs
    try:
        start = time.time()
        text = scenario_text(machines, jobs, expect=check)
        wall, ok, peaks, why = replay_measured(text, keep=keep, final_job_ads=check)
        records = read_log_records(keep / "log", only=["NegotiatorLog", "StarterLog"])
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    # the scenario's start (bench_scale's) plus RUNNING_BY
    by = parse_scenario(text, source="<bench>", base_dir=Path(tempfile.gettempdir())).start \
        + _seconds(RUNNING_BY)
    running = all_running_wall(records, slots, start, by)
    if not check:
        ok = running is not None
        why = "" if ok else f"{len(started(records, by)):,} of {slots:,} jobs started"
    total = peaks.total_kib()
    by = peaks.by_name()
    # above what a process costs doing nothing much (the interpreter and the imports: the
    # smallest process's peak), so that the per-job and per-slot figures mean something at
    # a small scale too
    base = min(peaks.peaks.values(), default=0)
    execute = sum(max(0, by.get(n, 0) - base) for n in ("startd", "collector", "negotiator"))
    schedd = max(0, by.get("schedd", 0) - base)
    cpu = peaks.cpu_by_name()
    full = "full size" if scale >= 1 else f"scale {scale:g} of the full 10,000 slots, 100,000 jobs"
    return [
        f"P2 ({full}): {slots:,} slots ({machines} machines x {SLOTS_PER_MACHINE}), "
        f"{jobs:,} queued ten-hour jobs, replayed to {RUNNING_BY} simulated",
        f"  wall {wall:.1f} s (target at full size: <= 600 s on 2 cores); every slot Running "
        f"by {RUNNING_BY}: {ok}" + (f" ({why})" if why else "")
        + ("" if check else " (from the starters' job_started records)"),
        *cycle_lines(cycle_walls(records), running, slots),
        f"  peak memory summed over {len(peaks.peaks)} processes: {total / 1024:,.0f} MiB = "
        f"{total / GIB:.2f} GiB (target at full size: < 4 GiB)",
        f"  above a bare process's {base / 1024:,.0f} MiB: schedd {schedd / jobs:,.1f} KiB per "
        f"queued job, startd + collector + negotiator {execute / slots:,.1f} KiB per slot",
        "  by process, MiB: " + ", ".join(
            f"{n} {k / 1024:,.0f}" for n, k in sorted(by.items(), key=lambda kv: -kv[1])),
        "  CPU s by process: " + ", ".join(
            f"{n} {s:.1f}" for n, s in sorted(cpu.items(), key=lambda kv: -kv[1])),
    ]


if __name__ == "__main__":
    print("\n".join(main()))
