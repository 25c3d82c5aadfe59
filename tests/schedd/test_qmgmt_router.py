"""The schedd's side of the job router's qmgmt calls (daemons/schedd/qmgmt.py, facts 3.1
"Claiming the original" and "Yielding"), on the real job queue without sockets."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from daemons.schedd.qmgmt import claim_job, set_attributes, submit_ad, yield_job
from daemons.schedd.queue import JobQueue

T0 = 1_767_225_600
JOB = (1, 0)


@pytest.fixture()
def queue(tmp_path: Path) -> JobQueue:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    q.submit("alice", "executable = /bin/sleep\n+WantJobRouter = True\nqueue\n",
             str(tmp_path), "test", T0)
    return q


def _mirror(q: JobQueue, **attrs: object) -> None:
    set_attributes(q, JOB, ClassAd(attrs), (), T0 + 10)


def test_claim_only_an_idle_unmanaged_job(queue: JobQueue) -> None:
    assert claim_job(queue, JOB, "jobrouter") == ("ok", "")
    ad = queue.jobs[JOB]
    assert ad.evaluate("Managed") == "External" and ad.evaluate("ManagedManager") == "jobrouter"
    assert claim_job(queue, JOB, "other") == (
        "busy", "Job 1.0 is already managed by another process")
    assert claim_job(queue, (9, 0), "jobrouter")[0] == "error"
    queue.jobs[JOB]["Managed"] = "Schedd"
    _mirror(queue, JobStatus=5)
    assert claim_job(queue, JOB, "jobrouter") == ("busy", "Job 1.0 isn't idle, is 5")


def test_only_the_manager_yields_and_a_running_original_goes_back_to_idle(
        queue: JobQueue) -> None:
    claim_job(queue, JOB, "jobrouter")
    _mirror(queue, JobStatus=2)
    assert yield_job(queue, JOB, "someone", False, True, T0 + 20)[0] == "stop"
    assert yield_job(queue, JOB, "jobrouter", False, True, T0 + 20) == ("ok", "")
    ad = queue.jobs[JOB]
    assert ad.evaluate("Managed") == "Schedd" and ad.evaluate("ManagedManager") == ""
    assert ad.evaluate("JobStatus") == 1
    assert yield_job(queue, JOB, "jobrouter", False, True, T0 + 30)[0] == "stop"  # not managed


def test_a_mirrored_hold_is_released_only_with_job_router_release_on_hold(
        queue: JobQueue) -> None:
    claim_job(queue, JOB, "jobrouter")
    _mirror(queue, JobStatus=5, HoldCopiedFromTargetJob=True, HoldReason="site")
    yield_job(queue, JOB, "jobrouter", False, False, T0 + 20)  # RELEASE_ON_HOLD = false
    assert queue.jobs[JOB].evaluate("JobStatus") == 5
    # the same again, managed, with JOB_ROUTER_RELEASE_ON_HOLD = true (the default)
    queue.jobs[JOB]["Managed"], queue.jobs[JOB]["ManagedManager"] = "External", "jobrouter"
    yield_job(queue, JOB, "jobrouter", False, True, T0 + 30)
    ad = queue.jobs[JOB]
    assert ad.evaluate("JobStatus") == 1 and "HoldCopiedFromTargetJob" not in ad


def test_a_hold_of_the_original_itself_stays_and_a_removed_original_leaves(
        queue: JobQueue) -> None:
    claim_job(queue, JOB, "jobrouter")
    _mirror(queue, JobStatus=5, HoldReason="via condor_hold")
    yield_job(queue, JOB, "jobrouter", False, True, T0 + 20)
    assert queue.jobs[JOB].evaluate("JobStatus") == 5
    queue.jobs[JOB]["Managed"], queue.jobs[JOB]["ManagedManager"] = "External", "jobrouter"
    queue.jobs[JOB]["JobStatus"] = 3
    yield_job(queue, JOB, "jobrouter", False, True, T0 + 30)
    assert JOB not in queue.jobs  # DestroyProc


def test_the_routed_copy_is_a_new_cluster_kept_until_the_router_collects_it(
        queue: JobQueue) -> None:
    copy = submit_ad(queue, "alice", ClassAd({"JobUniverse": 9, "RoutedFromJobId": "1.0",
                                              "JobStatus": 1}), T0 + 10)
    assert copy == (2, 0)
    ad = queue.jobs[copy]
    assert ad.evaluate("QDate") == T0 + 10 and ad.evaluate("Owner") == "alice"
    assert str(ad.lookup("LeaveJobInQueue")) == "JobStatus == 4"
    # the router's updates never move a job away from Completed
    set_attributes(queue, copy, ClassAd({"JobStatus": 4}), (), T0 + 20)
    set_attributes(queue, copy, ClassAd({"JobStatus": 1}), (), T0 + 30)
    assert queue.jobs[copy].evaluate("JobStatus") == 4
