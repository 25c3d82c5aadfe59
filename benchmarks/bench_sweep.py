"""A 16-variant sweep on a LocalCluster against the same variants one after the other
(issue #18: what-if sweeps on Dask).

The variants: three users' 150 jobs of 5 to 30 minutes (submitted 10 minutes apart) on four
machines, with NEGOTIATOR_INTERVAL 20, 60, 120 or 300 s, two or four slots per machine,
seeds 1 and 2 (a replay: a few simulated hours, a few real seconds). One after the other:
each variant's task (:func:`condorsim.sweep.run_variant`: the replay and its figures, no
report) called in this process in turn. On Dask: the same tasks on the default
LocalCluster (one worker process per CPU, one thread each), its start-up counted. The
machine is shared and its load moves, so the two alternate: four rounds of four variants,
each round one after the other, then on the cluster. Both must give the same figures.

Then the machinery alone: 8 variants of a pool on the wall clock (each replay lasts 8 real
seconds and needs little CPU), the same way: what Dask gains when the CPUs are not the
limit (wall-clock runs are not repeatable to the second: their figures are not compared).

Printed for each: the two wall times and the speed-up, with the CPUs, the load average, and
how many CPUs one replay keeps busy by itself (its processes' CPU time over its wall time:
a replay is several processes, so the CPUs it leaves idle bound what running replays side
by side gains). ``BENCH_SWEEP_WORKERS`` sets the LocalCluster's workers (default: one per
CPU).
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from condorsim.sweep import load_sweep, prepare_output, run_variant
from condorsim.sweep.runner import dask_client, default_workers, variant_dir
from condorsim.sweep.task import VariantJob

SWEEP = """
[sweep]
name = "bench: 16 variants"
scenario = "base.toml"
[[axis]]
knob = "NEGOTIATOR_INTERVAL"
values = [20, 60, 120, 300]
[[axis]]
machine = "exec"
field = "slots"
values = [2, 4]
[[axis]]
scenario = "seed"
values = [1, 2]
"""


def base_scenario() -> str:
    """Three users' 50 jobs each, 10 minutes apart, of 5 to 30 minutes, on 4 machines."""
    rng = random.Random(1)
    text = ('[scenario]\nname = "bench: three users, four machines"\n'
            'start = 2026-01-05T09:00:00Z\nmax = "2d"\n'
            '[[machine]]\nname = "exec"\ncount = 4\nslots = 4\n')
    for i, owner in enumerate(("alice", "bob", "carol")):
        runtimes = "\n".join(str(rng.randint(300, 1800)) for _ in range(50))
        text += (f'[[submit]]\nat = "{i * 10}m"\nowner = "{owner}"\ntext = """\n'
                 f"executable = /bin/sleep\n+SimRuntime = $(rt)\nqueue rt from (\n"
                 f'{runtimes}\n)\n"""\n')
    return text


