"""`condorsim up` says within seconds which daemon did not start and why, and leaves no
process behind, instead of waiting out its own 60 s."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _pool_cli import run_cli

from condorsim.pool import ensure_home, master_pid
from condorsim.tools.waiting import alive, daemon_pids

pytestmark = pytest.mark.pool


def _pool(tmp_path: Path, extra: str) -> Path:
    home = tmp_path / "pool"
    config = ensure_home(home)
    config.write_text(config.read_text() + extra)
    return home


def test_a_bad_knob_is_refused_before_anything_starts(tmp_path: Path) -> None:
    home = _pool(tmp_path, "SCHEDD_INTERVAL = soon\n")
    up = run_cli(home, "up")
    assert up.returncode == 2
    lines = (home / "condor_config").read_text().count("\n")
    assert up.stderr == (f"condorsim up: {home / 'condor_config'}, line {lines}: "
                         "SCHEDD_INTERVAL = 'soon' is not a valid integer: it evaluates to "
                         "UNDEFINED, not an integer\n")
    assert master_pid(home) is None
    assert not (home / "log" / "MasterLog").exists()


def test_a_daemon_that_exits_on_a_bad_knob_is_named_with_its_reason(tmp_path: Path) -> None:
    # only the schedd sees this value (through its own SCHEDD. prefix): `up`'s check, made
    # as the master reads the file, cannot, so the schedd refuses it as it starts
    home = _pool(tmp_path, "SCHEDD.SIM_SOON = soon\nSCHEDD_INTERVAL = $(SIM_SOON)\n")
    start = time.monotonic()
    up = run_cli(home, "up")
    took = time.monotonic() - start
    assert up.returncode == 1
    assert "the schedd failed to start (exit status 2)" in up.stderr, up.stderr
    assert "SCHEDD_INTERVAL = '$(SIM_SOON)' (expands to 'soon') is not a valid integer" in up.stderr
    assert "Traceback" not in up.stderr + (home / "log" / "schedd.stderr").read_text()
    assert took < 30, f"up took {took:.0f} s to report it"
    # the pool it started is gone: `up` does not leave half a pool running
    assert master_pid(home) is None
    assert not any(alive(pid) for pid in daemon_pids(home).values())
    assert "exited with status 2 before it started" in (home / "log" / "MasterLog").read_text()


def test_an_unknown_daemon_in_daemon_list_is_refused_before_anything_starts(
    tmp_path: Path,
) -> None:
    home = _pool(tmp_path, "DAEMON_LIST = MASTER, COLLECTOR, FROBNICATOR\n")
    up = run_cli(home, "up")
    assert up.returncode == 2
    assert "DAEMON_LIST names 'FROBNICATOR', which condorsim does not simulate" in up.stderr
    assert str(home / "condor_config") in up.stderr
    assert master_pid(home) is None
    assert not (home / "log" / "MasterLog").exists()
