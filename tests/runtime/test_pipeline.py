"""RequestPipe: many tasks' requests to one daemon over one kept connection, each answered
with its own reply; a broken connection fails the requests waiting on it and the next
request opens a new one."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from condorsim.classad import ClassAd
from condorsim.runtime.network import Conn, Endpoint, InProcessNetwork
from condorsim.runtime.pipeline import KeptConnection, RequestPipe
from condorsim.wire import ConnectionClosed, Message
from condorsim.wire import messages as m


class _Server:
    """Answers QUERY_SCHEDD_ADS(constraint=X) with FAILED(reason=X); counts connections."""

    def __init__(self) -> None:
        self.connections: list[Conn] = []  # kept alive: an id could be reused
        self.handled = 0
        self.hang_up_after: int | None = None
        self.gate: trio.Event | None = None

    async def handle(self, msg: Message, conn: Conn) -> None:
        if conn not in self.connections:
            self.connections.append(conn)
        assert isinstance(msg, m.QUERY_SCHEDD_ADS)
        if self.gate is not None:
            await self.gate.wait()
        self.handled += 1
        if self.hang_up_after is not None and self.handled > self.hang_up_after:
            self.hang_up_after = None
            await conn.aclose()  # this request and those queued behind it are never answered
            return
        await conn.send(m.FAILED(reason=msg.constraint))


async def _pool(nursery: trio.Nursery) -> tuple[_Server, str, RequestPipe]:
    network = InProcessNetwork()
    server = _Server()
    address = await nursery.start(Endpoint(name="schedd", network=network).serve, server.handle)
    client = Endpoint(name="shadow", network=network)
    return server, address, RequestPipe(client.connect, nursery.start_soon, "schedd")


async def _ask(pipe: RequestPipe, address: str, text: str) -> str:
    reply = await pipe.request(address, m.QUERY_SCHEDD_ADS(constraint=text, projection=[]))
    assert isinstance(reply, m.FAILED)
    return reply.reason


async def test_every_request_gets_its_own_reply_over_one_connection() -> None:
    async with trio.open_nursery() as nursery:
        server, address, pipe = await _pool(nursery)
        replies: dict[int, str] = {}

        async def one(i: int) -> None:
            replies[i] = await _ask(pipe, address, f"job {i}")

        server.gate = trio.Event()  # the first request is held: the others queue behind it
        async with trio.open_nursery() as asking:
            for i in range(200):
                asking.start_soon(one, i)
            await trio.testing.wait_all_tasks_blocked()
            assert server.handled == 0
            server.gate.set()
        assert replies == {i: f"job {i}" for i in range(200)}
        assert len(server.connections) == 1
        nursery.cancel_scope.cancel()


async def test_a_broken_connection_fails_the_waiting_requests_and_the_next_one_reconnects(
) -> None:
    async with trio.open_nursery() as nursery:
        server, address, pipe = await _pool(nursery)
        assert await _ask(pipe, address, "before") == "before"
        server.hang_up_after = 1  # the server closes the connection on the next request
        outcomes: list[str] = []

        async def one(i: int) -> None:
            try:
                outcomes.append(await _ask(pipe, address, f"job {i}"))
            except ConnectionClosed:
                outcomes.append("failed")

        server.gate = trio.Event()
        async with trio.open_nursery() as asking:
            for i in range(5):
                asking.start_soon(one, i)
            await trio.testing.wait_all_tasks_blocked()
            server.gate.set()
        assert outcomes == ["failed"] * 5  # none is lost silently: each caller hears of it
        server.gate = None
        assert await _ask(pipe, address, "after") == "after"
        assert len(server.connections) == 2
        nursery.cancel_scope.cancel()


async def test_a_daemon_that_is_not_there_is_refused() -> None:
    async with trio.open_nursery() as nursery:
        _, _, pipe = await _pool(nursery)
        with pytest.raises(ConnectionRefusedError, match="nothing listens there"):
            await _ask(pipe, "<127.0.0.1:1>", "x")
        nursery.cancel_scope.cancel()


class _Log:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, object]]] = []

    def info(self, event: str, **kw: object) -> None:
        self.records.append((event, kw))

    warning = info


async def test_kept_connection_carries_every_update_and_survives_a_restarted_peer() -> None:
    network = InProcessNetwork()
    got: list[tuple[int, str]] = []
    conns: list[Conn] = []

    async def handle(msg: Message, conn: Conn) -> None:
        assert isinstance(msg, m.UPDATE_AD_GENERIC)
        if conn not in conns:
            conns.append(conn)
        got.append((conns.index(conn), str(msg.ad.evaluate("Name"))))

    log = _Log()
    async with trio.open_nursery() as nursery:
        address = await nursery.start(Endpoint(name="collector", network=network).serve, handle)
        client = Endpoint(name="schedd", network=network)
        kept = KeptConnection(client.connect, lambda: address, "collector", log,
                              "collector_update_failed")

        def update(name: str) -> m.UPDATE_AD_GENERIC:
            return m.UPDATE_AD_GENERIC(ad=ClassAd({"MyType": "Test", "Name": name}))

        assert await kept.send(update("a"), update("b"))
        assert await kept.send(update("c"))
        await trio.testing.wait_all_tasks_blocked()
        assert got == [(0, "a"), (0, "b"), (0, "c")]  # one connection, in order
        await conns[0].aclose()  # the collector went away (and came back)
        await trio.testing.wait_all_tasks_blocked()
        assert await kept.send(update("d"))
        await trio.testing.wait_all_tasks_blocked()
        assert got[-1] == (1, "d")  # not lost in the closed connection: sent on a new one
        network.forget(address)
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:  # nobody listens: logged, not raised
        assert not await kept.send(update("e"))
        assert log.records[-1][0] == "collector_update_failed"
        assert "nothing listens there" in str(log.records[-1][1]["error"])
        nursery.cancel_scope.cancel()
