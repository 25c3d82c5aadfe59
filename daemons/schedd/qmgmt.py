"""The queue operations the job router asks of the schedd (HTCondor's qmgmt, as
condor_job_router/submit_job.cpp calls it), each one transaction on :class:`~.queue.JobQueue`.

How this works
--------------
* :func:`claim_job` -- the job must still be Idle and not managed (``Managed`` missing or
  "Schedd"); then ``Managed = "External"``, ``ManagedManager = <router name>``. "busy" when
  it is not idle or someone else has it.
* :func:`yield_job` -- only the manager that holds it may give it back ("stop" otherwise):
  ``Managed`` becomes "ScheddDone" (done) or "Schedd", ``ManagedManager`` "". A removed
  job then leaves the queue (DestroyProc); one held by the mirroring is released when
  JOB_ROUTER_RELEASE_ON_HOLD; any other that is not Idle, Held or Completed goes back to
  Idle.
* :func:`submit_ad` -- a routed copy as a new cluster of one proc, as the original's owner:
  QDate and EnteredCurrentStatus now, ``LeaveJobInQueue = JobStatus == 4`` (the router
  collects a completed copy before it leaves). Refused, as NewProc refuses it, when the
  queue holds MAX_JOBS_SUBMITTED jobs or the owner MAX_JOBS_PER_OWNER.
* :func:`set_attributes` -- push_dirty_attributes: every attribute set, a JobStatus change
  recorded with LastJobStatus, but never moving a job away from Removed or Completed.

A completed or removed job that nobody manages any more leaves the queue at the schedd's
next periodic pass (:func:`finished_unmanaged`), as HTCondor's PeriodicExprEval destroys it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from condorsim.classad import ClassAd, parse_expr
from condorsim.jobs.codes import JobStatus
from condorsim.jobs.managed import gridmanager_owns, managed_externally
from condorsim.submit import first_exceeded, submission_limits

from .queue import JobQueue, _str
from .store import JobId, ScheddError

_READ_ONLY = frozenset(a.lower() for a in ("ClusterId", "ProcId", "Owner", "MyType",
                                          "TargetType"))


def claim_job(q: JobQueue, job: JobId, manager: str) -> tuple[str, str]:
    """("ok" | "busy" | "error", why)."""
    ad = q.jobs.get(job)
    if ad is None:
        return "error", f"Job {job[0]}.{job[1]} not found"
    status = q.status(job)
    if status != JobStatus.IDLE:
        return "busy", f"Job {job[0]}.{job[1]} isn't idle, is {int(status)}"
    managed = ad.evaluate("Managed")
    if isinstance(managed, str) and managed != "Schedd":
        return "busy", f"Job {job[0]}.{job[1]} is already managed by another process"
    q.store.change(job, {"Managed": "External", "ManagedManager": manager})
    return "ok", ""


def yield_job(q: JobQueue, job: JobId, manager: str, done: bool, release_on_hold: bool,
              now: int) -> tuple[str, str]:
    """("ok" | "stop" | "error", why); "stop": the job is not this manager's to yield."""
    ad = q.jobs.get(job)
    if ad is None:
        return "stop", f"Job {job[0]}.{job[1]} not found"
    if not managed_externally(ad):
        return "stop", f"Job {job[0]}.{job[1]} is not managed!"
    holder = _str(ad, "ManagedManager")
    if holder is not None and holder != manager:
        return "stop", (f"Job {job[0]}.{job[1]} is managed by '{holder}' instead of "
                        f"expected '{manager}'")
    q.store.change(job, {"Managed": "ScheddDone" if done else "Schedd",
                         "ManagedManager": ""})
    status = q.status(job)
    if status == JobStatus.REMOVED:
        q.leave(job, now)
    elif status not in (JobStatus.IDLE, JobStatus.COMPLETED):
        mirrored = False
        if status == JobStatus.HELD and release_on_hold:
            mirrored = ad.evaluate("HoldCopiedFromTargetJob") is True
            if mirrored:
                q.store.change(job, {}, delete=("HoldCopiedFromTargetJob",))
        if status != JobStatus.HELD or mirrored:
            q.store.change(job, {"LastJobStatus": int(status),
                                 "JobStatus": int(JobStatus.IDLE)})
    return "ok", ""


def submit_ad(q: JobQueue, owner: str, ad: ClassAd, now: int) -> JobId:
    """A new cluster of one proc holding ``ad`` (the routed copy)."""
    if not owner:
        raise ScheddError("a job needs an owner")
    # NewProc's MAX_JOBS_SUBMITTED and MAX_JOBS_PER_OWNER apply to the router's copies too
    limit = first_exceeded(submission_limits(
        q.submit_config, len(q.jobs), owned=len(q.store.by_owner.get(owner, ()))), 1)
    if limit is not None:
        raise ScheddError(limit.message)
    cluster = q.store.new_cluster()
    copy = ad.copy()
    copy.update({"ClusterId": cluster, "ProcId": 0, "Owner": owner, "QDate": now,
                 "EnteredCurrentStatus": now})
    copy["LeaveJobInQueue"] = parse_expr("JobStatus == 4")
    if copy.lookup("JobStatus") is None:
        copy["JobStatus"] = int(JobStatus.IDLE)
    (job,) = q.store.add_cluster(cluster, [copy])
    q.userlogs.submit(q.jobs[job], now)
    return job


def set_attributes(q: JobQueue, job: JobId, ad: ClassAd, delete: Iterable[str],
                   now: int) -> None:
    """push_dirty_attributes (see the module comment)."""
    if job not in q.jobs:
        raise ScheddError(f"Job {job[0]}.{job[1]} not found")
    changes: dict[str, Any] = {}
    status = q.status(job)
    for name, tree in ad.pairs():
        if name.lower() in _READ_ONLY or name.lower() in q.attr_rules.immutable:
            continue
        if name.lower() == "jobstatus":
            new = ad.evaluate(name)
            if status in (JobStatus.REMOVED, JobStatus.COMPLETED) or type(new) is not int:
                continue
            if new != status:
                changes["LastJobStatus"] = int(status)
        changes[name] = tree
    gone = tuple(n for n in delete
                 if n.lower() not in _READ_ONLY and n.lower() not in q.attr_rules.immutable)
    if changes or gone:
        q.store.change(job, changes, gone)


def finished_unmanaged(q: JobQueue) -> list[JobId]:
    """Completed or removed jobs nobody manages or runs any more, that may leave now."""
    out = []
    for job in q.store.with_status(JobStatus.COMPLETED, JobStatus.REMOVED):
        ad = q.jobs[job]
        if job in q.has_shadow:
            continue
        if managed_externally(ad) or gridmanager_owns(ad) or \
                ad.evaluate("LeaveJobInQueue") is True:
            continue
        out.append(job)
    return sorted(out)
