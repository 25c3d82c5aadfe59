"""MessageStream over memory streams (and once over real loopback TCP)."""

from __future__ import annotations

import socket
from functools import partial

import pytest
import trio
import trio.testing

from condorsim.classad import ClassAd, ad_from_wire
from condorsim.wire import (
    ConnectionClosed,
    Message,
    MessageCounter,
    MessageStream,
    MessageTooLarge,
    ProtocolError,
    encode,
    encode_frame,
    request,
)
from condorsim.wire import stream as stream_module
from condorsim.wire.messages import (
    ALIVE,
    FAILED,
    OK,
    QUERY_RESULT,
    QUERY_STARTD_ADS,
    SIM_CLOCK_POLL,
)


def pair(**kwargs: object) -> tuple[MessageStream, MessageStream]:
    a, b = trio.testing.memory_stream_pair()
    return MessageStream(a, **kwargs), MessageStream(b, **kwargs)  # type: ignore[arg-type]


async def test_messages_go_both_ways_in_order() -> None:
    client, server = pair()
    await client.send(ALIVE(claim_id="c1"))
    await client.send(ALIVE(claim_id="c2"))
    assert await server.receive() == ALIVE(claim_id="c1")
    assert await server.receive() == ALIVE(claim_id="c2")
    await server.send(OK())
    assert await client.receive() == OK()


async def test_request_sends_one_message_and_returns_the_reply() -> None:
    client, server = pair()
    ad = ad_from_wire({"Name": "slot1@node1", "Cpus": 4})

    async def collector() -> None:
        query = await server.receive()
        assert query == QUERY_STARTD_ADS(constraint="true", projection=[])
        await server.send(QUERY_RESULT(ads=[ad]))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(collector)
        reply = await request(client, QUERY_STARTD_ADS(constraint="true", projection=[]))
    assert reply == QUERY_RESULT(ads=[ad])


async def test_callbacks_see_every_message_sent_and_received() -> None:
    a, b = trio.testing.memory_stream_pair()
    seen: list[tuple[str, str]] = []
    counter = MessageCounter()
    client = MessageStream(
        a,
        on_sent=lambda m: seen.append(("sent", m.command)),
        on_received=lambda m: seen.append(("received", m.command)),
    )
    server = MessageStream(b, on_sent=counter.on_sent, on_received=counter.on_received)
    for i in range(3):
        await client.send(SIM_CLOCK_POLL(round=i))
    for _ in range(3):
        await server.receive()
    await server.send(OK())
    await client.receive()
    assert (counter.sent, counter.received) == (1, 3)
    assert seen == [("sent", "SIM_CLOCK_POLL")] * 3 + [("received", "OK")]


async def test_a_bad_frame_from_the_peer_is_a_protocol_error_and_both_sides_close_cleanly() -> None:
    raw, theirs = trio.testing.memory_stream_pair()
    server = MessageStream(theirs)
    await raw.send_all(encode_frame(encode(OK())) + encode_frame(b"\x92\x01\x02"))
    assert await server.receive() == OK()
    with pytest.raises(ProtocolError, match="must be a msgpack map"):
        await server.receive()
    with pytest.raises(ProtocolError):  # the stream stays dead
        await server.receive()
    await server.aclose()
    client = MessageStream(raw)
    with pytest.raises(ConnectionClosed) as info:
        await client.receive()
    assert info.value.clean
    await client.aclose()


async def test_an_oversized_header_fails_without_waiting_for_its_payload() -> None:
    raw, theirs = trio.testing.memory_stream_pair()
    server = MessageStream(theirs, max_frame=1000)
    await raw.send_all((1001).to_bytes(4, "big"))
    await raw.aclose()  # without the check at the header, this would end "mid-frame" instead
    with pytest.raises(ProtocolError, match="more than the 1000-byte limit"):
        await server.receive()


async def test_a_close_between_messages_is_clean_and_in_the_middle_of_a_frame_is_not() -> None:
    client, server = pair()
    await client.send(OK())
    await client.aclose()
    assert await server.receive() == OK()
    with pytest.raises(ConnectionClosed) as info:
        await server.receive()
    assert info.value.clean
    assert isinstance(info.value, trio.EndOfChannel)

    raw, theirs = trio.testing.memory_stream_pair()
    server = MessageStream(theirs)
    await raw.send_all(encode_frame(encode(OK()))[:-1])
    await raw.aclose()
    with pytest.raises(ProtocolError, match="closed in the middle of a frame"):
        await server.receive()


async def test_sending_to_a_peer_that_is_gone_is_an_unclean_close() -> None:
    client, server = pair()
    await server.aclose()
    with pytest.raises(ConnectionClosed) as info:
        await client.send(OK())
    assert not info.value.clean


async def test_a_message_over_our_own_cap_is_our_error_and_nothing_is_sent() -> None:
    client, server = pair(max_frame=30)
    with pytest.raises(MessageTooLarge, match=r"FAILED: .* more than the 30-byte frame limit"):
        await client.send(FAILED(reason="x" * 40))
    await client.send(OK())  # the stream is still usable
    assert await server.receive() == OK()


async def test_a_cancelled_receive_loses_no_buffered_message() -> None:
    raw, theirs = trio.testing.memory_stream_pair()
    server = MessageStream(theirs)
    await raw.send_all(b"".join(encode_frame(encode(SIM_CLOCK_POLL(round=i))) for i in range(2)))
    assert await server.receive() == SIM_CLOCK_POLL(round=0)
    with trio.CancelScope() as scope:
        scope.cancel()
        await server.receive()
    assert scope.cancelled_caught
    await raw.aclose()  # a lost message shows up as ConnectionClosed, not as a hang
    assert await server.receive() == SIM_CLOCK_POLL(round=1)


