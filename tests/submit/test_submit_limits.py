"""How many jobs one submission may queue: the schedd's MAX_JOBS_PER_SUBMISSION (default
20000), MAX_JOBS_PER_OWNER (default 100000) and MAX_JOBS_SUBMITTED, and the simulator's
MAX_SIM_JOBS, checked on a queue statement's count before any of its jobs is built
(condorsim/submit/_limits.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from condorsim.submit import MAX_SIM_JOBS, Submit, SubmitError, submission_limits
from condorsim.tools.submit import main as submit_main
from daemons.schedd.queue import JobQueue
from daemons.schedd.store import ScheddError

T0 = 1_767_225_600
SLEEP = "executable = /bin/sleep\narguments = 60\n"


def test_defaults_are_htcondors() -> None:
    # in the order of HTCondor's NewProc checks
    submitted, per_owner, per_submission, sim = submission_limits(None)
    assert (submitted.jobs, per_owner.jobs, per_submission.jobs, sim.jobs) == (
        2**31 - 1, 100000, 20000, MAX_SIM_JOBS)
    assert per_submission.message == ("Failed to create proc\nNumber of submitted jobs would "
                                      "exceed MAX_JOBS_PER_SUBMISSION (20000)")
    assert per_owner.message == ("Failed to create proc\nNumber of submitted jobs would "
                                 "exceed MAX_JOBS_PER_OWNER (100000)")
    assert submission_limits({"max_jobs_per_submission": "5"}, queued=3)[2].jobs == 5
    assert submission_limits({"MAX_JOBS_SUBMITTED": "10"}, queued=3)[0].jobs == 7
    assert submission_limits({"MAX_JOBS_PER_OWNER": "10"}, queued=9, owned=4)[1].jobs == 6


def test_the_limit_named_is_the_one_the_first_refused_proc_reached() -> None:
    def refusal(config: dict[str, str], count: int, owned: int = 0) -> str:
        with pytest.raises(SubmitError) as caught:
            list(Submit(SLEEP + f"queue {count}\n").jobs(
                limits=submission_limits(config, owned=owned, queued=owned)))
        return caught.value.message.splitlines()[-1]

    both = {"MAX_JOBS_PER_OWNER": "5", "MAX_JOBS_PER_SUBMISSION": "8"}
    assert refusal(both, 10).endswith("MAX_JOBS_PER_OWNER (5)")
    assert refusal(both, 10, owned=4).endswith("MAX_JOBS_PER_OWNER (5)")
    assert refusal({**both, "MAX_JOBS_PER_OWNER": "20"}, 10).endswith(
        "MAX_JOBS_PER_SUBMISSION (8)")
    # equal: NewProc checks MAX_JOBS_SUBMITTED, then MAX_JOBS_PER_OWNER, then per submission
    assert refusal({"MAX_JOBS_PER_OWNER": "8", "MAX_JOBS_PER_SUBMISSION": "8"}, 10).endswith(
        "MAX_JOBS_PER_OWNER (8)")
    assert refusal({"MAX_JOBS_PER_OWNER": "8", "MAX_JOBS_SUBMITTED": "8"}, 10).endswith(
        "MAX_JOBS_SUBMITTED (8)")


def test_a_huge_count_is_refused_before_a_job_is_built() -> None:
    began = time.monotonic()
    with pytest.raises(SubmitError) as caught:
        list(Submit(SLEEP + "queue 2000000000\n", source="j.sub").jobs(
            limits=submission_limits(None)))
    assert time.monotonic() - began < 1.0
    assert (caught.value.line, caught.value.message.splitlines()[-1]) == (
        3, "Number of submitted jobs would exceed MAX_JOBS_PER_SUBMISSION (20000)")


def test_the_limit_counts_every_queue_statement_and_item() -> None:
    text = SLEEP + "queue 2\nqueue x in (a b c)\nqueue 2 y from (\n1\n2\n)\n"
    submit = Submit(text)
    assert submit.count_jobs() == len(list(submit.jobs())) == 9
    limits = submission_limits({"MAX_JOBS_PER_SUBMISSION": "8"})
    with pytest.raises(SubmitError) as caught:
        submit.count_jobs(limits=limits)
    assert caught.value.line == 5  # the statement that passes it
    assert submit.count_jobs(limits=submission_limits({"MAX_JOBS_PER_SUBMISSION": "9"})) == 9


def _queue(tmp_path: Path, **config: str) -> JobQueue:
    q = JobQueue(tmp_path / "spool", submit_config=config)
    q.open(T0)
    return q


def test_the_schedd_refuses_a_submission_over_max_jobs_per_submission(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    began = time.monotonic()
    with pytest.raises(ScheddError, match=r"would exceed MAX_JOBS_PER_SUBMISSION \(20000\)"):
        q.submit("alice", SLEEP + "queue 100000000\n", str(tmp_path), "j.sub", T0)
    assert time.monotonic() - began < 1.0
    assert q.jobs == {}
    q = _queue(tmp_path / "b", MAX_JOBS_PER_SUBMISSION="3")
    assert len(q.submit("alice", SLEEP + "queue 3\n", str(tmp_path), "j.sub", T0)) == 3
    with pytest.raises(ScheddError, match=r"MAX_JOBS_PER_SUBMISSION \(3\)"):
        q.submit("alice", SLEEP + "queue 2\nqueue 2\n", str(tmp_path), "j.sub", T0)
    assert len(q.jobs) == 3  # the whole submission failed, nothing of it queued
    # the refused submission used its cluster id up, as HTCondor's NewCluster did
    assert q.submit("alice", SLEEP + "queue 1\n", str(tmp_path), "j.sub", T0) == [(3, 0)]


def test_the_schedd_honours_max_jobs_submitted(tmp_path: Path) -> None:
    q = _queue(tmp_path, MAX_JOBS_SUBMITTED="4")
    q.submit("alice", SLEEP + "queue 3\n", str(tmp_path), "j.sub", T0)
    with pytest.raises(ScheddError, match=r"would exceed MAX_JOBS_SUBMITTED \(4\)"):
        q.submit("bob", SLEEP + "queue 2\n", str(tmp_path), "j.sub", T0)
    assert len(q.submit("bob", SLEEP + "queue 1\n", str(tmp_path), "j.sub", T0)) == 1


def test_the_schedd_honours_max_jobs_per_owner(tmp_path: Path) -> None:
    """NewProc counts every job of the owner in the queue (whatever its status) and the
    submission's own; another owner's jobs do not count."""
    q = _queue(tmp_path, MAX_JOBS_PER_OWNER="4")
    first = q.submit("alice", SLEEP + "queue 3\n", str(tmp_path), "j.sub", T0)
    q.hold(first[0], "by hand", 1, 0, T0)
    with pytest.raises(ScheddError, match=r"^j.sub, line 3: Failed to create proc\nNumber of "
                                          r"submitted jobs would exceed MAX_JOBS_PER_OWNER \(4\)"):
        q.submit("alice", SLEEP + "queue 2\n", str(tmp_path), "j.sub", T0)
    assert len(q.jobs) == 3  # nothing of the refused submission queued
    assert len(q.submit("bob", SLEEP + "queue 4\n", str(tmp_path), "j.sub", T0)) == 4
    assert len(q.submit("alice", SLEEP + "queue 1\n", str(tmp_path), "j.sub", T0)) == 1
    with pytest.raises(ScheddError, match=r"MAX_JOBS_PER_OWNER \(4\)"):
        q.submit("alice", SLEEP + "queue 1\n", str(tmp_path), "j.sub", T0)
    q.leave(first[1], T0)  # a job that left the queue counts no more
    assert len(q.submit("alice", SLEEP + "queue 1\n", str(tmp_path), "j.sub", T0)) == 1


def test_the_default_max_jobs_per_owner_is_100000(tmp_path: Path) -> None:
    q = _queue(tmp_path, MAX_JOBS_PER_SUBMISSION="200000")
    with pytest.raises(ScheddError, match=r"would exceed MAX_JOBS_PER_OWNER \(100000\)"):
        q.submit("alice", SLEEP + "queue 100001\n", str(tmp_path), "j.sub", T0)
    assert q.jobs == {}


def test_a_routed_copy_over_max_jobs_per_owner_is_refused(tmp_path: Path) -> None:
    from condorsim.classad import ClassAd
    from daemons.schedd.qmgmt import submit_ad

    q = _queue(tmp_path, MAX_JOBS_PER_OWNER="2")
    (original, _) = q.submit("alice", SLEEP + "queue 2\n", str(tmp_path), "j.sub", T0)
    with pytest.raises(ScheddError, match=r"would exceed MAX_JOBS_PER_OWNER \(2\)"):
        submit_ad(q, "alice", ClassAd(q.jobs[original].copy()), T0)
    assert len(q.jobs) == 2
    assert submit_ad(q, "bob", ClassAd(q.jobs[original].copy()), T0) == (2, 0)


def test_submit_tool_refuses_a_huge_count_naming_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "j.sub").write_text(SLEEP + "queue 100000000\n")
    assert submit_main(["j.sub"]) == 1
    assert capsys.readouterr().err == (
        "ERROR: Failed to create proc\nNumber of submitted jobs would exceed "
        "MAX_JOBS_PER_SUBMISSION (20000)\n(j.sub, line 3)\n")
    # -dry-run asks no schedd: only the simulator's own limit stops it
    assert submit_main(["-dry-run", "out", "j.sub"]) == 1
    assert "would exceed MAX_SIM_JOBS (1,000,000 jobs in the queue" in capsys.readouterr().err


def test_submit_tool_refuses_one_submission_over_max_jobs_per_owner(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the pool's MAX_JOBS_PER_OWNER refuses it before the schedd is asked (however few jobs
    # the owner has queued); one that fits is refused by the schedd if the queue is fuller
    monkeypatch.chdir(tmp_path)
    (tmp_path / "condor_config").write_text("MAX_JOBS_PER_OWNER = 3\n")
    monkeypatch.setenv("CONDORSIM_CONFIG", str(tmp_path / "condor_config"))
    (tmp_path / "j.sub").write_text(SLEEP + "queue 4\n")
    assert submit_main(["j.sub"]) == 1
    assert capsys.readouterr().err == (
        "ERROR: Failed to create proc\nNumber of submitted jobs would exceed "
        "MAX_JOBS_PER_OWNER (3)\n(j.sub, line 3)\n")
