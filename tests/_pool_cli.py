"""Helpers for tests that drive a real pool through the `condorsim` command line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def run_cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `condorsim ARGS` against the pool at ``home`` ($CONDORSIM_HOME), in ``cwd``."""
    env = dict(os.environ, CONDORSIM_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "condorsim.cli", *args], env=env,
                          capture_output=True, text=True, timeout=90, cwd=cwd)


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 40.0) -> None:
    """Wait for a condition of real processes, failing after ``seconds`` (never a fixed sleep)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.05)


def collector_pool(home: Path) -> None:
    """The configuration of a pool of a master and a collector, in a new ``home``, whose
    master restarts a dead daemon after 1 s (0 + ceil(1 ** n))."""
    home.mkdir()
    (home / "condor_config").write_text(
        f"LOCAL_DIR = {home}\nDAEMON_LIST = MASTER, COLLECTOR\nCOLLECTOR_HOST = 127.0.0.1:0\n"
        "MASTER_BACKOFF_CONSTANT = 0\nMASTER_BACKOFF_FACTOR = 1\n"
    )
