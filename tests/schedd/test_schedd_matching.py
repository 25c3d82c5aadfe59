"""The schedd's side of matchmaking and running, in an in-process pool: the test plays the
negotiator; a stand-in startd and shadow (the edges) record what the schedd sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.inproc import InProcessPool, open_inprocess_pool
from condorsim.runtime.network import Conn
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.schedd.daemon import Schedd

T0 = 1_767_225_600
CONFIG = "COLLECTOR_HOST = 127.0.0.1:9600\nALIVE_INTERVAL = 300\n"
SUB = ("executable = /bin/sleep\narguments = 60\nlog = job.log\nrequest_memory = 100\n"
       "+Where = \"$$(Name)\"\nqueue 2\n")


class Recorder:
    """A daemon at the edge: answers as the real one would and records what it got."""

    got: list[tuple[float, Message]]

    def __init__(self, reply: dict[str, Message], ad_type: str | None = None) -> None:
        self.reply = reply
        self.ad_type = ad_type
        self.got = []
        self.conns: list[Conn] = []  # each message's connection (kept: an id can be reused)

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status))
            if self.ad_type:
                ad = ClassAd()
                ad.update({"MyType": self.ad_type, "Name": ctx.name, "MyAddress": address,
                           "ScheddDaemon": "schedd"})
                async with await ctx.connect(ctx.collector_address(), "collector") as conn:
                    await conn.send(m.UPDATE_AD_GENERIC(ad=ad))
            task_status.started(address)

    async def _handle(self, msg: Message, conn: Conn) -> None:
        self.got.append((trio.current_time(), msg))
        self.conns.append(conn)
        reply = self.reply.get(msg.command)
        if reply is not None:
            await conn.send(reply)

    def commands(self) -> list[str]:
        return [msg.command for _, msg in self.got]


def _slot(address: str) -> ClassAd:
    return ClassAd.parse(
        f'[ MyType = "Machine"; Name = "slot1@exec1"; SlotID = 1; MyAddress = "{address}";'
        ' Arch = "X86_64"; OpSys = "LINUX"; Memory = 1024; Disk = 100000; Cpus = 1;'
        ' HasFileTransfer = true; Requirements = true; Start = true ]')


async def _negotiate(pool: InProcessPool, slot: ClassAd, claim: int = 1) -> list[ClassAd]:
    async with await pool.connect("schedd", me="negotiator") as conn:
        await conn.send(m.NEGOTIATE(submitter="alice@localhost",
                                    ad=ClassAd.parse('[ AutoClusterAttrs = "Memory" ]')))
        reply = await conn.request(m.SEND_RESOURCE_REQUEST_LIST(count=10))
        assert isinstance(reply, m.RESOURCE_REQUEST_LIST)
        await conn.send(m.PERMISSION_AND_AD(claim_id=f"{slot.evaluate('MyAddress')}#{claim}#1",
                                            slot_ad=slot, request_index=0))
        await conn.send(m.END_NEGOTIATE())
        return reply.requests


async def test_match_claim_run_reuse_and_release(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    startd = Recorder({"REQUEST_CLAIM": m.CLAIM_RESPONSE(accepted=True, reason="",
                                                         slot_ad=None),
                       "ALIVE": m.OK(), "RELEASE_CLAIM": m.OK()})
    shadow = Recorder({"SHADOW_START": m.OK(), "SHADOW_HOLD": m.OK(), "SHADOW_QEDIT": m.OK()},
                      ad_type="Shadow")
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("schedd", Schedd), ("startd@exec1", lambda: startd),
               ("shadow", lambda: shadow)]
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        async with await pool.connect("schedd") as conn:
            await conn.request(m.SUBMIT_JOBS(owner="alice", text=SUB, iwd=str(tmp_path),
                                             source="job.sub"))
        slot = _slot(pool.addresses["startd@exec1"])
        requests = await _negotiate(pool, slot)
        assert [r.evaluate("_condor_RESOURCE_COUNT") for r in requests] == [2]
        assert "Memory" in str(requests[0].evaluate("AutoClusterAttrs"))
        await trio.sleep(1)
        assert startd.commands() == ["REQUEST_CLAIM"]
        [(_, start)] = shadow.got
        assert isinstance(start, m.SHADOW_START)
        assert start.job_ad.evaluate("ProcId") == 0
        assert start.job_ad.evaluate("Where") == "slot1@exec1"  # $$() expanded
        assert start.job_ad.evaluate("JobStatus") == 2
        async with await pool.connect("schedd", me="shadow") as conn:
            reply = await conn.request(m.SHADOW_UPDATE(job="1.0", durable=True, ad=ClassAd.parse(
                "[ ImageSize = 2048 ]")))
            assert reply == m.SHADOW_UPDATE_REPLY(ad=ClassAd())
            async with await pool.connect("schedd") as tool:
                edit = await tool.request(m.QEDIT(ids=["1.0"], constraint="", attr="Foo",
                                                  value="40 + 2", owner="alice"))
            assert edit == m.ACT_RESULT(done=["1.0"], errors=[])
            # The shadow is told at once and pulls the change with its next update.
            reply = await conn.request(m.SHADOW_UPDATE(job="1.0", ad=ClassAd(), durable=True))
            assert isinstance(reply, m.SHADOW_UPDATE_REPLY) and str(reply.ad) == \
                "[ Foo = 40 + 2 ]"
            await trio.sleep(59)
            assert shadow.commands() == ["SHADOW_START", "SHADOW_QEDIT"]
            assert await conn.request(m.SHADOW_EXIT(job="1.0", exit_code=100, ad=ClassAd.parse(
                "[ ExitCode = 0 ]"))) == m.OK()
        await trio.sleep(1)
        # The claim is reused for the next idle job at the end of the instant.
        assert shadow.commands() == ["SHADOW_START", "SHADOW_QEDIT", "SHADOW_START"]
        assert [msg.job_ad.evaluate("ProcId") for _, msg in shadow.got
                if isinstance(msg, m.SHADOW_START)] == [0, 1]
        async with await pool.connect("schedd") as conn:
            hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=[], limit=0))
            assert isinstance(hist, m.QUERY_RESULT)
            assert [(a.evaluate("ProcId"), a.evaluate("JobStatus"), a.evaluate("CompletionDate"),
                     a.evaluate("ImageSize")) for a in hist.ads] == [(0, 4, T0 + 60, 2048)]
            act = await conn.request(m.ACT_ON_JOBS(action="hold", ids=["1.1"], constraint="",
                                                   reason="", owner="alice"))
            assert act == m.ACT_RESULT(done=["1.1"], errors=[])
        await trio.sleep(1)
        assert shadow.commands()[-1] == "SHADOW_HOLD"
        async with await pool.connect("schedd", me="shadow") as conn:
            await conn.request(m.SHADOW_EXIT(job="1.1", exit_code=102, ad=ClassAd()))
        await trio.sleep(1)
        # Nothing idle is left: the claim goes back. The keep-alive timer's first firing,
        # 10 s after the schedd started, was the only one in the claim's 62 s.
        assert startd.commands()[-1] == "RELEASE_CLAIM"
        alives = [t for t, msg in startd.got if msg.command == "ALIVE"]
        assert alives == [T0 + 10]
        async with await pool.connect("schedd") as conn:
            q = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(q, m.QUERY_RESULT)
        [job] = q.ads
        assert job.evaluate("JobStatus") == 5 and "RemoteHost" not in job
        assert job.evaluate("LastRemoteHost") == "slot1@exec1"


@asynccontextmanager
async def _claims_pool(
    tmp_path: Path, config: str = ""
) -> AsyncIterator[tuple[InProcessPool, Recorder, Recorder]]:
    """A collector and a schedd with SUB's two jobs; a stand-in startd that accepts every
    claim and every ALIVE, and a shadow that takes every start."""
    startd = Recorder({"REQUEST_CLAIM": m.CLAIM_RESPONSE(accepted=True, reason="",
                                                         slot_ad=None), "ALIVE": m.OK()})
    shadow = Recorder({"SHADOW_START": m.OK()}, ad_type="Shadow")
    cfg = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n" + config)
    daemons = [("collector", Collector), ("schedd", Schedd), ("startd@exec1", lambda: startd),
               ("shadow", lambda: shadow)]
    async with open_inprocess_pool(cfg, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        async with await pool.connect("schedd") as conn:
            await conn.request(m.SUBMIT_JOBS(owner="alice", text=SUB, iwd=str(tmp_path),
                                             source="job.sub"))
        yield pool, startd, shadow


async def test_keep_alives_and_a_refused_claim(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    async with _claims_pool(tmp_path, "ALIVE_INTERVAL = 1000\n") as (pool, startd, shadow):
        start = trio.current_time()
        await _negotiate(pool, _slot(pool.addresses["startd@exec1"]))
        await trio.sleep(1700)
        # JobLeaseDuration 2400 / 3 = 800 s is shorter than ALIVE_INTERVAL here: the timer
        # fires 10 s after the job's start (as HTCondor's RecomputeAliveInterval resets it),
        # then every 800 s.
        alives = [t - start for t, msg in startd.got if msg.command == "ALIVE"]
        assert alives == [10, 810, 1610]
        startd.reply["REQUEST_CLAIM"] = m.CLAIM_RESPONSE(accepted=False, reason="busy",
                                                         slot_ad=None)
        await _negotiate(pool, _slot(pool.addresses["startd@exec1"]))
        await trio.sleep(1)
        async with await pool.connect("schedd") as conn:
            q = await conn.request(m.QUERY_JOB_ADS(constraint="JobStatus == 1", projection=[]))
        assert isinstance(q, m.QUERY_RESULT) and len(q.ads) == 1  # 1.1 stays idle
        assert len(shadow.got) == 1


async def test_keep_alives_are_one_timer_for_every_claim(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """As HTCondor's sendAlives: one periodic timer (first 10 s after the schedd starts, then
    every ALIVE_INTERVAL) sends ALIVE to every claim held at once, whenever each was made."""
    autojump_clock.jump(T0)
    async with _claims_pool(tmp_path) as (pool, startd, shadow):
        slot = _slot(pool.addresses["startd@exec1"])
        await _negotiate(pool, slot, claim=1)
        await trio.sleep(100)
        await _negotiate(pool, slot, claim=2)
        await trio.sleep(900 - (trio.current_time() - T0))
        alives: dict[str, list[float]] = {}
        for t, msg in startd.got:
            if isinstance(msg, m.ALIVE):
                alives.setdefault(msg.claim_id.split("#")[1], []).append(t - T0)
        # the claim made at 100 s waits for the timer (at most one ALIVE_INTERVAL)
        assert alives == {"1": [10, 310, 610], "2": [310, 610]}
        # all of them down one connection the schedd keeps to the startd
        alive_conns = {id(c) for (_, msg), c in zip(startd.got, startd.conns, strict=True)
                       if isinstance(msg, m.ALIVE)}
        assert len(alive_conns) == 1
        assert len(shadow.got) == 2
        assert shadow.conns[0] is shadow.conns[1]  # both SHADOW_STARTs on one connection


class _SlowStartd(Recorder):
    """Holds every REQUEST_CLAIM until ``gate`` opens, counting the connections it holds."""

    def __init__(self) -> None:
        super().__init__({"REQUEST_CLAIM": m.CLAIM_RESPONSE(accepted=True, reason="",
                                                            slot_ad=None)})
        self.gate = trio.Event()
        self.open = self.most_open = 0

    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.REQUEST_CLAIM):
            self.open += 1
            self.most_open = max(self.most_open, self.open)
            await self.gate.wait()
            self.open -= 1
        await super()._handle(msg, conn)


async def test_a_storm_of_claims_keeps_at_most_256_connections_open(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """300 matches in one cycle to one startd: the claim requests go 256 at a time (10,000 at
    once overflowed the startd's listen queue and some were reset), and every one is made."""
    autojump_clock.jump(T0)
    startd = _SlowStartd()
    shadow = Recorder({"SHADOW_START": m.OK()}, ad_type="Shadow")
    cfg = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("schedd", Schedd), ("startd@exec1", lambda: startd),
               ("shadow", lambda: shadow)]
    async with open_inprocess_pool(cfg, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        async with await pool.connect("schedd") as conn:
            await conn.request(m.SUBMIT_JOBS(owner="alice", text=SUB.replace(
                "queue 2", "queue 300"), iwd=str(tmp_path), source="job.sub"))
        slot = _slot(pool.addresses["startd@exec1"])
        async with await pool.connect("schedd", me="negotiator") as conn:
            await conn.send(m.NEGOTIATE(submitter="alice@localhost",
                                        ad=ClassAd.parse('[ AutoClusterAttrs = "Memory" ]')))
            reply = await conn.request(m.SEND_RESOURCE_REQUEST_LIST(count=10))
            assert isinstance(reply, m.RESOURCE_REQUEST_LIST)
            for i in range(300):
                await conn.send(m.PERMISSION_AND_AD(
                    claim_id=f"{slot.evaluate('MyAddress')}#{i}#1", slot_ad=slot,
                    request_index=0))
            await conn.send(m.END_NEGOTIATE())
        await trio.testing.wait_all_tasks_blocked()
        assert startd.most_open == 256
        startd.gate.set()
        await trio.sleep(5)
        assert startd.commands().count("REQUEST_CLAIM") == 300
        assert shadow.commands().count("SHADOW_START") == 300
