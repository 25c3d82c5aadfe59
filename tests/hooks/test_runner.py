"""The hook runner: arguments, stdin, environment, exit status, timeouts, and virtual time."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import trio
import trio.testing

from condorsim.hooks import HookCall, HookLane, log_hook_result, run_hook
from condorsim.hooks.runner import OUTPUT_CAP
from condorsim.runtime.clock import VirtualClock
from condorsim.runtime.participant import Participant


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def _gone(pid: int, seconds: float = 5.0) -> bool:
    """Whether the process ends (or is a zombie nobody reaps) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_the_hook_gets_its_arguments_stdin_environment_and_directory(tmp_path: Path) -> None:
    hook = _script(tmp_path, "h.sh", 'echo "$#:$1:$2"; cat; echo "$MY_VAR"; pwd; '
                                     'echo oops >&2; exit 3\n')
    work = tmp_path / "work"
    work.mkdir()
    result = trio.run(run_hook, HookCall("X_HOOK_FETCH_WORK", hook, ("accept", "two words"),
                                         "A = 1\n", {"MY_VAR": "v"}, str(work)))
    assert result.stdout == f"2:accept:two words\nA = 1\nv\n{work}\n"
    assert result.stderr == "oops\n"
    assert (result.exit_code, result.signal, result.timed_out) == (3, None, False)
    assert result.status_text() == "exited with status 3" and result.status() == 3
    assert not result.succeeded


def test_empty_stdin_is_dev_null_and_the_daemon_environment_is_inherited(tmp_path: Path) -> None:
    hook = _script(tmp_path, "h.sh", 'cat; echo "[$HOOK_TEST_INHERITED]"\n')
    os.environ["HOOK_TEST_INHERITED"] = "yes"
    try:
        result = trio.run(run_hook, HookCall("X", hook))
    finally:
        del os.environ["HOOK_TEST_INHERITED"]
    assert result.stdout == "[yes]\n" and result.succeeded


def test_a_hook_that_hangs_is_killed_with_everything_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    hook = _script(tmp_path, "h.sh", f'sleep 300 & echo $! > {marker}; sleep 300\n')
    began = time.monotonic()
    result = trio.run(run_hook, HookCall("X", hook, timeout=0.5))
    assert time.monotonic() - began < 10
    assert result.timed_out and result.signal == 9
    assert result.status_text() == "died with signal 9" and result.status() == -9
    assert _gone(int(marker.read_text())), "the hook's child outlived the kill"


