"""TcpNetwork.connect to a numeric address: a connection made at once needs no wait of the
event loop and carries bytes, and one that cannot be made is refused as a connect is."""

from __future__ import annotations

import socket

import pytest
import trio
import trio.testing

from condorsim.runtime.network import TcpNetwork, sinful


async def test_a_connection_carries_bytes_both_ways() -> None:
    net = TcpNetwork()
    address, listener = await net.listen()
    for _ in range(3):  # each connection made at once (loopback, room in the queue)
        client = await net.connect(address)
        server = await listener.accept()
        await client.send_all(b"ping")
        assert await server.receive_some(4) == b"ping"
        await server.send_all(b"pong")
        assert await client.receive_some(4) == b"pong"
        await client.aclose()
        await server.aclose()
    await listener.aclose()


async def test_a_port_nobody_listens_on_is_refused() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # bound, never listened on: a connect to it is refused
    address = sinful("127.0.0.1", port)
    with pytest.raises(ConnectionRefusedError, match=f"cannot connect to {address}"):
        await TcpNetwork().connect(address)



async def test_the_listener_takes_queued_connections_and_waits_for_the_next() -> None:
    """Connections queued before accept are each taken, in order; accept then waits for
    the next one (or is cancelled), and a closed listener ends a waiting accept."""
    net = TcpNetwork()
    address, listener = await net.listen()
    clients = [await net.connect(address) for _ in range(3)]
    for i, client in enumerate(clients):
        await client.send_all(bytes([i]))
    for i in range(3):
        server = await listener.accept()
        assert await server.receive_some(1) == bytes([i])
        await server.aclose()
    with trio.move_on_after(0.05) as scope:  # nothing queued: accept waits
        await listener.accept()
    assert scope.cancelled_caught

    async def late() -> None:
        await trio.testing.wait_all_tasks_blocked()
        clients.append(await net.connect(address))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(late)
        server = await listener.accept()  # woken by the connection made while it waited
        await server.aclose()
    for client in clients:
        await client.aclose()

    ended: list[bool] = []

    async def waiting() -> None:
        with pytest.raises(trio.ClosedResourceError):
            await listener.accept()
        ended.append(True)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiting)
        await trio.testing.wait_all_tasks_blocked()
        await listener.aclose()
    assert ended


async def test_a_burst_of_connections_lets_other_tasks_run_between_accepts() -> None:
    """A listener with many connections queued still yields to the daemon's other tasks
    every so many connections (each taken holds a file descriptor until it is served)."""
    net = TcpNetwork()
    address, listener = await net.listen()
    clients = [await net.connect(address) for _ in range(40)]
    ticks: list[int] = []
    taken = 0

    async def other_task() -> None:
        while taken < 40:
            ticks.append(taken)
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other_task)
        for _ in range(40):
            server = await listener.accept()
            taken += 1
            server.socket.close()  # type: ignore[attr-defined]  # no await: no yield here
    assert any(0 < t < 40 for t in ticks)  # it ran while the burst was being accepted
    for client in clients:
        await client.aclose()
    await listener.aclose()
