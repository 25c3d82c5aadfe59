"""The schedd's side of the grid universe: grid jobs go to the gridmanager, not to matchmaking.

How this works
--------------
As HTCondor's schedd (``schedd.cpp: count_jobs``, ``abort_job_myself``,
``ResponsibleForPeriodicExprs``; ``grid_universe.cpp``), for jobs of JobUniverse 9:

* they are never negotiated for, never take a claim and are not counted in submitter ads;
* :class:`GridLink` signals the gridmanager: GRIDMAN_ADD_JOBS 3 s after grid jobs were
  submitted or released (and at every collector-update timeout while some are not managed
  yet), GRIDMAN_REMOVE_JOBS 2 s after a managed one was held or removed (several changes in
  that time make one signal), and UPDATE_JOBAD at once when qedit changes a managed one;
* a job with ``Managed = "External"`` is the gridmanager's: the schedd evaluates no periodic
  policy for it, and a hold or removal changes the queue but writes no event (the gridmanager
  writes JOB_HELD and JOB_ABORTED once it has cancelled the remote job). A removed job whose
  ``GridJobId`` is still set stays the gridmanager's too, until it says ``ScheddDone``;
* :func:`apply_gridmanager_update` is the gridmanager's SetAttribute and DestroyProc: its
  attributes go into the queue as they are, with ``LastJobStatus`` and the hold counts of a
  status change (qmgmt's SetAttribute hooks); a job can only leave Removed for Held.

The gridmanager is found through the collector: the ``Gridmanager`` ad whose
``ScheddDaemon`` names this schedd (HTCondor's schedd knows the gridmanager it spawned).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import trio

from condorsim.classad import ClassAd
from condorsim.jobs.codes import JobStatus
from condorsim.jobs.managed import MANAGED_DONE, is_grid, managed_externally
from condorsim.wire import Message
from condorsim.wire import messages as m

from .host import ScheddHost
from .queue import JobQueue, hold_counts
from .store import JobId, JobSet, job_status, job_str

ADD_DELAY = 3  # GridUniverseLogic::job_added_delay
REMOVE_DELAY = 2  # GridUniverseLogic::job_removed_delay
PEER_ERRORS = (OSError, trio.BrokenResourceError, trio.EndOfChannel, trio.ClosedResourceError)


def _unmanaged_grid(ad: ClassAd) -> bool:
    return is_grid(ad) and not managed_externally(ad) and \
        ad.evaluate("Managed") != MANAGED_DONE and job_status(ad) != JobStatus.HELD


def unmanaged_grid_jobs(q: JobQueue, among: Iterable[JobId] | None = None) -> list[JobId]:
    """Grid jobs the gridmanager should adopt (count_jobs' UnmanagedGridJobs), in queue
    order (``among``: only these jobs are looked at)."""
    jobs = q.jobs
    return [j for j in (jobs if among is None else among) if _unmanaged_grid(jobs[j])]


def apply_gridmanager_update(q: JobQueue, job: JobId, ad: ClassAd, destroy: bool,
                             now: int) -> None:
    """The gridmanager's SetAttribute of each attribute, then DestroyProc if ``destroy``."""
    old = q.status(job)
    changes: dict[str, Any] = dict(ad.pairs())
    new = ad.evaluate("JobStatus")
    if isinstance(new, int) and new != old:
        if old == JobStatus.REMOVED and new != JobStatus.HELD:
            changes.pop("JobStatus", None)  # a removed job stays removed
            changes.pop("EnteredCurrentStatus", None)
        else:
            changes["LastJobStatus"] = old
    code = ad.evaluate("HoldReasonCode")
    if isinstance(code, int) and changes.get("JobStatus") is not None and \
            new == JobStatus.HELD:
        changes.update(hold_counts(q.jobs[job], code))
    if changes:
        q.store.change(job, changes)
    if destroy:
        q.leave(job, now)


class GridLink:
    """The schedd's signals to the gridmanager (see the module comment)."""

    def __init__(self, schedd: ScheddHost) -> None:
        self.schedd = schedd
        self.ctx = schedd.ctx
        self._address: str | None = None
        self._pending: set[str] = set()
        self._grid_jobs: JobSet | None = None

    def added(self) -> None:
        self._signal(m.GRIDMAN_ADD_JOBS(), ADD_DELAY)

    def removed(self) -> None:
        self._signal(m.GRIDMAN_REMOVE_JOBS(), REMOVE_DELAY)

    def check(self) -> None:
        """At each collector-update timeout: signal if grid jobs wait to be adopted."""
        q = self.schedd.queue
        if q is None:
            return
        if self._grid_jobs is None:  # kept from the queue's changes, not a pass over it
            self._grid_jobs = JobSet(q.store, is_grid)
        if unmanaged_grid_jobs(q, self._grid_jobs.ordered()):
            self.added()

    def qedit(self, job: JobId, attr: str) -> None:
        q = self.schedd.queue
        ad = q.jobs.get(job) if q is not None else None
        if ad is None or not managed_externally(ad) or ad.lookup(attr) is None:
            return
        change = ClassAd()
        change[attr] = ad.lookup(attr)
        self.schedd.start_task(self._send, m.UPDATE_JOBAD(job=job_str(job), ad=change))

    def _signal(self, msg: Message, delay: int) -> None:
        if msg.command in self._pending:
            return
        self._pending.add(msg.command)
        self.schedd.start_task(self._later, msg, delay)

    async def _later(self, msg: Message, delay: int) -> None:
        await trio.sleep(delay)
        self._pending.discard(msg.command)
        await self._send(msg)

    async def _send(self, msg: Message) -> None:
        address = await self._gridmanager()
        if address is None:
            self.ctx.log.warning("no_gridmanager", cmd=msg.command)
            return
        try:
            async with await self.ctx.connect(address, "gridmanager") as conn:
                await conn.send(msg)
        except PEER_ERRORS as e:
            self.ctx.log.warning("gridmanager_unreachable", cmd=msg.command, error=str(e))
            self._address = None

    async def _gridmanager(self) -> str | None:
        if self._address is None:
            ads = await self.schedd.query_collector(m.QUERY_GENERIC_ADS(
                adtype="Gridmanager", constraint=f'ScheddDaemon == "{self.ctx.name}"',
                projection=["MyAddress"]))
            for ad in ads:
                address = ad.evaluate("MyAddress")
                if isinstance(address, str):
                    self._address = address
                    break
        return self._address