def test_what_a_hook_leaves_running_when_it_exits_is_killed(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    hook = _script(tmp_path, "h.sh", f'sleep 300 > /dev/null 2>&1 & echo $! > {marker}; '
                                     'echo done\n')
    result = trio.run(run_hook, HookCall("X", hook, timeout=20))
    assert result.stdout == "done\n" and result.succeeded
    assert _gone(int(marker.read_text())), "the hook's leftover process is still running"


def test_a_missing_or_unrunnable_hook_is_an_error_not_a_crash(tmp_path: Path) -> None:
    missing = trio.run(run_hook, HookCall("X", str(tmp_path / "nope")))
    assert missing.error and "No such file" in missing.error and not missing.started
    text = tmp_path / "text.txt"
    text.write_text("not a program\n")
    text.chmod(stat.S_IRUSR | stat.S_IWUSR)
    refused = trio.run(run_hook, HookCall("X", str(text)))
    assert refused.error and "ermission" in refused.error


def test_huge_output_is_capped_and_unread_stdin_does_not_break_the_run(tmp_path: Path) -> None:
    big = _script(tmp_path, "big.sh", "head -c 3000000 /dev/zero | tr '\\0' x\n")
    result = trio.run(run_hook, HookCall("X", big))
    assert len(result.stdout) == OUTPUT_CAP and result.truncated and result.succeeded
    deaf = _script(tmp_path, "deaf.sh", "exit 0\n")
    result = trio.run(run_hook, HookCall("X", deaf, stdin="A = 1\n" * 200_000))
    assert result.succeeded


def test_a_hook_takes_no_virtual_time_and_keeps_the_process_busy(tmp_path: Path) -> None:
    hook = _script(tmp_path, "slow.sh", "sleep 0.5; echo ready\n")
    order: list[str] = []

    async def main() -> None:
        participant = Participant(clock)
        start = trio.current_time()

        async def hook_task() -> None:
            result = await run_hook(HookCall("X", hook), participant.busy)
            order.append(f"hook {result.stdout.strip()}")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(hook_task)
            await trio.testing.wait_all_tasks_blocked()
            await participant.wait_idle()  # returns only once the hook is over
            order.append("idle")
        assert trio.current_time() == start

    clock = VirtualClock(1_000_000.0)
    trio.run(main, clock=clock)
    assert order == ["hook ready", "idle"]


def test_every_outcome_has_one_log_line(tmp_path: Path) -> None:
    records: list[tuple[str, str, dict[str, object]]] = []

    class Log:
        def __getattr__(self, level: str) -> object:
            return lambda event, **f: records.append((level, event, f))

    ok = _script(tmp_path, "ok.sh", "exit 0\n")
    bad = _script(tmp_path, "bad.sh", "echo why >&2; exit 2\n")
    hang = _script(tmp_path, "hang.sh", "sleep 30\n")
    for call in (HookCall("OK", ok), HookCall("BAD", bad), HookCall("HANG", hang, timeout=0.3),
                 HookCall("GONE", str(tmp_path / "gone"))):
        log_hook_result(Log(), trio.run(run_hook, call), slot="slot1@x")
    assert [(lvl, ev) for lvl, ev, _ in records] == [
        ("info", "hook_exited"), ("warning", "hook_failed"), ("warning", "hook_timed_out"),
        ("warning", "hook_not_started")]
    assert records[1][2]["stderr"] == "why" and records[1][2]["status"] == "exited with status 2"
    assert all(f["slot"] == "slot1@x" for _, _, f in records)


def test_an_advisory_hook_holds_no_time_up_but_a_waited_for_one_behind_it_does(
        tmp_path: Path) -> None:
    """HookLane.submit (REPLY_FETCH, EVICT_CLAIM, UPDATE_JOB_INFO): the process is not busy
    while it runs, so simulated time may go on. HookLane.run (FETCH_WORK, ...): busy from the
    moment it is asked for, even while it waits for its turn behind the advisory hook."""
    advisory = _script(tmp_path, "advisory.sh", "sleep 1; echo advised\n")
    waited = _script(tmp_path, "waited.sh", "echo answered\n")
    order: list[str] = []

    records: list[tuple[str, dict[str, object]]] = []

    class Log:
        def __getattr__(self, level: str) -> object:
            return lambda event, **f: records.append((event, f))

    async def main() -> None:
        participant = Participant(clock)
        lane = HookLane(Log(), participant.busy)
        start = trio.current_time()

        async def ask() -> None:
            result = await lane.run(HookCall("WAITED", waited))
            order.append(f"{result.stdout.strip()} at {trio.current_time() - start:g}")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(lane.serve)
            lane.submit(HookCall("ADVISORY", advisory),
                        lambda r: order.append(r.stdout.strip()))
            await trio.testing.wait_all_tasks_blocked()
            await participant.wait_idle()  # at once: the advisory hook does not keep it busy
            order.append("idle")
            clock.advance(start + 100)  # simulated time goes on while it runs
            nursery.start_soon(ask)
            await trio.testing.wait_all_tasks_blocked()
            await participant.wait_idle()  # only once the waited-for hook is answered
            order.append("idle")
            nursery.cancel_scope.cancel()

    clock = VirtualClock(1_000_000.0)
    trio.run(main, clock=clock)
    assert order == ["idle", "advised", "answered at 100", "idle"]
    # the advisory hook's line says when it was asked for, the waited-for one needs not
    assert [(e, f["hook"], f.get("asked_at")) for e, f in records] == [
        ("hook_exited", "ADVISORY", 1_000_000.0), ("hook_exited", "WAITED", None)]
