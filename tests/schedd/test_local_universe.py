"""Local and scheduler universe jobs, run by the schedd itself: the logic without sockets
(daemons/schedd/local.py). The pool-level behaviour is scenarios/local-universe.toml."""

from __future__ import annotations

from pathlib import Path

from condorsim.classad import ClassAd
from condorsim.eventlog import read_events
from daemons.schedd.local import LocalJobs, Phase
from daemons.schedd.queue import JobQueue

T0 = 1_767_225_600
HOST = "<127.0.0.1:9618>"


def _setup(tmp_path: Path, start_local: str | None = None) -> tuple[JobQueue, LocalJobs]:
    q = JobQueue(tmp_path / "spool", host=HOST)
    q.open(T0)
    exprs = {12: start_local} if start_local else None
    return q, LocalJobs(q, host=HOST, default_runtime=600, start_exprs=exprs)


def _schedd_ad(memory: int = 16384) -> ClassAd:
    return ClassAd({"Arch": "X86_64", "OpSys": "LINUX", "Memory": memory, "Disk": 10**8,
                    "Cpus": 4})


def _submit(q: JobQueue, tmp_path: Path, body: str, owner: str = "alice") -> None:
    q.submit(owner, f"log = job.log\nexecutable = /bin/sleep\n{body}\n", str(tmp_path),
             "job.sub", T0)


def _events(tmp_path: Path) -> list[tuple[str, int, int]]:
    return [(e.type, e.cluster, int(e.timestamp - T0)) for e in read_events(tmp_path / "job.log")]


def test_start_expressions_priorities_and_requirements_decide_what_runs(tmp_path: Path) -> None:
    q, local = _setup(tmp_path, "TotalLocalJobsRunning < 2")
    _submit(q, tmp_path, "universe = local\narguments = 60\nqueue 3")           # cluster 1
    _submit(q, tmp_path, "universe = local\npriority = 5\narguments = 60\nqueue")  # cluster 2
    _submit(q, tmp_path, "universe = local\nrequest_memory = 64000\nqueue")     # cluster 3
    _submit(q, tmp_path, "universe = scheduler\narguments = 60\nqueue")         # cluster 4
    _submit(q, tmp_path, "arguments = 60\nqueue")                               # vanilla
    # two local ones by priority (JobPrio, then id); 3.0 asks more memory than the host
    # has; the scheduler job has its own expression; the vanilla job is the negotiator's
    assert local.runnable(_schedd_ad(), T0) == [(2, 0), (1, 0), (4, 0)]
    for job in [(2, 0), (1, 0), (4, 0)]:
        local.start(job, T0)
    assert local.runnable(_schedd_ad(), T0) == []
    assert local.counts() == {"TotalLocalJobsIdle": 3, "TotalLocalJobsRunning": 2,
                              "TotalSchedulerJobsIdle": 0, "TotalSchedulerJobsRunning": 1}
    assert local.runnable(_schedd_ad(memory=10**6), T0) == []  # still two local running


def test_a_local_job_begins_executes_and_completes(tmp_path: Path) -> None:
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, "universe = local\narguments = 90\nqueue")
    run = local.start((1, 0), T0)
    ad = q.jobs[(1, 0)]
    assert ad.evaluate("JobStatus") == 2 and ad.evaluate("ShadowBday") == T0
    assert ad.evaluate("NumShadowStarts") == 1 and ad.evaluate("NumJobStarts") == 0
    assert run.phase is Phase.WAITING and local.deferral(run, T0)[0] == "run"
    local.began(run, T0)
    assert run.wake_at == T0 + 90 and ad.evaluate("NumJobStarts") == 1
    outcome = local.exited((1, 0), T0 + 90)
    assert outcome.became == "completed" and (1, 0) not in q.jobs
    assert _events(tmp_path) == [("SUBMIT", 1, 0), ("EXECUTE", 1, 0), ("JOB_TERMINATED", 1, 90)]


def test_on_exit_remove_false_requeues_a_local_job_without_counting_a_completion(
        tmp_path: Path) -> None:
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, "universe = local\narguments = 30\non_exit_remove = false\nqueue")
    local.began(local.start((1, 0), T0), T0)
    assert local.exited((1, 0), T0 + 30).became == "requeued"
    ad = q.jobs[(1, 0)]
    assert ad.evaluate("JobStatus") == 1 and ad.evaluate("RemoteWallClockTime") == 30.0
    assert "NumJobCompletions" in ad and ad.evaluate("NumJobCompletions") == 0
    assert [e[0] for e in _events(tmp_path)][-1] == "JOB_EVICTED"
    (evicted,) = [e for e in read_events(tmp_path / "job.log") if e.type == "JOB_EVICTED"]
    assert evicted.fields["TerminatedAndRequeued"] is True


def test_a_scheduler_job_held_at_exit_writes_only_the_hold(tmp_path: Path) -> None:
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, "universe = scheduler\narguments = 30\non_exit_hold = true\nqueue")
    run = local.start((1, 0), T0)
    assert run.phase is Phase.RUNNING and q.jobs[(1, 0)].evaluate("NumJobStarts") == 1
    assert local.exited((1, 0), T0 + 30).became == "held"
    assert q.jobs[(1, 0)].evaluate("HoldReasonCode") == 3
    assert [e[0] for e in _events(tmp_path)] == ["SUBMIT", "EXECUTE", "JOB_HELD"]


