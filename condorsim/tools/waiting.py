"""What ``condorsim up`` and ``down`` are waiting for, said while they wait.

On a terminal, one live line (a ``rich`` spinner) that changes as daemons come up or go
away; otherwise a line on stderr when the wait begins, and again when what is awaited has
changed and :data:`QUIET_SECONDS` have passed since the last one, so a log shows a slow
start without a line per daemon. The daemons' process ids come from the master's log (``daemon_started``), read
through :func:`condorsim.replay.explain.read_log_records`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from condorsim.pool import process_alive
from condorsim.replay.explain import read_log_records

QUIET_SECONDS = 2.0  # off a terminal: real seconds between two lines


class Waiting:
    """A line saying what a command waits for (see the module's docstring)."""

    def __init__(self, prog: str, stream: TextIO | None = None) -> None:
        self.prog = prog
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self._status: Any = None
        self._said = ""
        self._printed = -QUIET_SECONDS

    def __enter__(self) -> Waiting:
        if self.live:
            from rich.console import Console

            self._status = Console(file=self.stream).status("", spinner="dots")
            self._status.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._status is not None:
            self._status.stop()

    def show(self, text: str) -> None:
        if not text or text == self._said:
            return
        if self._status is not None:
            self._said = text
            self._status.update(f"{self.prog}: {text}")
        elif time.monotonic() - self._printed >= QUIET_SECONDS:
            self._said = text
            self._printed = time.monotonic()
            print(f"{self.prog}: {text}", file=self.stream, flush=True)


def daemon_pids(home: Path) -> dict[str, int]:
    """The process id of each daemon the pool's master last started (not the master's)."""
    pids: dict[str, int] = {}
    for r in read_log_records(home / "log", only=["MasterLog"]):
        if r.get("event") == "daemon_started" and isinstance(r.get("pid"), int) and \
                r.get("daemon") != "master":
            pids[str(r.get("daemon"))] = int(r["pid"])
    return pids


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not)."""
    return process_alive(pid)


def awaited(names: list[str], ready: list[str], verb: str, done: str) -> str:
    """``waiting for schedd, startd to start (up: master, collector)``; "" when none is
    awaited."""
    waiting = [n for n in names if n not in ready]
    if not waiting:
        return ""
    return f"waiting for {', '.join(waiting)} to {verb}" + \
        (f" ({done}: {', '.join(ready)})" if ready else "")
