"""Hooks that misbehave (scenarios/hooks-bad-input.toml): each one is logged with a clear
line naming the hook, has HTCondor's outcome (the scenario's expectations), and no daemon
dies of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _library_runs import LibraryRuns

pytestmark = pytest.mark.pool

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "hooks-bad-input.toml"


def _records(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def run(library_runs: LibraryRuns) -> Path:
    """The scenario's kept run (made once per test run: tests/replay/test_scenarios.py
    replays it too)."""
    return library_runs.kept(SCENARIO.name)


def _find(records: list[dict[str, object]], event: str, **fields: object) -> dict[str, object]:
    for record in records:
        if record["event"] == event and all(record.get(k) == v for k, v in fields.items()):
            return record
    raise AssertionError(f"no {event} {fields} in the log")


def test_no_daemon_died(run: Path) -> None:
    master = _records(run / "log" / "MasterLog.json")
    assert not [r for r in master if r["event"] in ("daemon_exited", "daemon_failed_to_start")]
    for stderr in (run / "log").glob("*.stderr"):
        assert "Traceback" not in stderr.read_text(), stderr.name


def test_the_startd_logs_each_bad_fetch_hook(run: Path) -> None:
    startd = _records(run / "log" / "StartLog.json")
    garbage = _find(startd, "fetch_work_bad_output", slot="slot1@fetcher")
    assert garbage["line"] == "this is not a ClassAd attribute"
    nonzero = _find(startd, "hook_failed", hook="NONZERO_HOOK_FETCH_WORK")
    assert nonzero["status"] == "exited with status 3"
    assert nonzero["stderr"] == "Oops: the fetch hook exits 3 after printing a job"
    hang = _find(startd, "hook_timed_out", hook="HANG_HOOK_FETCH_WORK")
    assert (hang["timeout"], hang["status"]) == (2.0, "died with signal 9")
    missing = _find(startd, "hook_path_refused", knob="MISSING_HOOK_FETCH_WORK")
    assert "stat() failed with errno 2 (No such file or directory)" in str(missing["error"])
    assert missing["level"] == "error"


def test_the_starter_logs_each_bad_job_hook(run: Path) -> None:
    starter = _records(run / "log" / "StarterLog.json")
    fails = _find(starter, "prepare_hook_failed", job="1.0")
    assert (fails["outcome"], fails["message"]) == (
        "hold", "PREPARE_JOB (prepare.sh) failed (exited with status 1): <no message>")
    assert _find(starter, "hook_failed", job="1.0")["stderr"] == \
        "the prepare hook cannot reach its service"
    assert _find(starter, "prepare_hook_bad_output", job="2.0")["line"] == "garbage ] ["
    assert _find(starter, "prepare_hook_failed", job="3.0")["outcome"] == "idle"
    assert _find(starter, "hook_timed_out", job="3.0")["hook"] == "SLOWPREP_HOOK_PREPARE_JOB"
    exit_hook = _find(starter, "hook_timed_out", job="4.0")
    assert (exit_hook["hook"], exit_hook["timeout"]) == ("SLOWEXIT_HOOK_JOB_EXIT", 3.0)
    broken = _find(starter, "job_hooks_unusable", job="5.0")
    assert str(broken["error"]).startswith(
        "invalid path specified for BROKEN_HOOK_PREPARE_JOB (")
    assert broken["level"] == "error"


def test_the_startd_logs_each_bad_cron_job(run: Path) -> None:
    startd = _records(run / "log" / "StartLog.json")
    assert _find(startd, "cron_output_bad_line", job="garbled", machine="fetcher")["line"] == \
        "Bad = = 2"
    missing = _find(startd, "cron_job_not_started", job="missing", machine="runner")
    assert missing["error"] == "No such file or directory"
    hung = _find(startd, "cron_job_timed_out", job="hangs", machine="runner")
    assert hung["status"] == "died with signal 9"
