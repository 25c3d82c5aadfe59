"""Mirroring a routed copy back into its original (HTCondor's ``update_job_status``, facts 3.1).

How this works
--------------
Each poll the router compares the original as the schedd's log shows it (``orig``) with the
routed copy (``copy``) and writes what must change into its own working copy of the original
(``update``, with the names of the changed attributes in ``dirty``), which the runner then
pushes to the schedd. Status, when the copy's differs from the original's:

* copy Idle -> original Idle (``EnteredCurrentStatus``); the router writes 004 (evicted) if
  its working copy was Running;
* copy Running (or transferring output) -> original Running; 001 (execute) if it was Idle;
* copy Held -> original Held with the copy's HoldReason, HoldReasonCode, HoldReasonSubCode
  ("Unknown reason" when it has none), HoldCopiedFromTargetJob = true, NumSystemHolds + 1,
  ReleaseReason moved to LastReleaseReason -- and **no** 012 event;
* copy Removed -> nothing; any other status (Completed, Suspended) is copied as is.

An original held by someone else than the mirroring, or removed, is never changed; a
HoldCopiedFromTargetJob left on a job that is no longer held is turned false. Then every
attribute of :data:`ATTRS_TO_COPY` (and ``<HookKeyword>_ATTRS_TO_COPY``, and attributes
starting with a CHIRP_DELAYED_UPDATE_PREFIX) that the copy has and the original lacks or has
with another value is copied. Pure: ``now`` is passed in; the events come back as names.
"""

from __future__ import annotations

from collections.abc import Iterable

from condorsim.classad import ClassAd
from condorsim.jobs.codes import JobStatus

ATTRS_TO_COPY = (
    "BytesSent", "BytesRecvd", "CompletionDate", "JobRunCount", "JobStartDate", "ExitBySignal",
    "ExitSignal", "ExitCode", "ExitReason", "JobCurrentStartDate",
    "JobCurrentStartExecutingDate", "JobLastStartDate", "ShadowBday", "RemoteSysCpu",
    "RemoteUserCpu", "NumCkpts", "NumJobStarts", "NumJobReconnects", "NumShadowExceptions",
    "NumShadowStarts", "NumJobMatches", "NumRestarts", "RemoteWallClockTime",
    "LastRemoteWallClockTime", "JobCoreDumped", "ImageSize", "MemoryUsage", "ResidentSetSize",
    "ProportionalSetSize", "DiskUsage", "ScratchDirFileCount", "SpooledOutputFiles",
    "CpusUsage", "CpusProvisioned", "DiskProvisioned", "MemoryProvisioned",
)
"""What the router copies from the routed copy into the original (VanillaToGrid.cpp)."""


class WorkingCopy:
    """The router's own copy of an original job, and what changed in it since the last push."""

    def __init__(self, ad: ClassAd) -> None:
        self.ad = ad.copy()
        self.dirty: set[str] = set()

    def set(self, name: str, value: object) -> None:
        self.ad[name] = value
        self.dirty.add(name)

    def delete(self, name: str) -> None:
        if name in self.ad:
            del self.ad[name]
            self.dirty.add(name)

    def take_dirty(self) -> tuple[ClassAd, list[str]]:
        """(attributes to set, attributes to delete) since the last push; clean after."""
        changed, deleted = ClassAd(), []
        for name in sorted(self.dirty, key=str.lower):
            tree = self.ad.lookup(name)
            if tree is None:
                deleted.append(name)
            else:
                changed[self.ad.spelling(name) or name] = tree
        self.dirty.clear()
        return changed, deleted

    def status(self) -> int:
        value = self.ad.evaluate("JobStatus")
        return value if type(value) is int else int(JobStatus.IDLE)


def _int(ad: ClassAd, name: str, default: int = 0) -> int:
    value = ad.evaluate(name)
    return value if type(value) is int else default


def hold_copied_from_target(ad: ClassAd) -> bool:
    return ad.evaluate("HoldCopiedFromTargetJob") is True


def _set_status(orig: ClassAd, update: WorkingCopy, new: int, now: int) -> bool:
    """set_job_status_simple: False when the original must not change."""
    status = orig.evaluate("JobStatus")
    copied = hold_copied_from_target(orig)
    if type(status) is int:
        if status == JobStatus.HELD and not copied:
            return False
        if status == new or status == JobStatus.REMOVED:
            return False
    update.set("JobStatus", new)
    update.set("EnteredCurrentStatus", now)
    if copied:
        update.set("HoldCopiedFromTargetJob", False)
    return True


def _set_held(orig: ClassAd, copy: ClassAd, update: WorkingCopy, now: int) -> None:
    status = orig.evaluate("JobStatus")
    if status in (JobStatus.HELD, JobStatus.REMOVED, JobStatus.COMPLETED):
        return
    reason = copy.evaluate("HoldReason")
    update.set("JobStatus", int(JobStatus.HELD))
    update.set("EnteredCurrentStatus", now)
    update.set("HoldReason", reason if isinstance(reason, str) else "Unknown reason")
    update.set("HoldReasonCode", _int(copy, "HoldReasonCode"))
    update.set("HoldReasonSubCode", _int(copy, "HoldReasonSubCode") if isinstance(reason, str)
               else 0)
    update.set("HoldCopiedFromTargetJob", True)
    release = update.ad.lookup("ReleaseReason")
    if release is not None:
        update.set("LastReleaseReason", release)
    update.delete("ReleaseReason")
    update.set("NumSystemHolds", _int(orig, "NumSystemHolds") + 1)


def update_job_status(orig: ClassAd, copy: ClassAd, update: WorkingCopy, now: int,
                      extra_attrs: Iterable[str] = (),
                      chirp_prefixes: Iterable[str] = ()) -> list[str]:
    """Mirror ``copy`` into ``update`` (see the module comment); the user-log events the
    router writes for the original ("execute", "evicted")."""
    events: list[str] = []
    orig_status = orig.evaluate("JobStatus")
    copy_status = copy.evaluate("JobStatus")
    if type(orig_status) is not int or type(copy_status) is not int:
        return events
    if orig_status != JobStatus.HELD and hold_copied_from_target(orig):
        update.set("HoldCopiedFromTargetJob", False)
    if orig_status != copy_status:
        before = update.status()
        if copy_status == JobStatus.IDLE:
            if _set_status(orig, update, int(JobStatus.IDLE), now) and \
                    before == JobStatus.RUNNING:
                events.append("evicted")
        elif copy_status in (JobStatus.RUNNING, JobStatus.TRANSFERRING_OUTPUT):
            if _set_status(orig, update, int(JobStatus.RUNNING), now) and \
                    before == JobStatus.IDLE:
                events.append("execute")
        elif copy_status == JobStatus.HELD:
            _set_held(orig, copy, update, now)
        elif copy_status != JobStatus.REMOVED:
            update.set("JobStatus", copy_status)
    names = list(ATTRS_TO_COPY) + [a for a in extra_attrs if a]
    prefixes = [p.lower().rstrip("*") for p in chirp_prefixes if p]
    if prefixes:
        names += [n for n in copy if any(n.lower().startswith(p) for p in prefixes)]
    for name in names:
        theirs = copy.lookup(name)
        if theirs is None:
            continue
        ours = orig.lookup(name)
        if ours is None or str(ours) != str(theirs):
            update.set(copy.spelling(name) or name, theirs)
    return events