def _cpu_seconds() -> float:
    """CPU time of this process and of every process it waited for (the pools' daemons)."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


ROUND = 4
FIGURES = ("makespan", "wait_mean", "wait_p95", "turnaround_mean", "utilization")


WALL_SWEEP = """
[sweep]
name = "bench: wall-clock variants"
scenario = "wall.toml"
[[axis]]
scenario = "seed"
values = [1, 2, 3, 4, 5, 6, 7, 8]
"""
# a pool on the wall clock: its replay lasts 8 real seconds whatever the CPUs do
WALL = """
[scenario]
name = "bench: a pool on the wall clock"
clock = "wall"
speed = 60
until = "8m"
[[machine]]
[[submit]]
text = "executable = /bin/sleep\\narguments = 120\\nqueue 2\\n"
"""


def alternate(work: Path, sweep_file: str, workers: int) -> dict[str, Any]:
    """Run the sweep's variants one after the other and on a LocalCluster, in alternating
    rounds of ROUND; the times, the CPUs the one-after-the-other replays kept busy, the
    load seen, and whether both gave the same figures."""
    sweep = load_sweep(work / sweep_file)
    base = work / Path(sweep_file).stem
    for name in ("sequential", "dask"):
        prepare_output(base / name, sweep, resume=False)

    def job(name: str, v: Any) -> VariantJob:
        return VariantJob(key=v.key, directory=str(variant_dir(base / name, v)),
                          text=v.text, base_dir=str(sweep.base_dir), slots=v.slots,
                          metrics=sweep.metrics, report=False, settings=dict(v.settings))

    sequential_s = dask_s = cpu = 0.0
    rows: dict[str, dict[str, Any]] = {}
    loads = [os.getloadavg()[0]]
    began = time.perf_counter()
    with dask_client(None, workers) as client:
        client.wait_for_workers(workers)
        startup_s = time.perf_counter() - began
        for first in range(0, len(sweep.variants), ROUND):
            batch = sweep.variants[first:first + ROUND]
            began, cpu_began = time.perf_counter(), _cpu_seconds()
            for v in batch:
                rows[f"sequential {v.key}"] = run_variant(job("sequential", v))
            sequential_s += time.perf_counter() - began
            cpu += _cpu_seconds() - cpu_began
            began = time.perf_counter()
            futures = client.map(run_variant, [job("dask", v) for v in batch], pure=False)
            for v, row in zip(batch, client.gather(futures), strict=True):
                rows[f"dask {v.key}"] = row
            dask_s += time.perf_counter() - began
            loads.append(os.getloadavg()[0])
    same = all(rows[f"sequential {v.key}"][f] == rows[f"dask {v.key}"][f]
               or rows[f"sequential {v.key}"][f] != rows[f"sequential {v.key}"][f]
               for v in sweep.variants for f in FIGURES)
    return {"sequential": sequential_s, "dask": dask_s, "startup": startup_s,
            "busy": cpu / sequential_s, "loads": loads, "same": same,
            "replay": sum(rows[f"sequential {v.key}"]["wall_seconds"]
                          for v in sweep.variants) / len(sweep.variants)}


def main() -> list[str]:
    workers = int(os.environ.get("BENCH_SWEEP_WORKERS", "0")) or default_workers()
    work = Path(tempfile.mkdtemp(prefix="condorsim-bench-sweep-"))
    try:
        (work / "base.toml").write_text(base_scenario())
        (work / "sweep.toml").write_text(SWEEP)
        (work / "wall.toml").write_text(WALL)
        (work / "wall-sweep.toml").write_text(WALL_SWEEP)
        lines = []
        for title, sweep_file in (
                ("16 variants: 150 jobs on 4 machines, NEGOTIATOR_INTERVAL x slots x seed",
                 "sweep.toml"),
                ("the machinery alone: 8 variants of a pool on the wall clock (8 real "
                 "seconds each, whatever the CPUs do)", "wall-sweep.toml")):
            r = alternate(work, sweep_file, workers)
            wall = sweep_file.startswith("wall")
            assert r["same"] or wall, f"{sweep_file}: the figures differ between the runs"
            total = r["dask"] + r["startup"]
            lines += [
                f"{title}; no reports; rounds of {ROUND}, one after the other, then on Dask",
                f"  one after the other:          {r['sequential']:6.1f} s ({r['replay']:.1f} s "
                f"a replay, keeping {r['busy']:.2f} CPUs busy)",
                f"  LocalCluster, {workers} worker{'s' * (workers != 1)}:        {total:6.1f} s "
                f"({r['startup']:.1f} s of it starting the cluster)",
                f"  speed-up:                      {r['sequential'] / total:5.2f}x "
                f"({r['sequential'] / r['dask']:.2f}x once the cluster is up) on "
                f"{os.cpu_count()} CPUs, load average {min(r['loads']):.1f}-"
                f"{max(r['loads']):.1f}" + ("" if wall else "; the same figures both ways"),
            ]
        return lines
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
