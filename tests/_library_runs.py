"""The library's scenarios replayed once per test run (tests/conftest.py's ``library_runs``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path


class LibraryRuns:
    """Kept replays of the library's scenarios (``condorsim replay scenarios/NAME --keep
    DIR``), each made once in a test run and then read by every test that asks for it:
    tests/replay/test_scenarios.py replays the whole library twice; the hook tests read the
    hook scenarios' runs and tests/report a copy of the tour's (eleven replays fewer). A test
    only reads a kept run (or a copy of it).
    Thread-safe: test_scenarios.py asks for a few at once."""

    def __init__(self, root: Path, library: Path) -> None:
        self.root = root
        self.library = library
        self._outcomes: dict[tuple[str, str], subprocess.CompletedProcess[str]] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def run_dir(self, name: str, run: str = "first") -> Path:
        """The kept run of ``scenarios/NAME`` (``tour.toml``, ``examples/minimal.toml``)."""
        return self.root / f"{name.replace('/', '-')}.{run}"

    def __call__(self, name: str, run: str = "first") -> subprocess.CompletedProcess[str]:
        """The replay's outcome (exit status, output), replaying it if nobody has yet."""
        with self._lock:
            lock = self._locks.setdefault((name, run), threading.Lock())
        with lock:
            if (name, run) not in self._outcomes:
                env = dict(os.environ, CONDOR_CONFIG="/dev/null")
                self._outcomes[name, run] = subprocess.run(
                    [sys.executable, "-m", "condorsim.cli", "replay",
                     str(self.library / name), "--keep", str(self.run_dir(name, run))],
                    capture_output=True, text=True, timeout=600, env=env, cwd=self.library.parent)
            return self._outcomes[name, run]

    def kept(self, name: str) -> Path:
        """A run of ``scenarios/NAME`` whose every expectation passed, kept."""
        done = self(name)
        assert done.returncode == 0, done.stdout + done.stderr
        return self.run_dir(name)
