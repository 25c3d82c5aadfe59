"""The coordinator's host over a real loopback socket, spoken to by hand: msgpack tuples."""

from __future__ import annotations

import msgpack
import trio

from condorsim.runtime.clock import VirtualClock
from condorsim.runtime.coordination import FINISH, HELLO, REPORT, RUN, CoordinatorHost
from condorsim.runtime.coordinator import Coordinator
from condorsim.runtime.network import TcpNetwork, parse_sinful
from condorsim.runtime.participant import Participant


class _Peer:
    """A participant process, played by the test."""

    def __init__(self, sock: trio.socket.SocketType) -> None:
        self.sock = sock
        self.unpacker = msgpack.Unpacker(use_list=False)

    @classmethod
    async def connect(cls, address: str, name: str) -> _Peer:
        sock = trio.socket.socket()
        await sock.connect(parse_sinful(address))
        peer = cls(sock)
        await peer.send(HELLO, name, 1)
        return peer

    async def send(self, *msg: object) -> None:
        await self.sock.send(msgpack.packb(msg))

    async def receive(self) -> tuple[object, ...]:
        while True:  # no timeout here: it would be a timer of the pool (conftest's watchdog)
            for msg in self.unpacker:
                return msg  # type: ignore[no-any-return]
            data = await self.sock.recv(4096)
            assert data, "the host closed the link"
            self.unpacker.feed(data)


def test_a_participant_is_run_on_hello_and_jumps_with_the_pool() -> None:
    clock = VirtualClock(1000.0)
    host = CoordinatorHost(Coordinator(now=1000.0), clock, Participant(clock), local_name="driver")
    trio.run(_first, host, clock, clock=clock)


async def _first(host: CoordinatorHost, clock: VirtualClock) -> None:
    async with trio.open_nursery() as nursery:
        address = await nursery.start(
            lambda task_status: host.run(TcpNetwork(), task_status=task_status))
        peer = await _Peer.connect(address, "p")
        assert await peer.receive() == (RUN, 1000.0, False, 0)
        await peer.send(REPORT, 0, 0, 1300.0, False)
        # The host's own process reports by itself; the pool jumps to p's timer.
        assert await peer.receive() == (RUN, 1300.0, False, 1)
        assert clock.now == 1300.0 and host.coordinator.jumps == 1
        await peer.send(REPORT, 0, 0, None, False)
        assert await peer.receive() == (FINISH,)
        await host.finished.wait()
        assert host.finish_reason == "no timer left"
        peer.sock.close()
        nursery.cancel_scope.cancel()


def test_a_restarted_process_that_says_hello_first_replaces_its_old_link() -> None:
    clock = VirtualClock(0.0)
    host = CoordinatorHost(Coordinator(now=0.0), clock, Participant(clock), local_name="driver")
    trio.run(_second, host, clock, clock=clock)


async def _second(host: CoordinatorHost, clock: VirtualClock) -> None:
    async with trio.open_nursery() as nursery:
        address = await nursery.start(
            lambda task_status: host.run(TcpNetwork(), task_status=task_status))
        old = await _Peer.connect(address, "collector")
        assert await old.receive() == (RUN, 0.0, False, 0)
        await old.send(REPORT, 5, 0, 50.0, False)  # five messages sent, never handled
        new = await _Peer.connect(address, "collector")
        assert await new.receive() == (RUN, 0.0, False, 0)
        await new.send(REPORT, 0, 0, 60.0, False)
        # The old one left (its five messages written off after a look); time moves on.
        assert await new.receive() == (RUN, 0.0, False, 0)  # the look after a death
        await new.send(REPORT, 0, 0, 60.0, False)
        assert await new.receive() == (RUN, 60.0, False, 1)
        assert clock.now == 60.0
        old.sock.close()
        new.sock.close()
        nursery.cancel_scope.cancel()
