"""One process's side of virtual time: its message counts, its idleness, its end-of-instant work.

How this works
--------------
Every pool message a process sends or receives is counted here (the connection layer calls
:meth:`Participant.message_sent` / :meth:`Participant.send_done` around a send, and
:meth:`Participant.message_received` once a received message is about to be handled).
When the coordinator asks, :meth:`Participant.wait_idle` returns once every other trio task
of the process is blocked, no send is half written and no subprocess is running
(:meth:`Participant.busy`); :meth:`Participant.freeze` then takes the report (counts, the
next timer deadline from trio's own statistics, whether end-of-instant work waits) and
*freezes* the process in the same step.

A frozen process handles nothing until it is thawed, and a pool message that arrives
thaws it (:meth:`Participant.wait_thawed`). Every pool message carries a *stamp*: the
sender's simulated time, the coordinator's decision (round) it runs under, and the channel
(one direction of one connection) it went down. A sender is running, so its time is the
pool's: the frozen receiver moves its clock to the stamp's time, thaws itself and reports
again once idle -- no word to the coordinator first. The message counts as received (on
its channel) only then, so until that report the coordinator sees the channel unbalanced
and decides nothing (:mod:`.coordinator` says why that is enough). One exception: if a
decision the receiver has not heard of yet runs it anyway (it reported end-of-instant work,
or its next timer is due by the stamp's time), it waits for that RUN, so that its
end-of-instant work and timers come first, as they would have. A message without a stamp
(from a process outside virtual time) is held, and the coordinator told once through
``on_hold`` (HOLD), as before stamps existed.

Counts are kept per channel, as changes since the last report: a report hands them over
and starts afresh.

End-of-instant work is how same-instant decisions are made deterministic: a daemon that must
choose among things that happened "at the same time" (which idle job takes a freed claim)
registers a callback with a sort key; once the whole pool is quiescent at this instant, the
callbacks run in key order. In a single-process pool on ``MockClock`` the
:func:`run_instant_driver` task does the same without a coordinator (nothing freezes there).
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import trio
import trio._core._run as _trio_run  # the runner's deadlines: see _seconds_to_next_deadline

try:  # the same function trio.testing exports, without importing trio.testing (and pytest)
    from trio._core._run import wait_all_tasks_blocked
except ImportError:  # pragma: no cover - a trio that moved it
    from trio.testing import wait_all_tasks_blocked

from condorsim.wire.codec import Stamp

from .clock import VirtualClock
from .coordinator import SHARED


@dataclass(frozen=True)
class IdleReport:
    sent: int
    received: int
    next_deadline: float | None
    eoi_pending: bool
    channels: dict[str, int] | None = None
    """Messages sent minus received per channel since the previous report."""
    runs: int = 0
    """RUNs received so far (the coordinator knows which of its RUNs a report answers)."""





class Participant:
    """Counts, idleness and end-of-instant callbacks of one process (or one in-process pool)."""

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock
        self.sent = 0
        self.received = 0
        self.round = 0  # the coordinator's latest decision this process knows of
        self.runs = 0  # RUNs received
        self.finished = False  # the coordinator let the pool go for good
        self._delta: dict[str, int] = {}
        self._prefix = os.urandom(4).hex()  # channel names unique across the pool's processes
        self._channels = itertools.count(1)
        self._report_round = -1  # what the last report said
        self._report_deadline: float | None = None
        self._report_eoi = False
        self._report_due = trio.Event()
        self.on_self_thaw: Callable[[], None] | None = None
        self._busy = 0
        self._not_busy = trio.Event()
        self._not_busy.set()
        self._sending = 0
        self._sent_all: trio.Event | None = None
        self.frozen = False
        self._thawed = trio.Event()
        self._thawed.set()
        self._hold_told = False
        self.on_hold: Callable[[], None] | None = None
        self._eoi: list[tuple[Any, int, Callable[[], None]]] = []
        self._eoi_seq = itertools.count()
        self._eoi_added = trio.Event()

    # -- counting ---------------------------------------------------------------------------
    def new_channel(self) -> str:
        """A name for a new connection's channels, unique in the pool."""
        return f"{self._prefix}.{next(self._channels)}"

    def stamp(self, channel: str) -> Stamp | None:
        """The stamp of a message sent now down ``channel`` (None off virtual time)."""
        clock = self.clock
        if clock is None:
            return None
        return (clock.now, self.round, channel)

    def message_sent(self, channel: str = SHARED) -> None:
        """A pool message is being sent; :meth:`send_done` follows once it is written."""
        self.sent += 1
        self._sending += 1
        self._delta[channel] = self._delta.get(channel, 0) + 1

    def send_done(self, delivered: bool = True, channel: str = SHARED) -> None:
        """The send begun by :meth:`message_sent` is over; not ``delivered``: it failed."""
        if not delivered:
            self.sent -= 1
            self._delta[channel] = self._delta.get(channel, 0) - 1
        self._sending -= 1
        if self._sending == 0 and self._sent_all is not None:
            self._sent_all.set()
            self._sent_all = None

    def message_received(self, channel: str = SHARED) -> None:
        """A received pool message is about to be handled (never while frozen)."""
        self.received += 1
        self._delta[channel] = self._delta.get(channel, 0) - 1

    # -- freezing ---------------------------------------------------------------------------
    def freeze(self) -> IdleReport:
        """Take the idle report and freeze, in one step (call right after :meth:`wait_idle`)."""
        sent, received, deadline, eoi, runs, channels = self.freeze_fields()
        return IdleReport(sent, received, deadline, eoi, channels, runs)

    def freeze_fields(self) -> tuple[int, int, float | None, bool, int, dict[str, int]]:
        """:meth:`freeze`, the report as a REPORT's fields: sent, received, next_deadline,
        eoi_pending, runs, channels (a link's reporter sends them as they are)."""
        self.frozen = True
        self._thawed = trio.Event()
        self._hold_told = False
        self._report_due = trio.Event()
        delta = _seconds_to_next_deadline()
        deadline = None if math.isinf(delta) else trio.current_time() + delta
        eoi = bool(self._eoi)
        channels = {k: v for k, v in self._delta.items() if v}
        self._delta = {}
        self._report_round = self.round
        self._report_deadline = deadline
        self._report_eoi = eoi
        return self.sent, self.received, deadline, eoi, self.runs, channels

    def thaw(self) -> None:
        """The coordinator lets the process go on: held messages are handled now."""
        if self.frozen:
            self.frozen = False
            self._thawed.set()

    def run(self, now: float, round: int, eoi: bool) -> None:
        """A RUN from the coordinator: move to ``now``, run end-of-instant work if ``eoi``,
        thaw; a report is due once idle."""
        if self.clock is not None:
            self.clock.advance(now)
        self.round = max(self.round, round)
        self.runs += 1
        if eoi:
            self.run_end_of_instant()
        self.thaw()
        self._report_due.set()

    def finish(self) -> None:
        """The coordinator is done with the pool: thaw for good, report no more."""
        self.finished = True
        self.on_hold = None
        self.thaw()
        self._report_due.set()

    async def wait_report_due(self) -> None:
        """Return once this process was thawed (by a RUN or a message) and owes a report."""
        await self._report_due.wait()

    def wake(self) -> None:
        """Something outside the pool (a child process exited) woke this process.

        If it is frozen, the coordinator is asked to thaw it at the current instant, so that
        what it does now (say, set a restart timer) is seen before time moves. In the
        coordinator's own process that happens at once; elsewhere it is only asked for.
        """
        if self.frozen and self.on_hold is not None:
            self._hold_told = True
            self.on_hold()

    async def wait_thawed(self, stamp: Stamp | None = None) -> None:
        """A message arrived while frozen: thaw at its ``stamp``'s time, or wait for the
        coordinator (see the module's docstring)."""
        if stamp is not None and self.clock is not None and self.on_self_thaw is not None:
            sent_at, round, _channel = stamp
            run_coming = round > self._report_round and (
                self._report_eoi
                or (self._report_deadline is not None and self._report_deadline <= sent_at))
            if not run_coming:
                self.clock.advance(sent_at)
                self.round = max(self.round, round)
                self.thaw()
                self._report_due.set()
                self.on_self_thaw()
                return
            await self._thawed.wait()
            return
        if not self._hold_told:
            self._hold_told = True
            if self.on_hold is not None:
                self.on_hold()
        await self._thawed.wait()

    # -- busy (real-world work that virtual time must wait for) -----------------------------
    @contextmanager
    def busy(self) -> Iterator[None]:
        """Mark the process busy (e.g. while a hook subprocess runs): no jump happens."""
        self._busy += 1
        if self._busy == 1:
            self._not_busy = trio.Event()
        try:
            yield
        finally:
            self._busy -= 1
            if self._busy == 0:
                self._not_busy.set()

    async def wait_idle(self) -> None:
        """Return once every other task is blocked, no send is half done and nothing is busy."""
        while True:
            await wait_all_tasks_blocked()
            if self._busy:
                await self._not_busy.wait()
            elif self._sending:
                # A send blocked on a full socket: the process is not done with it.
                self._sent_all = trio.Event()
                await self._sent_all.wait()
            else:
                return

    def idle_report(self) -> IdleReport:
        delta = _seconds_to_next_deadline()
        deadline = None if math.isinf(delta) else trio.current_time() + delta
        return IdleReport(self.sent, self.received, deadline, bool(self._eoi),
                          {k: v for k, v in self._delta.items() if v}, self.runs)

    # -- end of instant ---------------------------------------------------------------------
    def at_end_of_instant(self, key: Any, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the pool is quiescent at this instant, in ``key`` order."""
        self._eoi.append((key, next(self._eoi_seq), callback))
        self._eoi_added.set()

    def run_end_of_instant(self) -> int:
        """Run the registered callbacks in key order; return how many ran."""
        ran = 0
        while self._eoi:
            try:
                batch = sorted(self._eoi, key=lambda item: (item[0], item[1]))
            except TypeError:  # keys of different shapes: order by type, then text
                batch = sorted(
                    self._eoi, key=lambda item: (type(item[0]).__name__, repr(item[0]), item[1])
                )
            self._eoi = []
            for _key, _seq, callback in batch:
                callback()
                ran += 1
        return ran

    async def wait_for_end_of_instant_work(self) -> None:
        while not self._eoi:
            self._eoi_added = trio.Event()
            await self._eoi_added.wait()


def _seconds_to_next_deadline() -> float:
    """``trio.lowlevel.current_statistics().seconds_to_next_deadline``, the same float,
    without the rest of the statistics (the I/O backend's counts walk every registered
    socket, at each report of every process). Falls back to the public call if trio's
    runner is not where trio 0.2x keeps it."""
    runner: Any = getattr(getattr(_trio_run, "GLOBAL_RUN_CONTEXT", None), "runner", None)
    deadlines = getattr(runner, "deadlines", None)
    if deadlines is None:
        return trio.lowlevel.current_statistics().seconds_to_next_deadline
    next_deadline: float = deadlines.next_deadline()
    now: float = runner.current_time()
    return next_deadline - now


async def run_instant_driver(participant: Participant) -> None:
    """In a single-process pool (MockClock autojump), run end-of-instant work at quiescence.

    While no work is registered this task sleeps on an event, so MockClock's autojump goes
    ahead; once work exists, it waits until every task is blocked (which also holds the jump
    back) and runs it.
    """
    while True:
        await participant.wait_for_end_of_instant_work()
        await participant.wait_idle()
        participant.run_end_of_instant()
