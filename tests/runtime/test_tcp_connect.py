"""TcpNetwork.connect to a numeric address: a connection made at once needs no wait of the
event loop and carries bytes, and one that cannot be made is refused as a connect is."""

from __future__ import annotations

import socket

import pytest

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

