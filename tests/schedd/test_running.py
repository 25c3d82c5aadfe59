"""Running jobs in the queue logic: mark running, shadow exits by code, CronTab times."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.eventlog import read_events
from condorsim.jobqueue import writer
from condorsim.jobs.codes import ShadowExit
from daemons.schedd.autocluster import AutoClusters
from daemons.schedd.history import read_history
from daemons.schedd.queue import JobQueue
from daemons.schedd.running import (
    apply_shadow_ad,
    mark_running,
    recover_after_restart,
    shadow_exited,
    update_cron,
)

T0 = 1_767_225_600
SUB = "executable = /bin/sleep\nlog = job.log\nrequest_memory = 100\nqueue 2\n"
SLOT = ClassAd.parse('[ Name = "slot1@exec1"; SlotID = 1; MyAddress = "<127.0.0.1:5>" ]')


def _queue(tmp_path: Path, text: str = SUB) -> JobQueue:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    q.submit("alice", text, str(tmp_path), "job.sub", T0)
    return q


def _run(q: JobQueue, job: tuple[int, int], t: int) -> None:
    mark_running(q, job, claim_id="<127.0.0.1:5>#1#1", slot_ad=SLOT,
                 startd_addr="<127.0.0.1:5>", now=t)


def test_mark_running_sets_htcondor_attributes_once_and_per_start(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _run(q, (1, 0), T0 + 10)
    ad = q.jobs[(1, 0)]
    assert [ad.evaluate(a) for a in ("JobStatus", "ShadowBday", "JobStartDate",
                                     "JobCurrentStartDate", "NumShadowStarts", "JobRunCount",
                                     "CurrentHosts", "RemoteHost", "RemoteSlotID",
                                     "NumJobMatches", "LastJobStatus")] == [
        2, T0 + 10, T0 + 10, T0 + 10, 1, 1, 1, "slot1@exec1", 1, 1, 1]
    assert shadow_exited(q, (1, 0), ShadowExit.JOB_SHOULD_REQUEUE, ClassAd(), T0 + 70) == \
        "requeued"
    assert ad.evaluate("JobStatus") == 1 and ad.evaluate("RemoteWallClockTime") == 60.0
    assert ad.evaluate("LastRemoteHost") == "slot1@exec1" and "RemoteHost" not in ad
    assert ad.evaluate("CurrentHosts") == 0 and "CompletionDate" not in ad
    _run(q, (1, 0), T0 + 100)
    assert ad.evaluate("JobStartDate") == T0 + 10 and ad.evaluate("JobLastStartDate") == T0 + 10
    assert ad.evaluate("NumShadowStarts") == 2


def test_a_completed_job_goes_to_history_with_its_completion_date(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _run(q, (1, 0), T0 + 10)
    final = ClassAd.parse("[ ExitCode = 0; NumJobCompletions = 1 ]")
    assert shadow_exited(q, (1, 0), ShadowExit.JOB_EXITED, final, T0 + 40) == "completed"
    assert (1, 0) not in q.jobs
    [ad] = read_history(q.history_path)
    assert [ad.evaluate(a) for a in ("JobStatus", "CompletionDate", "ExitCode",
                                     "RemoteWallClockTime")] == [4, T0 + 40, 0, 30.0]


def test_a_missed_deferral_time_holds_the_job_with_code_20(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _run(q, (1, 1), T0 + 10)
    assert shadow_exited(q, (1, 1), ShadowExit.JOB_MISSED_DEFERRAL_TIME, ClassAd(), T0 + 20) \
        == "held"
    ad = q.jobs[(1, 1)]
    assert [ad.evaluate(a) for a in ("JobStatus", "HoldReason", "HoldReasonCode",
                                     "HoldReasonSubCode", "NumSystemHolds")] == [
        5, "Job missed deferred execution time", 20, 0, 0]
    held = read_events(tmp_path / "job.log")[-1]
    assert held.type == "JOB_HELD" and held.fields == {
        "HoldReason": "Job missed deferred execution time", "HoldReasonCode": 20,
        "HoldReasonSubCode": 0}


def test_held_by_shadow_and_removed_while_running(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _run(q, (1, 0), T0)
    _run(q, (1, 1), T0)
    final = ClassAd.parse('[ HoldReason = "policy"; HoldReasonCode = 3; HoldReasonSubCode = 4 ]')
    shadow_exited(q, (1, 0), ShadowExit.JOB_SHOULD_HOLD, final, T0 + 5)
    assert q.jobs[(1, 0)].evaluate("HoldReasonSubCode") == 4
    out = q.act("remove", ["1.1"], "", "", "alice", T0 + 6)
    assert out.to_shadow == [((1, 1), "remove")] and (1, 1) in q.jobs
    shadow_exited(q, (1, 1), ShadowExit.JOB_KILLED, ClassAd(), T0 + 7)
    assert (1, 1) not in q.jobs


def test_restart_requeues_jobs_left_running_without_a_claim(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _run(q, (1, 0), T0)
    q.store.change((1, 0), {}, delete=("ClaimId", "StartdIpAddr"))
    assert recover_after_restart(q, T0 + 50).requeued == [(1, 0)]
    assert q.jobs[(1, 0)].evaluate("JobStatus") == 1


def test_crontab_deferral_time_is_computed_in_memory_and_bad_schedules_hold(
        tmp_path: Path) -> None:
    q = _queue(tmp_path, "executable = /bin/true\ncron_minute = */5\nqueue\n")
    update_cron(q, (1, 0), T0 + 61)
    assert q.jobs[(1, 0)].evaluate("DeferralTime") == T0 + 300
    assert " DeferralTime " not in (tmp_path / "spool" / "job_queue.log").read_text()
    bad = JobQueue(tmp_path / "spool2")
    bad.open(T0)
    bad.submit("alice", "executable = /bin/true\ncron_minute = abc\nqueue\n", str(tmp_path),
               "c.sub", T0)
    update_cron(bad, (1, 0), T0)
    ad = bad.jobs[(1, 0)]
    assert ad.evaluate("JobStatus") == 5 and ad.evaluate("HoldReasonCode") == 25
    reason = ad.evaluate("HoldReason")
    assert reason == "Invalid cron schedule parameters: Invalid parameter value 'abc' for CronMinute"


def test_autoclusters_group_alike_jobs_in_priority_order(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", "executable = /bin/true\nrequest_memory = 200\npriority = 5\nqueue\n",
             str(tmp_path), "b.sub", T0 + 1)
    reqs = AutoClusters().requests(q.jobs, sorted(q.jobs))
    assert [(r.jobs, r.ad.evaluate("_condor_RESOURCE_COUNT")) for r in reqs] == [
        ([(2, 0)], 1), ([(1, 0), (1, 1)], 2)]
    assert q.jobs[(1, 1)].evaluate("AutoClusterId") == reqs[1].ad.evaluate("AutoClusterId")


def test_shadow_updates_apply_but_only_move_status_between_running_and_suspended(
        tmp_path: Path) -> None:
    from daemons.schedd.running import apply_shadow_ad
    q = _queue(tmp_path)
    _run(q, (1, 0), T0)
    apply_shadow_ad(q, (1, 0), ClassAd.parse("[ JobStatus = 7; TotalSuspensions = 1 ]"), T0 + 5)
    ad = q.jobs[(1, 0)]
    assert [ad.evaluate(a) for a in ("JobStatus", "LastJobStatus", "EnteredCurrentStatus",
                                     "TotalSuspensions")] == [7, 2, T0 + 5, 1]
    apply_shadow_ad(q, (1, 0), ClassAd.parse("[ JobStatus = 4; ClusterId = 9 ]"), T0 + 6)
    assert ad.evaluate("JobStatus") == 7 and ad.evaluate("ClusterId") == 1


def test_the_commits_htcondor_makes_non_durable_are_not_synced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job's start (mark_serial_job_running), the shadow's periodic push (U_PERIODIC),
    the end of its shadow (delete_shadow_rec) and its leaving the queue (DestroyProc) are
    HTCondor's non-durable commits, and its
    history record is flushed, never synced; a hold, or the status the job ends in, is
    synced before the schedd goes on."""
    q = _queue(tmp_path)
    synced: list[str] = []
    monkeypatch.setattr(writer, "disk_datasync", lambda fd: synced.append(
        os.readlink(f"/proc/self/fd/{fd}")))
    _run(q, (1, 0), T0 + 10)
    apply_shadow_ad(q, (1, 0), ClassAd.parse("[ RemoteUserCpu = 5.0 ]"), T0 + 910,
                    durable=False)  # the shadow's periodic push
    assert synced == []
    apply_shadow_ad(q, (1, 0), ClassAd.parse("[ RemoteUserCpu = 6.0 ]"), T0 + 920)
    assert [Path(p).name for p in synced] == ["job_queue.log"]  # an immediate push
    synced.clear()
    final = ClassAd.parse("[ ExitCode = 0; NumJobCompletions = 1 ]")
    assert shadow_exited(q, (1, 0), ShadowExit.JOB_EXITED, final, T0 + 40) == "completed"
    # the shadow's final update and the Completed status: two synced commits of the log
    assert [Path(p).name for p in synced] == ["job_queue.log"] * 2
    synced.clear()
    q.hold((1, 1), "by test", 1, 0, T0 + 50)
    assert [Path(p).name for p in synced] == ["job_queue.log"]
    # and what was not synced is in the log all the same: a restarted schedd reads it
    again = JobQueue(tmp_path / "spool")
    again.open(T0 + 60)
    assert (1, 0) not in again.jobs and again.jobs[(1, 1)].evaluate("JobStatus") == 5
