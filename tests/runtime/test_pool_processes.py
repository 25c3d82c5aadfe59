"""A real pool of OS processes: `condorsim up`, `status`, a killed daemon, `condorsim down`.

These wait on real processes (there is no simulated time to jump here); every wait is for a
condition with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from _pool_cli import collector_pool, run_cli, wait_for

pytestmark = pytest.mark.pool


def _started(home: Path) -> list[dict[str, object]]:
    log = home / "log" / "MasterLog.json"
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return [r for r in records if r["event"] == "daemon_started" and r.get("daemon") != "master"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_up_status_restart_after_a_crash_and_down_leaving_nothing(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    collector_pool(home)  # a fast back-off: 1 s before a crashed daemon is restarted
    up = run_cli(home, "up")
    assert up.returncode == 0, up.stderr
    assert "collector" in up.stdout
    try:
        status = run_cli(home, "status", "-master", "-af", "Name", "DaemonList")
        assert status.returncode == 0, status.stderr
        assert status.stdout.split("\n")[0] == "master@localhost MASTER, COLLECTOR"

        first = _started(home)
        assert [r["daemon"] for r in first] == ["collector"]
        collector_pid = int(first[0]["pid"])  # type: ignore[call-overload]
        # The command line names the daemon, so `ps` shows which is which.
        cmdline = Path(f"/proc/{collector_pid}/cmdline").read_bytes().split(b"\0")
        assert b"daemons.collector" in cmdline
        # On the wall clock a daemon keeps the default scheduling (runtime/sched.py).
        own = [json.loads(line) for line in (home / "log" / "CollectorLog.json").read_text()
               .splitlines() if '"daemon_started"' in line]
        assert own[0]["scheduling"] in ("other", "unknown")

        os.kill(collector_pid, 9)
        wait_for(lambda: len(_started(home)) == 2, "the master to restart the collector")
        restarted = _started(home)[1]
        assert restarted["pid"] != collector_pid
        # It comes back on the same address, so the rest of the pool still finds it.
        assert restarted["address"] == first[0]["address"]
        assert run_cli(home, "status", "-any").returncode == 0
    finally:
        down = run_cli(home, "down")
    assert down.returncode == 0, down.stderr
    pids = [int(r["pid"]) for r in _started(home)]  # type: ignore[call-overload]
    assert not any(_alive(pid) for pid in pids)
    assert run_cli(home, "status").returncode == 1
    assert run_cli(home, "down").returncode == 1  # nothing left to stop


def test_up_says_at_once_which_daemon_cannot_start_and_why(tmp_path: Path) -> None:
    """A daemon that exits before it serves (here the gridmanager, refusing a bad
    SIM_GRID_SITES) makes `up` name it and its reason as soon as the master reports it --
    not a silent wait of 60 s while the master restarts it -- and leaves no process."""
    home = tmp_path / "pool"
    home.mkdir()
    (home / "condor_config").write_text(
        f"LOCAL_DIR = {home}\nDAEMON_LIST = MASTER, COLLECTOR, SCHEDD\n"
        "COLLECTOR_HOST = 127.0.0.1:0\n"
        'SIM_GRID_SITES = [ Resource = "batch"; Slots = "x" ]\n')
    t0 = time.monotonic()
    up = run_cli(home, "up")
    took = time.monotonic() - t0
    assert up.returncode == 1
    assert 'condorsim up: the gridmanager failed to start (exit status 2): gridmanager: ' \
        'SIM_GRID_SITES: site 1 ' \
        '(batch): Slots must be an integer >= 1, found "x"' in up.stderr, up.stderr
    assert "the pool is stopped" in up.stderr
    assert took < 45, f"up took {took:.0f} s to say so"
    pids = [int(r["pid"]) for r in _started(home)]  # type: ignore[call-overload]
    assert pids and not any(_alive(pid) for pid in pids)
    assert run_cli(home, "status").returncode == 1  # nothing answers: no pool is running


def test_up_with_the_job_router_says_when_its_routes_do_not_load(tmp_path: Path) -> None:
    """JOB_ROUTER in DAEMON_LIST starts the router (no hang); a route that does not parse
    is logged in JobRouterLog, as HTCondor's router does, and `up` says so."""
    home = tmp_path / "pool"
    home.mkdir()
    (home / "condor_config").write_text(
        f"LOCAL_DIR = {home}\nDAEMON_LIST = MASTER, COLLECTOR, SCHEDD, JOB_ROUTER\n"
        "COLLECTOR_HOST = 127.0.0.1:0\nJOB_ROUTER_ROUTE_NAMES = Site1\n"
        "JOB_ROUTER_ROUTE_Site1 @=end\n  REQUIREMENTS WantJobRouter is true\n  FROB x\n@end\n")
    up = run_cli(home, "up")
    try:
        assert up.returncode == 0, up.stderr
        assert "job_router" in up.stdout
        error = "JOB_ROUTER_ROUTE_Site1, line 2: FROB is not a valid transform keyword"
        assert f"condorsim up: job_router: {error}\n" in up.stderr
        assert "the router routes nothing" in up.stderr
        assert error in (home / "log" / "JobRouterLog").read_text()
    finally:
        assert run_cli(home, "down").returncode == 0
