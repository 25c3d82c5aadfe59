"""The job router on the pool a user starts: `condorsim up` with a route in
$CONDORSIM_HOME/condor_config, three routable jobs routed within a minute of simulated time,
`router_q -S` in HTCondor's format while they run, `router_history` once they completed.

The pool runs on the wall clock at SIM_SPEED 30; the waits are for conditions of real
processes with deadlines, never fixed sleeps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _pool_cli import run_cli, wait_for

from condorsim.pool import ensure_home

pytestmark = pytest.mark.pool

ROUTE = """
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, JOB_ROUTER
SIM_SPEED = 30
JOB_ROUTER_ROUTE_NAMES = Site1
JOB_ROUTER_ROUTE_Site1 @=end
  REQUIREMENTS WantJobRouter is true
  GridResource = "batch slurm"
  SET Requirements = true
@end
"""
# the local slots lack NoSuchThing: the jobs can only run as routed copies; they run 20 real
# seconds at the site (600 simulated), time enough for the tools to see them queued there
JOBS = """executable = /bin/sleep
arguments = 600
requirements = TARGET.NoSuchThing =?= true
+WantJobRouter = True
log = {log}
queue 3
"""


def test_a_live_pool_routes_jobs_and_the_router_tools_show_them(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    config = ensure_home(home)
    config.write_text(config.read_text() + ROUTE)
    sub = tmp_path / "routed.sub"
    sub.write_text(JOBS.format(log=tmp_path / "routed.log"))
    up = run_cli(home, "up")
    assert up.returncode == 0, up.stderr
    assert "job_router" in up.stdout
    try:
        assert run_cli(home, "submit", str(sub)).returncode == 0

        def summary() -> str:
            return run_cli(home, "router_q", "-S").stdout

        # 60 simulated seconds are 2 real seconds at SIM_SPEED 30
        wait_for(lambda: "      3" in summary() or summary().count("Site1") >= 2,
                 "the three jobs routed", seconds=20)
        lines = summary().splitlines()
        assert lines[0] == "   JOBS ST Route                GridResource"
        assert all(re.fullmatch(r" {6}\d  [IR] Site1 {16}batch slurm", line)
                   for line in lines[1:]), lines
        assert sum(int(line.split()[0]) for line in lines[1:]) == 3
        original = run_cli(home, "q", "-allusers", "-constraint", "ClusterId == 1", "-af",
                           "RoutedToJobId", "Managed", "QDate").stdout.splitlines()
        assert len(original) == 3 and all(" External " in row for row in original), original
        submitted = min(int(row.split()[2]) for row in original)

        def history() -> str:
            return run_cli(home, "router_history").stdout

        wait_for(lambda: "TOTAL" in history() and re.search(r"TOTAL\s+\d+\s+3\s+0",
                                                               history()) is not None,
                 "the routed jobs in the history", seconds=90)
        report = history().splitlines()
        assert report[0].startswith("Routed job history from ")
        assert report[2:5] == ["Site            Hours    Jobs    Runs",
                               "                      Completed Aborted",
                               "-" * 55]
        assert re.fullmatch(r"Site1 {10}\s+\d+       3     0", report[5]), report
        # routed within a minute of simulated time: each copy was queued (its QDate, on the
        # schedd's simulated clock) at most 60 s after its original
        copies = run_cli(home, "history", "-constraint", "RoutedFromJobId =!= undefined",
                         "-af", "RoutedFromJobId", "QDate").stdout.splitlines()
        assert len(copies) == 3 and all(0 <= int(row.split()[1]) - submitted <= 60
                                        for row in copies), (submitted, copies)
    finally:
        down = run_cli(home, "down")
        assert down.returncode == 0, down.stderr
