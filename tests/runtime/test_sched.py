"""The pool's processes on virtual time run as batch ones (runtime/sched.py): every daemon
says so as it starts, the replay's own thread has its policy back when the pool is over,
and a platform without the policy (or a kernel that refuses it) changes nothing."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from condorsim.replay import replay
from condorsim.runtime import sched

SCENARIO = '''
[scenario]
name = "three daemons"
start = 2026-01-01T00:00:00Z
until = "2m"

[config]
DAEMON_LIST = "MASTER, COLLECTOR, SCHEDD"
'''

def _batch_allowed() -> bool:
    """Whether this kernel lets a thread choose SCHED_BATCH (asked in a thread of its own)."""
    if not hasattr(os, "SCHED_BATCH"):
        return False
    got: list[int | None] = []
    t = threading.Thread(target=lambda: got.append(sched.set_batch()))
    t.start()
    t.join()
    return got[0] is not None


linux = pytest.mark.skipif(not _batch_allowed(),
                           reason="SCHED_BATCH is Linux's and may be refused (a seccomp "
                                  "filter); then nothing is set, as the last tests show")


def _started(log_dir: Path) -> dict[str, dict[str, object]]:
    """The ``daemon_started`` record each daemon wrote of itself, by daemon."""
    found = {}
    for path in log_dir.glob("*Log.json"):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r.get("event") == "daemon_started" and "scheduling" in r:
                found[str(r["daemon"])] = r
    return found


@linux
@pytest.mark.pool
def test_daemons_on_virtual_time_are_batch_and_the_replay_gets_its_policy_back(
        tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO)
    before = os.sched_getscheduler(0)
    outcome = replay(tmp_path / "s.toml", keep=tmp_path / "run")
    assert outcome.exit_code == 0
    started = _started(tmp_path / "run" / "log")
    assert {"collector", "schedd", "shadow"} <= set(started)  # the schedd's shadow too
    assert {r["scheduling"] for r in started.values()} == {"batch"}
    assert os.sched_getscheduler(0) == before  # pytest's thread is as it was


@linux
def test_set_batch_then_restore_in_a_thread_of_its_own() -> None:
    before = (os.sched_getscheduler(0), sched.policy_name())  # whatever pytest runs under
    seen: list[object] = []

    def body() -> None:
        previous = sched.set_batch()
        seen.append((previous, sched.policy_name()))
        sched.restore(previous)
        seen.append((os.sched_getscheduler(0), sched.policy_name()))

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == [(before[0], "batch"), before]


@linux
def test_a_zygote_started_from_a_batch_thread_takes_the_process_policy_back(
        tmp_path: Path) -> None:
    """A virtual-time pool's master may start the zygote from the coordinator's batch
    thread; the zygote outlives that pool and forks a later wall-clock pool's daemons."""
    from condorsim.runtime.zygote import Zygote

    if sched.ORIGINAL == os.SCHED_BATCH:
        pytest.skip("pytest itself runs as a batch process: nothing to tell apart")
    started: list[Zygote] = []

    def start() -> None:
        previous = sched.set_batch()
        try:
            started.append(Zygote(sys.executable, dict(os.environ), str(tmp_path), []))
        finally:
            sched.restore(previous)

    t = threading.Thread(target=start)
    t.start()
    t.join()
    zygote = started[0]
    try:
        assert zygote.process is not None
        pid = zygote.process.pid
        deadline = time.monotonic() + 30  # a condition polled, with a deadline
        while os.sched_getscheduler(pid) != sched.ORIGINAL and time.monotonic() < deadline:
            time.sleep(0.01)
        assert os.sched_getscheduler(pid) == sched.ORIGINAL != os.SCHED_BATCH
    finally:
        zygote.close()


def test_nothing_is_done_where_the_platform_has_no_batch_policy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "SCHED_BATCH", raising=False)
    assert sched.set_batch() is None
    sched.restore(None)  # nothing to give back


def test_a_refusal_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setscheduler", refuse, raising=False)
    monkeypatch.setattr(os, "sched_getscheduler", lambda _pid: 0, raising=False)
    monkeypatch.setattr(os, "SCHED_BATCH", 3, raising=False)
    assert sched.set_batch() is None
    sched.restore(0)  # refused again: still no error


def test_policy_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_getscheduler", raising=False)
    assert sched.policy_name() == "unknown"
