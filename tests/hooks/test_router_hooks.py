"""The job router's hooks as a user's scripts see them (scenarios/hooks-router.toml and
hooks-router-bad-input.toml): each hook recorded its arguments and standard input, and each
misbehaving hook is logged in JobRouterLog with HTCondor's outcome; no daemon dies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _library_runs import LibraryRuns

from condorsim.classad import ClassAd

pytestmark = pytest.mark.pool


@pytest.fixture(scope="module")
def good(library_runs: LibraryRuns) -> Path:
    """The scenario's kept run (made once per test run: tests/replay/test_scenarios.py
    replays it too)."""
    return library_runs.kept("hooks-router.toml")


@pytest.fixture(scope="module")
def bad(library_runs: LibraryRuns) -> Path:
    return library_runs.kept("hooks-router-bad-input.toml")


def _calls(hook_dir: Path, name: str) -> list[tuple[list[str], str]]:
    """Every recorded run of one hook, in order: (arguments, stdin)."""
    out, n = [], 0
    while (hook_dir / "calls" / f"{name}.{n}.args").exists():
        argv = (hook_dir / "calls" / f"{name}.{n}.args").read_text().split("\n")[:-1]
        out.append((argv[1:], (hook_dir / "calls" / f"{name}.{n}.stdin").read_text()))
        n += 1
    return out


def _records(run: Path, log: str) -> list[dict[str, object]]:
    path = run / "log" / f"{log}.json"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_translate_gets_the_route_then_the_job_and_no_arguments(good: Path) -> None:
    calls = _calls(good / "hooks" / "site", "translate")
    assert len(calls) == 2 and all(argv == [] for argv, _ in calls)
    route_text, sep, job_text = calls[0][1].partition("\n------\n")
    assert sep
    route = ClassAd.parse(route_text)
    assert (route.evaluate("Name"), route.evaluate("TargetUniverse"),
            route.evaluate("GridResource")) == ("Site1", 9, "batch slurm")
    job = ClassAd.parse_old(job_text)
    assert (job.evaluate("ClusterId"), job.evaluate("Owner"), job.evaluate("JobUniverse"),
            job.evaluate("WantJobRouter")) == (1, "alice", 5, True)
    assert {ClassAd.parse_old(c[1].partition("\n------\n")[2]).evaluate("ProcId")
            for c in calls} == {0, 1}


def test_update_gets_the_routed_copy_every_poll(good: Path) -> None:
    calls = _calls(good / "hooks" / "site", "update")
    assert len(calls) >= 8 and all(argv == [] for argv, _ in calls)
    copies = [ClassAd.parse_old(stdin) for _, stdin in calls]
    assert {c.evaluate("RoutedFromJobId") for c in copies} == {"1.0", "1.1"}
    assert all(c.evaluate("JobUniverse") == 9 and c.evaluate("TranslatedBy") == "site"
               for c in copies)
    # what the hook printed before is in the copy it is given next
    assert any(c.evaluate("ExternalPolls") is not None for c in copies[2:])


def test_finalize_gets_the_original_then_the_copy(good: Path) -> None:
    calls = _calls(good / "hooks" / "site", "finalize")
    assert len(calls) == 2
    for _, stdin in calls:
        src_text, sep, dest_text = stdin.partition("\n------\n")
        src, dest = ClassAd.parse_old(src_text), ClassAd.parse_old(dest_text)
        assert sep and src.evaluate("ClusterId") == 1 and src.evaluate("JobStatus") == 4
        assert dest.evaluate("RoutedFromJobId") == f"1.{src.evaluate('ProcId')}"
        assert dest.evaluate("JobStatus") == 4


def test_cleanup_is_run_again_until_it_succeeds(good: Path) -> None:
    calls = _calls(good / "hooks" / "site", "cleanup")
    clusters = [ClassAd.parse_old(stdin).evaluate("ClusterId") for _, stdin in calls]
    assert sorted(clusters) == [3, 3, 4, 4]  # each copy's cleanup failed once, then passed
    router = _records(good, "JobRouterLog")
    retried = [r for r in router if r["event"] == "route_hook_failed"
               and r["hook"] == "SITE_HOOK_JOB_CLEANUP"]
    assert len(retried) == 2 and all("tried again" in str(r["outcome"]) for r in retried)
    failed = [r for r in router if r["event"] == "hook_failed"
              and r["hook"] == "SITE_HOOK_JOB_CLEANUP"]
    assert failed[0]["stderr"] == "cleanup of 3: the site is not done yet"


def test_a_failing_translate_hook_drops_the_job_at_every_poll(good: Path) -> None:
    router = _records(good, "JobRouterLog")
    drops = [r for r in router if r["event"] == "route_hook_failed" and r["job"] == "2.0"]
    assert len(drops) >= 20  # one a minute for the whole run
    assert drops[0]["outcome"] == "the job is not routed"
    assert any(r["event"] == "hook_failed" and r.get("stderr") == "no capacity at the site"
               for r in router)


def test_no_daemon_died(good: Path, bad: Path) -> None:
    for run in (good, bad):
        master = _records(run, "MasterLog")
        assert not [r for r in master if r["event"] in ("daemon_exited",
                                                        "daemon_failed_to_start")]
        for stderr in (run / "log").glob("*.stderr"):
            assert "Traceback" not in stderr.read_text(), stderr.name


def test_each_misbehaving_router_hook_is_logged(bad: Path) -> None:
    router = _records(bad, "JobRouterLog")

    def find(event: str, **fields: object) -> dict[str, object]:
        for r in router:
            if r["event"] == event and all(r.get(k) == v for k, v in fields.items()):
                return r
        raise AssertionError(f"no {event} {fields}")

    garbage = find("route_hook_bad_output", job="1.0")
    assert garbage["line"] == "this is not a ClassAd attribute"
    missing = find("hook_path_refused", knob="MISSING_HOOK_TRANSLATE_JOB")
    assert "stat() failed with errno 2" in str(missing["error"])
    assert missing["outcome"] == "the hook counts as not configured"
    assert len([r for r in router if r["event"] == "hook_path_refused"]) == 1  # said once
    hung = find("hook_timed_out", hook="SLOW_HOOK_UPDATE_JOB_INFO")
    assert (hung["timeout"], hung["status"]) == (1.0, "died with signal 9")
    find("route_hook_failed", job="3.0", outcome="the job's status is not updated this poll")
    find("route_hook_failed", job="4.0", outcome="the job is re-routed")
