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

from collections.abc import Mapping

import trio

from condorsim.classad import ClassAd
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn, parse_sinful
from condorsim.wire import Message
from condorsim.wire import messages as m

from .keys import INVALIDATE_COMMANDS, QUERY_COMMANDS, UPDATE_COMMANDS, adtype_for_command
from .logic import CollectorError, CollectorState


def _adtype(msg: Message, by_command: Mapping[str, str]) -> str:
    """The kind of ad a query or invalidation is about: its command's, or the generic
    command's ``adtype`` (which must not be empty: there is no kind to look in)."""
    adtype = getattr(msg, "adtype", None) or by_command.get(msg.command)
    if not adtype:
        raise CollectorError(f"{msg.command} names no ad type (its adtype is empty)")
    return str(adtype)


class Collector:
    def __init__(self) -> None:
        self.state: CollectorState | None = None
        self._wakeup = trio.Event()
        self._expiry_waited: int | None = None  # the next_expiry the expire loop waits for

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
        name = (ctx.config.get("COLLECTOR_NAME") or "").strip()
        # the default "My Pool - $(CONDOR_HOST)" with no CONDOR_HOST: name the host instead
        self._name = name if name and not name.endswith("-") else \
            f"My Pool - {host.split(':')[0] or 'localhost'}"
        async with trio.open_nursery() as nursery:
            address = await nursery.start(lambda task_status: ctx.serve(self._handle, task_status=task_status, port=port))
            self._address = address
            self._start_time = int(trio.current_time())
            nursery.start_soon(self._expire_loop)
            nursery.start_soon(self._self_ad_loop,
                               ctx.config.get_int("COLLECTOR_UPDATE_INTERVAL", 900))
            task_status.started(address)

    def self_ad(self, now: int) -> ClassAd:
        """The collector's own ad (``CollectorDaemon::sendCollectorAd``): the pool's
        running and idle jobs and its machines (:meth:`CollectorState.stats`)."""
        from condorsim.submit._build import CONDOR_VERSION

        assert self.state is not None
        return ClassAd({
            "MyType": "Collector", "Name": self._name, "Machine": "localhost",
            "MyAddress": self._address, "CollectorIpAddr": self._address,
            "CondorVersion": CONDOR_VERSION, "DaemonStartTime": self._start_time,
            **self.state.stats(),
        })

    async def _self_ad_loop(self, interval: int) -> None:
        """Store the collector's own ad at start and every COLLECTOR_UPDATE_INTERVAL."""
        assert self.state is not None
        while True:
            now = int(trio.current_time())
            self.state.update("Collector", self.self_ad(now), now)
            await trio.sleep(max(1, interval))

    async def _expire_loop(self) -> None:
        assert self.state is not None
        while True:
            nxt = self._expiry_waited = self.state.next_expiry()
            with trio.move_on_at(nxt if nxt is not None else float("inf")):
                await self._wakeup.wait()
            self._wakeup = trio.Event()
            removed = self.state.expire(int(trio.current_time()))
            for ad in removed:
                self._ctx.log.info("ad_expired", name=str(ad.get("Name")))

    async def _handle(self, msg: Message, conn: Conn) -> None:
        assert self.state is not None
        now = int(trio.current_time())
        command = msg.command
        try:
            if command in UPDATE_COMMANDS or isinstance(msg, m.UPDATE_AD_GENERIC):
                ad = msg.ad  # type: ignore[attr-defined]
                self.state.update(adtype_for_command(command, ad), ad, now)
                # the expire loop waits for the next expiry; wake it only when that moved
                # (most updates replace an ad whose deadline is not the first)
                if self.state.next_expiry() != self._expiry_waited:
                    self._wakeup.set()
                return  # updates are one-way, as in HTCondor
            if command in QUERY_COMMANDS or isinstance(msg, m.QUERY_GENERIC_ADS):
                adtype = _adtype(msg, QUERY_COMMANDS)
                if str(adtype).lower() in ("collector", "any"):
                    # condorsim refreshes its own ad when asked for it, so that
                    # condor_status -collector shows the pool as it is now
                    self.state.update("Collector", self.self_ad(now), now)
                ads = self.state.query(
                    adtype, msg.constraint or None, msg.projection or None, now,  # type: ignore[attr-defined]
                    shared=True,  # only sent: the stored ads' wire forms are kept
                )
                await conn.send(m.QUERY_RESULT(ads=ads))
                return
            if command in INVALIDATE_COMMANDS or isinstance(msg, m.INVALIDATE_ADS_GENERIC):
                adtype = _adtype(msg, INVALIDATE_COMMANDS)
                self.state.invalidate(adtype, msg.constraint, now)  # type: ignore[attr-defined]
                return
            await conn.send(m.FAILED(reason=f"the collector does not take {command}"))
        except CollectorError as e:
            self._ctx.log.warning("bad_request", cmd=command, error=str(e))
            if command in QUERY_COMMANDS or isinstance(msg, m.QUERY_GENERIC_ADS):
                await conn.send(m.FAILED(reason=str(e)))
