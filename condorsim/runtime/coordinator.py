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

Every pool message goes down a *channel* (one direction of one connection) and is counted
there twice: by its sender when sent, by its receiver when handled. Reports hand over those
counts per channel; the coordinator keeps, per channel, messages sent minus handled.

Once every participant has reported and every channel balances, no message is in flight
or waiting anywhere, and nothing can ever happen again at this instant: the pool is
quiescent. Then:

1. if some participant has end-of-instant work, RUN(eoi) goes to those that have (they run
   it, then report again: that work may send messages);
2. otherwise the pool jumps to ``t``, the earliest deadline: RUN(t) goes to the participants
   whose next timer is at ``t``. The others stay frozen at an earlier time, which nobody can
   tell: a frozen process runs no code until a message or a RUN reaches it, and both carry
   the pool's time (a message is stamped with its sender's: a sender is running, so it is
   at the pool's time).

A frozen process that a message reaches thaws itself at the message's time and reports
again when idle, without asking (:mod:`.participant`). Meanwhile the coordinator still holds
its old report, but cannot be misled by it: the message's channel stays unbalanced until the
receiver reports having handled it. Why that is enough: suppose the coordinator sees every
channel balanced while some process did something after its last report. Take the first
such thing, in real time: the process was thawed by a message (a RUN is known to the
coordinator, which waits for the report answering it -- reports say how many RUNs their
process has had). That message's sender sent it before its own last report (otherwise the
sender acted after its report earlier still), so the sender's count includes it while the
receiver's does not: on that one channel, whose messages arrive in order, the counts
differ. Counting per channel matters: summed over the pool, a message counted on one side
only could be made up by another, sent later, counted on the other side only.

A message without a stamp (from outside virtual time) still makes its frozen receiver send
HOLD, and the coordinator thaws it with a RUN at the current instant. (Sums that do not
balance with no report or HOLD coming mean a message was lost -- sent on a connection whose
far end died or closed -- and are written off once two looks at the whole pool agree.)

Why no process handles a message from its future: a message sent at ``t`` goes to a process
that either is at ``t`` or is frozen at an earlier time and moves to ``t`` before handling
it; a channel unbalanced holds every decision. Why every timer fires at its deadline: while
all are frozen no timer can be added, so ``t`` is the earliest deadline of the whole pool,
and a lagging process's deadlines are all later than any ``t`` it is thawed at.

Per jump this costs one RUN and one report for each process that has something to do, one
more report for each time a message thaws a frozen process, and nothing for the rest.

The methods return :class:`Action` lists for the host to carry out; nothing here does I/O
or reads a clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

SHARED = "*"
"""The channel of messages counted without one (totals only, or a peer outside the pool)."""


@dataclass(frozen=True)
class Run:
    """Send RUN to these participants: move the clock to ``now``, run end-of-instant work if
    ``eoi``, thaw (handle held messages), and report again once idle."""

    names: tuple[str, ...]
    now: float
    eoi: bool = False
    round: int = field(default=0, compare=False)
    """The decision it carries out (stamped on what the process sends while it runs)."""


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


