"""Running jobs on the schedd side: marking a job running, a shadow's exit, CronTab times.

How this works
--------------
Pure functions over a :class:`~.queue.JobQueue` with ``now`` passed in:

* :func:`mark_running` -- a shadow is being started for a job on a claim (HTCondor's
  ``mark_job_running`` + ``add_shadow_birthdate`` + the match bookkeeping, facts 5.1/5.2).
* :func:`shadow_exited` -- the shadow is gone: apply its final ad, do ``delete_shadow_rec``
  accounting, then act on the shadow exit code as the schedd's reaper does (facts 1.4,
  2.4, 5.2).
* :func:`update_cron` -- compute a CronTab job's DeferralTime (facts 2.2), in memory only.
* :func:`recover_after_restart` -- the jobs a restarted schedd finds with a shadow: which
  to ask the shadow about (with or without a valid job lease), which to requeue at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd
from condorsim.crontab import CronTabError, needs_crontab, next_run_time
from condorsim.jobs.codes import HoldCode, JobStatus, ShadowExit
from condorsim.jobs.managed import is_grid

from .queue import JobQueue, _int, _str
from .store import JobId

# What the shadow may not overwrite in the queue.
_SHADOW_READONLY = frozenset(a.lower() for a in ("ClusterId", "ProcId", "Owner", "JobStatus"))


def mark_running(q: JobQueue, job: JobId, *, claim_id: str, slot_ad: ClassAd,
                 startd_addr: str, now: int) -> None:
    """Idle -> Running as the schedd records it when it spawns the shadow."""
    ad = q.jobs[job]
    starts = _int(ad, "NumShadowStarts") + 1
    extra: dict[str, Any] = {
        "LastSuspensionTime": 0, "ShadowBday": now, "JobCurrentStartDate": now,
        "NumShadowStarts": starts, "JobRunCount": starts, "CurrentHosts": 1,
        "OrigMaxHosts": _int(ad, "MaxHosts", 1),
        "ClaimId": claim_id, "PublicClaimId": claim_id.split("#", 1)[0],
        "StartdIpAddr": startd_addr, "LastJobLeaseRenewal": now,
        "NumJobMatches": _int(ad, "NumJobMatches") + 1, "LastMatchTime": now,
    }
    name = slot_ad.evaluate("Name")
    if isinstance(name, str):
        extra["RemoteHost"] = name
    slot_id = slot_ad.evaluate("SlotID")
    if isinstance(slot_id, int):
        extra["RemoteSlotID"] = slot_id
    if ad.lookup("JobStartDate") is None:
        extra["JobStartDate"] = now
    previous = ad.lookup("JobCurrentStartDate")
    if previous is not None:
        extra["JobLastStartDate"] = previous
    # non-durable, as HTCondor's mark_serial_job_running and InsertMachineAttrs
    q.set_status(job, JobStatus.RUNNING, now, extra, durable=False)
    q.has_shadow.add(job)


def apply_shadow_ad(q: JobQueue, job: JobId, ad: ClassAd, now: int, *,
                    durable: bool = True) -> None:
    """Write what a shadow pushed (SHADOW_UPDATE or the final ad) into the queue; the
    periodic push is a non-durable commit (``durable`` false), as HTCondor's.

    JobStatus is taken only between Running and Suspended (the schedd decides the rest).
    """
    changes = {name: tree for name, tree in ad.pairs() if name.lower() not in _SHADOW_READONLY}
    if changes:
        q.store.change(job, changes, durable=durable)
    status = ad.evaluate("JobStatus")
    if status in (JobStatus.RUNNING, JobStatus.SUSPENDED) and status != q.status(job) and \
            q.status(job) in (JobStatus.RUNNING, JobStatus.SUSPENDED):
        q.set_status(job, int(status), now)


def stop_accounting(q: JobQueue, job: JobId, now: int) -> None:
    """HTCondor's delete_shadow_rec: wall clock, LastRemoteHost, claim attributes gone."""
    ad = q.jobs[job]
    bday = _int(ad, "ShadowBday", now)
    wall = max(0, now - bday)
    prev = ad.evaluate("RemoteWallClockTime")
    total = (float(prev) if isinstance(prev, (int, float)) else 0.0) + wall
    weight = _int(ad, "SlotWeight", 1) or 1
    extra: dict[str, Any] = {
        "RemoteWallClockTime": total, "LastRemoteWallClockTime": float(wall),
        "CumulativeSlotTime": float(_int(ad, "CumulativeSlotTime") + wall * weight),
    }
    host = _str(ad, "RemoteHost")
    if host is not None:
        extra["LastRemoteHost"] = host
    public = _str(ad, "PublicClaimId")
    if public is not None:
        extra["LastPublicClaimId"] = public
    q.store.change(job, extra, delete=(
        "RemoteHost", "ClaimId", "PublicClaimId", "StartdIpAddr", "RemotePool",
        "RemoteSlotID", "TransferringInput", "TransferringOutput", "TransferQueued",
        "ShadowBday"), durable=False)  # delete_shadow_rec's commit is non-durable
    q.has_shadow.discard(job)


def mark_stopped(q: JobQueue, job: JobId, now: int) -> None:
    """HTCondor's mark_job_stopped: back to Idle."""
    ad = q.jobs[job]
    q.set_status(job, JobStatus.IDLE, now, {
        "LastSuspensionTime": 0, "CurrentHosts": 0,
        "MaxHosts": _int(ad, "OrigMaxHosts", _int(ad, "MaxHosts", 1)),
    }, delete=("RemotePool",))


