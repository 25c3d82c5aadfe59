"""A real pool of processes: submit, hold, release, remove; kill the schedd; nothing is lost.

Driven through the commands a user types (condorsim up / submit / q / history / hold /
release / rm / down). Waits are for conditions with deadlines on real processes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _pool_cli import run_cli, wait_for

pytestmark = pytest.mark.pool


def _statuses(home: Path) -> dict[str, int]:
    out = run_cli(home, "q", "-allusers", "-af", "ClusterId", "ProcId", "JobStatus")
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()]
    return {f"{c}.{p}": int(s) for c, p, s in rows}


def test_a_killed_schedd_comes_back_with_every_job_and_the_history(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    home.mkdir()
    (home / "condor_config").write_text(
        f"LOCAL_DIR = {home}\nDAEMON_LIST = MASTER, COLLECTOR, SCHEDD\n"
        "COLLECTOR_HOST = 127.0.0.1:0\nMASTER_BACKOFF_CONSTANT = 0\nMASTER_BACKOFF_FACTOR = 1\n"
    )
    sub = tmp_path / "job.sub"
    sub.write_text("executable = /bin/sleep\narguments = 600\nqueue 3\n")
    assert run_cli(home, "up").returncode == 0
    try:
        submitted = run_cli(home, "submit", str(sub))
        assert "3 job(s) submitted to cluster 1." in submitted.stdout, submitted.stderr
        assert run_cli(home, "hold", "1.0").returncode == 0
        assert run_cli(home, "hold", "1.1").returncode == 0
        assert run_cli(home, "release", "1.1").returncode == 0
        assert run_cli(home, "rm", "1.2").returncode == 0
        before = _statuses(home)
        assert before == {"1.0": 5, "1.1": 1}

        log = home / "log" / "MasterLog.json"
        starts = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
        schedd_pid = next(int(r["pid"]) for r in starts
                          if r["event"] == "daemon_started" and r.get("daemon") == "schedd")
        os.kill(schedd_pid, 9)
        wait_for(lambda: _statuses(home) == before, "the restarted schedd to answer")
        history = run_cli(home, "history", "-af", "ClusterId", "ProcId", "JobStatus")
        assert history.stdout.split() == ["1", "2", "3"]
        held = run_cli(home, "q", "-allusers", "-hold")
        assert "via condor_hold" in held.stdout
    finally:
        assert run_cli(home, "down").returncode == 0
