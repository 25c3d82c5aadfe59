"""Fake peers of the shadow and the starter, for in-process pool tests.

FakeStartd answers ACTIVATE_CLAIM by sending STARTER_START to the starter it finds in the
collector, and records STARTER_UPDATE / STARTER_EXITED. FakeSchedd advertises a schedd ad,
records SHADOW_UPDATE (answering with the qedit attributes a test queued) and SHADOW_EXIT.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.eventlog import Event, read_events
from condorsim.runtime.daemon import Daemon, DaemonContext
from condorsim.runtime.inproc import InProcessPool, open_inprocess_pool
from condorsim.runtime.network import Conn
from condorsim.submit import Submit
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.shadow.daemon import Shadow
from daemons.starter.daemon import Starter

EPOCH = 1_767_225_600
CONFIG = "COLLECTOR_HOST = 127.0.0.1:9618\n"


@dataclass
class Received:
    t: float
    msg: Any


@dataclass
class FakeStartd:
    got: list[Received] = field(default_factory=list)
    refuse: bool = False
    address: str = ""
    clock_offset: int = 0

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self.ctx = ctx
        await ctx.serve(self._handle, task_status=task_status)

    async def _handle(self, msg: Message, conn: Conn) -> None:
        self.got.append(Received(trio.current_time(), msg))
        if isinstance(msg, m.ACTIVATE_CLAIM):
            if self.refuse:
                await conn.send(m.FAILED(reason="claim is not ours"))
                return
            async with await self.ctx.connect(self.ctx.collector_address(), "collector") as c:
                reply = await c.request(m.QUERY_GENERIC_ADS(
                    adtype="Starter", constraint='StartdDaemon == "startd"', projection=[]))
            assert isinstance(reply, m.QUERY_RESULT) and len(reply.ads) == 1
            starter = reply.ads[0].evaluate("MyAddress")
            slot = ClassAd({"Name": "slot1@exec1", "MyAddress": self.address,
                            "SimClockOffset": self.clock_offset, "Cpus": 1, "Memory": 512,
                            "Disk": 1000, "MachineResources": "Cpus Memory Disk Swap"})
            async with await self.ctx.connect(starter, "starter") as c:
                answer = await c.request(m.STARTER_START(
                    claim_id=msg.claim_id, job_ad=msg.job_ad, shadow_addr=msg.shadow_addr,
                    slot_ad=slot))
            await conn.send(answer)

    def of(self, kind: type) -> list[Received]:
        return [r for r in self.got if isinstance(r.msg, kind)]


@dataclass
class FakeSchedd:
    got: list[Received] = field(default_factory=list)
    qedits: list[ClassAd] = field(default_factory=list)
    exited: trio.Event = field(default_factory=trio.Event)
    refuse_exits: int = 0  # answer this many SHADOW_EXITs with FAILED

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status))
            ad = ClassAd({"MyType": "Scheduler", "Name": "schedd@localhost",
                          "MyAddress": address})
            async with await ctx.connect(ctx.collector_address(), "collector") as c:
                await c.send(m.UPDATE_SCHEDD_AD(ad=ad))
                task_status.started(address)
                while True:  # every SCHEDD_INTERVAL, as a schedd does
                    await trio.sleep(300)
                    await c.send(m.UPDATE_SCHEDD_AD(ad=ad))

    async def _handle(self, msg: Message, conn: Conn) -> None:
        self.got.append(Received(trio.current_time(), msg))
        if isinstance(msg, m.SHADOW_UPDATE):
            await conn.send(m.SHADOW_UPDATE_REPLY(ad=self.qedits.pop(0) if self.qedits
                                                  else ClassAd()))
        elif isinstance(msg, m.SHADOW_EXIT):
            if self.refuse_exits > 0:
                self.refuse_exits -= 1
                await conn.send(m.FAILED(reason="not now"))
                return
            await conn.send(m.OK())
            self.exited.set()

    def of(self, kind: type) -> list[Received]:
        return [r for r in self.got if isinstance(r.msg, kind)]

    def job_ad(self) -> ClassAd:
        """What the schedd's copy would be: every pushed attribute, then the final ones."""
        ad = ClassAd()
        for r in self.got:
            if isinstance(r.msg, m.SHADOW_UPDATE) or r.msg is self.exit:
                ad.update(r.msg.ad)
        return ad

    @property
    def exit(self) -> m.SHADOW_EXIT:
        """The SHADOW_EXIT the schedd took."""
        last = self.of(m.SHADOW_EXIT)[-1].msg
        assert isinstance(last, m.SHADOW_EXIT)
        return last


@dataclass
class Harness:
    pool: InProcessPool
    startd: FakeStartd
    schedd: FakeSchedd
    iwd: Path

    async def start_job(self, submit: str, cluster: int = 1) -> ClassAd:
        """Submit ``submit`` (one job), mark it running and give it to the shadow."""
        (ad,) = Submit(submit).jobs(count=0, clusterid=cluster, qdate=int(trio.current_time()),
                                    owner="alice", iwd=str(self.iwd))
        ad["JobStatus"] = 2
        slot = ClassAd({"Name": "slot1@exec1", "MyAddress": self.startd.address})
        async with await self.pool.connect("shadow", me="schedd") as conn:
            reply = await conn.request(m.SHADOW_START(
                job_ad=ad, claim_id="claim-1", startd_addr=self.startd.address, slot_ad=slot,
                schedd_addr=""))
        assert isinstance(reply, m.OK)
        return ad

    async def tell_shadow(self, msg: Message) -> None:
        async with await self.pool.connect("shadow", me="schedd") as conn:
            assert isinstance(await conn.request(msg), m.OK)

    def events(self) -> list[Event]:
        path = self.iwd / "job.log"
        return read_events(str(path)) if path.exists() else []

    def trace(self, cmd: str) -> list[dict[str, Any]]:
        return [r for r in self.pool.trace if r["cmd"] == cmd]


@asynccontextmanager
async def open_harness(
    tmp_path: Path, config: str = "", clock_offset: int = 0
) -> AsyncIterator[Harness]:
    """A pool of the real collector, starter and shadow with a fake startd and schedd."""
    startd = FakeStartd(clock_offset=clock_offset)
    schedd = FakeSchedd()
    daemons: list[tuple[str, Callable[[], Daemon]]] = [
        ("collector", Collector), ("starter", Starter), ("startd", lambda: startd),
        ("schedd", lambda: schedd), ("shadow", Shadow),
    ]
    iwd = tmp_path / "iwd"
    iwd.mkdir(exist_ok=True)
    async with open_inprocess_pool(Config.from_text(CONFIG + config), tmp_path, daemons) as pool:
        startd.address = pool.addresses["startd"]
        yield Harness(pool, startd, schedd, iwd)
