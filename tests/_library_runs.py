"""The library's scenarios replayed once per test run (tests/conftest.py's ``library_runs``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

RUNS = ("first", "second")
"""tests/replay/test_scenarios.py replays every scenario twice, in these two runs."""


def library_names(library: Path) -> list[str]:
    """The library's scenarios (scenarios/*.toml) and the annotated examples of the format
    (scenarios/examples/*.toml), as names relative to ``library``."""
    paths = sorted(library.glob("*.toml")) + sorted((library / "examples").glob("*.toml"))
    return [p.relative_to(library).as_posix() for p in paths]


class LibraryRuns:
    """Kept replays of the library's scenarios (``condorsim replay scenarios/NAME --keep
    DIR``), each made once in a test run and then read by every test that asks for it:
    tests/replay/test_scenarios.py replays the whole library twice; the hook tests read the
    hook scenarios' runs and tests/report a copy of the tour's (eleven replays fewer). A test
    only reads a kept run (or a copy of it).

    When a run is to ask for them all, :meth:`prefetch` replays them one at a time in a
    thread of their own from the start of the session: most of the suite's tests run in
    pytest's one process, on one core, and the replays take the other one instead of
    waiting for test_scenarios.py (docs/performance.md, "How long `make test` takes").
    Thread-safe: test_scenarios.py asks for a few at once, beside the prefetch."""

    def __init__(self, root: Path, library: Path) -> None:
        self.root = root
        self.library = library
        self._outcomes: dict[tuple[str, str], subprocess.CompletedProcess[str]] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_dir(self, name: str, run: str = "first") -> Path:
        """The kept run of ``scenarios/NAME`` (``tour.toml``, ``examples/minimal.toml``)."""
        return self.root / f"{name.replace('/', '-')}.{run}"

    def _key_lock(self, key: tuple[str, str]) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())

    def _replay(self, name: str, run: str) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, CONDOR_CONFIG="/dev/null")
        return subprocess.run(
            [sys.executable, "-m", "condorsim.cli", "replay",
             str(self.library / name), "--keep", str(self.run_dir(name, run))],
            capture_output=True, text=True, timeout=600, env=env, cwd=self.library.parent)

    def __call__(self, name: str, run: str = "first") -> subprocess.CompletedProcess[str]:
        """The replay's outcome (exit status, output), replaying it if nobody has yet (or
        waiting for the prefetch's replay of it, under way)."""
        with self._key_lock((name, run)):
            if (name, run) not in self._outcomes:
                self._outcomes[name, run] = self._replay(name, run)
            return self._outcomes[name, run]

    def kept(self, name: str) -> Path:
        """A run of ``scenarios/NAME`` whose every expectation passed, kept."""
        done = self(name)
        assert done.returncode == 0, done.stdout + done.stderr
        return self.run_dir(name)

    def prefetch(self, keys: Iterable[tuple[str, str]]) -> None:
        """Replay ``keys`` ((name, run) pairs), in that order, one at a time in a thread,
        skipping any a test has already made or is making. A replay is the same whoever
        makes it; a test asking for one under way waits for it (:meth:`__call__`)."""
        todo = list(keys)

        def work() -> None:
            for key in todo:
                if self._stop.is_set():
                    return
                lock = self._key_lock(key)
                if not lock.acquire(blocking=False):
                    continue  # a test is replaying it
                try:
                    if key not in self._outcomes:
                        self._outcomes[key] = self._replay(*key)
                except (OSError, subprocess.SubprocessError):
                    pass  # not kept: the test that asks for it replays it and says why
                finally:
                    lock.release()

        self._thread = threading.Thread(target=work, name="library-prefetch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Start no more prefetched replays and wait for the one under way to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