@dataclass(slots=True)
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

    ``local`` names the participant that lives in the host's own process. It is run at a
    jump when its timer is due, or when ``local_waits_for_jumps`` says one of its tasks
    waits for the clock to move (the replay's driver: the host wakes it at every
    :class:`Advance`, and what it does then must run in a thawed process, at that instant);
    otherwise not: the host moves its clock at every jump, which wakes none of its timers
    before their time. In an end-of-instant round it is run when it has such work.
    """

    now: float
    limit: float = math.inf
    local: str | None = None
    local_waits_for_jumps: Callable[[], bool] | None = field(default=None, compare=False)
    round: int = 0
    jumps: int = 0
    runs: int = 0  # RUNs sent (one per participant run), jumps' and holds' alike
    holds: int = 0  # HOLDs answered with a RUN: messages that reached a frozen participant
    self_thaws: int = 0  # reports answering no RUN: a stamped message thawed a frozen process
    finished: bool = False
    participants: set[str] = field(default_factory=set)
    expected: set[str] = field(default_factory=set)
    _reports: dict[str, _Report] = field(default_factory=dict)  # the frozen ones
    _counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # last known
    _net: dict[str, int] = field(default_factory=dict)  # sent - handled, per channel, if not 0
    _shared: dict[str, int] = field(default_factory=dict)  # each one's part of SHARED
    _runs_sent: dict[str, int] = field(default_factory=dict)
    _recovering: bool = False
    _previous: tuple[dict[str, int], dict[str, tuple[int, int]]] | None = None
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
        self._shared[name] = 0
        self._runs_sent[name] = 0
        if self.finished:
            return []
        return self._run([name])

    def leave(self, name: str) -> list[Action]:
        """A participant's process is gone; messages sent to it may be lost."""
        if name not in self.participants:
            return []
        self.participants.discard(name)
        self._dying.discard(name)
        self._counts.pop(name, None)
        self._runs_sent.pop(name, None)
        # Counted without channels, its own counts leave the sums. What others sent it and
        # it never handled (and, per channel, what it sent after its last report) stays
        # unbalanced: two agreeing looks at the whole pool write that off as lost.
        self._add(SHARED, -self._shared.pop(name, 0))
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
        channels: dict[str, int] | None = None,
        runs: int | None = None,
    ) -> list[Action]:
        """A participant is idle and frozen.

        ``channels``: messages sent minus handled per channel since its previous report
        (None: ``sent`` and ``received`` are its totals, all on one shared channel).
        ``runs``: RUNs it has had; a report made before the last RUN sent to it reached it
        answers none (a message thawed it): it stays running. (``round`` is not needed.)
        """
        if name not in self.participants:
            raise CoordinatorError(f"report from unknown participant {name!r}")
        self._counts[name] = (sent, received)
        if channels is None:
            part = sent - received
            self._add(SHARED, part - self._shared.get(name, 0))
            self._shared[name] = part
        else:
            net = self._net
            for channel, n in channels.items():  # self._add, inlined: it runs per report
                if n:
                    left = net.get(channel, 0) + n
                    if left:
                        net[channel] = left
                    else:
                        del net[channel]
        if runs is not None and runs < self._runs_sent.get(name, 0):
            self.self_thaws += 1
            return []  # a RUN is on its way to it: its answer is the report that counts
        if name in self._reports:
            self.self_thaws += 1  # reported, had no RUN since: a message thawed it
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
        return bool(self._net)

    def suspect_loss(self) -> list[Action]:
        """No HOLD came: look at everyone again; what two agreeing looks leave unbalanced is
        written off as lost."""
        if not self.stalled():
            return []
        self._recovering = True
        return self._decide()

    # -- internals --------------------------------------------------------------------------
    def _add(self, channel: str, n: int) -> None:
        if n:
            left = self._net.get(channel, 0) + n
            if left:
                self._net[channel] = left
            else:
                del self._net[channel]

    def _run(self, names: list[str], *, eoi: bool = False) -> list[Action]:
        runs_sent = self._runs_sent
        for name in names:
            self._reports.pop(name, None)
            if name in runs_sent:
                runs_sent[name] += 1
        self.runs += len(names)
        return [Run(tuple(sorted(names)), self.now, eoi, self.round)]

    def _decide(self) -> list[Action]:
        if self.finished or self.expected or not self.participants:
            return []
        if len(self._reports) < len(self.participants):
            return []  # someone is still running (or holding what it was sent)
        reports = self._reports
        if self._net:
            if not self._recovering:
                return []  # a message is on its way to, or being handled by, a process
            look = (dict(self._net), {n: (r.sent, r.received) for n, r in reports.items()})
            if look != self._previous:
                self._previous = look  # look once more at everyone; agreeing looks settle it
                self._rerun = False
                return self._run(sorted(self.participants))
            self._net.clear()  # lost
        self._recovering = False
        self._previous = None
        if self._rerun:
            self._rerun = False
            return self._run(sorted(self.participants))
        if any(r.eoi_pending for r in reports.values()):
            self.round += 1
            names = [n for n, r in reports.items() if r.eoi_pending]
            return [EndOfInstant(self.round), *self._run(names, eoi=True)]
        target = min(r.next_deadline for r in reports.values())
        if target > self.limit or math.isinf(target):
            self.finished = True
            reason = "limit reached" if target > self.limit else "no timer left"
            return [Finished(reason, self.now)]
        self.now = max(target, self.now)
        self.jumps += 1
        self.round += 1
        due = [n for n, r in reports.items() if r.next_deadline <= self.now]
        local = self.local
        if local is not None and local in reports and local not in due and \
                self.local_waits_for_jumps is not None and self.local_waits_for_jumps():
            due.append(local)
        return [Advance(self.now), *self._run(due)]
