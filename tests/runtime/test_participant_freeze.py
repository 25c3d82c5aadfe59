"""A frozen process handles nothing: a message that reaches it waits, uncounted, for the thaw."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from condorsim.runtime.clock import VirtualClock
from condorsim.runtime.network import Conn, Endpoint, InProcessNetwork
from condorsim.runtime.participant import Participant
from condorsim.security import Security
from condorsim.wire import ConnectionClosed, Message, MessageStream
from condorsim.wire.messages import OK, SIM_HELLO


def _pair(a: Participant, b: Participant) -> tuple[Conn, Conn]:
    left, right = trio.testing.memory_stream_pair()
    return (Conn(MessageStream(left), me="a", peer="b", participant=a, tracer=None),
            Conn(MessageStream(right), me="b", peer="a", participant=b, tracer=None))


async def test_a_frozen_process_holds_a_message_until_thawed_and_says_so_once() -> None:
    sender, receiver = Participant(), Participant()
    holds: list[int] = []
    receiver.on_hold = lambda: holds.append(receiver.received)
    out, into = _pair(sender, receiver)
    handled: list[str] = []

    async def serve() -> None:
        while True:
            msg = await into.receive()
            handled.append(msg.command)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        await receiver.wait_idle()
        report = receiver.freeze()
        assert (report.sent, report.received) == (0, 0)
        await out.send(OK())
        await out.send(OK())
        await trio.testing.wait_all_tasks_blocked()
        assert handled == [] and receiver.received == 0  # held, not counted
        assert holds == [0]  # the coordinator is told once
        assert sender.sent == 2
        receiver.thaw()
        await trio.testing.wait_all_tasks_blocked()
        assert handled == ["OK", "OK"] and receiver.received == 2
        nursery.cancel_scope.cancel()


async def test_a_send_that_fails_is_not_counted() -> None:
    sender, receiver = Participant(), Participant()
    out, into = _pair(sender, receiver)
    await into.aclose()
    for _ in range(2):
        with pytest.raises(ConnectionClosed):
            await out.send(OK())
    assert sender.sent == 0  # nobody will ever handle them: counting them would stall time
    with trio.fail_after(1):
        await sender.wait_idle()  # and nothing is left half sent


async def test_end_of_instant_work_waits_for_quiescence_and_runs_in_key_order() -> None:
    p = Participant()
    ran: list[str] = []
    p.at_end_of_instant((2, "b"), lambda: ran.append("b"))
    p.at_end_of_instant((1, "z"), lambda: ran.append("z"))
    assert p.idle_report().eoi_pending
    assert p.run_end_of_instant() == 2
    assert ran == ["z", "b"] and not p.idle_report().eoi_pending


def _virtual(start: float) -> tuple[Participant, VirtualClock]:
    clock = VirtualClock(start)
    p = Participant(clock)
    p.on_self_thaw = lambda: None  # a link would report once idle
    return p, clock


async def test_a_stamped_message_thaws_its_frozen_receiver_at_the_senders_time() -> None:
    sender, _ = _virtual(100.0)
    receiver, receiver_clock = _virtual(40.0)  # frozen at an earlier instant
    holds: list[int] = []
    receiver.on_hold = lambda: holds.append(1)
    left, right = trio.testing.memory_stream_pair()
    out = Conn(MessageStream(left), me="a", peer="b", participant=sender, tracer=None)
    into = Conn(MessageStream(right), me="b", peer="a", participant=receiver, tracer=None)
    out.connected()
    into.trusted = True  # the peer proved the pool key
    handled: list[float] = []

    async def serve() -> None:
        while True:
            await into.receive()
            handled.append(receiver_clock.now)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        await receiver.wait_idle()
        receiver.freeze()
        await out.send(OK())
        await trio.testing.wait_all_tasks_blocked()
        # handled at the sender's time, with no HOLD to the coordinator
        assert handled == [100.0] and holds == [] and not receiver.frozen
        sent, got = sender.idle_report().channels, receiver.freeze().channels
        assert sent is not None and got is not None and len(sent) == 1
        assert {k: -v for k, v in got.items()} == sent  # the same channel, both sides
        nursery.cancel_scope.cancel()


async def test_a_receiver_that_a_decision_runs_anyway_waits_for_its_run() -> None:
    sender, _ = _virtual(100.0)
    receiver, receiver_clock = _virtual(40.0)
    sender.round = 7  # a decision the receiver has not heard of yet
    left, right = trio.testing.memory_stream_pair()
    out = Conn(MessageStream(left), me="a", peer="b", participant=sender, tracer=None)
    into = Conn(MessageStream(right), me="b", peer="a", participant=receiver, tracer=None)
    into.trusted = True
    order: list[str] = []

    async def serve() -> None:
        while True:
            await into.receive()
            order.append("message")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        receiver.at_end_of_instant(0, lambda: order.append("end of instant"))
        await receiver.wait_idle()
        receiver.freeze()  # it reported end-of-instant work: the next decision runs it
        await out.send(OK())
        await trio.testing.wait_all_tasks_blocked()
        assert order == [] and receiver.frozen  # waits for that RUN, asks for nothing
        receiver.run(100.0, 7, True)
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["end of instant", "message"] and receiver_clock.now == 100.0
        nursery.cancel_scope.cancel()


async def test_a_stamp_from_a_peer_that_proved_no_key_moves_no_clock() -> None:
    receiver, receiver_clock = _virtual(40.0)
    holds: list[int] = []
    receiver.on_hold = lambda: holds.append(1)
    network = InProcessNetwork()
    server = Endpoint(name="schedd", network=network, participant=receiver,
                      security=Security(key=b"k" * 32))
    handled: list[str] = []

    async def handler(msg: Message, conn: Conn) -> None:
        handled.append(msg.command)

    async with trio.open_nursery() as nursery:
        real = await nursery.start(server.serve, handler)
        await receiver.wait_idle()
        receiver.freeze()
        # a process without the pool key stamps its HELLO a year ahead
        stream = MessageStream(await network.connect(real))
        await stream.send(SIM_HELLO(name="intruder", method="TOKEN", proof="1:2:3"),
                          (40.0 + 365 * 86400, 99, "x.1>"))
        await trio.testing.wait_all_tasks_blocked()
        assert receiver_clock.now == 40.0 and receiver.frozen  # not believed: held
        assert holds == [1]  # the coordinator is asked for a RUN at the pool's time
        nursery.cancel_scope.cancel()
