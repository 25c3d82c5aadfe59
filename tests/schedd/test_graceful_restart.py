"""The schedd alone stopped gracefully (SIGTERM) while a job runs, and started again by
the master: the job, with its job lease, keeps running under its shadow and starter, the
new schedd reconnects to it, and it ends once (HTCondor facts §11: a running job with a
job lease is not stopped by the schedd's graceful shutdown).

A real pool on virtual time (``condorsim replay``); the scenario's ``restart`` action is
the master's ``condor_restart -daemon schedd``: SIGTERM to the schedd, then a new one."""

from __future__ import annotations

from pathlib import Path

import htcondor
import pytest

from condorsim.replay.runner import replay
from daemons.schedd.history import read_history

pytestmark = pytest.mark.pool

SCENARIO = """
[scenario]
name = "schedd stopped gracefully"
description = "one slot, one 10-minute job; the schedd alone gets SIGTERM at 3m"
start = 2026-01-05T09:00:00Z
until = "quiet"
max = "2h"

[config]
NEGOTIATOR_INTERVAL = 60

[[machine]]
name = "exec"

[[submit]]
owner = "alice"
text = '''
executable = /bin/sleep
arguments  = 600
log        = graceful.log
queue 1
'''

[[expect]]
at = "2m"
job = "1.0"
that = "JobStatus == 2"
description = "the job runs before the schedd is stopped"

[[action]]
at = "3m"
do = "restart"
daemon = "schedd"

[[expect]]
job = "1.0"
that = "JobStatus == 4 && NumJobCompletions == 1 && NumShadowStarts == 1"
"""


def test_a_gracefully_stopped_schedd_reconnects_its_running_job(tmp_path: Path) -> None:
    path = tmp_path / "graceful.toml"
    path.write_text(SCENARIO)
    run = tmp_path / "run"
    outcome = replay(path, keep=run)
    assert [r.line for r in outcome.results if not r.ok] == []
    sched_log = (run / "log" / "SchedLog").read_text()
    # the schedd was stopped gracefully, not killed, and a new one reconnected
    assert "Got SIGTERM. Performing graceful shutdown." in sched_log
    assert "job_reconnected job=1.0" in sched_log
    kinds = [e.type.name for e in htcondor.JobEventLog(str(run / "graceful.log")).events(0)]
    assert [k for k in kinds if k != "IMAGE_SIZE"] == [
        "SUBMIT", "EXECUTE", "JOB_RECONNECTED", "JOB_TERMINATED"]
    history = read_history(run / "spool" / "history")
    assert len(history) == 1
    ad = history[0]
    assert ad.evaluate("JobLeaseDuration") == 2400  # condor_submit's default lease
    assert [ad.evaluate(a) for a in ("NumJobStarts", "NumShadowStarts", "NumJobReconnects",
                                     "NumJobCompletions")] == [1, 1, 1, 1]
