"""When a slot runs its fetch-work hook (sans-I/O): HTCondor's ``Resource::tryFetchWork``.

How this works
--------------
A slot fetches work when its keyword (``SLOT<N>_JOB_HOOK_KEYWORD``, else
``STARTD_JOB_HOOK_KEYWORD``) names a usable ``<K>_HOOK_FETCH_WORK``. HTCondor tries to
fetch on two triggers -- each evaluation of the slot's state (every POLLING_INTERVAL, in
Owner, Unclaimed and Claimed but not Suspended) and the starter's exit in Claimed/Idle on
a fetched claim -- and throttles both with ``FetchWorkDelay``: an expression evaluated
with the slot ad as MY and the claim's job as TARGET, in seconds, 300 when undefined. A
try that comes sooner than ``delay`` after the last fetch *completed* sets a timer for the
rest of the delay; every completed fetch sets the timer to a whole new delay (1 s when
the delay is not positive). A slot whose START is locally false does not run the hook.

condorsim does not poll to find out: :meth:`FetchState.next_try` computes when the first
trigger at or after ``last completed + delay`` comes -- the pending timer (which fires
whatever the slot's state; too early, it re-arms for exactly then), or the next poll tick
in a state that fetches, the poll ticks being ``start + k x POLLING_INTERVAL`` (k >= 1) --
and the runner recomputes it whenever the slot changes. The first fetch is at the first
poll tick. :class:`FetchState` also keeps what the slot ad publishes
(``LastFetchWorkSpawned``, ``LastFetchWorkCompleted``, ``NextFetchWorkDelay``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from condorsim.classad import ClassAd, EvalContext, ExprTree

from .slot import Slot
from .states import Activity, State

DEFAULT_DELAY = 300
"""FetchWorkDelay when undefined (``Resource::evalNextFetchWorkDelay``)."""


def fetch_delay(expr: ExprTree | None, slot_ad: ClassAd, job_ad: ClassAd | None,
                now: float) -> int:
    """FetchWorkDelay in seconds (HTCondor's ``EvalInteger``; 300 when not a number)."""
    if expr is None:
        return DEFAULT_DELAY
    value = expr.evaluate(my=slot_ad, target=job_ad, ctx=EvalContext(now=int(now)))
    if type(value) is bool:
        return int(value)
    if type(value) is int:
        return value
    if type(value) is float and math.isfinite(value):
        return int(value)
    return DEFAULT_DELAY


def may_fetch(slot: Slot) -> bool:
    """Whether a state evaluation of this slot tries to fetch (``do_periodic_actions``)."""
    if slot.state in (State.OWNER, State.UNCLAIMED):
        return True
    return slot.state == State.CLAIMED and slot.activity != Activity.SUSPENDED


@dataclass
class FetchState:
    """One slot's fetch throttle (see the module doc)."""

    keyword: str
    hook: str  # the FETCH_WORK hook's path
    start: float  # the startd's start: poll ticks are start + k x poll
    poll: float
    last_spawned: int = 0
    last_completed: int = 0
    fetching: bool = False
    next_delay: int = -1
    timer: float | None = None  # HTCondor's per-slot fetch timer
    target: float | None = None  # when next_try last said the hook runs

    def publish(self) -> dict[str, int]:
        """What the slot ad carries about fetching."""
        return {"LastFetchWorkSpawned": self.last_spawned,
                "LastFetchWorkCompleted": self.last_completed,
                "NextFetchWorkDelay": self.next_delay}

    def _tick_at_or_after(self, t: float) -> float:
        if self.poll <= 0:
            return t
        k = max(1, math.ceil((t - self.start) / self.poll))
        return self.start + k * self.poll

    def next_try(self, slot: Slot, delay: int, now: float) -> float | None:
        """When this slot's fetch hook runs next if nothing changes (None: not while the
        slot stays as it is)."""
        if self.fetching:
            return None
        self.next_delay = delay
        ready = max(float(self.last_completed + delay) if delay > 0 else now, now)
        # the timer fires whatever the slot's state; too early, it re-arms for ``ready``
        by_timer = max(self.timer, ready) if self.timer is not None else math.inf
        by_poll = self._tick_at_or_after(ready) if may_fetch(slot) else math.inf
        when = min(by_timer, by_poll)
        self.target = when if when < math.inf else None
        return self.target

    def due(self, now: float) -> bool:
        """The time :meth:`next_try` gave has come (on a wall clock, ``now`` is a little
        past it when the runner wakes)."""
        return not self.fetching and self.target is not None and self.target <= now

    def trigger(self, delay: int, now: float) -> bool:
        """The starter left a fetched claim idle: fetch now (True), or when the delay is
        spent (the timer is set for then)."""
        if self.fetching:
            return False
        self.next_delay = delay
        if delay <= 0 or now - self.last_completed >= delay:
            return True
        self.timer = float(self.last_completed + delay)
        return False

    def retry(self, when: float) -> None:
        """Try again at ``when`` (the runner could not fetch now)."""
        self.timer = when
        self.target = None

    def not_willing(self, delay: int, now: float) -> None:
        """START is locally false: no hook this time, the timer waits a whole delay."""
        self.timer = now + (delay if delay > 0 else 1)
        self.target = None

    def spawned(self, now: float) -> None:
        self.fetching = True
        self.target = None
        self.last_spawned = int(now)

    def completed(self, delay: int, now: float) -> None:
        """The hook is done (whatever it said): the timer starts a whole new delay."""
        self.fetching = False
        self.last_completed = int(now)
        self.next_delay = delay
        self.timer = now + (delay if delay > 0 else 1)
