"""Stopping a real pool (`condorsim down`, SIGTERM to the master, `down -fast`): every
process gone within 5 s, a running job not lost -- after the next `condorsim up` it runs to
completion, exactly once, as HTCondor's JobEventLog reads its user log.

The pool runs on the wall clock (SIM_SPEED 30); waits are for conditions of real processes
with deadlines, never fixed sleeps.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import htcondor
import pytest
from _pool_cli import run_cli, wait_for

from condorsim.pool import ensure_home, master_pid
from condorsim.tools.waiting import alive, daemon_pids

pytestmark = pytest.mark.pool

LIMIT = 5.0  # seconds the whole pool may take to stop (issue 15)


def _pool(tmp_path: Path) -> Path:
    home = tmp_path / "pool"
    config = ensure_home(home)  # the configuration `condorsim up` writes (real jobs)
    config.write_text(config.read_text() + "SIM_SPEED = 30\n")
    return home


def _processes_under(home: Path) -> list[int]:
    """Processes whose working directory is inside the pool (a job in its scratch dir)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            if cwd.startswith(str(home / "execute")) and alive(int(entry)):
                found.append(int(entry))
    return found


def _everything_gone(home: Path, pids: list[int]) -> bool:
    return not any(alive(p) for p in pids) and not _processes_under(home)


def _timed_stop(home: Path, stop: str) -> float:
    pids = [master_pid(home) or 0, *daemon_pids(home).values()]
    start = time.monotonic()
    if stop == "sigterm":
        os.kill(pids[0], signal.SIGTERM)
        wait_for(lambda: _everything_gone(home, pids), "the pool to stop", 30)
    else:
        down = run_cli(home, *stop.split())
        assert down.returncode == 0, down.stderr
        assert _everything_gone(home, pids)
    return time.monotonic() - start


def _running(home: Path) -> bool:
    return run_cli(home, "q", "-allusers", "-af", "JobStatus").stdout.split() == ["2"]


@pytest.mark.parametrize("stop", ["down", "down -fast", "sigterm"])
def test_a_pool_with_a_running_job_stops_within_5s_and_the_job_completes_once_after_up(
    tmp_path: Path, stop: str
) -> None:
    home = _pool(tmp_path)
    sub = tmp_path / "job.sub"
    log = tmp_path / "job.log"
    # The job runs until the pool has been stopped once (the file `go`), so it is surely
    # running when the pool stops, however long `condorsim q` takes to see it: a job of a few
    # seconds could end before a tool started on a busy machine had looked, and never be seen
    # running again.
    go = tmp_path / "go"
    job = tmp_path / "job.sh"
    job.write_text(f"#!/bin/sh\nwhile [ ! -e '{go}' ]; do sleep 0.1; done\n")
    job.chmod(0o755)
    sub.write_text(f"executable = {job}\njob_lease_duration = 2400\nlog = {log}\nqueue\n")
    assert run_cli(home, "up").returncode == 0
    try:
        assert "1 job(s) submitted" in run_cli(home, "submit", str(sub)).stdout
        # the job's process first (a look at /proc), then the queue (a `condorsim q`)
        wait_for(lambda: bool(_processes_under(home)) and _running(home), "the job to run", 60)
        took = _timed_stop(home, stop)
        assert took < LIMIT, f"`{stop}` took {took:.1f} s"
        assert master_pid(home) is None

        go.touch()  # the job, run again, ends at once
        assert run_cli(home, "up").returncode == 0
        waited = run_cli(home, "wait", "-wait", "60", str(log))
        assert waited.stdout.endswith("All jobs done.\n"), (waited.stdout, waited.stderr)
    finally:
        if master_pid(home) is not None:
            run_cli(home, "down")
    kinds = [e.type for e in htcondor.JobEventLog(str(log)).events(0)]
    assert kinds.count(htcondor.JobEventType.JOB_TERMINATED) == 1, kinds
    assert kinds.count(htcondor.JobEventType.SUBMIT) == 1, kinds
    history = run_cli(home, "history", "-af", "ClusterId", "ProcId", "JobStatus")
    assert history.stdout.split() == ["1", "0", "4"]


def test_an_idle_pool_stops_within_5s(tmp_path: Path) -> None:
    home = _pool(tmp_path)
    assert run_cli(home, "up").returncode == 0
    took = _timed_stop(home, "down")
    assert took < LIMIT, f"`condorsim down` took {took:.1f} s"
    assert run_cli(home, "down").returncode == 1  # nothing left to stop
