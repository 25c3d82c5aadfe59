"""When the next negotiation cycle starts (sans-I/O).

How this works
--------------
As ``Matchmaker::negotiationTime`` (facts section 4):

* the first cycle starts at once;
* after a cycle, the next regular one starts NEGOTIATOR_INTERVAL after the start of the
  last, but never sooner than NEGOTIATOR_CYCLE_DELAY after its end;
* a RESCHEDULE asks for a cycle now, which still waits NEGOTIATOR_MIN_INTERVAL from the
  start and NEGOTIATOR_CYCLE_DELAY from the end of the last cycle.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CycleSchedule:
    interval: float = 60.0
    min_interval: float = 5.0
    cycle_delay: float = 20.0
    last_start: float | None = None
    last_end: float | None = None
    reschedule_requested: bool = False

    def reschedule(self) -> None:
        """A RESCHEDULE arrived."""
        self.reschedule_requested = True

    def next_cycle(self, now: float) -> float:
        """The earliest time the next cycle may start (``now`` or later)."""
        if self.last_start is None or self.last_end is None:
            return now
        after_end = self.last_end + self.cycle_delay
        regular = max(self.last_start + self.interval, after_end)
        if self.reschedule_requested:
            soon = max(now, self.last_start + self.min_interval, after_end)
            return max(now, min(regular, soon))
        return max(now, regular)

    def cycle_started(self, now: float) -> None:
        self.last_start = now
        self.reschedule_requested = False

    def cycle_ended(self, now: float) -> None:
        self.last_end = now
