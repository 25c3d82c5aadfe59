"""Every scenario of the library (scenarios/*.toml) replays with every expectation met.

The replays run as `condorsim replay` processes, a few at a time: most of a replay's real
time is its daemons' processes starting."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.pool

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
AT_ONCE = 3


def _replay(path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    return subprocess.run([sys.executable, "-m", "condorsim.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)


@pytest.fixture(scope="module")
def outcomes() -> dict[str, subprocess.CompletedProcess[str]]:
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return dict(zip((p.name for p in SCENARIOS), pool.map(_replay, SCENARIOS),
                        strict=True))


def test_the_library_has_the_tour_and_one_scenario_per_behaviour() -> None:
    assert {p.stem for p in SCENARIOS} >= {
        "tour", "job-lifecycle", "claim-reuse", "hold-release-remove", "periodic-policy",
        "on-exit", "daemon-restart"}


@pytest.mark.parametrize("name", [p.name for p in SCENARIOS])
def test_scenario_replays_with_every_expectation_met(
        name: str, outcomes: dict[str, subprocess.CompletedProcess[str]]) -> None:
    done = outcomes[name]
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.splitlines()[-1]
    assert summary.endswith(" passed, 0 failed") and not summary.startswith("0 passed")
