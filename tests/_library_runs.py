"""The library's scenarios replayed once per test run (tests/conftest.py's ``library_runs``)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
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

    Once per run, not once per process: ``root`` is made by the session's controller and is
    the same for every pytest-xdist worker (tests/conftest.py). A replay is made under an
    exclusive lock on ``NAME.RUN.lock`` in it, and its outcome is written beside its run
    directory (``NAME.RUN.json``) before the lock is let go; whoever asks next -- a thread of
    this process or another worker -- waits for the lock and reads the outcome.
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
                self._outcomes[name, run] = self._made_once(name, run)
            return self._outcomes[name, run]

    def _made_once(self, name: str, run: str) -> subprocess.CompletedProcess[str]:
        run_dir = self.run_dir(name, run)
        outcome = run_dir.with_name(run_dir.name + ".json")
        with open(run_dir.with_name(run_dir.name + ".lock"), "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)  # let go when the file is closed
            if outcome.exists():  # another worker made it
                kept = json.loads(outcome.read_text(encoding="utf-8"))
                return subprocess.CompletedProcess(kept["args"], kept["returncode"],
                                                   kept["stdout"], kept["stderr"])
            # a worker that died replaying it left no outcome: the directory is begun again
            shutil.rmtree(run_dir, ignore_errors=True)
            env = dict(os.environ, CONDOR_CONFIG="/dev/null")
            argv = [sys.executable, "-m", "condorsim.cli", "replay",
                    str(self.library / name), "--keep", str(run_dir)]
            done = forked(argv, env, self.library.parent)
            if done is None:  # no zygote for it: started as usual
                done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT,
                                      env=env, cwd=self.library.parent)
            written = outcome.with_name(outcome.name + ".part")
            written.write_text(json.dumps({"args": done.args, "returncode": done.returncode,
                                           "stdout": done.stdout, "stderr": done.stderr}),
                               encoding="utf-8")
            written.replace(outcome)
            return done

    def kept(self, name: str) -> Path:
        """A run of ``scenarios/NAME`` whose every expectation passed, kept."""
        done = self(name)
        assert done.returncode == 0, done.stdout + done.stderr
        return self.run_dir(name)


TIMEOUT = 600
REPLAY_ZYGOTE_ENV = "CONDORSIM_TEST_REPLAY_ZYGOTE"
"""The socket of the session's zygote for `condorsim replay` processes (tests/conftest.py)."""


def forked(argv: list[str], env: dict[str, str], cwd: Path
           ) -> subprocess.CompletedProcess[str] | None:
    """``argv`` (``python -m condorsim.cli ...``) run to its end as ``subprocess.run(argv,
    capture_output=True, text=True)`` would, but forked by the session's replay zygote,
    which has its modules imported already; None if there is no such zygote."""
    import tempfile

    import trio

    from condorsim.runtime.zygote import Zygote, ZygoteUnavailable

    path = os.environ.get(REPLAY_ZYGOTE_ENV)
    zygote = Zygote.connect(path, sys.executable, env) if path else None
    if zygote is None:
        return None

    async def run(stderr: int) -> tuple[int, bytes]:
        proc = await zygote.spawn(argv, env, stderr=stderr, comm="condorsim", cwd=str(cwd))
        out = bytearray()
        try:
            with trio.fail_after(TIMEOUT):
                async with proc.stdout:
                    while chunk := await proc.stdout.receive_some():
                        out += chunk
                return await proc.wait(), bytes(out)
        except trio.TooSlowError:
            proc.kill()
            raise subprocess.TimeoutExpired(argv, TIMEOUT) from None

    try:
        with tempfile.TemporaryFile() as err:
            try:
                code, out = trio.run(run, err.fileno())
            except ZygoteUnavailable:
                return None
            err.seek(0)
            errors = err.read()
    finally:
        zygote.close()
    return subprocess.CompletedProcess(argv, code, _text(out), _text(errors))


def _text(data: bytes) -> str:
    """As ``subprocess.run(text=True)`` reads a stream: UTF-8, universal newlines."""
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")
