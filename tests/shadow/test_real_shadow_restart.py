"""A real pool of processes: the shadow is SIGKILLed while two jobs run; the master restarts
it, the schedd hears of the new shadow, requeues the lost jobs and releases their claims;
each job completes once and every slot ends Unclaimed.

Replayed on the wall clock (10 simulated seconds a second): on the virtual clock a message a
starter sends to the dead shadow on its old connection is never written off (see the report
in docs/execution.md), so this one runs where no message counting is needed. The shadow is
killed some 80 s into jobs of 3 minutes, 100 s before they would end: the run takes about
35 s (60 s with 5-minute jobs and the kill at 4m, for the same margins)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from condorsim.eventlog import read_events

pytestmark = pytest.mark.pool

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = """
[scenario]
name = "shadow killed while jobs run"
start = 2026-01-05T09:00:00Z
until = "quiet"
max = "1h"
clock = "wall"
speed = 10

[config]
NEGOTIATOR_INTERVAL = 20

[[machine]]
name = "exec"
count = 2

[[submit]]
owner = "bob"
text = '''
executable = /bin/sleep
arguments  = 180
log        = shadow.log
queue 2
'''

[[expect]]
at = "1m50s"
constraint = "ClusterId == 1"
count = 2
that = "JobStatus == 2 && NumShadowStarts == 1"
description = "both jobs run when the shadow is killed"

[[action]]
at = "2m"
do = "kill"
daemon = "shadow"

[[expect]]
constraint = "ClusterId == 1"
count = 2
that = "JobStatus == 4 && NumShadowStarts == 2 && NumJobCompletions == 1"

[[expect]]
ads = "Machine"
count = 2
that = 'State == "Unclaimed"'
"""


def test_jobs_of_a_killed_shadow_process_run_again_and_complete_once(tmp_path: Path) -> None:
    path = tmp_path / "shadow-restart.toml"
    path.write_text(SCENARIO)
    keep = tmp_path / "run"
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    done = subprocess.run([sys.executable, "-m", "condorsim.cli", "replay", str(path),
                           "--keep", str(keep)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "3 passed, 0 failed"
    events = read_events(keep / "shadow.log")
    for proc in (0, 1):
        kinds = [e.type for e in events if e.proc == proc and e.type != "IMAGE_SIZE"]
        assert kinds == ["SUBMIT", "EXECUTE", "EXECUTE", "JOB_TERMINATED"], kinds
