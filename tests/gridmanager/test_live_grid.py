"""A newcomer's first grid job on the pool `condorsim up` starts: it runs at the default site.

The pool runs with the configuration `condorsim up` writes (its DAEMON_LIST names no
GRIDMANAGER: the schedd brings it, as it brings the shadow), 30 times faster than real time.
Waits are for conditions with deadlines on real processes, never fixed sleeps."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pool_cli import run_cli, wait_for

from condorsim.pool import ensure_home

pytestmark = pytest.mark.pool


def test_a_universe_grid_job_runs_at_the_default_site_and_q_and_history_show_it(
        tmp_path: Path) -> None:
    home = tmp_path / "pool"
    config = ensure_home(home)
    config.write_text(config.read_text() + "SIM_SPEED = 30\n")
    sub = tmp_path / "grid.sub"
    sub.write_text("universe = grid\ngrid_resource = batch slurm\nexecutable = /bin/sleep\n"
                   f"arguments = 300\nlog = {tmp_path}/grid.log\nqueue\n")  # over a probe
    assert run_cli(home, "up").returncode == 0
    try:
        submitted = run_cli(home, "submit", str(sub))
        assert "1 job(s) submitted to cluster 1." in submitted.stdout, submitted.stderr

        def grid_attrs() -> list[str]:
            out = run_cli(home, "q", "-allusers", "-af", "JobStatus", "Managed", "GridJobId")
            return out.stdout.split()

        seen: list[list[str]] = []

        def running_at_site() -> bool:
            # One snapshot per query: on a loaded machine the job may finish between two.
            seen.append(grid_attrs())
            return seen[-1][:2] == ["2", "External"]

        wait_for(running_at_site, "the job to run at the site")
        assert seen[-1][2:4] == ["batch", "slurm"]
        assert seen[-1][-1].startswith("slurm/")

        def history() -> str:
            return run_cli(home, "history", "-af", "ClusterId", "JobStatus", "Managed",
                           "GridJobStatus", "ExitCode").stdout

        wait_for(lambda: bool(history().strip()), "the job to complete")
        assert history().split() == ["1", "4", "ScheddDone", "COMPLETED", "0"]
        assert run_cli(home, "q", "-allusers", "-af", "ClusterId").stdout.strip() == ""
        log = (tmp_path / "grid.log").read_text()
        for head in ("Job submitted to grid resource", "Job executing on host: batch slurm",
                     "Job terminated."):
            assert head in log
        assert (home / "log" / "GridmanagerLog").exists()
    finally:
        assert run_cli(home, "down").returncode == 0
