"""A startd or a starter killed while jobs run (in-process pool, virtual time): the jobs are
killed with it, requeued (JOB_EVICTED) and run again once the daemon is back; no job runs
twice at once and each completes exactly once."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.config import Config
from condorsim.eventlog import read_events
from condorsim.runtime.inproc import Killable, open_inprocess_pool
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.negotiator.daemon import Negotiator
from daemons.schedd.daemon import Schedd
from daemons.shadow.daemon import Shadow
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

T0 = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9618
SIM_MACHINES = exec1
SIM_MACHINE_exec1_CPUS = 2
NEGOTIATOR_INTERVAL = 60
UID_DOMAIN = example.org
"""
SUBMIT = "executable = /bin/sleep\narguments = 300\nlog = job.log\nqueue 2\n"
RUN = ["SUBMIT", "EXECUTE", "IMAGE_SIZE", "JOB_EVICTED", "EXECUTE", "IMAGE_SIZE",
       "JOB_TERMINATED"]


async def _run(tmp_path: Path, victim: str) -> tuple[list, list, list, list[str]]:  # type: ignore[type-arg]
    """Two 300 s jobs on two slots; ``victim`` is killed at 200 s and back at 210 s."""
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
               ("shadow", Shadow)]
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            startd = Killable(pool, nursery, "startd", Startd)
            starter = Killable(pool, nursery, "starter", Starter)
            await startd.start()
            await starter.start()
            start = trio.current_time()
            async with await pool.connect("schedd") as conn:
                await conn.request(m.SUBMIT_JOBS(owner="alice", text=SUBMIT, iwd=str(tmp_path),
                                                 source="job.sub"))
            await trio.sleep_until(start + 200)
            killed = startd if victim == "startd" else starter
            running_before = sorted(starter.daemon.instances)  # type: ignore[union-attr]
            killed.kill()
            await trio.sleep(5)
            running_after = sorted(starter.daemon.instances)  # type: ignore[union-attr]
            await trio.sleep_until(start + 210)
            await killed.start()
            await trio.sleep(1500)
            async with await pool.connect("schedd") as conn:
                hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=[], limit=0))
            async with await pool.connect("collector") as conn:
                slots = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
            nursery.cancel_scope.cancel()
    assert isinstance(hist, m.QUERY_RESULT) and isinstance(slots, m.QUERY_RESULT)
    events = [(e.proc, e.type, int(e.timestamp - start)) for e in read_events(tmp_path / "job.log")]
    return (sorted(hist.ads, key=lambda ad: str(ad.evaluate("ProcId"))),
            events, [running_before, running_after], [str(a.evaluate("State")) for a in slots.ads])


def _check(hist: list, events: list) -> None:  # type: ignore[type-arg]
    assert [(a.evaluate("ProcId"), a.evaluate("JobStatus"), a.evaluate("NumJobStarts"),
             a.evaluate("NumJobCompletions")) for a in hist] == [(0, 4, 2, 1), (1, 4, 2, 1)]
    for proc in (0, 1):
        mine = [(kind, t) for p, kind, t in events if p == proc]
        assert [kind for kind, _ in mine] == RUN
        evicted = next(t for kind, t in mine if kind == "JOB_EVICTED")
        second = [t for kind, t in mine if kind == "EXECUTE"][1]
        assert evicted == 200 and second >= 210  # never two runs of one job at once


async def test_a_killed_startd_takes_its_jobs_with_it(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    hist, events, running, states = await _run(tmp_path, "startd")
    # the starter outlived its startd, but killed the startd's jobs at once
    assert running == [["1.0", "1.1"], []]
    _check(hist, events)
    assert states == ["Unclaimed", "Unclaimed"]


async def test_a_killed_starter_is_noticed_by_its_startd(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    hist, events, running, states = await _run(tmp_path, "starter")
    assert running[0] == ["1.0", "1.1"]
    _check(hist, events)
    assert states == ["Unclaimed", "Unclaimed"]
