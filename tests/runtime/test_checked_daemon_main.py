"""A daemon whose own knobs are unusable is refused before it starts: one line naming the
daemon and the knob on stderr, exit 2, no traceback (python -m daemons.<name>)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(("daemon", "config", "knob"), [
    ("startd", "SIM_MACHINES = exec1\nSIM_MACHINE_exec1_SLOTS = many\n",
     "SIM_MACHINE_exec1_SLOTS"),
    ("negotiator", "NEGOTIATOR_PRE_JOB_RANK = (1 +\n", "NEGOTIATOR_PRE_JOB_RANK"),
    ("gridmanager", 'SIM_GRID_SITES = [ Resource = "batch"; Slots = 0 ]\n', "SIM_GRID_SITES"),
])
def test_an_unusable_knob_is_named_and_the_daemon_exits_2(
        tmp_path: Path, daemon: str, config: str, knob: str) -> None:
    cfg = tmp_path / "condor_config"
    cfg.write_text(config)
    done = subprocess.run(
        [sys.executable, "-m", f"daemons.{daemon}", "--run-dir", str(tmp_path),
         "--config", str(cfg)],
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, CONDOR_CONFIG="/dev/null"), cwd=Path(__file__).parents[2])
    assert done.returncode == 2
    assert done.stderr.startswith(f"{daemon}: ") and knob in done.stderr
    assert "Traceback" not in done.stderr
