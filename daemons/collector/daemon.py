"""condor_collector's runner: the wire in front of :class:`~.logic.CollectorState`.

How this works
--------------
Listens on the port of COLLECTOR_HOST (0 means any free port; the master passes the real
address on to the other daemons). Each UPDATE_* message replaces an ad, each QUERY_* is
answered with a QUERY_RESULT, each INVALIDATE_* removes ads. A timer drops ads that outlived
CLASSAD_LIFETIME. A bad ad or constraint is answered with FAILED and logged; the collector
carries on.
"""

from __future__ import annotations

import trio

from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn, parse_sinful
from condorsim.wire import Message
from condorsim.wire import messages as m

from .logic import CollectorError, CollectorState

UPDATE_TYPES: dict[type, str] = {
    m.UPDATE_STARTD_AD: "Machine",
    m.UPDATE_SCHEDD_AD: "Scheduler",
    m.UPDATE_SUBMITTOR_AD: "Submitter",
    m.UPDATE_NEGOTIATOR_AD: "Negotiator",
    m.UPDATE_MASTER_AD: "DaemonMaster",
    m.UPDATE_COLLECTOR_AD: "Collector",
    m.UPDATE_GRID_AD: "Grid",
}
QUERY_TYPES: dict[type, str] = {
    m.QUERY_STARTD_ADS: "Machine",
    m.QUERY_SCHEDD_ADS: "Scheduler",
    m.QUERY_SUBMITTOR_ADS: "Submitter",
    m.QUERY_MASTER_ADS: "DaemonMaster",
    m.QUERY_NEGOTIATOR_ADS: "Negotiator",
    m.QUERY_COLLECTOR_ADS: "Collector",
    m.QUERY_ANY_ADS: "Any",
}
INVALIDATE_TYPES: dict[type, str] = {
    m.INVALIDATE_STARTD_ADS: "Machine",
    m.INVALIDATE_SCHEDD_ADS: "Scheduler",
    m.INVALIDATE_SUBMITTOR_ADS: "Submitter",
    m.INVALIDATE_MASTER_ADS: "DaemonMaster",
    m.INVALIDATE_NEGOTIATOR_ADS: "Negotiator",
}


class Collector:
    def __init__(self) -> None:
        self.state: CollectorState | None = None
        self._wakeup = trio.Event()

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self.state = CollectorState(lifetime=ctx.config.get_int("CLASSAD_LIFETIME", 900))
        self._ctx = ctx
        port = 0
        host = (ctx.config.get("COLLECTOR_HOST") or "").strip()
        if host:
            try:
                port = parse_sinful(host if host.startswith("<") else f"<{host}>")[1]
            except ValueError:
                port = 0
        async with trio.open_nursery() as nursery:
            address = await nursery.start(lambda task_status: ctx.serve(self._handle, task_status=task_status, port=port))
            nursery.start_soon(self._expire_loop)
            task_status.started(address)

    async def _expire_loop(self) -> None:
        assert self.state is not None
        while True:
            nxt = self.state.next_expiry()
            with trio.move_on_at(nxt if nxt is not None else float("inf")):
                await self._wakeup.wait()
            self._wakeup = trio.Event()
            removed = self.state.expire(int(trio.current_time()))
            for ad in removed:
                self._ctx.log.info("ad_expired", name=str(ad.get("Name")))

    async def _handle(self, msg: Message, conn: Conn) -> None:
        assert self.state is not None
        now = int(trio.current_time())
        try:
            adtype = UPDATE_TYPES.get(type(msg))
            if adtype is not None or isinstance(msg, m.UPDATE_AD_GENERIC):
                ad = msg.ad  # type: ignore[attr-defined]
                if adtype is None:
                    adtype = str(ad.evaluate("MyType"))
                self.state.update(adtype, ad, now)
                self._wakeup.set()
                return  # updates are one-way, as in HTCondor
            adtype = QUERY_TYPES.get(type(msg))
            if adtype is not None or isinstance(msg, m.QUERY_GENERIC_ADS):
                if adtype is None:
                    adtype = msg.adtype  # type: ignore[attr-defined]
                ads = self.state.query(
                    adtype, msg.constraint or None, msg.projection or None, now  # type: ignore[attr-defined]
                )
                await conn.send(m.QUERY_RESULT(ads=ads))
                return
            adtype = INVALIDATE_TYPES.get(type(msg))
            if adtype is not None or isinstance(msg, m.INVALIDATE_ADS_GENERIC):
                if adtype is None:
                    adtype = msg.adtype  # type: ignore[attr-defined]
                self.state.invalidate(adtype, msg.constraint, now)  # type: ignore[attr-defined]
                return
            await conn.send(m.FAILED(reason=f"the collector does not take {type(msg).__name__}"))
        except CollectorError as e:
            self._ctx.log.warning("bad_request", cmd=type(msg).__name__, error=str(e))
            if QUERY_TYPES.get(type(msg)) or isinstance(msg, m.QUERY_GENERIC_ADS):
                await conn.send(m.FAILED(reason=str(e)))
