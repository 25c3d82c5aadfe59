"""The virtual-time coordinator: when may the whole pool jump to its next timer?

How this works
--------------
A sans-I/O state machine, hosted by the master. Every process of the pool is a
*participant*. A participant reports only when idle (every trio task blocked, no send half
written, no subprocess running): its counts of pool messages sent and handled, its next timer
deadline and whether it has end-of-instant work. In the same step it *freezes*
(:class:`~.participant.Participant`): until the coordinator thaws it with RUN, a pool message
that reaches it is held unhandled and uncounted, and it tells the coordinator so once (HOLD).
A frozen process cannot do anything else either: its clock stands still, so no timer fires.
So its report stays true for as long as it is frozen.

Once every participant is frozen and, summed over the pool, messages sent equal messages
handled (plus an allowance for messages lost with a process that died), no message is in
flight or held anywhere, and nothing can ever happen again at this instant: the pool is
quiescent. (Sums that do not balance mean a message is on its way to a frozen process, whose
HOLD will come: the coordinator thaws that one process, at the current instant, and it
reports again. A message that never arrives -- lost with a process that died, or on a
connection closed under it -- is written off once two looks at the whole pool agree.) Then:

1. if some participant has end-of-instant work, RUN(eoi) goes to those that have (they run
   it, then report again: that work may send messages);
2. otherwise the pool jumps to ``t``, the earliest deadline: RUN(t) goes to the participants
   whose next timer is at ``t``. The others stay frozen at an earlier time, which nobody can
   tell: a frozen process runs no code; before it next does, it is thawed by a RUN that
   carries the pool's time ``t`` (a message reached it, or its own timer is due).

Why no process handles a message from its future: a message sent at ``t`` by a process that
moved goes to a process that either moved too, or is frozen and holds it until its RUN
brings it to ``t`` -- messages count as handled only once thawed, so the sums cannot
balance while one is held. Why every timer fires at its deadline: while all are frozen no
timer can be added, so ``t`` is the earliest deadline of the whole pool, and a lagging
process's deadlines are all later than any ``t`` it is thawed at.

Per jump this costs one RUN and one report for each process that has something to do, one
more pair for each message that reached a process already frozen, and nothing for the rest.

The methods return :class:`Action` lists for the host to carry out; nothing here does I/O
or reads a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Run:
    """Send RUN to these participants: move the clock to ``now``, run end-of-instant work if
    ``eoi``, thaw (handle held messages), and report again once idle."""

    names: tuple[str, ...]
    now: float
    eoi: bool = False


@dataclass(frozen=True)
class EndOfInstant:
    """The pool is quiescent and end-of-instant work runs (decision number ``round``)."""

    round: int


@dataclass(frozen=True)
class Advance:
    """The pool's simulated time is now ``now``."""

    now: float


@dataclass(frozen=True)
class Finished:
    """No timer is left at or before the limit: thaw everyone for good; nothing more to do."""

    reason: str
    now: float


Action = Run | EndOfInstant | Advance | Finished


@dataclass
class _Report:
    sent: int
    received: int
    next_deadline: float
    eoi_pending: bool


class CoordinatorError(Exception):
    """A participant broke the coordination protocol (a bug, not bad user input)."""


