"""Priority preemption end to end: negotiator, startd, a starter and two schedds (fakes)."""

from __future__ import annotations

from pathlib import Path

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.runtime.network import Conn
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.negotiator.daemon import Negotiator
from daemons.startd.daemon import Startd

EPOCH = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9000
SIM_MACHINES = exec1
PREEMPTION_REQUIREMENTS = True
PRIORITY_HALFLIFE = 60
"""


class Starter:
    """Answers STARTER_START; a removed job exits 3 s later (STARTER_EXITED)."""

    def __init__(self) -> None:
        self.removed: list[tuple[float, str]] = []

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        claims: dict[str, tuple[str, str]] = {}

        async def exit_later(job: str) -> None:
            await trio.sleep(3)
            claim_id, startd = claims.pop(job)
            async with await ctx.connect(startd, "startd") as conn:
                await conn.send(m.STARTER_EXITED(claim_id=claim_id))

        async def handle(msg: Message, conn: Conn) -> None:
            if isinstance(msg, m.STARTER_START):
                job = f"{msg.job_ad.evaluate('ClusterId')}.{msg.job_ad.evaluate('ProcId')}"
                claims[job] = (msg.claim_id, str(msg.slot_ad.evaluate("MyAddress")))
            elif isinstance(msg, m.STARTER_REMOVE):
                self.removed.append((trio.current_time() - EPOCH, msg.job))
                nursery.start_soon(exit_later, msg.job)
            await conn.send(m.OK())

        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(handle, task_status=task_status))
            async with await ctx.connect(ctx.collector_address(), "collector") as conn:
                await conn.send(m.UPDATE_AD_GENERIC(ad=ClassAd({
                    "MyType": "Starter", "Name": "starter", "MyAddress": address,
                    "StartdDaemon": "startd"})))
            task_status.started(address)


class Schedd:
    """Negotiates one request from ``start`` on, claims the match and runs the job on it."""

    def __init__(self, owner: str, cluster: int, start: float) -> None:
        self.owner, self.start = owner, start
        self.request = ClassAd.parse(
            f'[ MyType = "Job"; ClusterId = {cluster}; ProcId = 0; Owner = "{owner}";'
            f' User = "{owner}@localhost"; Requirements = true; Rank = 0.0;'
            f' _condor_RESOURCE_COUNT = 1 ]')
        self.claimed: list[tuple[float, bool]] = []
        self.matched = False

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        async def handle(msg: Message, conn: Conn) -> None:
            if isinstance(msg, m.SEND_RESOURCE_REQUEST_LIST):
                wanted = [] if self.matched else [self.request]
                await conn.send(m.RESOURCE_REQUEST_LIST(requests=wanted))
            elif isinstance(msg, m.PERMISSION_AND_AD):
                self.matched = True
                nursery.start_soon(self._claim_and_run, ctx, msg, address)

        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(handle, task_status=task_status))
            nursery.start_soon(self._advertise, ctx, address)
            task_status.started(address)

    async def _advertise(self, ctx: DaemonContext, address: str) -> None:
        await trio.sleep(self.start)
        ad = ClassAd({"MyType": "Submitter", "Name": f"{self.owner}@localhost",
                      "ScheddName": self.owner, "MyAddress": address, "IdleJobs": 1})
        async with await ctx.connect(ctx.collector_address(), "collector") as conn:
            await conn.send(m.UPDATE_SUBMITTOR_AD(ad=ad))

    async def _claim_and_run(self, ctx: DaemonContext, permit: m.PERMISSION_AND_AD,
                             me: str) -> None:
        startd = str(permit.slot_ad.evaluate("MyAddress"))
        async with await ctx.connect(startd, "startd") as conn:
            reply = await conn.request(m.REQUEST_CLAIM(
                claim_id=permit.claim_id, job_ad=self.request, scheduler_addr=me))
            assert isinstance(reply, m.CLAIM_RESPONSE)
            self.claimed.append((trio.current_time() - EPOCH, reply.accepted))
            if reply.accepted:
                ok = await conn.request(m.ACTIVATE_CLAIM(
                    claim_id=permit.claim_id, job_ad=self.request, shadow_addr=me))
                assert isinstance(ok, m.OK)


async def test_a_better_priority_user_preempts_a_running_job(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    starter = Starter()
    bob, alice = Schedd("bob", 1, start=0), Schedd("alice", 2, start=100)
    async with open_inprocess_pool(
        Config.from_text(CONFIG), tmp_path,
        [("collector", Collector), ("starter", lambda: starter), ("startd", Startd),
         ("bob", lambda: bob), ("alice", lambda: alice), ("negotiator", Negotiator)],
    ) as pool:
        await trio.sleep(200)
        async with await pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
    # bob runs from the first cycle; at 120 s alice (EUP 500) beats bob (his RUP has
    # grown toward his usage of one slot, EUP 875): PREEMPTION_REQUIREMENTS lets her in.
    assert bob.claimed == [(0, True)]
    assert starter.removed == [(120, "1.0")]
    assert alice.claimed == [(123, True)]  # once bob's job had vacated (3 s)
    assert isinstance(reply, m.QUERY_RESULT)
    slot = reply.ads[0]
    state = (slot.evaluate("RemoteUser"), slot.evaluate("Activity"), slot.evaluate("JobId"))
    assert state == ("alice@localhost", "Busy", "2.0")