async def test_a_cancelled_send_breaks_the_stream_for_sending() -> None:
    client, _ = pair()
    with trio.CancelScope() as scope:
        scope.cancel()
        await client.send(OK())
    assert scope.cancelled_caught
    with pytest.raises(ConnectionClosed, match="interrupted") as info:
        await client.send(OK())
    assert not info.value.clean


async def test_over_loopback_tcp() -> None:
    received: list[Message] = []

    async def serve(stream: trio.SocketStream) -> None:
        async with MessageStream(stream) as ms:
            msg = await ms.receive()
            received.append(msg)
            await ms.send(OK())

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        async with MessageStream(await trio.open_tcp_stream("127.0.0.1", port)) as client:
            big = ad_from_wire({f"Attr{i}": "x" * 100 for i in range(300)})
            reply = await request(client, QUERY_RESULT(ads=[big] * 10))
        assert reply == OK()
        nursery.cancel_scope.cancel()
    assert received == [QUERY_RESULT(ads=[big] * 10)]


async def test_a_tcp_peer_that_closed_is_noticed_before_a_write() -> None:
    # HTCondor's condor_write: a readable socket whose MSG_PEEK reads nothing is closed.
    # A write into it would succeed locally and the message be lost.
    accepted: trio.MemorySendChannel[MessageStream]
    accepted, get = trio.open_memory_channel[MessageStream](1)

    async def serve(stream: trio.SocketStream) -> None:
        await accepted.send(MessageStream(stream))
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        client = MessageStream(await trio.open_tcp_stream("127.0.0.1", port))
        server = await get.receive()
        assert not client.peer_closed()
        await server.send(OK())  # unread data: not closed yet, even after the peer closes
        await server.aclose()
        with trio.fail_after(5):
            await trio.lowlevel.wait_readable(client.stream.socket)  # type: ignore[attr-defined]
        assert not client.peer_closed()
        assert await client.receive() == OK()
        assert client.peer_closed()
        await client.send(OK())  # the write the check saves: it succeeds into the void
        await client.aclose()
        assert client.peer_closed()
        nursery.cancel_scope.cancel()


async def test_a_memory_stream_is_never_said_closed_by_the_check() -> None:
    client, server = pair()
    await server.aclose()
    assert not client.peer_closed()  # a write to it fails by itself
    with pytest.raises(ConnectionClosed):
        await client.send(OK())


async def test_the_history_of_the_issues_day_fits_in_one_query_result() -> None:
    # 5,000 finished jobs of about 2 KB each: a replay's end-of-run check asks for them all.
    def job(proc: int) -> ClassAd:
        ad = ClassAd({f"Attr{i}": f"value {i} of job {proc} " + "x" * 30 for i in range(40)})
        ad["ProcId"] = proc
        return ad

    ads = [job(proc) for proc in range(5000)]
    client, server = pair()
    msg = QUERY_RESULT(ads=ads)
    assert len(encode(msg)) > 8 * 1024 * 1024
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.send, msg)
        got = await server.receive()
    assert isinstance(got, QUERY_RESULT)
    assert [ad.evaluate("ProcId") for ad in got.ads] == list(range(5000))


async def test_a_peer_that_keeps_the_socket_full_does_not_starve_the_other_tasks() -> None:
    # Over TCP a frame already there is taken without a trip through trio's scheduler; a
    # daemon reading a flood of them must still let its other tasks run now and then.
    a, b = socket.socketpair()
    flood = encode_frame(encode(ALIVE(claim_id="c1"))) * 1000
    a.sendall(flood)  # ~30 KB: the socket's buffer takes it all at once
    reader = MessageStream(trio.SocketStream(trio.socket.from_stdlib_socket(b)))
    ran = 0

    async def other_task() -> None:
        nonlocal ran
        while True:
            ran += 1
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other_task)
        await trio.lowlevel.checkpoint()
        ran_before = ran
        for _ in range(1000):
            assert await reader.receive() == ALIVE(claim_id="c1")
        assert ran - ran_before >= 10  # one chance at least every 64 frames
        nursery.cancel_scope.cancel()
    await reader.aclose()
    a.close()


def _tcp_pair() -> tuple[socket.socket, socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        near = socket.create_connection(listener.getsockname())
        far, _ = listener.accept()
    return near, far


def _reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    sock.close()


@pytest.mark.parametrize("state", ["idle", "data", "closed_with_data", "closed",
                                   "half_closed", "reset", "shut_rd", "closed_here"])
async def test_the_peer_check_says_what_a_peek_says(state: str) -> None:
    """peer_closed asks poll before it peeks: in every state of a TCP connection it says
    what the plain peek (_reads_eof) says."""
    near, far = _tcp_pair()
    stream = MessageStream(trio.SocketStream(trio.socket.from_stdlib_socket(near)))
    raw = stream._raw
    assert raw is not None
    assert not stream.peer_closed()  # the poller is made at the first look
    if state in ("data", "closed_with_data"):
        far.sendall(b"x")
    if state == "half_closed":
        far.shutdown(socket.SHUT_WR)
    if state in ("closed", "closed_with_data"):
        far.close()
    if state == "reset":
        _reset(far)
    if state == "shut_rd":
        near.shutdown(socket.SHUT_RD)
    if state != "closed_here":
        await trio.sleep(0.05)  # loopback: what the peer did has arrived
        plain = near.fileno() < 0 or stream_module._reads_eof(near)
    else:
        near.close()
        plain = True
    assert stream.peer_closed() is plain
    assert stream.peer_closed() is plain  # and again, the poller kept
    expected = {"idle": False, "data": False, "closed_with_data": False, "closed": True,
                "half_closed": True, "reset": True, "shut_rd": True, "closed_here": True}
    assert plain is expected[state]
    for sock in (near, far):
        sock.close()
