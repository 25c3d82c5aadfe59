"""The hook scenarios' hooks really ran as HTCondor runs them: each scenario's hooks record
their arguments, standard input and environment, and these tests read the records.

Each scenario is replayed once (real daemon processes on virtual time) and kept; the
scenario's own expectations must pass too."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import htcondor2 as htcondor
import pytest
from _library_runs import LibraryRuns

from condorsim.classad import ClassAd
from condorsim.hooks import SEPARATOR

pytestmark = pytest.mark.pool


@pytest.fixture(scope="module")
def runs(library_runs: LibraryRuns) -> Callable[[str], Path]:
    """A scenario's kept run (made once per test run: tests/replay/test_scenarios.py
    replays the same scenarios)."""
    return lambda name: library_runs.kept(f"{name}.toml")


def _calls(run_dir: Path, where: str, name: str) -> list[tuple[list[str], str, dict[str, str]]]:
    """Every recorded call of one hook, in order: (arguments, stdin, HTCondor's variables)."""
    calls = run_dir / where / "calls"
    out = []
    n = 0
    while (calls / f"{name}.{n}.args").exists():
        argv = (calls / f"{name}.{n}.args").read_text().split("\n")[:-1]
        stdin = (calls / f"{name}.{n}.stdin").read_text() if (
            calls / f"{name}.{n}.stdin").exists() else ""
        env_file = calls / f"{name}.{n}.env"
        env = dict(line.split("=", 1) for line in env_file.read_text().splitlines()) \
            if env_file.exists() else {}
        assert int(argv[0]) == len(argv) - 1, "the hook records $# first"
        out.append((argv[1:], stdin, env))
        n += 1
    return out


def _records(run_dir: Path, log: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run_dir / "log" / f"{log}.json").read_text().splitlines()]


def _ad(text: str) -> ClassAd:
    return ClassAd.parse_old(text)


