"""A job whose user log cannot be opened (in-process pool, virtual time): the shadow puts it
on hold as HTCondor's BaseShadow::initUserLog does -- HoldReason "Failed to initialize user
log", HoldReasonCode 22 (UnableToInitUserLog), subcode 0 -- instead of running it with its
events lost; the slot is given back. A log that can be opened is untouched."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.config import Config
from condorsim.runtime.inproc import open_inprocess_pool
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
NEGOTIATOR_INTERVAL = 60
UID_DOMAIN = example.org
"""
DAEMONS = [("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
           ("shadow", Shadow), ("startd", Startd), ("starter", Starter)]


async def _submit_and_wait(tmp_path: Path, log: str, universe: str = "vanilla",
                           daemons: list | None = None) -> tuple[list, list]:  # type: ignore[type-arg]
    """The jobs (queue and history) and slot states 600 s after one job with ``log``."""
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    text = (f"universe = {universe}\nexecutable = /bin/sleep\narguments = 300\n"
            f"log = {log}\nqueue\n")
    async with open_inprocess_pool(config, tmp_path, daemons or DAEMONS) as pool:  # type: ignore[arg-type]
        async with await pool.connect("schedd") as conn:
            await conn.request(m.SUBMIT_JOBS(owner="alice", text=text, iwd=str(tmp_path),
                                             source="job.sub"))
        await trio.sleep(600)
        async with await pool.connect("schedd") as conn:
            jobs = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=[]))
            hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=[], limit=0))
        states: list[str] = []
        if "collector" in pool.addresses:
            async with await pool.connect("collector") as conn:
                slots = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
            assert isinstance(slots, m.QUERY_RESULT)
            states = [str(a.evaluate("State")) for a in slots.ads]
    assert isinstance(jobs, m.QUERY_RESULT) and isinstance(hist, m.QUERY_RESULT)
    return jobs.ads + hist.ads, states


async def test_a_job_whose_user_log_cannot_be_opened_is_held_with_code_22(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    (tmp_path / "notadir").write_text("a regular file, so notadir/job.log cannot exist\n")
    jobs, states = await _submit_and_wait(tmp_path, "notadir/job.log")
    (job,) = jobs
    assert {a: job.evaluate(a) for a in (
        "JobStatus", "HoldReason", "HoldReasonCode", "HoldReasonSubCode", "NumJobStarts")} == {
        "JobStatus": 5, "HoldReason": "Failed to initialize user log", "HoldReasonCode": 22,
        "HoldReasonSubCode": 0, "NumJobStarts": 0}
    assert states == ["Unclaimed"]  # the claim was given back


async def test_a_job_whose_user_log_opens_runs(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    jobs, _ = await _submit_and_wait(tmp_path, "job.log")
    (job,) = jobs
    assert (job.evaluate("JobStatus"), job.lookup("HoldReasonCode")) == (4, None)
    assert [line[:3] for line in (tmp_path / "job.log").read_text().splitlines()
            if line[:4] in ("000 ", "001 ", "005 ", "012 ")] == ["000", "001", "005"]


async def test_a_local_job_whose_user_log_cannot_be_opened_is_held_too(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """The local starter's JICLocalSchedd::initLocalUserLog: the same hold, code 22."""
    autojump_clock.jump(T0)
    (tmp_path / "notadir").write_text("a regular file\n")
    jobs, _ = await _submit_and_wait(tmp_path, "notadir/job.log", "local", [("schedd", Schedd)])
    assert [(a.evaluate("JobStatus"), a.evaluate("HoldReasonCode"), a.evaluate("HoldReason"))
            for a in jobs] == [(5, 22, "Failed to initialize user log")]
