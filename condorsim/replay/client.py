"""The replay driver's side of the pool: finding daemons and asking them things.

How this works
--------------
The driver is participant ``replay`` of the pool (it lives in the process that hosts the
coordinator and the master). :meth:`PoolClient.request` connects and sends while the
process is marked *busy* -- so simulated time cannot jump while a connection is being
opened -- and then waits for the reply, which the coordinator's message counts already
cover (a request sent and not yet answered keeps the pool from being quiescent).

The schedd is found as a tool finds it: through the collector's Scheduler ad
(``MyAddress``); if that ad is stale (a restarted schedd listens elsewhere) or the collector
is down, the master's own record of where its child listens is used.

Dead daemons
------------
A daemon the driver needs (the schedd, the collector, the gridmanager) may be dead: killed
by a ``kill`` action, its restart timer set by the master (MASTER_BACKOFF_CONSTANT and the
rest). :meth:`PoolClient.wait_running` asks the master (its read-only
``restart_state``) and, while the master will start the daemon again, waits for that in
simulated time: it lets the clock move (:meth:`.instants.Instants.wait_moved`, the driver
is not busy meanwhile) and settles each new instant, until the daemon runs again. It fails
at once, naming the daemon and why, when the master will not start it again (condor_off,
the pool stopping), when a restart failed to start, when DAEMON_LIST has no such daemon,
or when the run has reached its end (``frozen``: the end checks, when time stands still).
A connection that fails because its daemon died under it (the master's record says it is
dead) is asked again once the daemon is back: always for a query, and for anything else
only when nothing reached the daemon (a submit a dying schedd may have taken is not sent
twice).
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

from .instants import Instants

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
    """A daemon the scenario needs did not answer and will not (not running and not
    restarted, or not before the run's end)."""


class _NoAnswer(Exception):
    def __init__(self, text: str, sent: bool) -> None:
        super().__init__(text)
        self.sent = sent  # the message reached the daemon's socket before it failed


@dataclass
class PoolClient:
    """Talks to the pool's daemons as participant ``replay``."""

    endpoint: Endpoint
    participant: Participant | None
    master: object  # daemons.master.master.Master (kept untyped: the core never imports daemons)
    instants: Instants | None = None  # how the client waits for a restart (None: it cannot)
    log: Any = None
    start: int = 0  # the scenario's start, for "t=..." in messages
    # Set when the run is over (the end checks): simulated time stands still, so a dead
    # daemon can no longer be waited for.
    frozen: bool = False
    _schedd: str | None = None

    def _busy(self) -> AbstractContextManager[None]:
        return self.participant.busy() if self.participant is not None else nullcontext()

    # -- the master's children ---------------------------------------------------------------
    def child_address(self, name: str) -> str | None:
        """Where the master's child ``name`` listens now (None if it is not running)."""
        state = self._state(name)
        return None if state is None or not state.running else state.address

    def _state(self, name: str) -> Any:
        """The master's :class:`daemons.master.master.RestartState` of ``name`` (None: no
        such daemon)."""
        return self.master.restart_state(name)  # type: ignore[attr-defined]

    def awaiting_restart(self) -> list[str]:
        """The daemons that are dead and that the master will start again."""
        children = getattr(self.master, "children", {})
        return [name for name in children
                if not (state := self._state(name)).running and not state.gave_up]

    async def wait_running(self, name: str) -> str:
        """The address of the master's child ``name`` once it runs; a dead one the master
        will start again is waited for in simulated time."""
        waiting_since: float | None = None
        while True:
            state = self._state(name)
            if state is None:
                raise PoolUnreachable(f"the pool has no {name} (DAEMON_LIST has no "
                                      f"{name.upper()})")
            if state.running:
                if waiting_since is not None and self.log is not None:
                    self.log.info("daemon_back", target=name,
                                  waited=int(trio.current_time() - waiting_since))
                return str(state.address)
            if state.gave_up:
                raise PoolUnreachable(f"the {name} is not running and the master will not "
                                      f"start it again: {state.gave_up}")
            if state.start_failed:
                raise PoolUnreachable(f"the {name} died and the master could not start it "
                                      f"again: {state.start_failed} (see log/{name}.stderr)")
            if self.frozen or self.instants is None or self.instants.finished:
                when = "" if state.restart_at is None else \
                    f" at t={int(state.restart_at) - self.start}s"
                raise PoolUnreachable(f"the {name} is dead (the master restarts it{when}) "
                                      "and the run reached its end before it was back")
            if waiting_since is None:
                waiting_since = trio.current_time()
                if self.log is not None:
                    self.log.info("waiting_for_restart", target=name,
                                  restart_at=state.restart_at)
            await self.instants.wait_moved()
            await self.instants.settle()

    async def _died(self, name: str) -> bool:
        """After a failed connection to ``name``: whether it is dead (its death seen by the
        master once the instant has settled)."""
        state = self._state(name)
        if state is not None and state.running and not self.frozen \
                and self.instants is not None and not self.instants.finished:
            await self.instants.settle()
            state = self._state(name)
        return state is not None and not state.running

    # -- requests ------------------------------------------------------------------------------
    @property
    def collector(self) -> str:
        address = getattr(self.master, "collector_address", None)
        if address is None:
            raise PoolUnreachable("the pool has no collector")
        return str(address)

    async def _send(self, address: str, peer: str, msg: Message) -> Message:
        sent = False
        try:
            with self._busy():
                conn = await self.endpoint.connect(address, peer)
                await conn.send(msg)
                sent = True
            async with conn:
                return await conn.receive()
        except (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError) as e:
            raise _NoAnswer(f"the {peer} at {address} did not answer: {e}", sent) from None

    async def request(self, address: str, peer: str, msg: Message) -> Message:
        """Send ``msg`` to the daemon at ``address`` and return its reply."""
        try:
            return await self._send(address, peer, msg)
        except _NoAnswer as e:
            raise PoolUnreachable(str(e)) from None

    async def ask(self, name: str, msg: Message) -> Message:
        """Send ``msg`` to the master's child ``name`` and return its reply, waiting for
        the daemon's restart if it is dead, or dies before it answers."""
        query = msg.command.startswith("QUERY_")
        while True:
            address = await (self.schedd() if name == "schedd" else self.wait_running(name))
            try:
                return await self._send(address, name, msg)
            except _NoAnswer as e:
                if not await self._died(name):
                    raise PoolUnreachable(str(e)) from None
                if e.sent and not query:
                    raise PoolUnreachable(
                        f"the {name} died before it answered {msg.command}; it may or may "
                        "not have been done") from None
                if self.log is not None:
                    self.log.info("daemon_died_during_request", target=name, cmd=msg.command)

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
        reply = await self.ask("collector", _ad_query(adtype))
        if not isinstance(reply, m.QUERY_RESULT):
            raise PoolUnreachable(f"the collector answered {reply.command} to a query")
        return list(reply.ads)

    async def daemon_address(self, name: str, adtype: str) -> str | None:
        """A running daemon's address: its collector ad's MyAddress if that one answers,
        else (a stale ad, or the collector down) the master's record; None when the pool
        has no such daemon."""
        if self._state(name) is None:
            return None
        known = await self.wait_running(name)
        if self.child_address("collector") is None:
            return known
        try:
            reply = await self._send(self.collector, "collector", _ad_query(adtype))
        except _NoAnswer:
            return known
        for ad in reply.ads if isinstance(reply, m.QUERY_RESULT) else []:
            address = ad.evaluate("MyAddress")
            if isinstance(address, str) and address == known:
                return address
        return known

    async def schedd(self) -> str:
        """The schedd's address, once it runs (:meth:`wait_running`)."""
        known = await self.wait_running("schedd")
        if self._schedd != known:
            self._schedd = await self.daemon_address("schedd", "Scheduler")
        assert self._schedd is not None
        return self._schedd

    async def schedd_request(self, msg: Message) -> Message:
        return await self.ask("schedd", msg)

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


def _ad_query(adtype: str) -> Message:
    """The collector query for ads of MyType ``adtype`` (any case)."""
    query: Any = AD_QUERIES.get(adtype.lower())
    return query(constraint="", projection=[]) if query is not None else \
        m.QUERY_GENERIC_ADS(adtype=adtype, constraint="", projection=[])

