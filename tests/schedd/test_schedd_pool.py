"""The schedd in an in-process pool with the collector: the tools' messages end to end,
the collector ads, and a restart that loses nothing."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.eventlog import read_events
from condorsim.runtime.inproc import InProcessPool, open_inprocess_pool
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.schedd.daemon import Schedd

T0 = 1_767_225_600
CONFIG = "COLLECTOR_HOST = 127.0.0.1:9600\nSCHEDD_INTERVAL = 300\nUID_DOMAIN = example.org\n"


def _sub(tmp_path: Path, n: int = 2) -> m.SUBMIT_JOBS:
    text = f"executable = /bin/sleep\narguments = 60\nlog = job.log\nqueue {n}\n"
    return m.SUBMIT_JOBS(owner="alice", text=text, iwd=str(tmp_path), source="job.sub")


def _attrs(ad: ClassAd) -> dict[str, str]:
    return {name.lower(): str(tree) for name, tree in ad.pairs()}


async def _ask(pool: InProcessPool, msg: Message) -> Message:
    async with await pool.connect("schedd") as conn:
        return await conn.request(msg)


async def test_submit_act_qedit_query_and_history(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("schedd", Schedd)]
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        reply = await _ask(pool, _sub(tmp_path, 3))
        assert reply == m.SUBMIT_RESULT(cluster=1, procs=3)
        bad = await _ask(pool, m.SUBMIT_JOBS(owner="alice", text="universe = nope\nqueue\n",
                                             iwd=str(tmp_path), source="bad.sub"))
        assert isinstance(bad, m.FAILED) and bad.reason
        reply = await _ask(pool, m.ACT_ON_JOBS(action="hold", ids=["1.0"], constraint="",
                                               reason="", owner="alice"))
        assert reply == m.ACT_RESULT(done=["1.0"], errors=[])
        reply = await _ask(pool, m.ACT_ON_JOBS(action="remove", ids=["1.2"], constraint="",
                                               reason="", owner="bob"))
        assert isinstance(reply, m.ACT_RESULT) and reply.done == [] and reply.errors
        reply = await _ask(pool, m.QEDIT(ids=["1.1"], constraint="", attr="Foo", value='"x"',
                                         owner="alice"))
        assert reply == m.ACT_RESULT(done=["1.1"], errors=[])
        await trio.sleep(10)
        reply = await _ask(pool, m.QUERY_JOB_ADS(constraint="JobStatus == 5",
                                                 projection=["ProcId", "HoldReason"]))
        assert isinstance(reply, m.QUERY_RESULT)
        assert [(a.evaluate("ProcId"), a.evaluate("HoldReason"), a.evaluate("ServerTime"))
                for a in reply.ads] == [(0, "via condor_hold (by user alice)", T0 + 10)]
        # The collector has the schedd ad and the submitter ad, updated after the change.
        async with await pool.connect("collector") as conn:
            sched = await conn.request(m.QUERY_SCHEDD_ADS(constraint="", projection=[]))
            subs = await conn.request(m.QUERY_SUBMITTOR_ADS(constraint="", projection=[]))
        assert isinstance(sched, m.QUERY_RESULT) and isinstance(subs, m.QUERY_RESULT)
        assert sched.ads[0].evaluate("Name") == "schedd@localhost"
        assert sched.ads[0].evaluate("TotalHeldJobs") == 1
        assert sched.ads[0].evaluate("TotalIdleJobs") == 2
        assert [(a.evaluate("Name"), a.evaluate("IdleJobs"), a.evaluate("HeldJobs"),
                 a.evaluate("MyAddress")) for a in subs.ads] == [
            ("alice@example.org", 2, 1, pool.addresses["schedd"])]
        reply = await _ask(pool, m.ACT_ON_JOBS(action="remove", ids=[], constraint="ProcId > 0",
                                               reason="done", owner="alice"))
        assert reply == m.ACT_RESULT(done=["1.1", "1.2"], errors=[])
        reply = await _ask(pool, m.QUERY_HISTORY(constraint="", projection=["ProcId"], limit=1))
        assert isinstance(reply, m.QUERY_RESULT)
        assert [a.evaluate("ProcId") for a in reply.ads] == [2]
    events = read_events(tmp_path / "job.log")
    assert [e.type for e in events] == ["SUBMIT"] * 3 + ["JOB_HELD", "JOB_ABORTED",
                                                        "JOB_ABORTED"]
    assert events[3].timestamp == T0


async def test_a_restarted_schedd_finds_every_job(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("schedd", Schedd)]
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        for _ in range(3):
            await _ask(pool, _sub(tmp_path, 2))
        await _ask(pool, m.ACT_ON_JOBS(action="hold", ids=["2"], constraint="", reason="why",
                                       owner="alice"))
        await _ask(pool, m.QEDIT(ids=["3.1"], constraint="", attr="Foo", value="1 + 2",
                                 owner="alice"))
        before = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        after = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(before, m.QUERY_RESULT) and isinstance(after, m.QUERY_RESULT)
        assert len(after.ads) == 6
        assert [_attrs(a) for a in after.ads] == [_attrs(a) for a in before.ads]
        assert _attrs(after.ads[2])["holdreason"] == '"why (by user alice)"'
        reply = await _ask(pool, _sub(tmp_path, 1))
        assert reply == m.SUBMIT_RESULT(cluster=4, procs=1)


async def test_periodic_policy_runs_every_periodic_expr_interval(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\nPERIODIC_EXPR_INTERVAL = 60\n")
    daemons = [("collector", Collector), ("schedd", Schedd)]
    text = ("executable = /bin/true\nlog = p.log\n"
            "periodic_hold = time() - QDate > 100\nperiodic_release = NumHolds < 2 && "
            "time() - EnteredCurrentStatus > 200\nqueue\n")
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        start = trio.current_time()
        await _ask(pool, m.SUBMIT_JOBS(owner="alice", text=text, iwd=str(tmp_path),
                                       source="p.sub"))
        await trio.sleep(1000)
    events = read_events(tmp_path / "p.log")
    assert [(e.type, e.timestamp - start) for e in events] == [
        ("SUBMIT", 0), ("JOB_HELD", 120), ("JOB_RELEASED", 360), ("JOB_HELD", 420)]
    assert events[1].fields["HoldReasonCode"] == 3


async def test_a_submitter_whose_jobs_are_gone_is_advertised_with_zero_jobs(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    # The removal moves no update (HTCondor's timeout() runs every SCHEDD_INTERVAL, early
    # only for a reschedule): the collector holds "1 idle" until the next regular run, which
    # advertises the submitter with zero jobs rather than dropping it.
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("schedd", Schedd)]

    async def idle_jobs() -> list[tuple[str, int]]:
        async with await pool.connect("collector") as conn:
            subs = await conn.request(m.QUERY_SUBMITTOR_ADS(constraint="", projection=[]))
        assert isinstance(subs, m.QUERY_RESULT)
        return [(a.evaluate("Name"), a.evaluate("IdleJobs")) for a in subs.ads]

    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        start = trio.current_time()
        await _ask(pool, _sub(tmp_path, 1))  # its reschedule: an update 5 s after the first
        await trio.sleep(10)
        await _ask(pool, m.ACT_ON_JOBS(action="remove", ids=["1"], constraint="", reason="",
                                       owner="alice"))
        await trio.sleep_until(start + 5 + 299)
        assert await idle_jobs() == [("alice@example.org", 1)]
        await trio.sleep_until(start + 5 + 301)
        assert await idle_jobs() == [("alice@example.org", 0)]


async def test_a_shadow_exit_for_a_job_without_a_shadow_changes_nothing(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("schedd", Schedd)]
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        await _ask(pool, _sub(tmp_path, 1))
        reply = await _ask(pool, m.SHADOW_EXIT(job="1.0", exit_code=100,
                                               ad=ClassAd.parse("[ ExitCode = 0 ]")))
        assert reply == m.OK()
        assert await _ask(pool, m.SHADOW_EXIT(job="x", exit_code=100, ad=ClassAd())) == \
            m.FAILED(reason="not a job id: 'x'")
        q = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(q, m.QUERY_RESULT)
        assert [(a.evaluate("JobStatus"), "ExitCode" in a) for a in q.ads] == [(1, False)]