def test_a_periodic_remove_at_exit_completes_a_scheduler_job(tmp_path: Path) -> None:
    """scheduler_univ_job_exit treats every REMOVE_FROM_QUEUE verdict as completion."""
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, "universe = scheduler\narguments = 30\nperiodic_remove = true\nqueue")
    local.start((1, 0), T0)
    assert local.exited((1, 0), T0 + 30).became == "completed"
    assert [e[0] for e in _events(tmp_path)] == ["SUBMIT", "EXECUTE", "JOB_TERMINATED"]


def test_removing_a_running_local_job_evicts_it_then_it_leaves(tmp_path: Path) -> None:
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, "universe = local\narguments = 300\nqueue")
    local.began(local.start((1, 0), T0), T0)
    out = q.act("remove", ["1.0"], "", "", "alice", T0 + 50)
    assert out.to_shadow == [((1, 0), "remove")] and (1, 0) in q.jobs  # not gone yet
    assert local.stopped((1, 0), "remove", T0 + 50).became == "removed"
    assert (1, 0) not in q.jobs and (1, 0) not in local.running
    assert [e[0] for e in _events(tmp_path)] == ["SUBMIT", "EXECUTE", "JOB_ABORTED",
                                                  "JOB_EVICTED"]


def test_a_deferred_local_job_waits_then_misses_or_runs(tmp_path: Path) -> None:
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, f"universe = local\narguments = 10\ndeferral_time = {T0 + 100}\nqueue 2")
    first = local.start((1, 0), T0)
    assert local.deferral(first, T0)[0] == "wait" and first.wake_at == T0 + 100
    assert local.deferral(first, T0 + 100)[0] == "run"
    late = local.start((1, 1), T0 + 200)
    assert local.deferral(late, T0 + 200)[0] == "abort"
    assert local.missed_deferral((1, 1), T0 + 200).became == "held"
    assert q.jobs[(1, 1)].evaluate("HoldReasonCode") == 20


def test_a_local_jobs_usage_is_local_usage_in_the_user_log(tmp_path: Path) -> None:
    """HTCondor's local starter (LocalUserLog) writes the payload's usage as "Run Local
    Usage" and leaves the remote and total usage blank -- the job ran on the submit host."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import htcondor
    q, local = _setup(tmp_path)
    _submit(q, tmp_path, "universe = local\narguments = 90\nqueue")
    _submit(q, tmp_path, "universe = local\narguments = 30\non_exit_remove = false\nqueue")
    for job in [(1, 0), (2, 0)]:
        local.began(local.start(job, T0), T0)
    local.exited((1, 0), T0 + 90)
    local.exited((2, 0), T0 + 30)
    text = (tmp_path / "job.log").read_text()
    assert ("\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n"
            "\t\tUsr 0 00:01:30, Sys 0 00:00:00  -  Run Local Usage\n"
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n"
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n") in text
    events = {(e.cluster, int(e.type)): e for e in htcondor.JobEventLog(
        str(tmp_path / "job.log")).events(0)}
    done = events[1, int(htcondor.JobEventType.JOB_TERMINATED)]
    assert done["RunLocalUsage"] == "Usr 0 00:01:30, Sys 0 00:00:00"
    assert done["RunRemoteUsage"] == done["TotalRemoteUsage"] == "Usr 0 00:00:00, Sys 0 00:00:00"
    requeued = events[2, int(htcondor.JobEventType.JOB_EVICTED)]
    assert requeued["RunLocalUsage"] == "Usr 0 00:00:30, Sys 0 00:00:00"
    assert requeued["RunRemoteUsage"] == "Usr 0 00:00:00, Sys 0 00:00:00"


def test_a_local_job_whose_user_log_cannot_be_opened_is_held_with_code_22(
        tmp_path: Path) -> None:
    """JICLocalSchedd::initLocalUserLog: HoldReason "Failed to initialize user log", code 22
    (UnableToInitUserLog), subcode 0; the job never executes."""
    q, local = _setup(tmp_path)
    (tmp_path / "notadir").write_text("a regular file\n")
    _submit(q, tmp_path, "universe = local\narguments = 60\nlog = notadir/job.log\nqueue")
    _submit(q, tmp_path, "universe = local\narguments = 60\nqueue")
    bad, good = (local.start(job, T0) for job in local.runnable(_schedd_ad(), T0))
    assert local.user_log_error(good) is None
    error = local.user_log_error(bad)
    assert error is not None and "notadir/job.log: errno = 20 (Not a directory)" in error
    assert local.user_log_failed(bad.job, T0).became == "held"
    ad = q.jobs[bad.job]
    assert [ad.evaluate(a) for a in ("JobStatus", "HoldReason", "HoldReasonCode",
                                     "HoldReasonSubCode", "NumJobStarts")] == [
        5, "Failed to initialize user log", 22, 0, 0]
    assert bad.job not in local.running and bad.job not in q.has_shadow
