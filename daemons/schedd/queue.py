"""The schedd's job queue: submit, hold, release, remove, qedit, and jobs leaving the queue.

How this works
--------------
:class:`JobQueue` is sans-I/O except for the files the schedd owns (job_queue.log through
:class:`~.store.JobStore`, the history file, the users' event logs). Every method takes
``now`` (simulated epoch seconds). Each status change sets HTCondor's attributes
(LastJobStatus, EnteredCurrentStatus, the hold and release bookkeeping; facts 5.2) in one
durable transaction before the method returns, then writes the user-log event.

A job that has a shadow (``has_shadow``) is changed in the queue at once (held, removed)
and the method reports it in ``Outcome.to_shadow`` so the runner can tell the shadow; the
job leaves the queue when the shadow has exited (``shadow_exited`` in :mod:`.running`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorsim.classad import ClassAd, ClassAdError, EvalContext, ExprTree, parse_expr
from condorsim.jobqueue import JobQueueWriteError
from condorsim.jobs.codes import HOLD_REASON_NAMES, HoldCode, JobStatus
from condorsim.jobs.managed import gridmanager_owns, managed_externally
from condorsim.submit import Submit, SubmitError, submission_limits
from condorsim.transform import FAILED_TRANSFORM, JobTransforms

from .history import append_history, project, unappend_history
from .store import JobId, JobStore, QueueWriteError, ScheddError, job_status, job_str
from .userlog import UserLogs

PROTECTED_ATTRS = frozenset(
    a.lower() for a in ("ClusterId", "ProcId", "JobStatus", "MyType", "TargetType", "Owner")
)
"""Attributes condor_qedit may not change (HTCondor's qmgmt protects these)."""

ACTIONS = ("hold", "release", "remove", "suspend", "continue", "vacate")

SYSTEM_IMMUTABLE_JOB_ATTRS = ("Owner", "ClusterId", "JobUniverse", "ProcId", "MyType",
                              "TargetType", "User", "OsUser")
"""Never changed once set, by anyone (facts 10)."""
SYSTEM_PROTECTED_JOB_ATTRS: tuple[str, ...] = ()
"""Changed only by a queue super user (empty, as HTCondor's hard-coded value)."""
SYSTEM_SECURE_JOB_ATTRS = (
    "x509userProxySubject", "x509UserProxyEmail", "x509UserProxyVOName",
    "x509UserProxyFirstFQAN", "x509UserProxyFQAN", "TotalSubmitProcs", "AuthTokenSubject",
    "AuthTokenIssuer", "AuthTokenGroups", "AuthTokenId", "AuthTokenScopes", "AuthTokenProject",
    "OsUser")
"""Set by the schedd alone: a user's attempt is ignored (IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS)."""


@dataclass
class AttrRules:
    """Which job attributes a user may not set (lower-cased names; the schedd's config)."""

    immutable: frozenset[str] = frozenset(a.lower() for a in SYSTEM_IMMUTABLE_JOB_ATTRS)
    protected: frozenset[str] = frozenset(a.lower() for a in SYSTEM_PROTECTED_JOB_ATTRS)
    secure: frozenset[str] = frozenset(a.lower() for a in SYSTEM_SECURE_JOB_ATTRS)
    ignore_secure: bool = True


def attr_rules(config: Any) -> AttrRules:
    """The attribute rules of the schedd's config: SYSTEM_* plus the admin's own lists."""
    def names(*knobs: str, default: tuple[str, ...] = ()) -> frozenset[str]:
        out: set[str] = set()
        for knob in knobs:
            value = config.get(knob)
            items = value.replace(",", " ").split() if value is not None else (
                default if knob.startswith("SYSTEM_") else ())
            out.update(a.lower() for a in items)
        return frozenset(out)

    return AttrRules(
        immutable=names("SYSTEM_IMMUTABLE_JOB_ATTRS", "IMMUTABLE_JOB_ATTRS",
                        default=SYSTEM_IMMUTABLE_JOB_ATTRS),
        protected=names("SYSTEM_PROTECTED_JOB_ATTRS", "PROTECTED_JOB_ATTRS",
                        default=SYSTEM_PROTECTED_JOB_ATTRS),
        secure=names("SYSTEM_SECURE_JOB_ATTRS", "SECURE_JOB_ATTRS",
                     default=SYSTEM_SECURE_JOB_ATTRS),
        ignore_secure=config.get_bool("IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS", True),
    )


def _int(ad: ClassAd, name: str, default: int = 0) -> int:
    v = ad.evaluate(name)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return int(v)
    return default


def _str(ad: ClassAd, name: str) -> str | None:
    v = ad.evaluate(name)
    return v if isinstance(v, str) else None


def hold_counts(ad: ClassAd, code: int) -> dict[str, Any]:
    """NumHolds and NumHoldsByReason after one more hold (qmgmt's HoldReasonCode hook)."""
    by_reason = ad.evaluate("NumHoldsByReason")
    counts = by_reason.copy() if isinstance(by_reason, ClassAd) else ClassAd()
    name = {int(k): v for k, v in HOLD_REASON_NAMES.items()}.get(code, "Unspecified")
    prev = counts.evaluate(name)
    counts[name] = (prev if isinstance(prev, int) else 0) + 1
    return {"NumHolds": _int(ad, "NumHolds") + 1, "NumHoldsByReason": counts}


@dataclass
class Outcome:
    """What an action did: jobs done, errors for the user, shadows to tell."""

    done: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    to_shadow: list[tuple[JobId, str]] = field(default_factory=list)
    to_gridmanager: list[tuple[JobId, str]] = field(default_factory=list)


class JobQueue:
    """The schedd's queue of jobs (see the module comment)."""

    def __init__(
        self,
        spool: Path,
        *,
        history: Path | None = None,
        tz: str = "UTC",
        super_users: Iterable[str] = ("root", "condor"),
        host: str = "<127.0.0.1:0>",
        on_warning: Callable[[str], None] | None = None,
        submit_config: Mapping[str, str] | None = None,
    ) -> None:
        self.spool = spool
        self.submit_config: Mapping[str, str] = submit_config or {}
        """The configuration condor_submit reads (SCHEDD_INTERVAL, UID_DOMAIN, ...): the pool's."""
        self.store = JobStore(spool / "job_queue.log")
        self.history_path = history or spool / "history"
        self.super_users = {u.strip() for u in super_users if u.strip()}
        self.tz = tz
        self.userlogs = UserLogs(tz=tz, host=host, on_error=on_warning)
        self.has_shadow: set[JobId] = set()
        self.cron_cache: set[JobId] = set()
        """CronTab jobs whose DeferralTime is current (HTCondor's cached CronTab objects)."""
        self.on_leave: list[Callable[[JobId], None]] = []
        self.transforms = JobTransforms()
        """JOB_TRANSFORM_NAMES: applied to every submitted job (the runner sets them)."""
        self.attr_rules = AttrRules()
        """IMMUTABLE / PROTECTED / SECURE job attributes (the runner sets them from config)."""
        self.on_secure_ignored: Callable[[str, str], None] | None = None
        """Told (attribute, user) when a user's attempt to set a secure attribute is ignored."""

    # -- loading

    def open(self, now: int) -> None:
        self.store.open(now)

    @property
    def jobs(self) -> dict[JobId, ClassAd]:
        return self.store.jobs

    def status(self, job: JobId) -> int:
        return job_status(self.jobs[job])

    # -- selecting

    def select(self, ids: Iterable[str], constraint: str, now: int) -> tuple[list[JobId], list[str]]:
        """Jobs named by ids ("c" or "c.p") or matching ``constraint``; and not-found errors."""
        found: list[JobId] = []
        errors: list[str] = []
        for text in ids:
            cluster, _, proc = text.strip().partition(".")
            if not cluster.isdigit() or (proc and not proc.isdigit()):
                errors.append(f"Invalid job id {text!r}")
                continue
            if proc:
                job = (int(cluster), int(proc))
                if job in self.jobs:
                    found.append(job)
                else:
                    errors.append(f"Job {job_str(job)} not found")
            else:
                members = sorted(self.store.by_cluster.get(int(cluster), ()))
                if not members:
                    errors.append(f"Cluster {cluster} not found")
                found.extend(members)
        if constraint.strip():
            found.extend(j for j in self.matching(constraint, now) if j not in found)
        return found, errors

    def matching(self, constraint: str, now: int) -> list[JobId]:
        try:
            tree = parse_expr(constraint) if constraint.strip() else None
        except ClassAdError as e:
            raise ScheddError(f"bad constraint {constraint!r}: {e}") from None
        ctx = EvalContext(now=now, tz=self.tz)
        return [
            j for j in sorted(self.jobs)
            if tree is None or tree.evaluate(my=self.jobs[j], ctx=ctx) is True
        ]

    def query(self, constraint: str, projection: list[str], now: int) -> list[ClassAd]:
        """Copies of the matching job ads, each with ServerTime (the schedd's now), as the
        schedd answers condor_q."""
        out = []
        for job in self.matching(constraint, now):
            ad = project(self.jobs[job], projection).copy()
            ad["ServerTime"] = now
            out.append(ad)
        return out

    def may_change(self, job: JobId, user: str) -> bool:
        return user in self.super_users or _str(self.jobs[job], "Owner") == user

    def acting_user(self, real: str, requested: str) -> str:
        """Whom a request acts for: the authenticated user ``real``, or ``requested`` when a
        queue super user (a daemon, root, condor) names someone (HTCondor's
        SetEffectiveOwner); anyone else naming another user is refused."""
        if not requested or requested == real or real in self.super_users:
            return requested or real
        raise ScheddError(f"SetEffectiveOwner security violation: setting owner to "
                          f"{requested} when active owner is \"{real}\"")

    def _drop_secure(self, ad: ClassAd, user: str) -> None:
        for name in [n for n in ad if n.lower() in self.attr_rules.secure]:
            del ad[name]
            if self.on_secure_ignored is not None:
                self.on_secure_ignored(name, user)

    # -- submit

    def submit(self, owner: str, text: str, iwd: str, source: str, now: int) -> list[JobId]:
        """Turn a submit description into jobs of a new cluster: all procs or none.

        Raises ScheddError with condor_submit's message; the cluster id is used up anyway.
        """
        cluster = self.store.new_cluster()
        # SUBMIT_JOBS is condor_submit's: JobSubmitMethod 0, and $(SUBMIT_FILE) (so
        # JobSubmitFile) when the source names the submit file in the submitter's directory.
        # The config goes to the constructor: include, use and if read it as the text is read.
        submit_file = source if source and iwd and os.path.isfile(os.path.join(iwd, source)) \
            else None
        try:
            ads = list(Submit(text, source=source or "<submit>", submit_file=submit_file,
                              iwd=iwd or None, config=self.submit_config).jobs(
                count=0, clusterid=cluster, qdate=now, owner=owner, iwd=iwd or None,
                submit_method=0,
                # MAX_JOBS_SUBMITTED, MAX_JOBS_PER_OWNER, MAX_JOBS_PER_SUBMISSION: refused
                # before being built (the owner's jobs: all of them in the queue)
                limits=submission_limits(self.submit_config, len(self.jobs),
                                         owned=len(self.store.by_owner.get(owner, ())))))
        except SubmitError as e:
            raise ScheddError(str(e)) from None
        if not ads:
            raise ScheddError("no jobs queued")
        if self.transforms:
            ads = [self._transformed(ad, now) for ad in ads]
        for ad in ads:
            self._drop_secure(ad, owner)
        for ad in ads:  # the schedd's cluster ad holds it in HTCondor (condor_q's TOTAL)
            ad["TotalSubmitProcs"] = len(ads)
        ids = self.store.add_cluster(cluster, ads)
        for job in ids:
            self.userlogs.submit(self.jobs[job], now)
        return ids

    def _transformed(self, ad: ClassAd, now: int) -> ClassAd:
        """The job after JOB_TRANSFORM_NAMES; a transform that fails refuses the submission."""
        result = self.transforms.apply(ad, now=now)
        if not result.ok:
            raise ScheddError(f"{FAILED_TRANSFORM} ({result.error})")
        return result.ad

    # -- status changes

    def set_status(self, job: JobId, new: int, now: int, extra: dict[str, Any] | None = None,
                   delete: Iterable[str] = (), *, durable: bool = True) -> None:
        """Change JobStatus with LastJobStatus and EnteredCurrentStatus, plus ``extra``."""
        changes: dict[str, Any] = {
            "LastJobStatus": self.status(job), "JobStatus": new, "EnteredCurrentStatus": now,
        }
        changes.update(extra or {})
        self.store.change(job, changes, delete, durable=durable)

    def hold(self, job: JobId, reason: str, code: int, subcode: int, now: int,
             *, system: bool = False) -> None:
        """Put a job on hold (HTCondor's holdJobRaw attributes and event 012)."""
        ad = self.jobs[job]
        old = self.status(job)
        extra: dict[str, Any] = {
            "HoldReason": reason, "HoldReasonCode": code, "HoldReasonSubCode": subcode,
            "LastSuspensionTime": 0, **hold_counts(ad, code),
        }
        if system:
            extra["NumSystemHolds"] = _int(ad, "NumSystemHolds") + 1
        release = _str(ad, "ReleaseReason")
        if release is not None:
            extra["LastReleaseReason"] = release
        if old == JobStatus.REMOVED:
            extra["JobStatusOnRelease"] = int(JobStatus.REMOVED)
        self.set_status(job, JobStatus.HELD, now, extra, delete=("ReleaseReason",))
        # A job another manager holds gets no 012 from the schedd: the gridmanager writes a
        # grid job's (grid.py); a routed original's hold is written by nobody (HTCondor's
        # abort_job_myself returns early for an externally managed job).
        if not gridmanager_owns(ad) and not managed_externally(ad):
            self.userlogs.held(ad, now, reason, code, subcode)

    def release(self, job: JobId, reason: str, now: int) -> None:
        ad = self.jobs[job]
        back = _int(ad, "JobStatusOnRelease", JobStatus.IDLE)
        extra: dict[str, Any] = {"ReleaseReason": reason}
        for attr in ("HoldReason", "HoldReasonCode", "HoldReasonSubCode"):
            tree = ad.lookup(attr)
            if tree is not None:
                extra["Last" + attr] = tree
        self.set_status(job, back, now, extra,
                        delete=("HoldReason", "HoldReasonCode", "HoldReasonSubCode",
                                "JobStatusOnRelease"))
        self.userlogs.released(ad, now, reason)

    def remove(self, job: JobId, reason: str, now: int) -> None:
        ad = self.jobs[job]
        extra: dict[str, Any] = {"RemoveReason": reason}
        for attr in ("HoldReason", "HoldReasonCode", "HoldReasonSubCode"):
            tree = ad.lookup(attr)
            if tree is not None:
                extra["Last" + attr] = tree
        self.set_status(job, JobStatus.REMOVED, now, extra,
                        delete=("HoldReason", "HoldReasonCode", "HoldReasonSubCode"))
        if gridmanager_owns(ad):
            return  # the gridmanager cancels the remote job, logs, and takes it out (grid.py)
        if managed_externally(ad):
            return  # the job router sees it removed, writes 009, and yields it (then it goes)
        self.userlogs.aborted(ad, now, reason)
        if job not in self.has_shadow:
            self.leave(job, now)

    def leave(self, job: JobId, now: int) -> None:
        """The job leaves the queue for the history file (HTCondor's DestroyProc)."""
        ad = self.jobs[job]
        if self.status(job) == JobStatus.COMPLETED and _int(ad, "CompletionDate") == 0:
            # set in DestroyProc's transaction, which is non-durable
            self.store.change(job, {"CompletionDate": now}, durable=False)
        if ad.evaluate("LeaveJobInQueue") is True:
            # jobIsFinished: the job stays; JobFinishedHookDone tells whoever waits for it
            # (the job router, for a routed copy) that the schedd is done with it
            if self.status(job) in (JobStatus.COMPLETED, JobStatus.REMOVED) and \
                    _int(ad, "JobFinishedHookDone") == 0:
                self.store.change(job, {"JobFinishedHookDone": now})
            return
        # The history record and the job's leaving are one step: a record whose job could
        # not leave is cut again (the job leaves, and is recorded, on a later try), and a job
        # whose record could not be written stays in the queue (HTCondor destroys it anyway
        # and loses the record).
        try:
            offset = append_history(self.history_path, ad)
        except JobQueueWriteError as e:
            self.store.report_write_error(e)
            raise QueueWriteError(f"job {job_str(job)} stays in the queue: {e}") from None
        try:
            # non-durable, as HTCondor's DestroyProc: a job that comes back after a crash
            # is removed again (the history record may then be doubled, as HTCondor's)
            self.store.destroy(job, durable=False)
        except QueueWriteError:
            unappend_history(self.history_path, offset)
            raise
        self.has_shadow.discard(job)
        self.cron_cache.discard(job)
        for fn in self.on_leave:
            fn(job)

    # -- what the tools ask for

    def act(self, action: str, ids: list[str], constraint: str, reason: str, user: str,
            now: int) -> Outcome:
        """condor_hold / release / rm / suspend / continue / vacate on the selected jobs."""
        if action not in ACTIONS:
            raise ScheddError(f"unknown action {action!r}")
        jobs, errors = self.select(ids, constraint, now)
        out = Outcome(errors=errors)
        for job in jobs:
            try:
                error = self._act_one(action, job, reason, user, now, out)
            except QueueWriteError as e:  # this job is left as it was; the tool is told
                error = f"Job {job_str(job)}: {e}"
            if error:
                out.errors.append(error)
            else:
                out.done.append(job_str(job))
        return out

    def _act_one(self, action: str, job: JobId, reason: str, user: str, now: int,
                 out: Outcome) -> str | None:
        if not self.may_change(job, user):
            return f"Permission denied to {action} job {job_str(job)}"
        status = self.status(job)
        # As the schedd's actOnJobs: the tool's reason (default "via condor_<tool>") plus
        # who asked.
        tool = {"remove": "rm", "vacate": "vacate_job"}.get(action, action)
        why = f"{reason or f'via condor_{tool}'} (by user {user})"
        running = job in self.has_shadow
        jid = job_str(job)
        if action == "hold":
            if status == JobStatus.HELD:
                return f"Job {jid} already held"
            if status in (JobStatus.REMOVED, JobStatus.COMPLETED):
                return f"Job {jid} already finished"
            self.hold(job, why, HoldCode.USER_REQUEST, 0, now)
        elif action == "release":
            if status != JobStatus.HELD:
                return f"Job {jid} not held to be released"
            self.release(job, why, now)
            return None
        elif action == "remove":
            if status == JobStatus.REMOVED:
                return f"Job {jid} already being removed"
            if status == JobStatus.COMPLETED:
                return f"Job {jid} already completed"
            self.remove(job, why, now)
        elif not running:
            verb = {"suspend": "suspended", "continue": "continued", "vacate": "vacated"}
            return f"Job {jid} not running to be {verb[action]}"
        if running:
            out.to_shadow.append((job, action))
        if job in self.jobs and gridmanager_owns(self.jobs[job]):
            out.to_gridmanager.append((job, action))
        return None

    def qedit(self, ids: list[str], constraint: str, attr: str, value: str, user: str,
              now: int) -> Outcome:
        """condor_qedit: set ``attr`` to the expression ``value`` in the selected jobs."""
        rules, key = self.attr_rules, attr.lower()
        if key in PROTECTED_ATTRS or key in rules.immutable:
            raise ScheddError(f"Update of attribute {attr} is not allowed")
        if key in rules.secure and not rules.ignore_secure:
            raise ScheddError(f"Update of attribute {attr} is not allowed: only the schedd "
                              "sets it (SECURE_JOB_ATTRS)")
        if key in rules.protected and user not in self.super_users:
            raise ScheddError(f"Update of attribute {attr} is not allowed: it is protected "
                              "(PROTECTED_JOB_ATTRS): only a queue super user may change it")
        if not attr or not attr.replace("_", "a").isalnum():
            raise ScheddError(f"{attr!r} is not a valid attribute name")
        try:
            tree: ExprTree = parse_expr(value)
        except ClassAdError as e:
            raise ScheddError(f"Parse error of attribute value {value!r}: {e}") from None
        jobs, errors = self.select(ids, constraint, now)
        out = Outcome(errors=errors)
        for job in jobs:
            if not self.may_change(job, user):
                out.errors.append(f"Permission denied to edit job {job_str(job)}")
                continue
            if key in rules.secure:  # ignored, as HTCondor's schedd ignores it: it says OK
                if self.on_secure_ignored is not None:
                    self.on_secure_ignored(attr, user)
                out.done.append(job_str(job))
                continue
            try:
                self.store.change(job, {attr: tree})
            except QueueWriteError as e:  # this job keeps its value; the tool is told
                out.errors.append(f"Job {job_str(job)}: {e}")
                continue
            out.done.append(job_str(job))
            if job in self.has_shadow:
                out.to_shadow.append((job, "qedit"))
        return out
