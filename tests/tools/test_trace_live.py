"""`condorsim trace` on the pool a user starts: up, submit, trace, down.

The pool runs on the wall clock (SIM_SPEED 30: a 60 s job takes 2 real seconds); the waits
are for conditions with deadlines on real processes, never fixed sleeps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _pool_cli import run_cli, wait_for

from condorsim.pool import ensure_home

pytestmark = pytest.mark.pool


def test_trace_shows_a_live_pool_s_job_from_the_submit_to_the_history(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    config = ensure_home(home)  # the configuration `condorsim up` writes, 30 times faster
    config.write_text(config.read_text() + "SIM_SPEED = 30\n")
    sub = tmp_path / "f.sub"
    # the log's path is absolute: a relative one would land in the directory the tool runs in
    sub.write_text(f"executable = /bin/sleep\narguments = 60\nlog = {tmp_path}/f.log\nqueue\n")
    assert run_cli(home, "up").returncode == 0
    try:
        assert run_cli(home, "submit", str(sub)).returncode == 0
        assert "no message of job 7.0" in run_cli(home, "trace", "7.0").stderr

        def rows() -> list[list[str]]:
            out = run_cli(home, "trace", "1.0").stdout.splitlines()[1:]
            return [re.split(r"\s{2,}", line) for line in out]

        wait_for(lambda: any(row[1:3] == ["schedd -> history", "HISTORY"] for row in rows()),
                 "the job's history row")
        table = rows()
        assert table[0][1:4] == ["tool -> schedd", "SUBMIT_JOBS",
                                 "(a tool's request: not traced, known from the reply)"]
        assert table[1][1:3] == ["schedd -> tool", "SUBMIT_RESULT"]
        commands = [row[2] for row in table]
        for cmd in ("NEGOTIATE", "PERMISSION_AND_AD", "REQUEST_CLAIM", "SHADOW_START",
                    "ACTIVATE_CLAIM", "BEGIN_EXECUTION", "REGISTER_JOB_INFO",
                    "STARTER_UPDATE", "JOB_EXIT", "STARTER_EXITED", "SHADOW_EXIT"):
            assert cmd in commands, (cmd, commands)
        assert commands.index("SUBMIT_JOBS") < commands.index("NEGOTIATE") < \
            commands.index("BEGIN_EXECUTION") < commands.index("SHADOW_EXIT")
        mermaid = run_cli(home, "trace", "1.0", "--mermaid").stdout
        assert "    tool-->>schedd: SUBMIT_JOBS" in mermaid
    finally:
        assert run_cli(home, "down").returncode == 0
