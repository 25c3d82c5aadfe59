"""The clock link proves the pool key as daemon connections do: a HELLO without the proof,
with a proof made with another key, or with a proof seen before, is refused (the link
closed, the refusal logged) and joins nothing; the pool's time goes on with the processes
that hold the key."""

from __future__ import annotations

import os
from typing import Any

import msgpack
import trio

from condorsim.runtime.clock import VirtualClock
from condorsim.runtime.coordination import (
    HELLO,
    REPORT,
    RUN,
    CoordinatorHost,
    run_participant_link,
)
from condorsim.runtime.coordinator import Coordinator
from condorsim.runtime.network import TcpNetwork, parse_sinful
from condorsim.runtime.participant import Participant
from condorsim.security import proof

KEY = os.urandom(32)


class _Log:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def warning(self, event: str, **fields: Any) -> None:
        self.records.append((event, fields))


async def _hello(address: str, *hello: object) -> tuple[trio.socket.SocketType, bytes]:
    """Say ``hello`` on a new link; what the host sends first (b"" if it closed it)."""
    sock = trio.socket.socket()
    await sock.connect(parse_sinful(address))
    await sock.send(msgpack.packb((HELLO, *hello)))
    return sock, await sock.recv(4096)


def test_a_link_that_does_not_prove_the_pool_key_is_refused_and_logged() -> None:
    clock = VirtualClock(1000.0)
    log = _Log()
    host = CoordinatorHost(Coordinator(now=1000.0), clock, Participant(clock),
                           local_name="driver", log=log, key=KEY)
    trio.run(_refusals, host, clock, log, clock=clock)


async def _refusals(host: CoordinatorHost, clock: VirtualClock, log: _Log) -> None:
    async with trio.open_nursery() as nursery:
        address = await nursery.start(
            lambda task_status: host.run(TcpNetwork(), task_status=task_status))
        good = proof(KEY, address, "schedd")
        tries = [
            ("schedd", 1),                                          # no proof at all
            ("schedd", 1, ""),                                      # an empty one
            ("schedd", 1, proof(os.urandom(32), address, "schedd")),  # another key
            ("schedd", 1, proof(KEY, "<127.0.0.1:1>", "schedd")),  # made for another host
            ("collector", 1, good),                                 # someone else's
        ]
        for hello in tries:
            sock, first = await _hello(address, *hello)
            assert first == b"", hello  # closed: no RUN for it
            sock.close()
        assert "schedd" not in host.coordinator.participants
        assert "collector" not in host.coordinator.participants
        assert [e for e, _ in log.records] == ["clock_link_refused"] * len(tries)
        assert "did not prove the pool key" in log.records[0][1]["reason"]
        assert "does not hold the pool key" in log.records[2][1]["reason"]
        # the key holder joins, and the pool's time moves on with it
        sock, first = await _hello(address, "schedd", 1, good)
        assert msgpack.unpackb(first, use_list=False) == (RUN, 1000.0, False, 0)
        await sock.send(msgpack.packb((REPORT, 0, 0, 1300.0, False)))
        assert msgpack.unpackb(await sock.recv(4096), use_list=False) == (RUN, 1300.0, False, 1)
        assert clock.now == 1300.0
        # the same proof again (read off the wire) is a replay: refused
        again, first = await _hello(address, "schedd", 1, good)
        assert first == b"" and log.records[-1][1]["reason"].endswith("(a replay)")
        sock.close()
        again.close()
        nursery.cancel_scope.cancel()


def test_a_process_with_the_key_links_through_run_participant_link() -> None:
    clock = VirtualClock(0.0)
    host = CoordinatorHost(Coordinator(now=0.0), clock, Participant(clock),
                           local_name="driver", log=_Log(), key=KEY)
    trio.run(_linked, host, clock=clock)


async def _linked(host: CoordinatorHost) -> None:
    async with trio.open_nursery() as nursery:
        address = await nursery.start(
            lambda task_status: host.run(TcpNetwork(), task_status=task_status))
        other = VirtualClock(0.0)  # the participant's process has a clock of its own
        nursery.start_soon(run_participant_link, TcpNetwork(), address, "startd",
                           Participant(other), other, KEY)
        while "startd" not in host.coordinator.participants:
            await trio.sleep(0)
        assert host.log is not None and host.log.records == []  # type: ignore[attr-defined]
        nursery.cancel_scope.cancel()
