"""What ``condorsim up`` and ``down`` are waiting for, said while they wait.

On a terminal, one live line (a ``rich`` spinner) that changes as daemons come up or go
away; otherwise a line on stderr when the wait begins, and again when what is awaited has
changed and :data:`QUIET_SECONDS` have passed since the last one, so a log shows a slow
start without a line per daemon. The daemons' process ids come from the master's log (``daemon_started``), read
through :func:`condorsim.replay.explain.read_log_records`.
"""

from __future__ import annotations

import json
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


class StartFailures:
    """Daemons the master could not start since this watcher was made, and why.

    The master logs ``daemon_failed_to_start`` (the process exited before it served
    anything) in MasterLog.json; the reason is what the daemon last wrote to
    ``log/<daemon>.stderr`` (a daemon that cannot use a knob says so there and exits 2).
    Only what was written after the watcher was made counts, so an earlier pool's failures
    in the same directory are not reported again."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._master = log_dir / "MasterLog.json"
        self._offset = _size(self._master)
        self._stderr = {p.name: _size(p) for p in log_dir.glob("*.stderr")}

    def first(self) -> tuple[str, str] | None:
        """(daemon, " (exit status N): reason") of the first daemon that failed to start
        (or exited) while the pool started, or None."""
        try:
            with open(self._master, "rb") as fh:
                fh.seek(self._offset)
                text = fh.read().decode("utf-8", errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("event") in (
                    "daemon_failed_to_start", "daemon_exited"):
                name = str(record.get("daemon"))
                status = record.get("status")
                how = f" (exit status {status})" if status is not None else ""
                return name, f"{how}: {self.reason(name)}"
        return None

    def reason(self, daemon: str) -> str:
        """The last line the daemon wrote to its stderr since the watcher was made."""
        path = self.log_dir / f"{daemon}.stderr"
        try:
            with open(path, "rb") as fh:
                fh.seek(self._stderr.get(path.name, 0))
                text = fh.read().decode("utf-8", errors="replace")
        except OSError:
            text = ""
        lines = [line for line in text.splitlines() if line.strip()]
        return lines[-1].strip() if lines else f"it exited at once (see {path})"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


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
