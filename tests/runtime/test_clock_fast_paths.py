"""The clock protocol's fast paths against the plain way: the same report, the same balance,
and a RUN that reaches the other processes before the host runs its own process."""

from __future__ import annotations

import math

import msgpack
import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from condorsim.runtime import coordination
from condorsim.runtime.clock import VirtualClock
from condorsim.runtime.coordination import HELLO, REPORT, RUN, CoordinatorHost
from condorsim.runtime.coordinator import Coordinator
from condorsim.runtime.network import TcpNetwork, parse_sinful
from condorsim.runtime.participant import IdleReport, Participant

_CHANNELS = st.sampled_from(["a.1", "a.2", "b.1", "*"])
_OPS = st.lists(st.tuples(st.sampled_from(["sent", "failed", "received", "eoi", "run"]),
                          _CHANNELS), max_size=30)


@given(st.lists(_OPS, min_size=1, max_size=4), st.one_of(st.none(), st.floats(1, 500)))
def test_freeze_fields_is_freeze(rounds: list[list[tuple[str, str]]],
                                 timer: float | None) -> None:
    """What a link's reporter sends (freeze_fields) is what freeze() reports, field by field,
    and both leave the participant in the same state."""

    async def main() -> None:
        plain, fast = Participant(), Participant()
        for ops in rounds:
            for p in (plain, fast):
                for op, channel in ops:
                    if op == "sent":
                        p.message_sent(channel)
                        p.send_done(True, channel)
                    elif op == "failed":
                        p.message_sent(channel)
                        p.send_done(False, channel)
                    elif op == "received":
                        p.message_received(channel)
                    elif op == "eoi":
                        p.at_end_of_instant(channel, lambda: None)
                    else:
                        p.run(trio.current_time(), 3, eoi=True)
            with trio.CancelScope(deadline=math.inf if timer is None
                                  else trio.current_time() + timer):
                report = plain.freeze()
                sent, received, deadline, eoi, runs, channels = fast.freeze_fields()
            assert report == IdleReport(sent, received, deadline, eoi, channels, runs)
            assert (report.channels is not None
                    and all(report.channels.values()))  # only channels that moved
            for name in ("frozen", "_hold_told", "_report_round", "_report_deadline",
                         "_report_eoi", "_delta", "round", "runs"):
                assert getattr(plain, name) == getattr(fast, name), name
            plain.thaw()
            fast.thaw()

    trio.run(main, clock=trio.testing.MockClock())  # time stands still between the two


@given(st.lists(st.tuples(st.sampled_from(["p", "q"]),
                          st.dictionaries(_CHANNELS, st.integers(-3, 3), max_size=4)),
                max_size=12))
def test_the_balance_per_channel_is_the_sum_of_the_reports(
        reports: list[tuple[str, dict[str, int]]]) -> None:
    """Per channel the coordinator keeps sent minus handled, and only where it is not 0."""
    c = Coordinator(now=0.0)
    c.join("p")
    c.join("q")
    total: dict[str, int] = {}
    for name, channels in reports:
        c.report(name, c.round, 0, 0, 10.0, False, channels, runs=None)
        for channel, n in channels.items():
            total[channel] = total.get(channel, 0) + n
    assert c._net == {k: v for k, v in total.items() if v}


def test_a_run_reaches_the_other_processes_before_the_host_runs_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At a RUN that includes the host's own process, the other processes are sent theirs
    first (packed once): the host's end-of-instant work does not hold them back."""
    order: list[str] = []
    sent = coordination._Link.send_packed

    def recording(self: coordination._Link, data: bytes) -> None:
        order.append("link")
        sent(self, data)

    monkeypatch.setattr(coordination._Link, "send_packed", recording)
    clock = VirtualClock(0.0)
    local = Participant(clock)
    # "a-driver" sorts before "p": the host's own process comes first in the RUN
    host = CoordinatorHost(Coordinator(now=0.0), clock, local, local_name="a-driver")

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: host.run(TcpNetwork(), task_status=task_status))
            local.at_end_of_instant(1, lambda: order.append("local eoi"))
            sock = trio.socket.socket()
            await sock.connect(parse_sinful(address))
            unpacker = msgpack.Unpacker(use_list=False)

            async def receive() -> object:
                while True:
                    for msg in unpacker:
                        return msg
                    data = await sock.recv(4096)
                    assert data, "the host closed the link"
                    unpacker.feed(data)

            await sock.send(msgpack.packb((HELLO, "p", 1)))
            assert await receive() == (RUN, 0.0, False, 0)
            order.clear()
            # end-of-instant work, as the host's own process has: both are run at once
            await sock.send(msgpack.packb((REPORT, 0, 0, 50.0, True)))
            assert await receive() == (RUN, 0.0, True, 1)
            assert order == ["link", "local eoi"]
            sock.close()
            nursery.cancel_scope.cancel()

    trio.run(main, clock=clock)
