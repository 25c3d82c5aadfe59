"""The progress line of a replay on a terminal: simulated time reached, jobs done.

How this works
--------------
:meth:`Progress.run` redraws one stderr line each time simulated time moves (at most twice
a real second): the simulated date in the scenario's zone, and the jobs submitted and done
(JOB_TERMINATED or JOB_ABORTED), counted in the user logs (``*.log`` files) of the run
directory -- read from disk, so the meter sends no message and changes nothing in the
run. It writes nothing unless enabled (the tool enables it when stderr is a terminal).
"""

from __future__ import annotations

import sys
import time
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import trio

from condorsim.eventlog import EventLogError, read_events
from condorsim.scenario import Scenario

if TYPE_CHECKING:
    from .driver import Driver
    from .instants import Instants

REDRAW = 0.5  # real seconds between redraws


def sim_datetime(t: float, tz: str) -> str:
    """Simulated epoch seconds as ``YYYY-MM-DD HH:MM:SS`` in the zone ``tz``."""
    return datetime.fromtimestamp(int(t), ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M:%S")


class Progress:
    def __init__(self, scenario: Scenario, driver: Driver, *, enabled: bool) -> None:
        self.scenario = scenario
        self.driver = driver
        self.enabled = enabled
        self._last = 0.0
        self._drawn = False

    def line(self) -> str:
        submitted = done = 0
        for path in sorted(self.driver.run_dir.rglob("*.log")):
            try:
                events = read_events(path, tz=self.scenario.timezone)
            except (EventLogError, OSError):
                continue
            submitted += sum(1 for e in events if e.type == "SUBMIT")
            done += sum(1 for e in events if e.type in ("JOB_TERMINATED", "JOB_ABORTED"))
        when = sim_datetime(trio.current_time(), self.scenario.timezone)
        return f"{self.scenario.name}: {when}  jobs submitted {submitted}, done {done}"

    async def run(self, instants: Instants) -> None:
        while not instants.finished:
            await instants.wait_moved()
            now = time.monotonic()
            if now - self._last >= REDRAW:
                self._last = now
                sys.stderr.write("\r" + self.line()[:120].ljust(120))
                sys.stderr.flush()
                self._drawn = True

    def finish(self) -> None:
        if self.enabled and self._drawn:
            sys.stderr.write("\r" + " " * 120 + "\r")
            sys.stderr.flush()
