"""Every scenario of the library (scenarios/*.toml) replays with every expectation met, and
replays the same way twice.

The replays run as `condorsim replay` processes, a few at a time: most of a replay's real
time is its daemons' processes starting. Each scenario is replayed twice, each time kept in its
own run directory, and the two runs must give every job the same user-log events at the same
simulated times (the determinism the scenario format promises for a scenario and its seed)."""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from _library_runs import LibraryRuns

from condorsim.eventlog import read_events
from condorsim.runtime.trace import read_trace

pytestmark = pytest.mark.pool

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "scenarios"
# The library, and the annotated examples of the format (scenarios/examples/).
SCENARIOS = sorted(LIBRARY.glob("*.toml")) + sorted((LIBRARY / "examples").glob("*.toml"))
NAMES = [p.relative_to(LIBRARY).as_posix() for p in SCENARIOS]
AT_ONCE = 3
RUNS = ("first", "second")

JobEvents = dict[str, list[tuple[str, str, float]]]


def job_events(run_dir: Path) -> JobEvents:
    """Every job's user-log events (log file, event type, time) in a kept run directory."""
    events: JobEvents = {}
    for log in sorted(run_dir.rglob("*.log")):
        if log.parent == run_dir / "log":
            continue  # daemon logs, not user logs
        for event in read_events(log):
            events.setdefault(f"{event.cluster}.{event.proc}", []).append(
                (str(log.relative_to(run_dir)), event.type, event.timestamp))
    return events


def job_messages(run_dir: Path) -> Counter[tuple[object, ...]]:
    """The messages about jobs in a kept run's trace: (time, from, to, command, job).

    A run whose jobs no daemon sends a message about (local and scheduler universe jobs,
    which the schedd runs itself) is compared by all its daemons' messages instead."""
    records = read_trace(run_dir / "trace.jsonl")
    about_jobs = Counter((r["t"], r["from"], r["to"], r["cmd"], r["job"])
                         for r in records if r["job"] is not None)
    return about_jobs or Counter((r["t"], r["from"], r["to"], r["cmd"], None)
                                 for r in records if not str(r["cmd"]).startswith("SIM_"))


@pytest.fixture(scope="module")
def outcomes(library_runs: LibraryRuns) -> dict[tuple[str, str],
                                                 subprocess.CompletedProcess[str]]:
    """Every scenario replayed twice (tests/conftest.py's library_runs: a run another test
    already asked for is not replayed again)."""
    keys = [(name, run) for name in NAMES for run in RUNS]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        done = pool.map(lambda key: library_runs(*key), keys)
        return dict(zip(keys, done, strict=True))


def test_the_library_has_the_tour_and_one_scenario_per_behaviour() -> None:
    assert {p.stem for p in SCENARIOS} >= {
        "tour", "job-lifecycle", "claim-reuse", "hold-release-remove", "periodic-policy",
        "on-exit", "daemon-restart", "information-flow"}


@pytest.mark.parametrize("name", NAMES)
def test_scenario_replays_with_every_expectation_met(
        name: str, outcomes: dict[tuple[str, str], subprocess.CompletedProcess[str]]) -> None:
    for run in RUNS:
        done = outcomes[name, run]
        assert done.returncode == 0, done.stdout + done.stderr
        summary = done.stdout.splitlines()[-1]
        assert summary.endswith(" passed, 0 failed") and not summary.startswith("0 passed")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("what", [job_events, job_messages], ids=["events", "messages"])
def test_scenario_replays_twice_the_same_way(
        name: str, what: Callable[[Path], Mapping[Any, Any]], library_runs: LibraryRuns,
        outcomes: dict[tuple[str, str], subprocess.CompletedProcess[str]]) -> None:
    assert all(outcomes[name, run].returncode == 0 for run in RUNS)
    first, second = (what(library_runs.run_dir(name, run)) for run in RUNS)
    assert first, f"nothing to compare: the run has no job {what.__name__}"
    assert first == second
