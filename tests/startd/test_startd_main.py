"""``python -m daemons.startd`` / ``daemons.negotiator`` refuse an unusable config plainly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(("module", "text", "message"), [
    ("daemons.startd", "SIM_MACHINE_localhost_SLOTS = 0\n",
     "startd: SIM_MACHINE_localhost_SLOTS = 0: a machine needs at least one slot"),
    ("daemons.negotiator", "PREEMPTION_RANK = 1 +\n",
     "negotiator: PREEMPTION_RANK = '1 +' is not a ClassAd expression"),
])
def test_a_bad_knob_stops_the_daemon_with_a_message_not_a_traceback(
        tmp_path: Path, module: str, text: str, message: str) -> None:
    conf = tmp_path / "pool.conf"
    conf.write_text("COLLECTOR_HOST = 127.0.0.1:1\n" + text)
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    done = subprocess.run(
        [sys.executable, "-m", module, "--run-dir", str(tmp_path), "--config", str(conf)],
        capture_output=True, text=True, timeout=60, env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 2
    assert done.stderr.startswith(message)
    assert "Traceback" not in done.stderr
