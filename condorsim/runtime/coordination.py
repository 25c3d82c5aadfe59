"""Virtual time over sockets: the coordinator's host (in the master) and each process's link.

How this works
--------------
The master runs :class:`CoordinatorHost`: it listens for participant links, feeds what they
say (hello, idle reports, prepared) to the sans-I/O :class:`~.coordinator.Coordinator`, and
carries out the actions it returns, in order, on every link. The master's own process is a
participant too, served directly (no socket). Every other process runs
:func:`run_participant_link`: it says hello, then answers polls once idle, runs end-of-instant
work, and moves its :class:`~.clock.VirtualClock` on PREPARE / ADVANCE.

Coordination messages are not pool messages: they are neither counted nor traced.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import trio

from condorsim.wire import ConnectionClosed, MessageStream, ProtocolError
from condorsim.wire.messages import (
    SIM_CLOCK_ADVANCE,
    SIM_CLOCK_HELLO,
    SIM_CLOCK_IDLE,
    SIM_CLOCK_POLL,
    SIM_CLOCK_PREPARE,
    SIM_CLOCK_PREPARED,
    SIM_END_OF_INSTANT,
)

from .clock import VirtualClock
from .coordinator import Action, Advance, Coordinator, EndOfInstant, Finished, Poll, Prepare
from .network import Network
from .participant import Participant


@dataclass
class CoordinatorHost:
    """Hosts the pool's coordinator; the process it runs in is participant ``local_name``."""

    coordinator: Coordinator
    clock: VirtualClock
    local: Participant
    local_name: str = "master"
    log: object = None
    finished: trio.Event = field(default_factory=trio.Event)
    finish_reason: str = ""
    _links: dict[str, trio.MemorySendChannel[object]] = field(default_factory=dict)
    _nursery: trio.Nursery | None = None

    async def run(self, network: Network, *, task_status: trio.TaskStatus[str]) -> None:
        """Listen for participants and coordinate until cancelled."""
        address, listener = await network.listen()
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                self._apply(self.coordinator.join(self.local_name))
                task_status.started(address)
                while True:
                    stream = await listener.accept()
                    nursery.start_soon(self._serve_link, MessageStream(stream))
        finally:
            with trio.CancelScope(shield=True):
                await listener.aclose()

    async def _serve_link(self, ms: MessageStream) -> None:
        name = None
        out_send, out_receive = trio.open_memory_channel[object](1000)
        try:
            hello = await ms.receive()
            if not isinstance(hello, SIM_CLOCK_HELLO):
                raise ProtocolError(f"expected SIM_CLOCK_HELLO, got {type(hello).__name__}")
            name = hello.name
            assert self._nursery is not None
            self._nursery.start_soon(self._pump, ms, out_receive)
            self._links[name] = out_send
            self._apply(self.coordinator.join(name))
            while True:
                msg = await ms.receive()
                if isinstance(msg, SIM_CLOCK_IDLE):
                    self._apply(
                        self.coordinator.report(
                            name, msg.round, msg.sent, msg.received, msg.next_deadline,
                            msg.eoi_pending,
                        )
                    )
                elif isinstance(msg, SIM_CLOCK_PREPARED):
                    self._apply(self.coordinator.prepared(name))
                else:
                    raise ProtocolError(f"unexpected {type(msg).__name__} on a clock link")
        except (ConnectionClosed, ProtocolError, trio.BrokenResourceError, OSError):
            pass
        finally:
            if name is not None and self._links.get(name) is out_send:
                del self._links[name]
                self._apply(self.coordinator.leave(name))
            out_send.close()
            with trio.CancelScope(shield=True):
                await ms.aclose()

    async def _pump(self, ms: MessageStream, out: trio.MemoryReceiveChannel[object]) -> None:
        async with out:
            try:
                async for msg in out:
                    await ms.send(msg)  # type: ignore[arg-type]
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    def _broadcast(self, msg: object) -> None:
        for out in list(self._links.values()):
            try:
                out.send_nowait(msg)
            except (trio.BrokenResourceError, trio.ClosedResourceError, trio.WouldBlock):
                pass

    def _apply(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Poll):
                self._broadcast(SIM_CLOCK_POLL(round=action.round))
                assert self._nursery is not None
                self._nursery.start_soon(self._local_poll, action.round)
            elif isinstance(action, EndOfInstant):
                self._broadcast(SIM_END_OF_INSTANT(round=action.round))
                self.local.run_end_of_instant()
            elif isinstance(action, Prepare):
                self._broadcast(SIM_CLOCK_PREPARE(now=action.now))
                self.clock.prepare(action.now)
                self._apply(self.coordinator.prepared(self.local_name))
            elif isinstance(action, Advance):
                self._broadcast(SIM_CLOCK_ADVANCE(now=action.now))
                self.clock.advance(action.now)
            elif isinstance(action, Finished):
                self.finish_reason = action.reason
                self.finished.set()

    async def _local_poll(self, round: int) -> None:
        await self.local.wait_idle()
        rep = self.local.idle_report()
        self._apply(
            self.coordinator.report(
                self.local_name, round, rep.sent, rep.received, rep.next_deadline,
                rep.eoi_pending,
            )
        )


async def run_participant_link(
    network: Network, address: str, name: str, participant: Participant, clock: VirtualClock
) -> None:
    """This process's side of virtual time: runs until the coordinator goes away."""
    stream = await network.connect(address)
    ms = MessageStream(stream)
    try:
        await ms.send(SIM_CLOCK_HELLO(name=name, pid=os.getpid()))
        while True:
            msg = await ms.receive()
            if isinstance(msg, SIM_CLOCK_POLL):
                await participant.wait_idle()
                rep = participant.idle_report()
                await ms.send(
                    SIM_CLOCK_IDLE(
                        round=msg.round, sent=rep.sent, received=rep.received,
                        next_deadline=rep.next_deadline, eoi_pending=rep.eoi_pending,
                    )
                )
            elif isinstance(msg, SIM_END_OF_INSTANT):
                participant.run_end_of_instant()
            elif isinstance(msg, SIM_CLOCK_PREPARE):
                clock.prepare(msg.now)
                await ms.send(SIM_CLOCK_PREPARED(now=msg.now))
            elif isinstance(msg, SIM_CLOCK_ADVANCE):
                clock.advance(msg.now)
    except (ConnectionClosed, trio.BrokenResourceError, OSError):
        return
    finally:
        with trio.CancelScope(shield=True):
            await ms.aclose()
