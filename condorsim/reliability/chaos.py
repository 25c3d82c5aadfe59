"""Chaos: daemons SIGKILLed at random simulated moments; every job must end exactly once.

How this works
--------------
:func:`chaos_scenario` builds a scenario from a seed: a few machines, a few submits of
vanilla jobs (some with ``job_lease_duration = 0``), jobs for the job router (routed to a
simulated site) and grid-universe jobs, and kill actions (``do = "kill"``, SIGKILL through
the master) of random daemons at random moments. :func:`run_seed` replays it on virtual
time, keeping its run directory, and counts per job:

* ``JOB_TERMINATED`` events in the user logs, read by HTCondor's own ``htcondor.JobEventLog``
  when its bindings are installed (the test extra), else by :mod:`condorsim.eventlog`;
* records in the schedd's history file.

A job submitted by the scenario with no termination or no history record is *lost*; any job
(a routed copy too) with more than one of either is *doubled*. A slot still Claimed when
the pool is quiet is a *leaked* claim (an ``[[expect]]`` at the end checks every slot).

The scenario runs ``until = "quiet"`` (capped by ``max``): the replay waits, in simulated
time, for a daemon that is dead when it asks (a submit or the "is the queue empty?" check
due while the schedd awaits its restart), and does not count the pool quiet while any
daemon awaits its restart, so the end's checks see every daemon up again
(docs/replay.md). A restarted collector knows no slot until each startd's next update
(UPDATE_INTERVAL, as in HTCondor), so a seed that kills the collector has one more
expectation, :data:`READVERTISED` seconds (its restart and one update interval) after its
last kill, that every slot is advertised again: the run lasts until then, and the check
at the end sees every slot (a failure of that one is a problem, not a leak).
"""

from __future__ import annotations

import random
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorsim.eventlog import read_events

DAEMONS = ("collector", "negotiator", "schedd", "shadow", "startd", "starter",
           "gridmanager")
ROUTER = "job_router"
SITE = "batch slurm"
MAX_HOURS = 6  # the cap on a run: kills end by 40 minutes, the last jobs long before this
# Seconds after the last kill of the collector by which every startd has advertised to it
# again: its restart (at most 9 + 2 ** 4 s for a fifth death) and one UPDATE_INTERVAL
# (300 s): a startd's first update after the restart reaches the new collector (the
# connection that died with the old one is noticed and replaced, as HTCondor's
# DCCollector::sendTCPUpdate does).
READVERTISED = 60 + 300 + 30
READVERTISED_TEXT = "every startd has advertised again to the restarted collector"


@dataclass
class Plan:
    """What a seed's scenario holds, to judge the run against."""

    seed: int
    text: str
    kills: list[tuple[int, str]]  # (seconds after start, daemon)
    slots: int
    logs: dict[str, int]  # each submit's user log and how many jobs it queues


@dataclass
class ChaosResult:
    seed: int
    kills: list[tuple[int, str]]
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    leaked: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # submits a dead schedd did not take
    problems: list[str] = field(default_factory=list)  # failed expectations, notes
    run_dir: Path | None = None

    @property
    def ok(self) -> bool:
        return not (self.lost or self.doubled or self.leaked or self.problems)

    def line(self) -> str:
        kills = ", ".join(f"{d}@{t}s" for t, d in self.kills)
        verdict = "ok" if self.ok else "FAIL"
        text = (f"seed {self.seed:>4}: {verdict:4} lost {len(self.lost)} doubled "
                f"{len(self.doubled)} leaked {len(self.leaked)}  kills: {kills}")
        for what, items in (("lost", self.lost), ("doubled", self.doubled),
                            ("leaked", self.leaked), ("refused", self.refused),
                            ("problem", self.problems)):
            text += "".join(f"\n      {what}: {i}" for i in items)
        return text


def chaos_scenario(seed: int) -> Plan:
    """The scenario of ``seed`` (TOML text) and what it submits and kills."""
    rng = random.Random(seed)
    machines = rng.randint(2, 3)
    slots_each = rng.randint(1, 2)
    routed = rng.random() < 0.5
    grid = rng.random() < 0.5
    out = [
        "[scenario]",
        f'name = "chaos seed {seed}"',
        'description = "daemons killed at random moments; every job ends exactly once"',
        "start = 2026-01-05T09:00:00Z",
        'until = "quiet"',
        f'max = "{MAX_HOURS}h"',
        f"seed = {seed}",
        "",
        "[config]",
        "NEGOTIATOR_INTERVAL = 20",
    ]
    if routed:
        out += ['JOB_ROUTER_ROUTE_NAMES = "Site1"',
                "JOB_ROUTER_ROUTE_Site1 = '''",
                "REQUIREMENTS WantJobRouter is true",
                f'GridResource = "{SITE}"',
                "'''"]
    out += ["", "[[machine]]", 'name = "exec"', f"count = {machines}", f"slots = {slots_each}"]
    if routed or grid:
        out += ["", "[[site]]", f'resource = "{SITE}"', f"slots = {rng.randint(1, 3)}",
                f'start_delay = "{rng.randint(0, 60)}s"']
    kinds = ["vanilla", "vanilla", "nolease"]
    if routed:
        kinds.append("routed")
    if grid:
        kinds.append("grid")
    rng.shuffle(kinds)
    logs: dict[str, int] = {}
    for n, kind in enumerate(kinds, start=1):
        count = rng.randint(1, 3)
        log = f"s{n}.log"
        logs[log] = count
        lines = ["executable = /bin/sleep", f"arguments = {rng.randint(60, 600)}",
                 f"log = {log}"]
        if kind == "nolease":
            lines.append("job_lease_duration = 0")
        elif kind == "routed":
            lines.append("+WantJobRouter = True")
        elif kind == "grid":
            lines = ["universe = grid", f"grid_resource = {SITE}", *lines]
        lines.append(f"queue {count}")
        out += ["", "[[submit]]", f'at = "{rng.randint(0, 600)}s"', 'owner = "alice"',
                "text = '''", *lines, "'''"]
    daemons = [*DAEMONS, ROUTER] if routed else list(DAEMONS)
    kills = sorted((rng.randint(1, 40 * 60), rng.choice(daemons))
                   for _ in range(rng.randint(2, 5)))
    for at, daemon in kills:
        out += ["", "[[action]]", f'at = "{at}s"', 'do = "kill"', f'daemon = "{daemon}"']
    slots = machines * slots_each
    collector_kills = [at for at, daemon in kills if daemon == "collector"]
    if collector_kills:
        # A restarted collector has lost every ad until each startd's next update (every
        # UPDATE_INTERVAL, as HTCondor's): the run goes on until they have all come back,
        # so the check at the end sees every slot.
        at = collector_kills[-1] + READVERTISED
        out += ["", "[[expect]]", f'at = "{at}s"', 'ads = "Machine"', f"count = {slots}",
                f'description = "{READVERTISED_TEXT}"']
    out += ["", "[[expect]]", 'ads = "Machine"', f"count = {slots}",
            "that = 'State == \"Unclaimed\"'",
            'description = "no claim is left when every job is done"']
    return Plan(seed, "\n".join(out) + "\n", kills, slots, logs)