def shadow_exited(q: JobQueue, job: JobId, exit_code: int, final: ClassAd, now: int,
                  tz: str = "UTC") -> str:
    """The schedd's reaper for a shadow; returns what became of the job (for the log)."""
    if job not in q.jobs:
        return "gone"
    apply_shadow_ad(q, job, final, now)
    stop_accounting(q, job, now)
    status = q.status(job)
    if status == JobStatus.REMOVED:
        q.leave(job, now)
        return "removed"
    if status == JobStatus.HELD:
        return "held"  # held by the user while running; the hold is already recorded
    ad = q.jobs[job]
    if exit_code in (ShadowExit.JOB_EXITED, ShadowExit.JOB_COREDUMPED,
                     ShadowExit.JOB_EXITED_AND_CLAIM_CLOSING):
        q.set_status(job, JobStatus.COMPLETED, now)
        q.leave(job, now)
        return "completed"
    if exit_code == ShadowExit.JOB_SHOULD_REMOVE:
        reason = _str(ad, "RemoveReason") or "Job removed by policy"
        q.remove(job, reason, now)
        return "removed"
    if exit_code == ShadowExit.JOB_MISSED_DEFERRAL_TIME:
        q.hold(job, "Job missed deferred execution time",
               HoldCode.MISSED_DEFERRED_EXECUTION_TIME, 0, now)
        q.cron_cache.discard(job)
        return "held"
    if exit_code == ShadowExit.JOB_SHOULD_HOLD:
        q.hold(job, _str(ad, "HoldReason") or "Job held by the shadow",
               _int(ad, "HoldReasonCode", HoldCode.UNSPECIFIED),
               _int(ad, "HoldReasonSubCode"), now)
        return "held"
    mark_stopped(q, job, now)
    if job in q.cron_cache or needs_crontab(q.jobs[job]):
        update_cron(q, job, now, tz, force=True)
    return "requeued"


def update_cron(q: JobQueue, job: JobId, now: int, tz: str = "UTC", *,
                force: bool = False) -> None:
    """Set DeferralTime of an idle CronTab job when due (facts 2.2); hold a bad schedule."""
    ad = q.jobs.get(job)
    if ad is None or q.status(job) != JobStatus.IDLE or not needs_crontab(ad):
        return
    deferral = ad.evaluate("DeferralTime")
    window = _int(ad, "DeferralWindow")
    stale = isinstance(deferral, int) and now > deferral + window
    if not force and job in q.cron_cache and not stale:
        return
    fields = {name: ad.evaluate(name) for name in ad if name.lower().startswith("cron")}
    try:
        when = next_run_time(fields, now, tz)
    except CronTabError as e:
        q.hold(job, f"Invalid cron schedule parameters: {e}",
               HoldCode.INVALID_CRON_SETTINGS, 0, now)
        return
    q.store.transient(job, {"DeferralTime": when})
    q.cron_cache.add(job)


def job_lease_remaining(ad: ClassAd, now: int) -> int:
    """Seconds left of the job's lease, 0 when it has none or it expired (jobLeaseIsValid)."""
    duration = ad.evaluate("JobLeaseDuration")
    renewal = ad.evaluate("LastJobLeaseRenewal")
    if type(duration) is not int or type(renewal) is not int:
        return 0
    return max(0, duration - (now - renewal))


@dataclass
class Recovery:
    """What a restarted schedd does with the jobs its log shows running."""

    requeued: list[JobId] = field(default_factory=list)
    # (job, its lease is valid): the shadow is asked for them (SHADOW_RECONNECT)
    reconnect: list[tuple[JobId, bool]] = field(default_factory=list)


def recover_after_restart(q: JobQueue, now: int) -> Recovery:
    """Jobs the log shows with a shadow: keep those with a claim for the shadow to answer for.

    HTCondor's schedd spawns a reconnecting shadow for a Running job whose lease is valid
    and marks the others stopped (``mark_idle``). condorsim's shadow outlives the schedd, so
    every Running job with a claim stays Running (with its shadow) until the shadow answers
    SHADOW_RECONNECT; one without a recorded claim is requeued at once. A job held or
    removed while it ran, whose shadow had not exited yet, still has its claim: the shadow
    is told to let it go (``reconnect`` false), then it is finished as the shadow's exit
    would have (a removed job leaves for the history).
    """
    out = Recovery()
    for job in sorted(q.jobs):
        status = q.status(job)
        ad = q.jobs[job]
        if is_grid(ad):
            continue  # the gridmanager's (it takes its jobs back by GridJobId)
        claimed = bool(_str(ad, "ClaimId") and _str(ad, "StartdIpAddr"))
        if status in (JobStatus.RUNNING, JobStatus.SUSPENDED):
            if claimed:
                q.has_shadow.add(job)
                out.reconnect.append((job, job_lease_remaining(ad, now) > 0))
            else:
                stop_accounting(q, job, now)
                mark_stopped(q, job, now)
                out.requeued.append(job)
        elif status in (JobStatus.HELD, JobStatus.REMOVED) and claimed:
            q.has_shadow.add(job)
            out.reconnect.append((job, False))
        elif status == JobStatus.REMOVED:
            q.leave(job, now)  # its shadow had exited; only the cleanup was left
    return out
