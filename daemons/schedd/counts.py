"""The schedd ad's and submitter ads' job counts per owner, kept up to date per change.

How this works
--------------
Each job's share of the counts (its owner, whether the schedd runs it itself, its status)
is a :class:`~.store.Derived` value of its ad, so only the jobs changed through the store
since the last count are looked at again; the totals per owner move by those jobs' old and
new shares. A local or scheduler universe job counts as running by whether the schedd runs
it now (``running``), so those few are counted afresh each time. Grid jobs (the
gridmanager's) and jobs another manager holds (a routed original) are not counted, as
before (HTCondor's count_jobs).
"""

from __future__ import annotations

import heapq
from collections.abc import Container

from condorsim.classad import ClassAd
from condorsim.jobs.codes import JobStatus, Universe
from condorsim.jobs.managed import is_grid, managed_externally

from .local import LOCAL_UNIVERSES, universe_of
from .store import Derived, JobId, JobStore, job_status

ZERO_COUNTS = {"IdleJobs": 0, "RunningJobs": 0, "HeldJobs": 0, "LocalJobsIdle": 0,
               "LocalJobsRunning": 0, "SchedulerJobsIdle": 0, "SchedulerJobsRunning": 0}

Share = tuple[str, str, int]
"""(owner, "" or the word of a local universe: "Local" / "Scheduler", JobStatus)."""


def _share(ad: ClassAd) -> Share | None:
    if is_grid(ad) or managed_externally(ad):
        return None  # the gridmanager's or the router's, not the negotiator's
    owner = ad.evaluate("Owner")
    universe = universe_of(ad)
    word = "" if universe not in LOCAL_UNIVERSES else (
        "Local" if universe == Universe.LOCAL else "Scheduler")
    return (owner if isinstance(owner, str) else "?", word, job_status(ad))


def _key(status: int) -> str | None:
    if status == JobStatus.IDLE:
        return "IdleJobs"
    if status in (JobStatus.RUNNING, JobStatus.SUSPENDED):
        return "RunningJobs"
    if status == JobStatus.HELD:
        return "HeldJobs"
    return None


class OwnerCounts:
    """Idle/Running/Held jobs per owner of a store (see the module comment)."""

    def __init__(self, store: JobStore) -> None:
        self._shares = Derived(store, _share)
        self._applied: dict[JobId, Share] = {}
        self._members: dict[str, set[JobId]] = {}
        # per owner, a heap of its jobs' ids (with ids of jobs gone since, dropped as they
        # reach the top): the owner's first job without a pass over its jobs
        self._firsts: dict[str, list[JobId]] = {}
        self._totals: dict[str, dict[str, int]] = {}
        self._local: dict[JobId, Share] = {}

    def _join(self, owner: str, job: JobId) -> None:
        members = self._members.get(owner)
        if members is None:
            members = self._members[owner] = set()
            self._totals[owner] = dict(ZERO_COUNTS)
            self._firsts[owner] = []
        if job not in members:
            members.add(job)
            heap = self._firsts[owner]
            heapq.heappush(heap, job)
            if len(heap) > 2 * len(members) + 64:  # too many gone: rebuild
                heap[:] = members
                heapq.heapify(heap)

    def _first(self, owner: str) -> JobId:
        """The owner's lowest job id now."""
        heap, members = self._firsts[owner], self._members[owner]
        while heap[0] not in members:
            heapq.heappop(heap)
        return heap[0]

    def _apply(self, job: JobId, share: Share, sign: int, *, same_owner: bool = False) -> None:
        """Add (``sign`` 1) or take away (-1) a job's share; ``same_owner``: the job stays
        a member of the owner (its share moves within it)."""
        owner, word, status = share
        if not same_owner:
            if sign > 0:
                self._join(owner, job)
            else:
                self._members[owner].discard(job)
        if word:
            if sign > 0:
                self._local[job] = share
            else:
                self._local.pop(job, None)
        else:
            key = _key(status)
            if key is not None:
                self._totals[owner][key] += sign
        if sign < 0 and not self._members[owner]:
            del self._members[owner]
            del self._totals[owner]
            del self._firsts[owner]

    def count(self, running: Container[JobId]) -> dict[str, dict[str, int]]:
        """The counts per owner, owners in the order of their first job in the queue; a
        local or scheduler job counts as running when it is in ``running``."""
        shares = self._shares
        for job in shares.refresh():
            old = self._applied.pop(job, None)
            new = shares.values.get(job)
            same = old is not None and new is not None and old[0] == new[0]
            if old is not None:
                self._apply(job, old, -1, same_owner=same)
            if new is not None:
                self._apply(job, new, +1, same_owner=same)
                self._applied[job] = new
        owners = sorted(self._members, key=self._first)
        out = {owner: dict(self._totals[owner]) for owner in owners}
        for job, (owner, word, status) in self._local.items():
            c = out[owner]
            if job in running:
                c[f"{word}JobsRunning"] += 1
            elif status == JobStatus.IDLE:
                c[f"{word}JobsIdle"] += 1
            elif status == JobStatus.HELD:
                c["HeldJobs"] += 1
        return out