def log_events(path: Path) -> list[tuple[str, tuple[int, int]]]:
    """(event name, job) of every event in the user log at ``path``, as HTCondor's
    ``htcondor.JobEventLog`` reads them (condorsim's reader without the bindings)."""
    if not path.exists():
        return []
    try:
        import htcondor2 as htcondor  # the test extra's bindings
    except ImportError:
        return [(ev.type, (ev.cluster, ev.proc)) for ev in read_events(path)]
    with htcondor.JobEventLog(str(path)) as log:
        return [(event.type.name, (event.cluster, event.proc))
                for event in log.events(stop_after=0)]


def history_records(path: Path) -> Counter[tuple[int, int]]:
    """Records per job in a schedd history file (its ``*** Offset`` banners)."""
    counts: Counter[tuple[int, int]] = Counter()
    if not path.exists():
        return counts
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("*** "):
            words = line.split()
            try:
                cluster = int(words[words.index("ClusterId") + 2])
                proc = int(words[words.index("ProcId") + 2])
            except (ValueError, IndexError):
                continue
            counts[(cluster, proc)] += 1
    return counts


def judge(plan: Plan, run_dir: Path, outcome: Any) -> ChaosResult:
    """Lost, doubled and leaked of one finished replay of ``plan``."""
    result = ChaosResult(plan.seed, plan.kills, run_dir=run_dir)
    ended: Counter[tuple[int, int]] = Counter()
    originals: list[tuple[int, int]] = []
    for log, count in plan.logs.items():
        events = log_events(run_dir / log)
        submitted = sorted({job for name, job in events if name == "SUBMIT"})
        if submitted and len(submitted) != count:
            result.problems.append(f"{log}: {len(submitted)} jobs submitted, not {count}")
        originals += submitted
        ended.update(job for name, job in events if name == "JOB_TERMINATED")
    refused = sum(1 for r in outcome.results if not r.ok and r.entry.startswith("[[submit]]"))
    silent = [log for log in plan.logs if not any(
        name == "SUBMIT" for name, _ in log_events(run_dir / log))]
    if len(silent) > refused:  # a submit that neither queued a job nor was refused
        result.lost += [f"{log}: no job of this submit was queued" for log in silent]
    history = history_records(run_dir / "spool" / "history")
    for job in originals:
        name = f"{job[0]}.{job[1]}"
        if ended[job] == 0 or history[job] == 0:
            result.lost.append(f"{name}: {ended[job]} JOB_TERMINATED, {history[job]} "
                               "history records")
    for job in sorted(set(ended) | set(history)):
        if ended[job] > 1 or history[job] > 1:
            result.doubled.append(f"{job[0]}.{job[1]}: {ended[job]} JOB_TERMINATED, "
                                  f"{history[job]} history records")
    for r in outcome.results:
        if not r.ok:
            if r.entry.startswith("[[submit]]"):
                result.refused.append(f"{r.entry}: {r.line}")
            elif r.entry.startswith("[[expect]]") and r.description != READVERTISED_TEXT:
                result.leaked.append(f"{r.line} (found {r.found})")
            else:
                result.problems.append(f"{r.entry}: {r.line}")
    return result


def run_seed(seed: int, keep: Path | None = None) -> ChaosResult:
    """Replay the scenario of ``seed`` and judge it. ``keep``: the run directory to leave
    behind (else a temporary one, removed unless the seed failed)."""
    from condorsim.replay import replay

    plan = chaos_scenario(seed)
    base = Path(tempfile.mkdtemp(prefix=f"condorsim-chaos-{seed}-"))
    run_dir = keep if keep is not None else base / "run"
    scenario_path = base / f"chaos-{seed}.toml"
    scenario_path.write_text(plan.text, encoding="utf-8")
    outcome = replay(scenario_path, keep=run_dir)
    result = judge(plan, run_dir, outcome)
    if result.ok and keep is None:
        shutil.rmtree(base, ignore_errors=True)
        result.run_dir = None
    return result
