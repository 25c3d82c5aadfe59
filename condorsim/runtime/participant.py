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

A frozen process handles nothing: a pool message that arrives is held in the connection
(:meth:`Participant.wait_thawed`, which tells the coordinator once through ``on_hold``) and
is counted as received only when the coordinator thaws the process -- at the current
instant, or after moving its clock. So a frozen process's report stays true for as long as
it is frozen; the coordinator (:mod:`.coordinator`) relies on exactly that.

End-of-instant work is how same-instant decisions are made deterministic: a daemon that must
choose among things that happened "at the same time" (which idle job takes a freed claim)
registers a callback with a sort key; once the whole pool is quiescent at this instant, the
callbacks run in key order. In a single-process pool on ``MockClock`` the
:func:`run_instant_driver` task does the same without a coordinator (nothing freezes there).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import trio

try:  # the same function trio.testing exports, without importing trio.testing (and pytest)
    from trio._core._run import wait_all_tasks_blocked
except ImportError:  # pragma: no cover - a trio that moved it
    from trio.testing import wait_all_tasks_blocked

from .clock import VirtualClock


@dataclass(frozen=True)
class IdleReport:
    sent: int
    received: int
    next_deadline: float | None
    eoi_pending: bool


class Participant:
    """Counts, idleness and end-of-instant callbacks of one process (or one in-process pool)."""

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock
        self.sent = 0
        self.received = 0
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
    def message_sent(self) -> None:
        """A pool message is being sent; :meth:`send_done` follows once it is written."""
        self.sent += 1
        self._sending += 1

    def send_done(self, delivered: bool = True) -> None:
        """The send begun by :meth:`message_sent` is over; not ``delivered``: it failed."""
        if not delivered:
            self.sent -= 1
        self._sending -= 1
        if self._sending == 0 and self._sent_all is not None:
            self._sent_all.set()
            self._sent_all = None

    def message_received(self) -> None:
        """A received pool message is about to be handled (never while frozen)."""
        self.received += 1

    # -- freezing ---------------------------------------------------------------------------
    def freeze(self) -> IdleReport:
        """Take the idle report and freeze, in one step (call right after :meth:`wait_idle`)."""
        self.frozen = True
        self._thawed = trio.Event()
        self._hold_told = False
        return self.idle_report()

    def thaw(self) -> None:
        """The coordinator lets the process go on: held messages are handled now."""
        if self.frozen:
            self.frozen = False
            self._thawed.set()

    def wake(self) -> None:
        """Something outside the pool (a child process exited) woke this process.

        If it is frozen, the coordinator is asked to thaw it at the current instant, so that
        what it does now (say, set a restart timer) is seen before time moves. In the
        coordinator's own process that happens at once; elsewhere it is only asked for.
        """
        if self.frozen and self.on_hold is not None:
            self._hold_told = True
            self.on_hold()

    async def wait_thawed(self) -> None:
        """Hold a message that arrived while frozen until the coordinator thaws the process."""
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
        stats = trio.lowlevel.current_statistics()
        delta = stats.seconds_to_next_deadline
        deadline = None if math.isinf(delta) else trio.current_time() + delta
        return IdleReport(self.sent, self.received, deadline, bool(self._eoi))

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
