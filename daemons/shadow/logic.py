"""The shadow's copy of one running job, with no I/O: what each starter report changes.

How this works
--------------
A :class:`ShadowJob` holds the job ad the schedd gave the shadow and the set of attributes
changed since the last push to the schedd (the "dirty" ones, as HTCondor's
``QmgrJobUpdater``). Each method is one event -- execution began, an update arrived, the
job was suspended or continued, the starter reported the exit, the schedd asked for a hold
-- and returns the user-log events to write (:class:`LogEvent`). :meth:`ShadowJob.job_exit`
decides the shadow's exit code (facts 2.4, 1.4, 5.1) and the final attributes:

* JOB_EXITED: NumJobCompletions++, exit attributes, then the exit policy: JOB_TERMINATED
  event and JOB_EXITED; or a requeue (OnExitRemove false: JOB_EVICTED "terminated and was
  requeued", RequeueReason, JOB_SHOULD_REQUEUE); or a hold (JOB_SHOULD_HOLD) or a removal
  (JOB_SHOULD_REMOVE) when a policy expression fires.
* JOB_MISSED_DEFERRAL_TIME: no event; the exit code 114 tells the schedd to hold the job.
* JOB_KILLED: what was asked for (hold, remove), else an eviction (JOB_EVICTED, requeue).
* A starter error (a prepare hook failed: the report carries VacateReason, its code and
  subcode, as HTCondor's ``evictJob`` records them): JOB_EVICTED with the reason, then a
  hold (JOB_SHOULD_HOLD, the starter's hold attributes) or, for JOB_NOT_STARTED, back to
  idle with the claim closed. The REMOTE_ERROR event came before, with the starter's
  ULOG message (:meth:`ShadowJob.remote_error`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd
from condorsim.eventlog import ResourceUsage, Rusage, ToE
from condorsim.eventlog.usage import event_usage_rows
from condorsim.jobs.codes import JobStatus, ShadowExit
from condorsim.jobs.dirty import DirtyAd

from .policy import PolicyAction, PolicyOutcome, exit_policy, periodic_policy

EXIT_ATTRS = ("ExitCode", "ExitSignal", "ExitBySignal", "ExitReason", "JobCoreDumped")
USAGE_ATTRS = frozenset(name.lower() for name in (
    "ImageSize", "ResidentSetSize", "MemoryUsage", "DiskUsage", "RemoteUserCpu", "RemoteSysCpu",
    "JobPid", "NumPids",
))


@dataclass(frozen=True)
class LogEvent:
    """A user-log event to write: ``kind`` names an EventLogWriter method's event."""

    kind: str
    t: float
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ExitDecision:
    exit_code: int
    events: list[LogEvent]


@dataclass
class Request:
    """What the schedd asked of a running job (the outcome once the starter has stopped it)."""

    action: str  # "hold" | "remove" | "vacate"
    reason: str = ""
    code: int = 0
    subcode: int = 0


def _int(value: object, default: int = 0) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return default


