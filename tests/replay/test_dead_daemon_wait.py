"""A replay does not give up on a dead daemon (issue 15, "Deaths, at any moment"): what it
needs from a daemon the master will restart is asked again once the daemon is back, in
simulated time; a daemon that will not come back fails with its name and why.

The client's decisions are tested against a fake master on trio's mock clock (no process);
``scenarios/dead-daemon-wait.toml`` is replayed twice on a real pool (the library's two
runs, tests/_library_runs.py): the schedd killed with an expectation and a submit due while
it is dead, the collector killed with an expectation on its ads, and the schedd killed again
as the last thing before ``until = "quiet"``."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from _library_runs import LibraryRuns

from condorsim.replay.client import PoolClient, PoolUnreachable, _NoAnswer
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.master.master import RestartState

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "dead-daemon-wait.toml"
RUNS = ("first", "second")
T0 = 1_767_603_600


@dataclass
class FakeChild:
    restart_at: float | None = None  # dead until then (None: running)
    gave_up: str = ""
    start_failed: str | None = None
    address: str = "<127.0.0.1:1>"


@dataclass
class FakeMaster:
    """What the client reads of the master: its children and their restart state."""

    children: dict[str, FakeChild] = field(default_factory=dict)
    collector_address: str = "<127.0.0.1:9618>"

    def restart_state(self, name: str) -> RestartState | None:
        child = self.children.get(name)
        if child is None:
            return None
        if child.restart_at is None or (trio.current_time() >= child.restart_at
                                        and not child.gave_up and not child.start_failed):
            return RestartState(True, child.address)
        return RestartState(False, None, child.restart_at, child.start_failed, child.gave_up)


@dataclass
class FakeInstants:
    """Simulated time moving one second per look; the run ends at ``limit``."""

    limit: float = T0 + 3600
    moves: int = 0

    async def wait_moved(self) -> None:
        self.moves += 1
        await trio.sleep(1)

    async def settle(self) -> None:
        await trio.lowlevel.checkpoint()

    @property
    def finished(self) -> bool:
        return trio.current_time() >= self.limit


def _client(master: FakeMaster, instants: FakeInstants | None = None) -> PoolClient:
    return PoolClient(endpoint=None, participant=None, master=master,  # type: ignore[arg-type]
                      instants=instants or FakeInstants(), start=T0)  # type: ignore[arg-type]


def _run(fn: Callable[[], Any]) -> Any:
    clock = trio.testing.MockClock(autojump_threshold=0)
    clock.jump(T0)
    return trio.run(fn, clock=clock)


def test_a_dead_daemon_is_waited_for_until_the_master_restarts_it() -> None:
    master = FakeMaster({"schedd": FakeChild(restart_at=T0 + 10)})
    instants = FakeInstants()
    client = _client(master, instants)

    async def main() -> tuple[str, float]:
        address = await client.wait_running("schedd")
        return address, trio.current_time()

    address, when = _run(main)
    assert address == "<127.0.0.1:1>"
    assert when == T0 + 10  # the restart's instant, not earlier, not later
    assert instants.moves == 10


@pytest.mark.parametrize(("child", "why"), [
    (FakeChild(restart_at=T0 + 10, gave_up="it was turned off (condor_off)"),
     "the schedd is not running and the master will not start it again: it was turned "
     "off (condor_off)"),
    (FakeChild(restart_at=T0 + 10, start_failed="ImportError: no module"),
     "the schedd died and the master could not start it again: ImportError: no module "
     "(see log/schedd.stderr)"),
    (None, "the pool has no schedd (DAEMON_LIST has no SCHEDD)"),
])
def test_a_daemon_that_will_not_come_back_fails_at_once_naming_it_and_why(
        child: FakeChild | None, why: str) -> None:
    client = _client(FakeMaster({"schedd": child} if child else {}))

    async def main() -> float:
        with pytest.raises(PoolUnreachable) as e:
            await client.wait_running("schedd")
        assert str(e.value) == why
        return trio.current_time()

    assert _run(main) == T0  # no waiting at all


def test_a_restart_after_the_end_of_the_run_fails_instead_of_waiting_forever() -> None:
    client = _client(FakeMaster({"schedd": FakeChild(restart_at=T0 + 10)}),
                     FakeInstants(limit=T0 + 5))

    async def main() -> None:
        with pytest.raises(PoolUnreachable, match=r"the schedd is dead \(the master restarts "
                           r"it at t=10s\) and the run reached its end before it was back"):
            await client.wait_running("schedd")

    _run(main)
    client.frozen = True  # the end checks: time stands still, nothing is waited for

    async def frozen() -> float:
        with pytest.raises(PoolUnreachable, match="the schedd is dead"):
            await client.wait_running("schedd")
        return trio.current_time()

    assert _run(frozen) == T0


def test_a_query_to_a_daemon_that_dies_under_it_is_asked_again_after_the_restart() -> None:
    master = FakeMaster({"collector": FakeChild()})
    client = _client(master)
    asked: list[float] = []

    async def send(address: str, peer: str, msg: Message) -> Message:
        asked.append(trio.current_time())
        if len(asked) == 1:  # killed while it answers: the master's record says so
            master.children["collector"].restart_at = trio.current_time() + 10
            raise _NoAnswer("the collector did not answer", sent=True)
        return m.QUERY_RESULT(ads=[])

    client._send = send  # type: ignore[method-assign]
    assert _run(lambda: client.collector_ads("Machine")) == []
    assert asked == [T0, T0 + 10]


def test_a_submit_a_dying_schedd_may_have_taken_is_not_sent_twice() -> None:
    master = FakeMaster({"schedd": FakeChild(), "collector": FakeChild()})
    client = _client(master)
    client._schedd = "<127.0.0.1:1>"
    sent: list[str] = []

    async def send(address: str, peer: str, msg: Message) -> Message:
        sent.append(msg.command)
        master.children["schedd"].restart_at = trio.current_time() + 10
        raise _NoAnswer("the schedd did not answer", sent=True)

    client._send = send  # type: ignore[method-assign]

    async def main() -> None:
        with pytest.raises(PoolUnreachable, match="the schedd died before it answered "
                           "SUBMIT_JOBS; it may or may not have been done"):
            await client.schedd_request(m.SUBMIT_JOBS(owner="a", text="queue", iwd="/",
                                                      source="s"))

    _run(main)
    assert sent == ["SUBMIT_JOBS"]


def test_a_live_daemon_that_does_not_answer_is_not_waited_for() -> None:
    client = _client(FakeMaster({"collector": FakeChild()}))

    async def send(address: str, peer: str, msg: Message) -> Message:
        raise _NoAnswer("the collector at <127.0.0.1:9618> did not answer: refused", False)

    client._send = send  # type: ignore[method-assign]

    async def main() -> None:
        with pytest.raises(PoolUnreachable, match="did not answer: refused"):
            await client.collector_ads("Machine")

    _run(main)


def test_awaiting_restart_names_the_dead_daemons_the_master_will_start_again() -> None:
    client = _client(FakeMaster({
        "collector": FakeChild(), "schedd": FakeChild(restart_at=T0 + 10),
        "startd": FakeChild(restart_at=T0 + 10, gave_up="it was turned off (condor_off)")}))
    assert _run(lambda: _async(client.awaiting_restart)) == ["schedd"]


async def _async(fn: Callable[[], Any]) -> Any:
    return fn()


# -- a real pool --------------------------------------------------------------------------------
def _replay_log(run_dir: Path, *events: str) -> list[tuple[str, str, int]]:
    out = []
    for line in (run_dir / "log" / "ReplayLog.json").read_text().splitlines():
        rec = json.loads(line)
        if rec["event"] in events:
            out.append((rec["event"], rec.get("target", ""), int(rec["sim_time"]) - T0))
    return out


def _job_events(run_dir: Path) -> dict[tuple[int, int], list[tuple[str, float]]]:
    """Each job's user-log events and their times (jobs ending in the same second are
    written in either order: the order between jobs is not the run's)."""
    from condorsim.eventlog import read_events
    events: dict[tuple[int, int], list[tuple[str, float]]] = {}
    for e in read_events(run_dir / "dead-daemon.log"):
        events.setdefault((e.cluster, e.proc), []).append((e.type, e.timestamp))
    return events


