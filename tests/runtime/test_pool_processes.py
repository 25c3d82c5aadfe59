"""A real pool of OS processes: `condorsim up`, `status`, a killed daemon, `condorsim down`.

These wait on real processes (there is no simulated time to jump here); every wait is for a
condition with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.pool


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CONDORSIM_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "condorsim.cli", *args], env=env, capture_output=True,
        text=True, timeout=90,
    )


def _started(home: Path) -> list[dict[str, object]]:
    log = home / "log" / "MasterLog"
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return [r for r in records if r["event"] == "daemon_started" and r.get("daemon") != "master"]


def _wait_for(condition, what: str, seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_up_status_restart_after_a_crash_and_down_leaving_nothing(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    home.mkdir()
    (home / "condor_config").write_text(
        f"LOCAL_DIR = {home}\nDAEMON_LIST = MASTER, COLLECTOR\nCOLLECTOR_HOST = 127.0.0.1:0\n"
        # A fast back-off: 0 + ceil(1 ** n) = 1 s before a crashed daemon is restarted.
        "MASTER_BACKOFF_CONSTANT = 0\nMASTER_BACKOFF_FACTOR = 1\n"
    )
    up = _run(home, "up")
    assert up.returncode == 0, up.stderr
    assert "collector" in up.stdout
    try:
        status = _run(home, "status", "-master", "-af", "Name", "DaemonList")
        assert status.returncode == 0, status.stderr
        assert status.stdout.split("\n")[0] == "master@localhost MASTER, COLLECTOR"

        first = _started(home)
        assert [r["daemon"] for r in first] == ["collector"]
        collector_pid = int(first[0]["pid"])  # type: ignore[call-overload]
        # The command line names the daemon, so `ps` shows which is which.
        cmdline = Path(f"/proc/{collector_pid}/cmdline").read_bytes().split(b"\0")
        assert b"daemons.collector" in cmdline

        os.kill(collector_pid, 9)
        _wait_for(lambda: len(_started(home)) == 2, "the master to restart the collector")
        restarted = _started(home)[1]
        assert restarted["pid"] != collector_pid
        # It comes back on the same address, so the rest of the pool still finds it.
        assert restarted["address"] == first[0]["address"]
        assert _run(home, "status", "-any").returncode == 0
    finally:
        down = _run(home, "down")
    assert down.returncode == 0, down.stderr
    pids = [int(r["pid"]) for r in _started(home)]  # type: ignore[call-overload]
    assert not any(_alive(pid) for pid in pids)
    assert _run(home, "status").returncode == 1
    assert _run(home, "down").returncode == 1  # nothing left to stop
