"""`condorsim report` on bad input (one line, exit 1 or 2, no traceback), on a run with no
result file (a pool's directory), and `condorsim replay --report` / a run that hits max."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from condorsim.tools.replay import main as replay_main
from condorsim.tools.report import main as report_main

T0 = 1_767_225_600


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_a_directory_that_is_not_a_run(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert report_main([str(tmp_path)]) == 2
    assert "is not a run directory" in _one_line_error(capsys)
    assert report_main([str(tmp_path / "missing")]) == 2
    assert "no such directory" in _one_line_error(capsys)
    assert report_main([str(tmp_path / "notes.txt")]) == 2
    assert "not a directory" in _one_line_error(capsys)


def test_a_run_with_no_trace_or_a_broken_one(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "condor_config").write_text("SIM_TIMEZONE = UTC\n")
    assert report_main([str(tmp_path)]) == 1
    assert "has no trace.jsonl" in _one_line_error(capsys)
    (tmp_path / "trace.jsonl").write_text("this is not\njson at all\n")
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "SchedLog").write_text(
        json.dumps({"daemon": "schedd", "event": "submitted", "cluster": 1, "procs": 1,
                    "owner": "alice", "sim_time": T0, "wall_time": 0}) + "\n")
    assert report_main([str(tmp_path), "-o", str(tmp_path / "r.html")]) == 1
    assert "is not a trace" in _one_line_error(capsys)
    assert not (tmp_path / "r.html").exists()


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert report_main([str(tmp_path), "--job", "x.y"]) == 2
    assert "not a job id" in _one_line_error(capsys)
    assert report_main([]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_pool_directory_without_a_result_file(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The final ads come from the history; the page says there are no expectations."""
    run = tmp_path / "pool"
    (run / "log").mkdir(parents=True)
    (run / "spool").mkdir()
    (run / "condor_config").write_text("SIM_TIMEZONE = UTC\n")
    logs = [{"daemon": "schedd", "event": "submitted", "cluster": 1, "procs": 1, "owner": "alice",
             "sim_time": T0, "wall_time": 1},
            {"daemon": "schedd", "event": "shadow_started", "job": "1.0", "sim_time": T0 + 20,
             "wall_time": 2},
            {"daemon": "schedd", "event": "shadow_exited", "job": "1.0", "outcome": "completed",
             "sim_time": T0 + 80, "wall_time": 3}]
    (run / "log" / "SchedLog").write_text("".join(json.dumps(r) + "\n" for r in logs))
    trace = [{"t": T0, "from": "tool", "to": "schedd", "cmd": "SUBMIT_JOBS", "job": None,
              "attrs": []},
             {"t": T0 + 20, "from": "schedd", "to": "shadow", "cmd": "SHADOW_START", "job": "1.0",
              "attrs": ["ClusterId", "ProcId"]}]
    (run / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in trace))
    (run / "spool" / "history").write_text(
        f'ClusterId = 1\nProcId = 0\nOwner = "alice"\nJobStatus = 4\nCompletionDate = {T0 + 80}\n'
        f'LastRemoteHost = "slot1@exec1"\n'
        f'*** Offset = 0 ClusterId = 1 ProcId = 0 Owner = "alice" CompletionDate = {T0 + 80}\n'
        f'ClusterId = 2\nProcId = 0\nOwner = "alice"\nJobStatus = 4\nRouteName = "Site1"\n'
        f'RoutedFromJobId = "1.0"\nCompletionDate = {T0 + 90}\n'
        f'*** Offset = 99 ClusterId = 2 ProcId = 0 Owner = "alice" CompletionDate = {T0 + 90}\n')
    assert report_main([str(run)]) == 0
    assert capsys.readouterr().out.startswith(f"report: {run / 'report.html'}")
    html = (run / "report.html").read_text()
    assert "has no <span class=\"mono\">result.json</span>" in html
    assert '<td class="mono"><b>1.0</b></td>' in html and "slot1@exec1" in html
    assert "SHADOW_START" in html
    # a routed copy: the routes table counts it by RouteName and status
    assert '<section id="routes">' in html
    assert '<tr><td class="mono">Site1</td><td>1</td><td><b>1</b></td></tr>' in html


NO_SLOT = '''
[scenario]
name = "a job no slot can run"
max = "20m"

[[machine]]

[[submit]]
owner = "alice"
text = """
executable   = /bin/sleep
arguments    = 60
requirements = Memory > 1000000
queue
"""
'''


@pytest.mark.pool
def test_a_replay_that_stops_at_its_max_says_so(tmp_path: Path) -> None:
    scenario = tmp_path / "stuck.toml"
    scenario.write_text(NO_SLOT)
    run, page = tmp_path / "run", tmp_path / "stuck.html"
    done = subprocess.run([sys.executable, "-m", "condorsim.cli", "replay", str(scenario),
                           "--keep", str(run), "--report", str(page)],
                          capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stderr  # no expectation failed
    assert "stopped at its max (20m, 2026-01-01 00:20:00 UTC) with 1 job not finished: " \
           "1.0 (Idle)" in done.stderr
    run_facts = json.loads((run / "result.json").read_text())["run"]
    assert run_facts["stopped_at_max"] is True and run_facts["jobs_left"] == ["1.0 (Idle)"]
    assert "The run stopped at its <code>max</code> (20m 00s)" in page.read_text()


@pytest.mark.pool
def test_replay_report_without_keep_leaves_no_run_directory(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "stuck.toml"
    scenario.write_text(NO_SLOT.replace('max = "20m"', 'max = "2m"'))
    page = tmp_path / "out" / "page.html"
    page.parent.mkdir()
    assert replay_main([str(scenario), "--report", str(page), "--quiet"]) == 0
    assert page.stat().st_size > 100_000
    out = capsys.readouterr().out
    assert f"report: {page}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "stuck.toml"]