@dataclass
class Coordinator:
    """Decides when the pool's simulated time may move, and to where.

    ``local`` names the participant that lives in the host's own process: it is run on every
    decision (the host's tasks learn of a jump or the end directly, not through a RUN).
    """

    now: float
    limit: float = math.inf
    local: str | None = None
    round: int = 0
    jumps: int = 0
    runs: int = 0  # RUNs sent (one per participant run), jumps' and holds' alike
    holds: int = 0  # HOLDs answered with a RUN: messages that reached a frozen participant
    finished: bool = False
    participants: set[str] = field(default_factory=set)
    expected: set[str] = field(default_factory=set)
    _reports: dict[str, _Report] = field(default_factory=dict)  # the frozen ones
    _counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # last known
    _lost: int = 0
    _recovering: bool = False
    _previous: dict[str, tuple[int, int]] | None = None
    _dying: set[str] = field(default_factory=set)
    _rerun: bool = False  # a process died: run everyone once more at this instant

    # -- membership -------------------------------------------------------------------------
    def expect(self, name: str) -> None:
        """A participant is starting: nothing is decided until it joins (or is forgotten)."""
        self.expected.add(name)

    def forget(self, name: str) -> list[Action]:
        """An expected participant will never join (its process failed to start)."""
        self.expected.discard(name)
        return self._decide()

    def join(self, name: str) -> list[Action]:
        """A participant said hello: it is run at the pool's time and reports when idle."""
        if name in self.participants:
            raise CoordinatorError(f"participant {name!r} joined twice")
        self.expected.discard(name)
        self.participants.add(name)
        self._counts[name] = (0, 0)
        if self.finished:
            return []
        return [Run((name,), self.now)]

    def leave(self, name: str) -> list[Action]:
        """A participant's process is gone; messages sent to it may be lost."""
        if name not in self.participants:
            return []
        self.participants.discard(name)
        self._dying.discard(name)
        sent, received = self._counts.pop(name, (0, 0))
        # Its own counts leave the sums; what others sent it and it never handled stays
        # unbalanced: two agreeing looks at the whole pool write that off as lost.
        self._lost -= sent - received
        self._reports.pop(name, None)
        self._recovering = True
        self._previous = None
        # The others may have news of the death pending (a connection to the dead process
        # closed: the kernel closed them all when it exited). Run them at this instant so
        # they act on it now, before time moves, and the same way in every replay.
        self._rerun = True
        return self._decide()

    def will_leave(self, name: str) -> None:
        """A participant's process is being killed: decide nothing until it has left, so the
        pool sees the death at the current instant."""
        self._reports.pop(name, None)
        self._dying.add(name)

    # -- the protocol -----------------------------------------------------------------------
    def report(
        self,
        name: str,
        round: int,
        sent: int,
        received: int,
        next_deadline: float | None,
        eoi_pending: bool,
    ) -> list[Action]:
        """A participant is idle and frozen. (``round`` is not needed: a participant reports
        exactly once after each RUN.)"""
        if name not in self.participants:
            raise CoordinatorError(f"report from unknown participant {name!r}")
        self._counts[name] = (sent, received)
        if name in self._dying:
            return []  # no decision before it is gone
        deadline = math.inf if next_deadline is None else float(next_deadline)
        self._reports[name] = _Report(sent, received, deadline, eoi_pending)
        return self._decide()

    def hold(self, name: str) -> list[Action]:
        """A frozen participant holds a message: thaw it at the current instant.

        A HOLD from a participant already sent a RUN (by a jump) is answered by that RUN.
        """
        if self.finished or name not in self._reports:
            return []
        self.holds += 1
        return self._run([name])

    def stalled(self) -> bool:
        """Every participant is frozen, yet the sums do not balance.

        Normally for a moment only: a message is on its way to a frozen process, whose HOLD
        will come. If no HOLD ever comes, the message was lost -- sent on a connection whose
        far end died or closed (the host calls :meth:`suspect_loss` after a while).
        """
        if self.finished or self.expected or not self.participants:
            return False
        if len(self._reports) < len(self.participants):
            return False
        reports = self._reports.values()
        return sum(r.sent for r in reports) - sum(r.received for r in reports) != self._lost

    def suspect_loss(self) -> list[Action]:
        """No HOLD came: look at everyone again; what two agreeing looks leave unbalanced is
        written off as lost."""
        if not self.stalled():
            return []
        self._recovering = True
        return self._decide()

    # -- internals --------------------------------------------------------------------------
    def _run(self, names: list[str], *, eoi: bool = False) -> list[Action]:
        for name in names:
            self._reports.pop(name, None)
        self.runs += len(names)
        return [Run(tuple(sorted(names)), self.now, eoi)]

    def _with_local(self, names: list[str]) -> list[str]:
        if self.local is not None and self.local in self.participants and self.local not in names:
            names.append(self.local)
        return names

    def _decide(self) -> list[Action]:
        if self.finished or self.expected or not self.participants:
            return []
        if len(self._reports) < len(self.participants):
            return []  # someone is still running (or holding what it was sent)
        reports = self._reports
        imbalance = sum(r.sent for r in reports.values()) - sum(r.received for r in reports.values())
        if imbalance != self._lost:
            if not self._recovering:
                return []  # a message is on its way to a frozen process: its HOLD will come
            counts = {n: (r.sent, r.received) for n, r in reports.items()}
            if counts != self._previous:
                self._previous = counts  # look once more at everyone; agreeing looks settle it
                self._rerun = False
                return self._run(sorted(self.participants))
            self._lost = imbalance
        self._recovering = False
        self._previous = None
        if self._rerun:
            self._rerun = False
            return self._run(sorted(self.participants))
        if any(r.eoi_pending for r in reports.values()):
            self.round += 1
            names = self._with_local([n for n, r in reports.items() if r.eoi_pending])
            return [EndOfInstant(self.round), *self._run(names, eoi=True)]
        target = min(r.next_deadline for r in reports.values())
        if target > self.limit or math.isinf(target):
            self.finished = True
            reason = "limit reached" if target > self.limit else "no timer left"
            return [Finished(reason, self.now)]
        self.now = max(target, self.now)
        self.jumps += 1
        self.round += 1
        due = self._with_local([n for n, r in reports.items() if r.next_deadline <= self.now])
        return [Advance(self.now), *self._run(due)]
