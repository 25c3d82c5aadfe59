"""The replay driver's side of the pool: finding daemons and asking them things.

How this works
--------------
The driver is participant ``replay`` of the pool (it lives in the process that hosts the
coordinator and the master). :meth:`PoolClient.request` connects and sends while the
process is marked *busy* -- so simulated time cannot jump while a connection is being
opened -- and then waits for the reply, which the coordinator's message counts already
cover (a request sent and not yet answered keeps the pool from being quiescent).

The schedd is found as a tool finds it: through the collector's Scheduler ad
(``MyAddress``); if that ad is stale (a restarted schedd listens elsewhere) the master's
own record of where its child listens is used.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import trio

from condorsim.classad import ClassAd
from condorsim.runtime.network import Conn, Endpoint
from condorsim.runtime.participant import Participant
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

# MyType -> the collector query that returns it.
AD_QUERIES: dict[str, type[Message]] = {
    "machine": m.QUERY_STARTD_ADS,
    "scheduler": m.QUERY_SCHEDD_ADS,
    "submitter": m.QUERY_SUBMITTOR_ADS,
    "negotiator": m.QUERY_NEGOTIATOR_ADS,
    "daemonmaster": m.QUERY_MASTER_ADS,
    "collector": m.QUERY_COLLECTOR_ADS,
}


async def _read_answer(conn: Conn) -> None:
    async with conn:
        try:
            await conn.receive()
        except (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError):
            pass


class PoolUnreachable(RuntimeError):
    """A daemon the scenario needs did not answer (not running, or not written yet)."""


@dataclass
class PoolClient:
    """Talks to the pool's daemons as participant ``replay``."""

    endpoint: Endpoint
    participant: Participant | None
    master: object  # daemons.master.master.Master (kept untyped: the core never imports daemons)
    _schedd: str | None = None

    def _busy(self) -> AbstractContextManager[None]:
        return self.participant.busy() if self.participant is not None else nullcontext()

    def child_address(self, name: str) -> str | None:
        """Where the master's child ``name`` listens now (None if it is not running)."""
        children = getattr(self.master, "children", {})
        child = children.get(name)
        return None if child is None else child.address

    @property
    def collector(self) -> str:
        address = getattr(self.master, "collector_address", None)
        if address is None:
            raise PoolUnreachable("the pool has no collector")
        return str(address)

    async def request(self, address: str, peer: str, msg: Message) -> Message:
        """Send ``msg`` to the daemon at ``address`` and return its reply."""
        try:
            with self._busy():
                conn = await self.endpoint.connect(address, peer)
                await conn.send(msg)
            async with conn:
                return await conn.receive()
        except (OSError, ConnectionClosed, ProtocolError) as e:
            raise PoolUnreachable(f"the {peer} at {address} did not answer: {e}") from None

    async def send_control(self, address: str, peer: str, msg: Message,
                           nursery: trio.Nursery) -> None:
        """Send a daemon-control command (DC_RECONFIG). Daemons differ on whether one is
        answered, so any answer is read (and counted) by a task of ``nursery`` and never
        waited for."""
        try:
            with self._busy():
                conn = await self.endpoint.connect(address, peer)
                await conn.send(msg)
        except (OSError, ConnectionClosed, ProtocolError) as e:
            raise PoolUnreachable(f"the {peer} at {address} did not answer: {e}") from None
        nursery.start_soon(_read_answer, conn)

    async def collector_ads(self, adtype: str) -> list[ClassAd]:
        """The collector's ads of MyType ``adtype`` (any case)."""
        query: Any = AD_QUERIES.get(adtype.lower())
        msg = query(constraint="", projection=[]) if query is not None else \
            m.QUERY_GENERIC_ADS(adtype=adtype, constraint="", projection=[])
        reply = await self.request(self.collector, "collector", msg)
        if not isinstance(reply, m.QUERY_RESULT):
            raise PoolUnreachable(f"the collector answered {reply.command} to a query")
        return list(reply.ads)

    async def daemon_address(self, name: str, adtype: str) -> str | None:
        """A daemon's address: its collector ad's MyAddress if that one answers, else the
        master's record; None when the pool has no such daemon."""
        known = self.child_address(name)
        if known is None and name not in getattr(self.master, "children", {}):
            return None
        for ad in await self.collector_ads(adtype):
            address = ad.evaluate("MyAddress")
            if isinstance(address, str) and address == known:
                return address
        return known

    async def schedd(self) -> str:
        if self._schedd is None or self._schedd != self.child_address("schedd"):
            address = await self.daemon_address("schedd", "Scheduler")
            if address is None:
                raise PoolUnreachable("the pool has no schedd (DAEMON_LIST has no SCHEDD)")
            self._schedd = address
        return self._schedd

    async def schedd_request(self, msg: Message) -> Message:
        return await self.request(await self.schedd(), "schedd", msg)

    async def job_ads(self, *, history: bool, projection: list[str] | None = None) -> list[ClassAd]:
        """The schedd's queue (or its history), every job."""
        if "schedd" not in getattr(self.master, "children", {}):
            return []
        msg: Message = (
            m.QUERY_HISTORY(constraint="", projection=projection or [], limit=0)
            if history else m.QUERY_JOB_ADS(constraint="", projection=projection or [])
        )
        reply = await self.schedd_request(msg)
        if not isinstance(reply, m.QUERY_RESULT):
            why = reply.reason if isinstance(reply, m.FAILED) else reply.command
            raise PoolUnreachable(f"the schedd refused {msg.command}: {why}")
        return list(reply.ads)
