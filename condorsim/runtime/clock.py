"""Simulated time as trio sees it.

How this works
--------------
Every daemon reads time through trio (``trio.current_time()``), and trio reads it from the
clock given to ``trio.run``. The value is simulated epoch seconds. Two clocks:

* :class:`WallClock` -- simulated time runs with real time times ``speed``, from ``start``.
* :class:`VirtualClock` -- simulated time stands still until the pool's coordinator moves it
  (:meth:`VirtualClock.advance`). ``deadline_to_sleep_time`` says "sleep for ever" for a
  future deadline, so a process with nothing to do blocks in I/O until a message or the
  coordinator arrives. Why no process ever handles a message from its future is the
  coordinator's business (:mod:`.coordinator`: a process is *frozen* until told to move).

In-process tests use ``trio.testing.MockClock(autojump_threshold=0)`` instead; the daemon
code is the same.
"""

from __future__ import annotations

import math
import time as _time

import trio


class WallClock(trio.abc.Clock):
    """Simulated time = ``start`` + real elapsed time x ``speed``.

    ``origin`` is the host's epoch time at which simulated time was ``start`` (default:
    now). Every process of a pool is given the same pair, so their clocks agree however
    long each took to start: a job's CommittedTime (the shadow's clock) and its
    RemoteWallClockTime (the schedd's) are the same seconds.
    """

    def __init__(self, start: float, speed: float = 1.0, origin: float | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.start = float(start)
        self.speed = float(speed)
        self.origin = _time.time() if origin is None else float(origin)
        self._t0 = self._anchor()

    def _anchor(self) -> float:
        return _time.monotonic() - max(0.0, _time.time() - self.origin)

    def start_clock(self) -> None:
        self._t0 = self._anchor()

    def current_time(self) -> float:
        return self.start + (_time.monotonic() - self._t0) * self.speed

    def deadline_to_sleep_time(self, deadline: float) -> float:
        return (deadline - self.current_time()) / self.speed


class VirtualClock(trio.abc.Clock):
    """Simulated time that moves only when told to (by the coordinator, or a test)."""

    def __init__(self, start: float) -> None:
        self.now = float(start)

    def start_clock(self) -> None:
        pass

    def current_time(self) -> float:
        return self.now

    def deadline_to_sleep_time(self, deadline: float) -> float:
        return 0.0 if deadline <= self.now else math.inf

    def advance(self, t: float) -> None:
        """Move to ``t``. Time never goes backwards."""
        if t > self.now:
            self.now = t