class ShadowJob(DirtyAd):
    def __init__(self, job_ad: ClassAd, slot_ad: ClassAd, claim_id: str, startd_addr: str) -> None:
        super().__init__(job_ad)
        self.slot_ad = slot_ad
        self.claim_id = claim_id
        self.startd_addr = startd_addr
        self.cluster = _int(self.ad.evaluate("ClusterId"))
        self.proc = _int(self.ad.evaluate("ProcId"))
        self.job = f"{self.cluster}.{self.proc}"
        self.executing = False
        self.suspended = False
        self.max_image_size = 0
        self.request: Request | None = None
        self.activated_at: int | None = None
        """When the startd accepted the claim's activation (HTCondor's activation.StartTime)."""
        self.executing_since: int | None = None
        self.starter_ad: ClassAd | None = None
        """What the starter said of itself (REGISTER_STARTER_INFO): its slot, scratch
        directory and machine resources."""

    # -- attributes ---------------------------------------------------------------------------
    def take_qedit(self, ad: ClassAd) -> None:
        """Attributes qedit changed at the schedd: ours now, not dirty."""
        self.take_clean(ad)

    # -- what the starter reports -------------------------------------------------------------
    def had_contact(self, now: float) -> None:
        """The starter was heard from: the job lease is renewed (RemoteResource::hadContact)."""
        self.set("LastJobLeaseRenewal", int(now))

    def reconnected(self, now: float, starter_addr: str | None) -> list[LogEvent]:
        """A restarted schedd re-attached the job (UniShadow::resourceReconnected). The new
        shadow takes the activation's start times from the job ad, as HTCondor's does."""
        self.set("NumJobReconnects", _int(self.ad.evaluate("NumJobReconnects")) + 1)
        if self.activated_at is None:
            self.activated_at = _int(self.ad.evaluate("JobCurrentStartDate")) or None
        if self.executing_since is None:
            self.executing_since = _int(self.ad.evaluate("JobCurrentStartExecutingDate")) or None
        slot = self.slot_ad.evaluate("Name")
        return [LogEvent("reconnected", now, {
            "startd_name": slot if isinstance(slot, str) else self.startd_addr,
            "startd_addr": self.startd_addr, "starter_addr": starter_addr or "",
        })]

    def activated(self, now: float) -> None:
        """The startd accepted ACTIVATE_CLAIM: the activation starts (HTCONDOR-861)."""
        self.activated_at = int(now)

    def begin_execution(self, now: float) -> list[LogEvent]:
        self.executing = True
        self.had_contact(now)
        self.set("JobCurrentStartExecutingDate", int(now))
        if self.executing_since is None:
            self.executing_since = int(now)
            if self.activated_at is not None:
                self.set("ActivationSetupDuration", int(now) - self.activated_at)
        self.set("NumJobStarts", _int(self.ad.evaluate("NumJobStarts")) + 1)
        slot = self.slot_ad.evaluate("Name")
        return [LogEvent("execute", now, {
            "host": self.startd_addr, "slot_name": slot if isinstance(slot, str) else None,
            "props": self._execute_props(),
        })]

    def _execute_props(self) -> dict[str, str]:
        """The execute event's attribute lines, as HTCondor 24's shadow fills them
        (``RemoteResource::populateExecuteEvent``): the starter's CondorScratchDir and the
        slot's machine resources (Cpus, Disk, Memory, ...), as expression text."""
        ad = self.starter_ad
        if ad is None:
            return {}
        props: dict[str, str] = {}
        for name, tree in ad.pairs():
            if name.lower() in ("starteripaddr", "name", "hasjobdeferral"):
                continue
            props[name] = str(tree)
        return props

    def register_job_info(self, ad: ClassAd, now: float) -> list[LogEvent]:
        """Merge a starter update; an IMAGE_SIZE event when the image grew."""
        self.had_contact(now)
        lookup = self.ad.lookup
        for name, tree in ad.pairs():
            key = name.lower()
            if key == "jobstate" or key == "jobstartdate":
                continue
            old = lookup(key)
            # a tree is equal to itself (ExprTree.__eq__): the same shared literal, unchanged
            if old is not tree and old != tree:
                self.set(name, tree)
        size = _int(ad.evaluate("ImageSize"))
        if size > self.max_image_size:
            self.max_image_size = size
            return [LogEvent("image_size", now, {
                "size_kb": size,
                "memory_usage_mb": _int(ad.evaluate("MemoryUsage"), -1),
                "rss_kb": _int(ad.evaluate("ResidentSetSize"), -1),
            })]
        return []

    def suspend(self, now: float) -> list[LogEvent]:
        if self.suspended:
            return []
        self.suspended = True
        self.set("JobStatus", int(JobStatus.SUSPENDED))
        self.set("TotalSuspensions", _int(self.ad.evaluate("TotalSuspensions")) + 1)
        self.set("LastSuspensionTime", int(now))
        return [LogEvent("suspended", now, {"n_pids": 1})]

    def unsuspend(self, now: float) -> list[LogEvent]:
        if not self.suspended:
            return []
        self.suspended = False
        since = _int(self.ad.evaluate("LastSuspensionTime"), int(now))
        spent = int(now) - since
        self.set("JobStatus", int(JobStatus.RUNNING))
        self.set("CumulativeSuspensionTime",
                 _int(self.ad.evaluate("CumulativeSuspensionTime")) + spent)
        self.set("UncommittedSuspensionTime",
                 _int(self.ad.evaluate("UncommittedSuspensionTime")) + spent)
        self.set("LastSuspensionTime", 0)
        return [LogEvent("unsuspended", now)]

    # -- policy -------------------------------------------------------------------------------
    def periodic(self, now: float) -> PolicyOutcome | None:
        """The periodic policy; when it fires the job is to be stopped (a request is set)."""
        if self.request is not None:
            return None
        outcome = periodic_policy(self.ad, int(now))
        if outcome is not None:
            self.request = _request_for(outcome)
        return outcome

    # -- the end ------------------------------------------------------------------------------
    def job_exit(self, reason: int, ad: ClassAd, now: float) -> ExitDecision:
        """The starter's final report: the shadow's exit code and the events to log."""
        for name, tree in ad.pairs():
            if name.lower() in USAGE_ATTRS or _provisioned(name):
                self.set(name, tree)
        self._activation_ended(now)
        if reason == ShadowExit.JOB_MISSED_DEFERRAL_TIME:
            return ExitDecision(int(ShadowExit.JOB_MISSED_DEFERRAL_TIME), [])
        if isinstance(ad.evaluate("VacateReason"), str) and self.request is None:
            return self._starter_error(reason, ad, now)
        if reason == ShadowExit.JOB_SHOULD_HOLD and self.request is None:  # the starter's hold
            why = ad.evaluate("HoldReason")
            self.request = Request("hold", why if isinstance(why, str) else "",
                                   _int(ad.evaluate("HoldReasonCode")),
                                   _int(ad.evaluate("HoldReasonSubCode")))
        if reason in (ShadowExit.JOB_EXITED, ShadowExit.JOB_COREDUMPED) and self.request is None:
            return self._exited(ad, now)
        return self._stopped(now)

    def _activation_ended(self, now: float) -> None:
        """The payload and the activation ended (the starter's ActivationExecutionExit, then
        RemoteResource::resourceExit; one instant here, as no output is transferred):
        ActivationExecutionDuration, ActivationDuration and ActivationTeardownDuration, which
        the terminate or evict event shows as TimeExecute and TimeSlotBusy."""
        if self.executing_since is None:
            return
        self.set("ActivationExecutionDuration", int(now) - self.executing_since)
        if self.activated_at is not None:
            self.set("ActivationDuration", int(now) - self.activated_at)
            self.set("ActivationTeardownDuration", 0)

    def _exited(self, ad: ClassAd, now: float) -> ExitDecision:
        self.set("NumJobCompletions", _int(self.ad.evaluate("NumJobCompletions")) + 1)
        for name in (*EXIT_ATTRS, "ToE"):
            tree = ad.lookup(name)
            if tree is not None:
                self.set(name, tree)
        outcome = exit_policy(self.ad, int(now))
        if self.ad.evaluate("ExitBySignal") is True:
            how: dict[str, Any] = {"signal": _int(self.ad.evaluate("ExitSignal"))}
        else:
            how = {"return_value": _int(self.ad.evaluate("ExitCode"))}
        usage = {"run_remote_usage": self._usage(), **how}
        if outcome.action is PolicyAction.REMOVE and outcome.attr == "OnExitRemove":
            self._commit(now)
            return ExitDecision(int(ShadowExit.JOB_EXITED), [LogEvent("terminated", now, {
                "total_remote_usage": self._usage(), "resources": self._resources(),
                "toe": toe_of(self.ad), **usage,
            })])
        if outcome.action is PolicyAction.STAY:
            self.set("RequeueReason", outcome.reason)
            return ExitDecision(int(ShadowExit.JOB_SHOULD_REQUEUE), [LogEvent("evicted", now, {
                "terminated_and_requeued": True, "reason": outcome.reason, **usage,
            })])
        self.request = _request_for(outcome)
        return self._stopped(now)

    def _starter_error(self, reason: int, ad: ClassAd, now: float) -> ExitDecision:
        """The starter gave up on the job (``pseudo_ulog`` then ``evictJob``)."""
        why = str(ad.evaluate("VacateReason"))
        code = _int(ad.evaluate("VacateReasonCode"))
        subcode = _int(ad.evaluate("VacateReasonSubCode"))
        for name in ("VacateReason", "VacateReasonCode", "VacateReasonSubCode"):
            self.set(name, ad.lookup(name))
        self.set("LastVacateTime", int(now))
        evicted = LogEvent("evicted", now, {"reason": why, "reason_code": code,
                                            "reason_subcode": subcode,
                                            "run_remote_usage": self._usage()})
        if reason == ShadowExit.JOB_SHOULD_HOLD:
            text = ad.evaluate("HoldReason")
            self.request = Request("hold", text if isinstance(text, str) else why,
                                   _int(ad.evaluate("HoldReasonCode")),
                                   _int(ad.evaluate("HoldReasonSubCode")))
            return ExitDecision(self._stopped(now).exit_code, [evicted])
        return ExitDecision(int(ShadowExit.JOB_NOT_STARTED), [evicted])

    def remote_error(self, event_ad: ClassAd, now: float) -> list[LogEvent]:
        """A starter's RemoteErrorEvent (ULOG): REMOTE_ERROR, with the slot as host."""
        slot = self.slot_ad.evaluate("Name")
        text = event_ad.evaluate("ErrorMsg")
        return [LogEvent("remote_error", now, {
            "daemon": str(event_ad.evaluate("Daemon") or "starter"),
            "host": slot if isinstance(slot, str) else self.startd_addr,
            "text": text if isinstance(text, str) else "",
            "critical": event_ad.evaluate("CriticalError") is True,
            "code": _int(event_ad.evaluate("HoldReasonCode")),
            "subcode": _int(event_ad.evaluate("HoldReasonSubCode"))})]

    def _commit(self, now: float) -> None:
        """A completed run's time is committed (BaseShadow::terminateJob)."""
        self.set("TerminationPending", True)
        since = max(_int(self.ad.evaluate("LastCkptTime")),
                    _int(self.ad.evaluate("JobCurrentStartDate")))
        if since > 0:
            delta = int(now) - since
            self.set("CommittedTime", _int(self.ad.evaluate("CommittedTime")) + delta)
            weight = self.ad.evaluate("JobMachineAttrSlotWeight0")
            weight = float(weight) if type(weight) in (int, float) else 1.0
            slot_time = self.ad.evaluate("CommittedSlotTime")
            slot_time = float(slot_time) if type(slot_time) in (int, float) else 0.0
            self.set("CommittedSlotTime", slot_time + weight * delta)
        uncommitted = _int(self.ad.evaluate("UncommittedSuspensionTime"))
        if uncommitted > 0:
            self.set("CommittedSuspensionTime",
                     _int(self.ad.evaluate("CommittedSuspensionTime")) + uncommitted)
            self.set("UncommittedSuspensionTime", 0)

    def _stopped(self, now: float) -> ExitDecision:
        request = self.request or Request("vacate")
        if request.action == "hold":
            self.set("HoldReason", request.reason)
            self.set("HoldReasonCode", request.code)
            self.set("HoldReasonSubCode", request.subcode)
            return ExitDecision(int(ShadowExit.JOB_SHOULD_HOLD), [])
        if request.action == "remove":
            self.set("RemoveReason", request.reason)
            return ExitDecision(int(ShadowExit.JOB_SHOULD_REMOVE), [])
        self.set("LastVacateTime", int(now))
        return ExitDecision(int(ShadowExit.JOB_SHOULD_REQUEUE), [LogEvent("evicted", now, {
            "run_remote_usage": self._usage(), "resources": self._resources(),
        })])

    def _resources(self) -> list[ResourceUsage]:
        """The Partitionable Resources table (setEventUsageAd, from the job ad)."""
        return event_usage_rows(self.ad)

    def _usage(self) -> Rusage:
        return Rusage(usr=_int(self.ad.evaluate("RemoteUserCpu")),
                      sys=_int(self.ad.evaluate("RemoteSysCpu")))


