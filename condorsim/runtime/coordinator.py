"""The virtual-time coordinator: when may the whole pool jump to its next timer?

How this works
--------------
A sans-I/O state machine, hosted by the master. Every process of the pool is a
*participant*. The coordinator runs *rounds*: it polls every participant, and each answers
only once it is idle (every trio task blocked, no subprocess running) with its counts of pool
messages sent and received, its next timer deadline and whether it has end-of-instant work.

The pool is *quiescent* when two consecutive complete rounds report the same counts for
every participant and, summed over the pool, messages sent equal messages received (plus an
allowance for messages lost with a process that died). This is the counting
termination-detection scheme: a message in flight shows up either as a sum that does not
balance or as counts that moved between the rounds.

Once quiescent:

1. if any participant has end-of-instant work, the coordinator sends END_OF_INSTANT and
   polls again (that work may send messages, so quiescence is detected afresh);
2. otherwise it jumps: PREPARE(t) to everyone with t the earliest deadline of the pool,
   waits for every PREPARED, then ADVANCE(t) and a new round.

The methods return :class:`Action` lists for the runner to carry out; nothing here does I/O
or reads a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum


class Phase(Enum):
    POLLING = "polling"
    PREPARING = "preparing"
    FINISHED = "finished"


@dataclass(frozen=True)
class Poll:
    """Send SIM_CLOCK_POLL(round) to every participant."""

    round: int


@dataclass(frozen=True)
class EndOfInstant:
    """Send SIM_END_OF_INSTANT(round) to every participant (before the next Poll)."""

    round: int


@dataclass(frozen=True)
class Prepare:
    """Send SIM_CLOCK_PREPARE(now) to every participant and wait for every PREPARED."""

    now: float


@dataclass(frozen=True)
class Advance:
    """Send SIM_CLOCK_ADVANCE(now) to every participant (followed by a Poll)."""

    now: float


@dataclass(frozen=True)
class Finished:
    """No timer is left at or before the limit: the simulation has nothing more to do."""

    reason: str
    now: float


Action = Poll | EndOfInstant | Prepare | Advance | Finished


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
    """Decides when the pool's simulated time may move, and to where."""

    now: float
    limit: float = math.inf
    round: int = 0
    phase: Phase = Phase.POLLING
    jumps: int = 0
    participants: set[str] = field(default_factory=set)
    expected: set[str] = field(default_factory=set)
    _reports: dict[str, _Report] = field(default_factory=dict)
    _previous: dict[str, tuple[int, int]] | None = None
    _last_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    _prepared: set[str] = field(default_factory=set)
    _target: float = 0.0
    _lost: int = 0
    _recovering: bool = False

    # -- membership -------------------------------------------------------------------------
    def expect(self, name: str) -> None:
        """A participant is starting: no jump happens until it joins (or is forgotten)."""
        self.expected.add(name)

    def forget(self, name: str) -> list[Action]:
        """An expected participant will never join (its process failed to start)."""
        self.expected.discard(name)
        return self._maybe_complete()

    def join(self, name: str) -> list[Action]:
        """A participant said hello. A round in progress is restarted to include it."""
        if name in self.participants:
            raise CoordinatorError(f"participant {name!r} joined twice")
        self.expected.discard(name)
        self.participants.add(name)
        self._last_counts[name] = (0, 0)
        if self.phase is Phase.FINISHED:
            return []
        if self.phase is Phase.PREPARING:
            # It missed PREPARE; the jump goes on and it is polled with everyone afterwards.
            return [Prepare(self._target)]
        return self._new_round(stable_history=False)

    def leave(self, name: str) -> list[Action]:
        """A participant's process is gone; messages sent to it may be lost."""
        if name not in self.participants:
            return []
        self.participants.discard(name)
        sent, received = self._last_counts.pop(name, (0, 0))
        # Its own counts leave the sums; what others sent it and it never took stays
        # unbalanced: the next stable pair of rounds accepts that as lost.
        self._lost -= sent - received
        self._reports.pop(name, None)
        self._prepared.discard(name)
        self._recovering = True
        if self.phase is Phase.PREPARING:
            return self._maybe_advance()
        return self._maybe_complete()

    # -- the protocol -----------------------------------------------------------------------
    def start(self) -> list[Action]:
        return self._new_round(stable_history=False)

    def report(
        self,
        name: str,
        round: int,
        sent: int,
        received: int,
        next_deadline: float | None,
        eoi_pending: bool,
    ) -> list[Action]:
        """A participant is idle (answer to the poll of ``round``)."""
        if name not in self.participants:
            raise CoordinatorError(f"report from unknown participant {name!r}")
        if round != self.round or self.phase is not Phase.POLLING:
            return []  # an answer to a poll that was superseded
        deadline = math.inf if next_deadline is None else float(next_deadline)
        self._reports[name] = _Report(sent, received, deadline, eoi_pending)
        self._last_counts[name] = (sent, received)
        return self._maybe_complete()

    def prepared(self, name: str) -> list[Action]:
        if self.phase is not Phase.PREPARING:
            return []
        self._prepared.add(name)
        return self._maybe_advance()

    # -- internals --------------------------------------------------------------------------
    def _new_round(self, *, stable_history: bool) -> list[Action]:
        if not stable_history:
            self._previous = None
        self.round += 1
        self._reports = {}
        self.phase = Phase.POLLING
        return [Poll(self.round)]

    def _maybe_complete(self) -> list[Action]:
        if self.phase is not Phase.POLLING or self.expected:
            return []
        if not self.participants or set(self._reports) != self.participants:
            return []
        counts = {n: (r.sent, r.received) for n, r in self._reports.items()}
        stable = self._previous == counts
        imbalance = sum(s for s, _ in counts.values()) - sum(r for _, r in counts.values())
        balanced = imbalance == self._lost
        if stable and not balanced and self._recovering:
            self._lost = imbalance
            balanced = True
        if not (stable and balanced):
            self._previous = counts
            return self._new_round(stable_history=True)
        self._recovering = False
        if any(r.eoi_pending for r in self._reports.values()):
            self._previous = None
            eoi = EndOfInstant(self.round + 1)
            return [eoi, *self._new_round(stable_history=False)]
        target = min(r.next_deadline for r in self._reports.values())
        if target > self.limit or math.isinf(target):
            self.phase = Phase.FINISHED
            reason = "limit reached" if target > self.limit else "no timer left"
            return [Finished(reason, self.now)]
        self._target = max(target, self.now)
        self.phase = Phase.PREPARING
        self._prepared = set()
        return [Prepare(self._target)]

    def _maybe_advance(self) -> list[Action]:
        if self._prepared < self.participants:
            return []
        self.now = self._target
        self.jumps += 1
        return [Advance(self.now), *self._new_round(stable_history=False)]
