"""Replays of a pool that is only a master and a collector: the runner's own behaviour
(moments, until, results, exit status, --json, --keep) on real processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condorsim.replay import replay
from condorsim.runtime.trace import read_trace
from condorsim.tools.replay import main

pytestmark = pytest.mark.pool

COLLECTOR_ONLY = '''
[scenario]
name = "collector alone"
start = 2026-01-01T00:00:00Z
until = "{until}"

[config]
DAEMON_LIST = "MASTER, COLLECTOR"
MASTER_UPDATE_INTERVAL = 120

[[expect]]
at = "1m"
ads = "DaemonMaster"
count = 1
description = "the master advertises itself when the pool starts"

[[expect]]
at = "2m"
ads = "DaemonMaster"
that = 'Name == "master@localhost" && LastHeardFrom == time()'
description = "the master advertises again every MASTER_UPDATE_INTERVAL"

[[expect]]
ads = "Machine"
count = 0
'''


def _write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_expectations_are_checked_at_their_moments_and_the_run_stops_at_until(
        tmp_path: Path) -> None:
    keep = tmp_path / "run"
    outcome = replay(_write(tmp_path, COLLECTOR_ONLY.format(until="10m")), keep=keep)
    assert [(r.at, r.ok) for r in outcome.results] == [("1m", True), ("2m", True), ("end", True)]
    assert outcome.exit_code == 0
    assert outcome.final_time == 1_767_225_600 + 600
    trace = read_trace(keep / "trace.jsonl")
    updates = [r["t"] - 1_767_225_600 for r in trace if r["cmd"] == "UPDATE_MASTER_AD"]
    assert updates == [0, 120, 240, 360, 480, 600]
    queries = [(r["t"] - 1_767_225_600, r["cmd"]) for r in trace if r["from"] == "replay"]
    assert queries == [(60, "QUERY_MASTER_ADS"), (120, "QUERY_MASTER_ADS"),
                       (600, "QUERY_STARTD_ADS")]
    assert (keep / "log" / "CollectorLog").exists() and (keep / "condor_config").exists()


def test_quiet_stops_at_once_when_nothing_is_queued(tmp_path: Path) -> None:
    outcome = replay(_write(tmp_path, COLLECTOR_ONLY.format(until="quiet")))
    assert outcome.exit_code == 0
    # "quiet" still runs until the last timed expectation.
    assert outcome.final_time == 1_767_225_600 + 120
    assert outcome.run_dir is None


def test_a_failing_expectation_exits_1_with_what_was_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = COLLECTOR_ONLY.format(until="3m").replace("count = 0", "count = 2")
    out_json = tmp_path / "out.json"
    assert main([str(_write(tmp_path, text)), "--json", str(out_json)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "FAIL at end: expected 2 Machine ads, found 0 (none)"
    assert out[-1] == "2 passed, 1 failed"
    data = json.loads(out_json.read_text())
    assert (data["ok"], data["passed"], data["failed"]) == (False, 2, 1)
    assert data["results"][0]["found"] == "DaemonMaster ads master@localhost"
    assert data["jobs"] == {}


def test_a_bad_file_exits_2_before_any_daemon_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = COLLECTOR_ONLY.format(until="10m").replace('ads = "Machine"', 'ads = "Slot"')
    keep = tmp_path / "run"
    assert main([str(_write(tmp_path, text)), "--keep", str(keep)]) == 2
    err = capsys.readouterr().err
    assert "s.toml, line" in err and "[[expect]] #3" in err and "Slot" in err
    assert not keep.exists()


def test_missing_file_and_bad_arguments_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope.toml")]) == 2
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "nope.toml" in err and "usage: condorsim replay FILE" in err


def test_keep_refuses_a_directory_that_is_not_an_earlier_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = _write(tmp_path, COLLECTOR_ONLY.format(until="2m"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("precious")
    assert main([str(scenario), "--keep", str(mine)]) == 2
    assert "is not empty and is not an earlier replay's run directory" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "precious"
    run = tmp_path / "run"
    assert main([str(scenario), "--keep", str(run)]) == 0
    (run / "stale").write_text("from before")
    assert main([str(scenario), "--keep", str(run)]) == 0
    assert not (run / "stale").exists()
