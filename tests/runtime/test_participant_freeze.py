"""A frozen process handles nothing: a message that reaches it waits, uncounted, for the thaw."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from condorsim.runtime.network import Conn
from condorsim.runtime.participant import Participant
from condorsim.wire import ConnectionClosed, MessageStream
from condorsim.wire.messages import OK


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
