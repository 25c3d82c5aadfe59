"""scenarios/information-flow.toml states the intervals of the job ClassAd flow with the
default knobs (tests/replay/test_scenarios.py replays it as it is). Here it is replayed
with each of those knobs changed: every interval expectation must fail and say which
intervals it found; the kept run's `condorsim trace 1.0` shows the flow from the submit
to the history."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.pool

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "information-flow.toml"
CHANGED = """
[config]
STARTER_UPDATE_INTERVAL = 240
SHADOW_QUEUE_UPDATE_INTERVAL = 600
NEGOTIATOR_INTERVAL = 90
UPDATE_INTERVAL = 240
"""


def _condorsim(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    return subprocess.run([sys.executable, "-m", "condorsim.cli", *args], capture_output=True,
                          text=True, timeout=600, env=env, cwd=ROOT)


def test_changed_knobs_fail_the_interval_expectations_and_the_trace_shows_the_flow(
        tmp_path: Path) -> None:
    changed = tmp_path / "changed.toml"
    changed.write_text(SCENARIO.read_text(encoding="utf-8") + CHANGED, encoding="utf-8")
    done = _condorsim("replay", str(changed), "--keep", str(tmp_path / "run"))
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    expected_found = [
        "expected 11 messages, every 60s; found 7 messages, the first at 0s, then intervals "
        "90s (x6)",
        "expected every 300s; found 3 messages, the first at 0s, then intervals 240s (x2)",
        "expected intervals 8s, 300s; found 3 messages, the first 8s after it, then "
        "intervals 240s (x2)",
        "REGISTER_JOB_INFO starter -> shadow carrying ImageSize, RemoteUserCpu after "
        "BEGIN_EXECUTION: expected 24 messages, every 300s; found 30 messages, the first 8s "
        "after it, then intervals 240s (x29)",
        "STARTER_UPDATE starter -> startd after BEGIN_EXECUTION: expected 24 messages, every "
        "300s; found 30 messages, the first 8s after it, then intervals 240s (x29)",
        "SHADOW_UPDATE shadow -> schedd after SHADOW_START schedd -> shadow: expected 7 "
        "messages, the first 900s after it, every 900s; found 11 messages, the first 600s "
        "after it, then intervals 600s (x10)",
    ]
    for text in expected_found:
        assert any(line.endswith(text) for line in failed), (text, done.stdout)
    # the negotiator's cycle after the submit and the startd's updates while the job runs
    assert sum("QUERY_STARTD_ADS negotiator -> collector after SUBMIT_JOBS" in line
               for line in failed) == 1
    assert sum("UPDATE_STARTD_AD startd -> collector after BEGIN_EXECUTION" in line
               for line in failed) == 1
    # what the knobs do not change still holds
    passed = [line for line in lines if line.startswith("PASS")]
    assert len(passed) == 5 and lines[-1] == "5 passed, 8 failed"

    trace = _condorsim("trace", "1.0", "--run", str(tmp_path / "run"))
    assert trace.returncode == 0, trace.stderr
    rows = [row.split()[2:5] + row.split()[5:6] for row in trace.stdout.splitlines()[1:]]
    assert rows[:4] == [["replay", "->", "schedd", "SUBMIT_JOBS"],
                        ["schedd", "->", "replay", "SUBMIT_RESULT"],
                        ["schedd", "->", "negotiator", "RESCHEDULE"],
                        ["negotiator", "->", "schedd", "NEGOTIATE"]]
    # the end: the startd writes its history as the claim is deactivated, the schedd when
    # it has answered the shadow's final SHADOW_EXIT (the starter's and the shadow's
    # messages of that instant may come in either order)
    assert rows[-1] == ["schedd", "->", "history", "HISTORY"]
    assert rows[-2] == ["schedd", "->", "shadow", "OK"]
    startd_history = rows.index(["startd", "->", "history", "HISTORY"])
    assert rows[startd_history - 1] == ["starter", "->", "startd", "STARTER_EXITED"]
    assert ["shadow", "->", "schedd", "SHADOW_EXIT"] in rows[-6:-2]
