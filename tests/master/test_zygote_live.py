"""`condorsim up` starts its daemons from the master's zygote (a fork server): `ps` names
them as before, and a zygote killed under a running pool loses nothing -- the daemons it
forked are still watched, the next start is an exec, the one after that forks again, and
`condorsim down` leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from _pool_cli import collector_pool, run_cli, wait_for

from condorsim.pool import master_pid, process_alive
from condorsim.runtime.zygote import SHARED_ENV

pytestmark = pytest.mark.pool


def _records(home: Path, event: str) -> list[dict[str, object]]:
    log = home / "log" / "MasterLog.json"
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return [r for r in records if r["event"] == event and r.get("daemon") != "master"]


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])


def test_a_killed_zygote_falls_back_to_exec_and_the_pool_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SHARED_ENV, raising=False)  # the pool's master has a zygote of its own
    home = tmp_path / "pool"
    collector_pool(home)
    up = run_cli(home, "up")
    assert up.returncode == 0, up.stderr
    zygotes = []
    try:
        master = master_pid(home)
        assert master is not None
        collector = int(_records(home, "daemon_started")[0]["pid"])  # type: ignore[call-overload]
        zygote = _parent(collector)
        zygotes.append(zygote)
        assert zygote != master
        assert b"condorsim.runtime.zygote" in Path(f"/proc/{zygote}/cmdline").read_bytes()
        # `ps` tells the daemons apart: comm is HTCondor's name, cmdline the exec path's
        assert Path(f"/proc/{collector}/comm").read_text().startswith("condor_collect")
        assert b"daemons.collector" in Path(f"/proc/{collector}/cmdline").read_bytes()

        os.kill(zygote, signal.SIGKILL)
        os.kill(collector, signal.SIGKILL)  # forked by the dead zygote: still watched
        wait_for(lambda: len(_records(home, "daemon_started")) == 2,
                 "the master to restart the collector")
        exited = _records(home, "daemon_exited")
        assert [(r["pid"], r["status"]) for r in exited] == [(collector, -signal.SIGKILL)]
        fallback = _records(home, "daemon_spawn_fallback")
        assert [r["daemon"] for r in fallback] == ["collector"]
        assert "died" in str(fallback[0]["reason"])
        execd = int(_records(home, "daemon_started")[1]["pid"])  # type: ignore[call-overload]
        assert _parent(execd) == master

        os.kill(execd, signal.SIGKILL)
        wait_for(lambda: len(_records(home, "daemon_started")) == 3,
                 "the master to restart the collector again")
        forked = int(_records(home, "daemon_started")[2]["pid"])  # type: ignore[call-overload]
        zygotes.append(_parent(forked))
        assert zygotes[1] not in (master, zygote)  # a new zygote
    finally:
        down = run_cli(home, "down")
    assert down.returncode == 0, down.stderr
    pids = [int(r["pid"]) for r in _records(home, "daemon_started")]  # type: ignore[call-overload]
    assert not any(process_alive(pid) for pid in pids)
    # the zygote goes when its master does
    wait_for(lambda: not any(process_alive(z) for z in zygotes), "the zygote to exit")
