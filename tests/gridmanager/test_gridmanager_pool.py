"""The schedd hands grid jobs to the gridmanager, in an in-process pool on virtual time.

Every daemon is the real one (collector, negotiator, schedd, startd, starter, shadow,
gridmanager) over memory streams. User logs are read back with HTCondor's own reader
(``htcondor.JobEventLog``); the gridmanager and the schedd are killed and started again as
the master would, on the same spool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import htcondor
import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.inproc import InProcessPool, Killable, open_inprocess_pool
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.gridmanager.daemon import Gridmanager
from daemons.negotiator.daemon import Negotiator
from daemons.schedd.daemon import Schedd
from daemons.schedd.history import read_history
from daemons.shadow.daemon import Shadow
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

T0 = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9400
SIM_MACHINES = exec1
NEGOTIATOR_INTERVAL = 60
SIM_GRID_SITES @=end
[ Resource = "batch slurm"; Slots = 2; StartDelay = 30; FailureRate = 0.0 ]
[ Resource = "batch pbs"; Slots = 1 ]
@end
"""


def grid(runtime: int, count: int = 1, resource: str = "batch slurm", extra: str = "") -> str:
    return (f"universe = grid\ngrid_resource = {resource}\nexecutable = /bin/sleep\n"
            f"arguments = {runtime}\nlog = grid.log\n{extra}\nqueue {count}\n")


async def _ask(pool: InProcessPool, daemon: str, msg: Message) -> Message:
    async with await pool.connect(daemon) as conn:
        return await conn.request(msg)


async def _submit(pool: InProcessPool, text: str) -> None:
    reply = await _ask(pool, "schedd", m.SUBMIT_JOBS(owner="alice", text=text,
                                                     iwd=str(pool.run_dir), source="t.sub"))
    assert isinstance(reply, m.SUBMIT_RESULT), reply


async def _jobs(pool: InProcessPool) -> dict[str, ClassAd]:
    """Every job, the queue's first, then the history's."""
    out: dict[str, ClassAd] = {}
    for msg in (m.QUERY_JOB_ADS(constraint="", projection=[]),
                m.QUERY_HISTORY(constraint="", projection=[], limit=0)):
        reply = await _ask(pool, "schedd", msg)
        assert isinstance(reply, m.QUERY_RESULT)
        for ad in reply.ads:
            out.setdefault(f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}", ad)
    return out


def _events(run_dir: Path) -> dict[str, list[tuple[str, int, dict[str, object]]]]:
    """Each job's events as HTCondor's reader sees them: (type, seconds after T0, fields)."""
    out: dict[str, list[tuple[str, int, dict[str, object]]]] = {}
    for event in htcondor.JobEventLog(str(run_dir / "grid.log")).events(0):
        out.setdefault(f"{event.cluster}.{event.proc}", []).append(
            (event.type.name, event.timestamp - T0, dict(event.items())))
    return out


async def _run(tmp_path: Path, script: Callable[[InProcessPool, dict[str, Killable]],
                                                Awaitable[None]]) -> None:
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    fixed = [("collector", Collector), ("negotiator", Negotiator), ("startd", Startd),
             ("starter", Starter), ("shadow", Shadow)]
    async with open_inprocess_pool(config, tmp_path, fixed) as pool:  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            daemons = {name: Killable(pool, nursery, name, factory)  # type: ignore[arg-type]
                       for name, factory in (("schedd", Schedd), ("gridmanager", Gridmanager))}
            for daemon in daemons.values():
                await daemon.start()
            await script(pool, daemons)
            nursery.cancel_scope.cancel()


