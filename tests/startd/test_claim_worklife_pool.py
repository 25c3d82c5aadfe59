"""CLAIM_WORKLIFE in a whole in-process pool: the schedd reuses a claim for its next job
while the claim is young enough, then the claim is released and the next job waits for a
negotiation cycle."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from condorsim.config import Config
from condorsim.eventlog import read_events
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
NEGOTIATOR_INTERVAL = 1000
UID_DOMAIN = example.org
"""
DAEMONS = [("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
           ("shadow", Shadow), ("startd", Startd), ("starter", Starter)]
SUBMIT = "executable = /bin/sleep\narguments = 120\nlog = job.log\nqueue 5\n"


async def _run_pool(tmp_path: Path, worklife: int
                    ) -> tuple[dict[int, int], int, list[str], list[int]]:
    """Submit five 120 s jobs to one slot; (EXECUTE time by proc, REQUEST_CLAIMs, slot
    states at 420 s, NumShadowStarts by proc). The submit's RESCHEDULE (sent after the
    schedd's collector update at 5 s) brings a cycle at 20 s (NEGOTIATOR_CYCLE_DELAY after the
    one at 0 s); the next is at 1020 s."""
    config = Config.from_text(CONFIG + f"CLAIM_WORKLIFE = {worklife}\nLOCAL_DIR = {tmp_path}\n")
    async with open_inprocess_pool(config, tmp_path, DAEMONS) as pool:  # type: ignore[arg-type]
        start = trio.current_time()
        async with await pool.connect("schedd") as conn:
            await conn.request(m.SUBMIT_JOBS(owner="alice", text=SUBMIT, iwd=str(tmp_path),
                                             source="job.sub"))
        await trio.sleep(420)
        async with await pool.connect("collector") as conn:
            slots = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
        await trio.sleep(2580)
        async with await pool.connect("schedd") as conn:
            hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=[], limit=0))
        claims = sum(1 for r in pool.trace if r["cmd"] == "REQUEST_CLAIM")
    assert isinstance(slots, m.QUERY_RESULT) and isinstance(hist, m.QUERY_RESULT)
    by_proc = {ad.evaluate("ProcId"): ad.evaluate("NumShadowStarts") for ad in hist.ads}
    starts = [int(str(by_proc[p])) for p in range(5)]
    executes = {e.proc: int(e.timestamp - start) for e in read_events(tmp_path / "job.log")
                if e.type == "EXECUTE"}
    return executes, claims, [str(ad.evaluate("State")) for ad in slots.ads], starts


async def test_a_claim_is_reused_until_its_worklife_is_over(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    executes, claims, states, starts = await _run_pool(tmp_path, 300)
    # jobs that start while the claim is at most 300 s old run on it back to back; at
    # 380 s the claim is 360 s old: released (the slot Unclaimed at 420 s), and 1.3
    # waits for the next negotiation cycle, which claims the slot afresh
    assert executes == {0: 20, 1: 140, 2: 260, 3: 1020, 4: 1140}
    assert states == ["Unclaimed"]
    assert claims == 2
    # the schedd saw the claim was closing: no shadow was started for 1.3 on it in vain
    assert starts == [1, 1, 1, 1, 1]


@pytest.mark.parametrize("worklife", [-1, 100_000])
async def test_without_a_limit_one_claim_runs_every_job(
    tmp_path: Path, autojump_clock: trio.testing.MockClock, worklife: int
) -> None:
    autojump_clock.jump(T0)
    executes, claims, states, starts = await _run_pool(tmp_path, worklife)
    assert executes == {0: 20, 1: 140, 2: 260, 3: 380, 4: 500}
    assert claims == 1 and states == ["Claimed"] and starts == [1, 1, 1, 1, 1]