def _provisioned(name: str) -> bool:
    """An attribute the starter sends about the slot (the shadow keeps them, as
    RemoteResource::updateFromStarter does): *Provisioned, ProvisionedResources, Assigned*."""
    lower = name.lower()
    return lower.endswith("provisioned") or lower == "provisionedresources" or \
        lower.startswith("assigned")


def toe_of(ad: ClassAd) -> ToE | None:
    """The job's termination-of-execution tag (``ToE``) for the terminate event, if any."""
    tag = ad.evaluate("ToE")
    if not isinstance(tag, ClassAd):
        return None

    def value(name: str) -> object:
        return tag.evaluate(name)

    who, how, code, when = value("Who"), value("How"), value("HowCode"), value("When")
    by_signal = value("ExitBySignal")
    number = value("ExitSignal" if by_signal is True else "ExitCode")
    return ToE(who=who if isinstance(who, str) else "", how=how if isinstance(how, str) else "",
               how_code=_int(code), when=_int(when),
               exit_by_signal=by_signal if isinstance(by_signal, bool) else None,
               exit_value=_int(number))


def _request_for(outcome: PolicyOutcome) -> Request:
    if outcome.action is PolicyAction.REMOVE:
        return Request("remove", outcome.reason)
    return Request("hold", outcome.reason, outcome.code, outcome.subcode)
