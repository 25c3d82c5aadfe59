"""The tools on the pool a user starts (`condorsim up`): a real job runs and its output comes
back, `wait`, `q`, `status` views filled by the daemons' ads, `userprio`, `reconfig`,
`off`/`on`, `history` with the pool down, the text logs.

The pool runs on the wall clock (SIM_SPEED 30); the waits are for conditions of real
processes with deadlines, never fixed sleeps."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _pool_cli import run_cli, wait_for

from condorsim.cli import main as cli_main
from condorsim.pool import ensure_home
from condorsim.security import my_user_name

pytestmark = pytest.mark.pool

DATE = r"\d\d/\d\d/\d\d \d\d:\d\d:\d\d"


def test_a_live_pool_runs_real_jobs_and_the_tools_show_it(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    config = ensure_home(home)  # the configuration `condorsim up` writes (real jobs)
    assert "SIM_EXECUTE_REAL_JOBS = True" in config.read_text()
    config.write_text(config.read_text() + "SIM_SPEED = 30\n")
    work = tmp_path / "work"
    work.mkdir()
    sub = work / "echo.sub"
    sub.write_text(f"executable = /bin/echo\narguments = hello\noutput = out.txt\n"
                   f"error = err.txt\nlog = {work}/echo.log\nqueue\n")
    # `condorsim up` run in a directory holding another `daemons` package (another
    # checkout) still starts condorsim's own daemons
    (work / "daemons").mkdir()
    (work / "daemons" / "__init__.py").write_text("raise SystemExit('not these daemons')\n")
    up = subprocess.run([str(Path(sys.executable).parent / "condorsim"), "up"], cwd=work,
                        env=dict(os.environ, CONDORSIM_HOME=str(home)), capture_output=True,
                        text=True, timeout=90)
    assert up.returncode == 0, up.stderr
    try:
        q = run_cli(home, "q")  # the queue is empty: the title has the pool's time anyway
        assert re.match(rf"\n\n-- Schedd: \S+ : <[\d.:]+> @ {DATE}\n", q.stdout), q.stdout
        assert q.stdout.endswith(f"Total for {my_user_name()}: 0 jobs; 0 completed, "
                                 "0 removed, 0 idle, 0 running, 0 held, 0 suspended \n"
                                 "Total for all users: 0 jobs; 0 completed, 0 removed, 0 idle,"
                                 " 0 running, 0 held, 0 suspended\n\n")
        submitted = run_cli(home, "submit", str(sub), cwd=work)
        assert submitted.stdout == "Submitting job(s).\n1 job(s) submitted to cluster 1.\n"
        waited = run_cli(home, "wait", "-wait", "60", str(work / "echo.log"))
        assert waited.stdout.endswith("All jobs done.\n"), (waited.stdout, waited.stderr)
        assert (work / "out.txt").read_text() == "hello\n"
        assert not list((home / "execute").iterdir())  # the scratch directory is gone

        wait_for(lambda: "[" not in run_cli(home, "status", "-negotiator").stdout,
                 "the negotiator's cycle statistics")
        negotiator = run_cli(home, "status", "-negotiator").stdout.splitlines()
        assert negotiator[0].split() == ["Name", "LastCycleEnd", "(Sec)", "Slots", "Submitrs",
                                         "Schedds", "Jobs", "Matches", "Rejections"]
        master = run_cli(home, "status", "-master").stdout.splitlines()
        assert master[0].split() == ["Name", "Version", "Cpus", "Memory", "Uptime"]
        assert re.match(r"master@localhost\s+24\.0\.24\S*\s+4\s+\d+\.\d [MG]B\s+\d+\+\d\d:\d\d:\d\d$",
                        master[2]), master
        collector = run_cli(home, "status", "-collector").stdout.splitlines()
        assert collector[2].split()[-3:][2] == "4"  # HostsTotal: the 4 slots
        kinds = {line.split()[0] for line in run_cli(home, "status", "-any").stdout.splitlines()[2:]}
        assert {"DaemonMaster", "Machine", "Scheduler", "Negotiator", "Collector"} <= kinds
        assert not kinds & {"Shadow", "Starter"}
        assert run_cli(home, "status", "-tot").stdout.startswith(
            "\n               Total Owner Claimed Unclaimed")
        compact = run_cli(home, "status", "-compact").stdout.splitlines()
        assert compact[0].split()[:4] == ["Machine", "Platform", "Slots", "Cpus"]
        assert compact[2].split()[:3] == ["localhost", "x64/AlmaLinux9", "4S"], compact

        wait_for(lambda: my_user_name() in run_cli(home, "userprio", "-allusers").stdout,
                 "the accounting ad of the job's owner")
        prio = run_cli(home, "userprio", "-allusers").stdout.splitlines()
        assert prio[0].startswith("Last Priority Update: ")
        assert prio[2].startswith("User Name") and prio[-1].startswith("Number of users: 1")

        assert run_cli(home, "reconfig").stdout == 'Sent "Reconfig" command to local master\n'
        off = run_cli(home, "off", "-daemon", "negotiator")
        assert off.stdout == 'Sent "Kill-Daemon" command for "negotiator" to local master\n'
        on = run_cli(home, "on", "-neg")
        assert on.stdout == 'Sent "Spawn-Daemon" command for "negotiator" to local master\n'
        drain = run_cli(home, "drain", "-reason", "maintenance", "localhost")
        assert re.match(r"Sent request to drain the startd <[\d.:]+> with localhost\. This only "
                        "affects the single startd", drain.stdout), drain.stderr
        states = ["-af", "State", "DrainReason"]
        wait_for(lambda: set(run_cli(home, "status", *states).stdout.splitlines())
                 == {"Drained maintenance"}, "the slots to drain")
        again = run_cli(home, "drain", "localhost")
        assert again.returncode == 1 and "Draining already in progress." in again.stderr
        cancel = run_cli(home, "drain", "-cancel", "localhost")
        assert cancel.stdout == "Sent request to cancel draining on localhost\n"
        wait_for(lambda: set(run_cli(home, "status", "-af", "State").stdout.split())
                 == {"Unclaimed"}, "the slots to be unclaimed again")
        # condor_restart: the master comes back as a new process and advertises at once (the
        # collector restarted with the rest has lost every ad), with its new start time
        before = _master_uptime(home)
        assert run_cli(home, "restart").stdout == 'Sent "Restart" command to local master\n'
        wait_for(lambda: _master_uptime(home) < before, "the restarted master's ad")
        assert run_cli(home, "version").stdout.startswith("$CondorVersion: 24.0.24 ")
        assert run_cli(home, "--version").stdout == run_cli(home, "version").stdout
    finally:
        assert run_cli(home, "down").returncode == 0
    history = run_cli(home, "history").stdout.splitlines()  # no pool: the file is read
    assert history[0].split() == ["ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "COMPLETED", "CMD"]
    assert history[1].startswith("1.0 ") and history[1].endswith(" /bin/echo hello")
    # the daemons' logs, in HTCondor's text form beside the JSON records
    negotiator_log = (home / "log" / "NegotiatorLog").read_text()
    assert re.search(rf"^{DATE} \(pid:\d+\) ---------- Started Negotiation Cycle ----------$",
                     negotiator_log, re.M)
    assert re.search(rf"^{DATE} \(pid:\d+\)       Matched 1\.0 \S+ <[\d.:]+> preempting none "
                     r"<[\d.:]+> slot1@\S+$", negotiator_log, re.M)
    assert re.search(r"\(pid:\d+\) slot1@\S+: Changing state: Unclaimed -> Claimed$",
                     (home / "log" / "StartLog").read_text(), re.M)
    assert "Starting add_shadow_birthdate(1.0)" in (home / "log" / "SchedLog").read_text()
    assert (home / "log" / "SchedLog.json").read_text().startswith("{")


def _master_uptime(home: Path) -> float:
    """The master's Uptime in `status -master` (days+hh:mm:ss), in seconds (inf: no ad)."""
    rows = run_cli(home, "status", "-master").stdout.splitlines()
    if len(rows) < 3:
        return float("inf")
    row = rows[2]
    days, _, hms = row.split()[-1].partition("+")
    h, m, s = (int(x) for x in hms.split(":"))
    return ((int(days) * 24 + h) * 60 + m) * 60 + s


def test_help_describes_a_command_and_runs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # `condorsim COMMAND -help`, called in this process (21 Python starts took 20 s)
    home = tmp_path / "none"
    monkeypatch.setenv("CONDORSIM_HOME", str(home))
    for command in ("demo", "up", "down", "q", "status", "history", "submit", "wait", "userprio",
                    "reconfig", "off", "on", "restart", "drain", "version", "replay", "trace",
                    "report",
                    "hold", "router_q"):
        returncode = cli_main([command, "-help"])
        out, err = capsys.readouterr()
        assert returncode == 0, (command, err)
        text = (out + err).lower()
        assert "usage" in text or "use:" in text, command  # condor_wait says "Use:"
        assert not home.exists(), command  # nothing started, nothing written
