"""The progress bar of a replay on a terminal: simulated time towards the run's end, jobs done.

How this works
--------------
:meth:`Progress.run` redraws a ``rich`` progress bar on stderr each time simulated time
moves (at most twice a real second): how far simulated time has gone from the start to
the run's last moment (``until``, or ``max`` for ``until = "quiet"``), the simulated date
in the scenario's zone, and the jobs submitted and done (JOB_TERMINATED or JOB_ABORTED).
The jobs are counted in the user logs (``*.log`` files) of the run directory, read from
disk -- only what was appended since the last look (:class:`UserLogTally`) -- so the bar
sends no message, changes nothing in the run and costs little in a long one. It draws
nothing unless enabled (the tool enables it when stderr is a terminal and ``--quiet``
is not given), and leaves no line behind.
"""

from __future__ import annotations

import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import trio

from condorsim.eventlog import EventLogError, parse_events
from condorsim.scenario import Scenario

if TYPE_CHECKING:
    from .driver import Driver
    from .instants import Instants

REDRAW = 0.5  # real seconds between redraws
_SYNC = b"\n...\n"  # the line that ends each event of a user log


def sim_datetime(t: float, tz: str) -> str:
    """Simulated epoch seconds as ``YYYY-MM-DD HH:MM:SS`` in the zone ``tz``."""
    return datetime.fromtimestamp(int(t), ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M:%S")


class UserLogTally:
    """Jobs submitted and done, from the user logs under a directory, read incrementally:
    each look parses only the complete events appended since the last one."""

    def __init__(self, run_dir: Path, tz: str) -> None:
        self.run_dir = run_dir
        self.tz = tz
        self.offsets: dict[Path, int] = {}
        self.submitted = 0
        self.done = 0

    def update(self) -> tuple[int, int]:
        for path in sorted(self.run_dir.rglob("*.log")):
            start = self.offsets.get(path, 0)
            try:
                with open(path, "rb") as f:
                    f.seek(start)
                    chunk = f.read()
            except OSError:
                continue
            end = chunk.rfind(_SYNC)
            if end < 0:
                continue
            complete = chunk[:end + len(_SYNC)]
            self.offsets[path] = start + len(complete)
            try:
                events = parse_events(complete.decode("utf-8", "replace"), name=str(path),
                                      tz=self.tz)
            except EventLogError:
                continue
            self.submitted += sum(1 for e in events if e.type == "SUBMIT")
            self.done += sum(1 for e in events if e.type in ("JOB_TERMINATED", "JOB_ABORTED"))
        return self.submitted, self.done


class Progress:
    def __init__(self, scenario: Scenario, driver: Driver, *, enabled: bool,
                 stop_at: float | None = None) -> None:
        self.scenario = scenario
        self.driver = driver
        self.enabled = enabled
        self.stop_at = stop_at if stop_at is not None else scenario.deadline
        self.tally = UserLogTally(driver.run_dir, scenario.timezone)
        self._last = 0.0
        self._bar: Any = None
        self._task: Any = None

    def line(self) -> str:
        """The jobs and the simulated time, as one line."""
        submitted, done = self.tally.update()
        when = sim_datetime(trio.current_time(), self.scenario.timezone)
        return f"{when}  jobs submitted {submitted}, done {done}"

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[status]}"), TimeElapsedColumn(),
            console=Console(file=sys.stderr), transient=True, auto_refresh=False)
        self._bar.start()
        total = max(self.stop_at - self.scenario.start, 1.0)
        self._task = self._bar.add_task(self.scenario.name[:40], total=total, status="")

    async def run(self, instants: Instants) -> None:
        while not instants.finished:
            await instants.wait_moved()
            now = time.monotonic()
            if now - self._last >= REDRAW:
                self._last = now
                if self._bar is None:
                    self._start()
                done = min(trio.current_time(), self.stop_at) - self.scenario.start
                self._bar.update(self._task, completed=done, status=self.line())
                self._bar.refresh()

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