def test_fetch_work_and_reply_fetch_get_htcondors_arguments_and_stdin(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-fetch-work")
    fetches = _calls(run, "hooks/database", "fetch")
    assert len(fetches) >= 6 and all(argv == [] for argv, _, _ in fetches)
    first = _ad(fetches[0][1])  # the slot ad "published for workfetch"
    assert (first.evaluate("MyType"), first.evaluate("State"), first.evaluate("Machine")) == (
        "Machine", "Unclaimed", "exec")
    assert first.evaluate("Name") in ("slot1@exec", "slot2@exec", "slot3@exec")
    replies = _calls(run, "hooks/database", "reply_fetch")
    assert [argv for argv, _, _ in replies] == [["accept"]] * 5
    job_text, slot_text = replies[0][1].split(SEPARATOR)
    job, slot = _ad(job_text), _ad(slot_text)
    assert (job.evaluate("ClusterId"), job.evaluate("HookKeyword"), job.evaluate("RequestCpus"),
            job.evaluate("Owner")) == (101, "DATABASE", 1, "dbuser")
    assert slot.evaluate("Name") == "slot1@exec" and slot.evaluate("State") == "Unclaimed"
    assert slot.evaluate("ClaimId").endswith("#slot1@exec")  # the claim the job runs on
    web = _calls(run, "hooks/web", "fetch")
    assert _ad(web[0][1]).evaluate("Name") == "slot4@exec"


def test_fetched_jobs_write_their_starter_user_log(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-fetch-work")
    events = [(e.cluster, e.type) for e in htcondor.JobEventLog(str(run / "db.log")).events(0)]
    assert [c for c, t in events if t == htcondor.JobEventType.EXECUTE] == [101, 102, 103, 104,
                                                                            105]
    assert sorted(c for c, t in events if t == htcondor.JobEventType.JOB_TERMINATED) == [
        101, 102, 103, 104, 105]
    history = (run / "spool" / "startd_history").read_text()
    assert history.count("*** Offset") == 7 and "ExitCode = 0" in history


def test_the_starter_hooks_get_the_job_ad_arguments_and_environment(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-starter")
    before = _calls(run, "hooks/site", "before")
    prepare = _calls(run, "hooks/site", "prepare")
    assert [argv for argv, _, _ in prepare] == [["alpha", "two words"]] * 2
    job = _ad(prepare[0][1])
    assert (job.evaluate("ClusterId"), job.evaluate("HookKeyword"), job.evaluate("Cmd")) == (
        1, "SITE", "/bin/sleep")
    assert job.lookup("SimRuntime") is None  # not yet: PREPARE_JOB itself sets it
    env = prepare[0][2]
    assert env["BATCH_SYSTEM"] == "HTCondor" and env["_CONDOR_SLOT"] == "slot1"
    assert env["_CONDOR_JOB_IWD"] == str(run) and env["_CONDOR_JOB_PIDS"] == ""
    assert len(before) == 2  # job 1.0 and job 4.0 (forced SITE hooks)
    updates = _calls(run, "hooks/site", "update_job_info")
    update = _ad(updates[0][1])
    assert update.evaluate("JobState") == "Running" and update.evaluate("PreparedBy") == "site"
    for attr in ("JobPid", "NumPids", "JobStartDate", "RemoteSysCpu", "RemoteUserCpu",
                 "ImageSize"):
        assert update.lookup(attr) is not None, attr
    starts = {f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}": ad.evaluate("JobStartDate")
              for ad in map(_ad, (stdin for _, stdin, _ in updates))}
    asked = [(r["job"], r["asked_at"] - starts[r["job"]]) for r in _records(run, "StarterLog")
             if r["event"] == "hook_exited" and r["hook"] == "SITE_HOOK_UPDATE_JOB_INFO"]
    assert sorted(asked) == [("1.0", 8), ("1.0", 58), ("1.0", 108),
                             ("4.0", 8), ("4.0", 58), ("4.0", 108)]
    exits = _calls(run, "hooks/site", "job_exit")
    assert [argv for argv, _, _ in exits] == [["exit"], ["exit"]]
    final = _ad(exits[0][1])
    assert (final.evaluate("ExitCode"), final.evaluate("ExitBySignal"),
            final.evaluate("SimRuntime"), final.evaluate("JobDuration")) == (0, False, 120, 120.0)
    assert exits[0][2]["_CONDOR_MAINJOB_EXIT_CODE"] == "0"


def test_the_jvm_examples_hook_rewrote_the_command_the_starter_ran(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-jvm")
    (exit_call,) = _calls(run, "libexec", "job_exit")
    ran = _ad(exit_call[1])
    assert ran.evaluate("Cmd") == "/usr/java/java5/bin/java"
    assert ran.evaluate("HookKeyword") == "JAVA5" and exit_call[0] == ["exit"]


def test_rank_preemption_replies_and_evictions(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-fetch-preemption")
    replies = _calls(run, "site", "reply_fetch")
    assert [argv for argv, _, _ in replies] == [["accept"], ["reject"], ["accept"]]
    assert "ClaimId" not in _ad(replies[1][1].split(SEPARATOR)[1])  # no claim for a rejection
    evictions = _calls(run, "site", "evict_claim")
    assert [argv for argv, _, _ in evictions] == [[], []]
    evicted = [(_ad(stdin.split(SEPARATOR)[0]), _ad(stdin.split(SEPARATOR)[1]))
               for _, stdin, _ in evictions]
    assert [job.evaluate("ClusterId") for job, _ in evicted] == [11, 13]
    assert all(slot.evaluate("ClaimId") and slot.evaluate("Name") == "slot1@exec"
               for _, slot in evicted)


def test_cron_jobs_get_their_name_first_and_the_managers_environment(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-cron-config")
    calls = run / "modules" / "calls"
    assert (calls / "test.startd.0.args").read_text().split("\n") == ["3", "test", "abc", "123",
                                                                    ""]
    assert (calls / "test.startd.1.args").exists()  # RECONFIG_RERUN
    assert (calls / "test.schedd.0.args").read_text().split("\n") == ["3", "test", "abc", "123",
                                                                    ""]
    assert not (calls / "test.schedd.1.args").exists()  # the schedd ignores reconfig
    assert len(list(calls.glob("date.*.args"))) == 33  # at 0, 15, ... 480 s
    cron = run / "log" / "StartLog.json"
    failed = [json.loads(line) for line in cron.read_text().splitlines()
              if '"cron_job_failed"' in line]
    assert failed and failed[0]["job"] == "foo"
    assert failed[0]["stderr"] == "foo: the sensor answered late\n"
    assert failed[0]["status"] == "exited with status 1"


def test_startd_cron_environment(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-startd-cron")
    (argv, _, env) = _calls(run, "cron", "Values")[0]
    assert argv == ["Values"]
    assert env == {"CONDORSIM_MACHINE": "exec", "STARTD_CRON_NAME": "STARTD",
                   "STARTD_INTERFACE_VERSION": "1"}
    assert (run / "cron" / "calls" / "Values.0.cwd").read_text().strip() == str(run)


def test_the_shadow_hook_gets_the_job_ad(runs) -> None:  # type: ignore[no-untyped-def]
    run = runs("hooks-shadow-prepare")
    (call,) = _calls(run, "hooks/fast", "prepare")
    assert call[0] == []
    job = _ad(call[1])
    assert (job.evaluate("ClusterId"), job.evaluate("HookKeyword")) == (1, "FAST")
