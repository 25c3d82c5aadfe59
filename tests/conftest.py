"""Test-wide settings: HTCondor's bindings without a pool, and a watchdog against hangs."""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Iterator

import pytest

# The reference bindings (htcondor, classad2) look for a condor_config at import; there is none.
os.environ.setdefault("CONDOR_CONFIG", "/dev/null")

WATCHDOG_SECONDS = 240
"""No single test may take longer: a hang prints every thread's stack and ends the run."""


@pytest.fixture(autouse=True)
def _watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
