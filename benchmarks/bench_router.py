"""A routed pool beside the same pool without routing (issue: the job router).

1,000 jobs of 5 to 60 minutes on 10 machines x 10 slots, replayed until every job completed:
once as they are, once with +WantJobRouter and three routes to three simulated grid sites
(30 slots each, MaxIdleJobs 50), so the job router, the gridmanager and the sites join the
pool. Printed for each: wall time, simulated seconds per wall second, messages per job, and
for the routed pool how many jobs ran as routed copies. ``BENCH_ROUTER_SCALE`` scales the jobs
and slots (0.1 is a quick look). Measured in one run, so the ratio holds on a noisy machine.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.bench_pool import count_instants
from condorsim.replay.runner import replay
from condorsim.replay.scratch import scratch_dir
from condorsim.scenario import parse_scenario

ROUTES = '''
[config]
JOB_ROUTER_ROUTE_NAMES = "Site1 Site2 Site3"
JOB_ROUTER_ROUTE_Site1 = """
REQUIREMENTS WantJobRouter is true
GridResource = "batch slurm"
"""
JOB_ROUTER_ROUTE_Site2 = """
REQUIREMENTS WantJobRouter is true
GridResource = "batch pbs"
"""
JOB_ROUTER_ROUTE_Site3 = """
REQUIREMENTS WantJobRouter is true
GridResource = "arc site3.example"
"""

[[site]]
resource = "batch slurm"
slots = {site_slots}

[[site]]
resource = "batch pbs"
slots = {site_slots}

[[site]]
resource = "arc site3.example"
slots = {site_slots}
'''


def scenario_text(machines: int, jobs: int, site_slots: int, routed: bool) -> str:
    rng = random.Random(1)
    runtimes = "\n".join(str(rng.randint(300, 3600)) for _ in range(jobs))
    want = "+WantJobRouter = True" if routed else ""
    return f'''
[scenario]
name = "bench: router, {jobs} jobs, routed {routed}"
start = 2026-01-05T00:00:00Z
max = "2d"
seed = 1
{ROUTES.format(site_slots=site_slots) if routed else ""}
[[machine]]
name = "exec"
count = {machines}
slots = 10
cpus = 10
memory = 20480

[[submit]]
owner = "alice"
text = """
executable = /bin/sleep
+SimRuntime = $(rt)
request_memory = 1024
{want}
queue rt from (
{runtimes}
)
"""

[[expect]]
constraint = "ClusterId == 1 && JobStatus == 4"
count = {jobs}
description = "every job completed"
'''


def run(machines: int, jobs: int, site_slots: int, routed: bool) -> dict[str, float]:
    scenario = parse_scenario(scenario_text(machines, jobs, site_slots, routed),
                              source="<bench>", base_dir=Path(tempfile.gettempdir()))
    keep = Path(scratch_dir("condorsim-bench-router-"))  # where a replay without --keep runs
    try:
        t0 = time.perf_counter()
        outcome = replay(scenario, keep=keep)
        wall = time.perf_counter() - t0
        _, messages = count_instants(keep / "trace.jsonl")
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    completed = outcome.results[0].ok if outcome.results else False
    copies = sum(1 for ad in outcome.job_ads
                 if ad.evaluate("RoutedFromJobId") is not None
                 and isinstance(ad.evaluate("RoutedFromJobId"), str))
    return {"wall": wall, "simulated": outcome.final_time - scenario.start,
            "messages": messages, "completed": float(completed), "copies": copies}


def main() -> list[str]:
    scale = float(os.environ.get("BENCH_ROUTER_SCALE", "1.0"))
    jobs = max(10, round(1000 * scale))
    machines = max(1, round(10 * scale))
    site_slots = max(1, round(30 * scale))
    plain = run(machines, jobs, site_slots, routed=False)
    routed = run(machines, jobs, site_slots, routed=True)

    def line(name: str, r: dict[str, float]) -> str:
        return (f"{name}: {r['wall']:.1f} s wall, {r['simulated'] / r['wall']:,.0f} simulated s "
                f"per wall s, {r['messages'] / jobs:.1f} messages per job, all completed: "
                f"{bool(r['completed'])}")

    return [
        f"{jobs} jobs of 5-60 min, {machines * 10} local slots; routed: 3 routes to 3 sites "
        f"of {site_slots} slots",
        line("without routing", plain),
        line("with routing   ", routed) + f", {int(routed['copies'])} jobs ran as routed copies",
        f"routing costs {routed['wall'] / plain['wall']:.2f}x the wall time and "
        f"{routed['messages'] / max(plain['messages'], 1):.2f}x the messages "
        f"(the routed pool finished in {routed['simulated'] / plain['simulated']:.2f}x the "
        "simulated time: its jobs run as copies at the sites, not in the local slots)",
    ]