def _job_messages(run_dir: Path) -> list[tuple[Any, ...]]:
    from condorsim.runtime.trace import read_trace
    return sorted((r["t"], r["from"], r["to"], r["cmd"], r["job"])
                  for r in read_trace(run_dir / "trace.jsonl") if r["job"] is not None)


@pytest.mark.pool
def test_a_replay_waits_for_killed_daemons_and_passes_the_same_way_twice(
        library_runs: LibraryRuns) -> None:
    # `condorsim replay scenarios/dead-daemon-wait.toml --keep DIR`, twice: the library's
    # two runs, which tests/replay/test_scenarios.py replays too (tests/_library_runs.py)
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda run: library_runs(SCENARIO.name, run), RUNS))
    runs = [library_runs.run_dir(SCENARIO.name, run) for run in RUNS]
    for d in done:
        assert d.returncode == 0, d.stdout + d.stderr
        assert d.stdout.splitlines()[-1] == "4 passed, 0 failed"
    first = runs[0]
    # The expectation of 30s and the submit of 31s waited for the schedd's restart (the
    # master's back-off: 9 + ceil(2 ** 0) = 10 s); the expectation of 3m for the collector's;
    # "quiet" for the schedd killed at 10m, when the queue was already empty.
    assert _replay_log(first, "waiting_for_restart", "daemon_back") == [
        ("waiting_for_restart", "schedd", 30), ("daemon_back", "schedd", 40),
        ("waiting_for_restart", "collector", 180), ("daemon_back", "collector", 190),
        ("waiting_for_restart", "schedd", 600), ("daemon_back", "schedd", 610)]
    assert "note: t=30s: a daemon the expectations ask was dead; they were checked at " \
           "t=40s, once the master had restarted it" in done[0].stderr
    submits = _replay_log(first, "scenario_submit")
    assert [t for _, _, t in submits] == [0, 40]
    events = _job_events(first)
    assert {job: [kind for kind, _ in evs].count("JOB_TERMINATED")
            for job, evs in events.items()} == {(1, 0): 1, (1, 1): 1, (2, 0): 1}
    # two replays: the same events at the same times, the same messages about jobs
    assert events == _job_events(runs[1])
    assert _job_messages(first) == _job_messages(runs[1])