async def test_grid_jobs_run_at_their_sites_and_vanilla_jobs_on_the_pool(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    autojump_clock.jump(T0)

    async def script(pool: InProcessPool, _: dict[str, Killable]) -> None:
        await _submit(pool, grid(600, count=3))
        await _submit(pool, grid(300, resource="batch pbs"))
        await _submit(pool, "executable = /bin/sleep\narguments = 200\nlog = grid.log\nqueue\n")
        await trio.sleep_until(T0 + 120)
        reply = await _ask(pool, "collector", m.QUERY_GENERIC_ADS(
            adtype="Grid", constraint="", projection=[]))
        assert isinstance(reply, m.QUERY_RESULT)
        assert sorted(str(a.evaluate("HashName")) for a in reply.ads) == [
            "batch pbs", "batch slurm"]
        subs = await _ask(pool, "collector", m.QUERY_SUBMITTOR_ADS(constraint="",
                                                                   projection=[]))
        assert isinstance(subs, m.QUERY_RESULT)
        # the ad of the schedd's update after the submits' reschedule (T0 + 5 s; the next
        # is SCHEDD_INTERVAL later): the vanilla job idle then, and only it -- the four grid
        # jobs, idle too, are not the negotiator's
        assert [(a.evaluate("IdleJobs"), a.evaluate("RunningJobs")) for a in subs.ads] == \
            [(1, 0)]
        # the next update (T0 + 305 s): the vanilla job is done; three grid jobs run at
        # their sites, and are not counted either
        await trio.sleep_until(T0 + 310)
        subs = await _ask(pool, "collector", m.QUERY_SUBMITTOR_ADS(constraint="",
                                                                   projection=[]))
        assert isinstance(subs, m.QUERY_RESULT)
        assert [(a.evaluate("IdleJobs"), a.evaluate("RunningJobs")) for a in subs.ads] == \
            [(0, 0)]
        await trio.sleep_until(T0 + 3600)

    await _run(tmp_path, script)
    events = _events(tmp_path)
    for job in ("1.0", "1.1", "1.2", "2.0"):
        assert [e[0] for e in events[job]] == ["SUBMIT", "GRID_SUBMIT", "EXECUTE",
                                               "JOB_TERMINATED"], job
    submit = events["1.0"][1][2]
    assert submit["GridResource"] == "batch slurm"
    assert str(submit["GridJobId"]).startswith("batch slurm ") and \
        str(submit["GridJobId"]).endswith(" slurm/20260101/1")
    assert events["1.0"][2][2]["ExecuteHost"] == "batch slurm"
    assert events["1.0"][3][2]["ReturnValue"] == 0
    assert [e[1] for e in events["1.2"]][2] >= 640  # it waited for a slot of the site
    assert [e[0] for e in events["3.0"]][:2] == ["SUBMIT", "EXECUTE"]  # the vanilla job
    assert events["3.0"][1][2]["ExecuteHost"] != "batch slurm"
    jobs = _history(tmp_path)
    for job in ("1.0", "1.1", "1.2", "2.0"):
        ad = jobs[job]
        assert ad.evaluate("JobStatus") == 4 and ad.evaluate("Managed") == "ScheddDone"
        assert ad.evaluate("GridJobStatus") == "COMPLETED"
        assert ad.evaluate("JobCurrentStartDate") == T0 + events[job][2][1]
        assert ad.evaluate("CompletionDate") >= T0 + events[job][3][1]
        assert ad.lookup("RemoteHost") is None and ad.lookup("ClaimId") is None


def _history(tmp_path: Path) -> dict[str, ClassAd]:
    """The history file, read as condor_history reads it."""
    out = {}
    for ad in read_history(tmp_path / "spool" / "history", "", [], 0, 0):
        out[f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}"] = ad
    return out


async def test_hold_release_remove_and_an_outage_as_the_user_log_shows_them(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    autojump_clock.jump(T0)

    async def script(pool: InProcessPool, _: dict[str, Killable]) -> None:
        await _submit(pool, grid(900, count=2))
        await _submit(pool, grid(900, resource="batch pbs"))
        await trio.sleep_until(T0 + 300)
        for action, job in (("hold", "1.0"), ("remove", "1.1")):
            reply = await _ask(pool, "schedd", m.ACT_ON_JOBS(
                action=action, ids=[job], constraint="", reason="", owner="alice"))
            assert isinstance(reply, m.ACT_RESULT) and reply.done == [job], reply
        reply = await _ask(pool, "gridmanager", m.SIM_SITE_DOWN(resource="batch pbs"))
        assert isinstance(reply, m.OK)
        bad = await _ask(pool, "gridmanager", m.SIM_SITE_DOWN(resource="arc x"))
        assert isinstance(bad, m.FAILED) and '"arc x"' in bad.reason
        await trio.sleep_until(T0 + 600)
        reply = await _ask(pool, "schedd", m.ACT_ON_JOBS(
            action="release", ids=["1.0"], constraint="", reason="", owner="alice"))
        await _ask(pool, "gridmanager", m.SIM_SITE_UP(resource="batch pbs"))
        await trio.sleep_until(T0 + 3600)

    await _run(tmp_path, script)
    events = _events(tmp_path)
    assert [e[0] for e in events["1.0"]] == [
        "SUBMIT", "GRID_SUBMIT", "EXECUTE", "JOB_HELD", "JOB_RELEASED", "GRID_SUBMIT",
        "EXECUTE", "JOB_TERMINATED"]
    held = events["1.0"][3][2]
    assert held["HoldReasonCode"] == 1 and "via condor_hold" in str(held["HoldReason"])
    assert [e[0] for e in events["1.1"]] == ["SUBMIT", "GRID_SUBMIT", "EXECUTE", "JOB_ABORTED"]
    assert "via condor_rm" in str(events["1.1"][3][2]["Reason"])
    assert [e[0] for e in events["2.0"]] == [
        "SUBMIT", "GRID_SUBMIT", "EXECUTE", "GRID_RESOURCE_DOWN", "GRID_RESOURCE_UP",
        "JOB_TERMINATED"]
    assert events["2.0"][3][2]["GridResource"] == "batch pbs"
    history = _history(tmp_path)
    assert history["1.1"].evaluate("JobStatus") == 3
    assert history["1.0"].evaluate("NumJobStarts") == 2
    # 2.0 ran 900 s at the site, from 10 to 300 and from 600 on: it ended at 1210
    assert history["2.0"].evaluate("CompletionDate") >= T0 + 1210


async def test_a_killed_gridmanager_or_schedd_loses_nothing_and_runs_nothing_twice(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    autojump_clock.jump(T0)

    async def script(pool: InProcessPool, daemons: dict[str, Killable]) -> None:
        await _submit(pool, grid(900, count=3))
        for name, at in (("gridmanager", 200), ("schedd", 500), ("gridmanager", 1000)):
            await trio.sleep_until(T0 + at)
            daemons[name].kill()
            await trio.sleep(10)
            await daemons[name].start()
        await trio.sleep_until(T0 + 4000)
        assert await _jobs(pool) and all(
            ad.evaluate("JobStatus") == 4 for ad in (await _jobs(pool)).values())

    await _run(tmp_path, script)
    events = _events(tmp_path)
    for job in ("1.0", "1.1", "1.2"):
        assert [e[0] for e in events[job]] == ["SUBMIT", "GRID_SUBMIT", "EXECUTE",
                                               "JOB_TERMINATED"], job
    history = _history(tmp_path)
    assert sorted(history) == ["1.0", "1.1", "1.2"]
    assert all(ad.evaluate("NumJobStarts") == 1 for ad in history.values())
    assert len({ad.evaluate("GridJobId") for ad in history.values()}) == 3


async def test_an_unusable_sites_state_file_is_reported_and_the_sites_start_empty(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    autojump_clock.jump(T0)
    (tmp_path / "spool").mkdir()
    (tmp_path / "spool" / "grid_sites.json").write_text('{"batch slurm": {"jobs": [{"x": 1}]}}')

    async def script(pool: InProcessPool, _: dict[str, Killable]) -> None:
        await _submit(pool, grid(300))
        await trio.sleep_until(T0 + 1000)

    await _run(tmp_path, script)
    assert [e[0] for e in _events(tmp_path)["1.0"]] == ["SUBMIT", "GRID_SUBMIT", "EXECUTE",
                                                        "JOB_TERMINATED"]
