"""condor_gridmanager's decisions, with no I/O: which jobs it manages, its sites, its timers.

How this works
--------------
:class:`GridManager` is fed what the runner learns and returns what to do:

* :meth:`~GridManager.contact_due`, :meth:`~GridManager.contact_queries`,
  :meth:`~GridManager.contact_done` -- when the runner contacts the schedd and what it asks.
* :meth:`~GridManager.adopt` -- the schedd's grid jobs the gridmanager does not manage yet
  (the "AddJobs" query of ``doContactSchedd``): each becomes a :class:`~.job.GridJob` with
  ``Managed = "External"``. The first contact also takes back jobs that were ``External``
  already: a restarted gridmanager re-adopts them by their ``GridJobId``.
* :meth:`~GridManager.from_schedd` -- jobs the schedd held, removed or completed.
* :meth:`~GridManager.qedit` -- attributes qedit changed (UPDATE_JOBAD).
* :meth:`~GridManager.committed` -- the runner pushed these jobs' dirty attributes: the jobs
  that waited for it go on, and a finished job is forgotten (and its remote records too).
* :meth:`~GridManager.tick` -- time passed: the sites play their steps, due jobs poll their
  remote state, a site known down is pinged, the periodic policy runs.
* :meth:`~GridManager.site_down` / :meth:`~GridManager.site_up` -- a site's outage.

After each of these every job is evaluated (:func:`~.machine.evaluate`, in job id order).
:attr:`~GridManager.events` collects the user-log events to write, :meth:`pushes` the jobs
with something for the schedd, :meth:`next_deadline` the next timer.

A site is reached as HTCondor's ``BaseResource`` reaches its remote system: the first job of
a site pings it; a submit or a poll that finds it down marks it down and tells every job of
the site (026); while down, it is pinged every GRIDMANAGER_RESOURCE_PROBE_INTERVAL, and the
ping that finds it up tells them all (025). Jobs do not submit or poll while it is down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd
from condorsim.jobs.codes import JobStatus
from condorsim.jobs.managed import MANAGED_EXTERNAL, managed_externally
from daemons.shadow.policy import PolicyAction, periodic_policy, periodic_policy_is_constant

from .job import GridJob, LogEvent, batch_type
from .machine import evaluate, with_current_run
from .site import REMOVED, RemoteJob, Site, SiteSpec
from .sites import site_for

GRID = "JobUniverse == 9"
# doContactSchedd's queries (its ScheddJobConstraint is here every grid job of the schedd):
# the first takes back the jobs a previous gridmanager managed, the next only new ones.
ADOPT_FIRST = f'{GRID} && Managed =!= "ScheddDone" && (JobStatus != 5 || Managed =?= "External")'
ADOPT_NEW = f'{GRID} && Managed =!= "ScheddDone" && JobStatus != 5 && Managed =!= "External"'
STOPPED = (f'{GRID} && Managed =!= "ScheddDone" && (JobStatus == 3 || JobStatus == 4 || '
           f'(JobStatus == 5 && Managed =?= "External"))')


@dataclass
class Resource:
    """The gridmanager's view of one site (HTCondor's BaseResource)."""

    site: Site
    down: bool = False  # known to be down (resourceDown)
    pinged: bool = False  # firstPingDone
    next_ping: float = math.inf  # while down: the next ping
    jobs: set[str] = field(default_factory=set)  # the registered jobs


@dataclass
class Settings:
    """The knobs the logic needs (the runner reads them)."""

    seed: int = 0
    pool: str = "localhost"  # the collector's host, in sandbox ids
    schedd_name: str = "schedd@localhost"
    default_runtime: float = 600.0
    probe_interval: float = 60.0  # GRIDMANAGER_JOB_PROBE_INTERVAL
    ping_interval: float = 300.0  # GRIDMANAGER_RESOURCE_PROBE_INTERVAL
    policy_interval: float = 60.0  # PERIODIC_EXPR_INTERVAL (0: none)
    contact_delay: float = 5.0  # GRIDMANAGER_CONTACT_SCHEDD_DELAY


class GridManager:
    """The gridmanager's state (see the module comment)."""

    def __init__(self, specs: list[SiteSpec], settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        s = self.settings
        self.specs = list(specs)
        self.resources = {spec.resource: Resource(Site(spec, s.seed, s.default_runtime))
                          for spec in self.specs}
        self.jobs: dict[str, GridJob] = {}
        self.events: list[tuple[GridJob, LogEvent]] = []
        self.sites_changed = False
        self.next_policy = math.inf
        self.probe_interval = s.probe_interval
        self.first_contact = True
        self.add_signaled = False
        self.last_contact = -math.inf
        self._signals = self._signals_asked = 0  # signals received / before the last contact

    # -- contacting the schedd (doContactSchedd's bookkeeping) --------------------------------
    def signaled(self) -> None:
        """GRIDMAN_ADD_JOBS or GRIDMAN_REMOVE_JOBS: look at the queue at the next contact."""
        self.add_signaled = True
        self._signals += 1

    def contact_due(self) -> float:
        """When to contact the schedd: never without a reason, and not sooner than
        GRIDMANAGER_CONTACT_SCHEDD_DELAY after the last contact."""
        if self.first_contact or self.add_signaled or self.pushes():
            return self.last_contact + self.settings.contact_delay
        return math.inf

    def contact_queries(self, now: float) -> tuple[str | None, str]:
        """A contact starts: (the query for jobs to adopt, if any; the one for stopped jobs)."""
        self.last_contact = now
        self._signals_asked = self._signals
        adopt = ADOPT_FIRST if self.first_contact else ADOPT_NEW if self.add_signaled else None
        return adopt, STOPPED

    def contact_done(self, unknown_removed: bool) -> None:
        """The queries were answered (what they found went to adopt and from_schedd); a
        signal that came during the contact is kept for the next one."""
        self.first_contact = False
        self.add_signaled = unknown_removed or self._signals != self._signals_asked

    # -- the schedd's jobs --------------------------------------------------------------------
    def adopt(self, ads: list[ClassAd], now: float) -> list[str]:
        """New grid jobs to manage; the ids taken."""
        taken = []
        for ad in sorted(ads, key=_key_of_ad):
            job = GridJob(ad)
            if job.id in self.jobs:
                continue
            if not managed_externally(job.ad):
                job.set("Managed", MANAGED_EXTERNAL)
            self.jobs[job.id] = job
            taken.append(job.id)
        self._schedule_policy(now)
        return taken

    def from_schedd(self, ads: list[ClassAd], now: float) -> bool:
        """Jobs the schedd holds, removes or completes; True when one removed job is unknown
        (it is then adopted on the next contact, to cancel what it left at its site)."""
        unknown_removed = False
        for ad in sorted(ads, key=_key_of_ad):
            job = self.jobs.get(GridJob(ad).id)
            if job is not None:
                self._log(job, job.from_schedd(ad, now))
            elif ad.evaluate("JobStatus") == JobStatus.REMOVED:
                unknown_removed = True
        return unknown_removed

    def qedit(self, job_id: str, ad: ClassAd, now: float) -> None:
        job = self.jobs.get(job_id)
        if job is not None:
            job.take_clean(ad)
            self._policy_of(job, now)
            self._schedule_policy(now)

    def pushes(self) -> list[GridJob]:
        """The jobs with attributes for the schedd (or to take out of it), in id order."""
        return [self.jobs[j] for j in sorted(self.jobs, key=_key)
                if self.jobs[j].dirty or (self.jobs[j].finished and self.jobs[j].destroy)]

    def committed(self, pushed: list[GridJob], now: float) -> None:
        """These jobs' pushes are in the schedd: finished ones are forgotten."""
        for job in pushed:
            if job.finished and not job.dirty and self.jobs.get(job.id) is job:
                del self.jobs[job.id]
                resource = self._resource(job)
                if resource is not None:
                    resource.jobs.discard(job.id)
                    resource.site.forget_sandbox(self.sandbox_id(job))
                    self.sites_changed = True

    def vanished(self, job: GridJob, now: float) -> None:
        """The job is not in the schedd's queue any more (a removal that crossed its
        adoption): its remote job is cancelled and the job forgotten, with no event."""
        if self.jobs.get(job.id) is not job:
            return
        self.cancel(job, now)
        job.finished, job.destroy = True, False
        job.dirty.clear()
        self.committed([job], now)

    # -- time and sites -----------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Time is ``now``: sites, pings, the periodic policy (then everyone is evaluated)."""
        for resource in self.resources.values():
            if resource.site.advance(now):
                self.sites_changed = True
            if resource.down and now >= resource.next_ping:
                self._ping(resource, now)
        if now >= self.next_policy:
            self.next_policy = math.inf
            for job_id in sorted(self.jobs, key=_key):
                self._policy_of(self.jobs[job_id], now)
            self._schedule_policy(now)

    def site_down(self, resource_name: str, now: float) -> bool:
        """The site serving ``resource_name`` goes down (False: no such site)."""
        resource = self.resources.get(" ".join(resource_name.split()))
        if resource is None:
            return False
        resource.site.down(now)
        self.sites_changed = True
        return True

    def site_up(self, resource_name: str, now: float) -> bool:
        """The site serving ``resource_name`` is back (False: no such site)."""
        resource = self.resources.get(" ".join(resource_name.split()))
        if resource is None:
            return False
        resource.site.advance(now)
        resource.site.up(now)
        self.sites_changed = True
        return True

    def evaluate_all(self, now: float) -> None:
        """Every job's state machine, in job id order."""
        for job_id in sorted(self.jobs, key=_key):
            job = self.jobs[job_id]
            if job.gm == "start":
                self._register(job, now)
            self._log(job, evaluate(job, self, now))

    def next_deadline(self) -> float:
        """The next time something is due: a contact, a site's step, a poll, a ping, the
        policy."""
        due = [self.next_policy, self.contact_due()]
        for resource in self.resources.values():
            step = resource.site.next_due()
            if step is not None:
                due.append(step)
            if resource.down:
                due.append(resource.next_ping)
        due += [j.next_poll for j in self.jobs.values() if j.gm == "submitted"
                and not self._known_down(j)]
        return min(due)

    # -- what the state machine asks (machine.Sites) ------------------------------------------
    def serves(self, job: GridJob) -> bool:
        return self._resource(job) is not None

    def known_down(self, job: GridJob) -> bool:
        return self._known_down(job)

    def sandbox_id(self, job: GridJob) -> str:
        """INFNBatchJob::CreateSandboxId: <pool>_<GlobalJobId>, ':' '@' '#' made '_'."""
        qdate = job.number("QDate")
        global_id = job.string("GlobalJobId") or \
            f"{self.settings.schedd_name}#{job.id}#{qdate}"
        return "_".join((self.settings.pool.replace(":", "_"),
                         global_id.replace("@", "_").replace("#", "_")))

    def submit(self, job: GridJob, now: float) -> RemoteJob | None:
        resource = self._resource(job)
        if resource is None or not self._reachable(resource, now):
            return None
        self.sites_changed = True
        return resource.site.submit(job.id, self.sandbox_id(job), job.ad,
                                    batch_type(job.grid_resource), now)

    def poll(self, job: GridJob, now: float) -> RemoteJob | None:
        resource = self._resource(job)
        if resource is None or job.remote_id is None or not self._reachable(resource, now):
            return None
        remote = resource.site.jobs.get(job.remote_id)
        if remote is None:  # the batch system has no such job
            return RemoteJob(job.remote_id, "", job.id, 0, {}, now, False, state=REMOVED)
        return remote

    def cancel(self, job: GridJob, now: float) -> None:
        resource = self._resource(job)
        if resource is not None and job.remote_id is not None:
            resource.site.cancel(job.remote_id, now)
            self.sites_changed = True

    # -- inside ---------------------------------------------------------------------------------
    def _resource(self, job: GridJob) -> Resource | None:
        spec = site_for(self.specs, job.grid_resource) if job.grid_resource else None
        return self.resources[spec.resource] if spec is not None else None

    def _known_down(self, job: GridJob) -> bool:
        resource = self._resource(job)
        return resource is not None and resource.down

    def _register(self, job: GridJob, now: float) -> None:
        """BaseResource::RegisterJob (the first job of a site pings it)."""
        resource = self._resource(job)
        if resource is None:
            return
        resource.jobs.add(job.id)
        if not resource.pinged:
            self._ping(resource, now)
        elif resource.down:
            self._log(job, job.resource_down(now))

    def _reachable(self, resource: Resource, now: float) -> bool:
        """A command to the site: one that finds it down makes it known down."""
        if resource.site.is_down and not resource.down:
            self._ping(resource, now)
        return not resource.down

    def _ping(self, resource: Resource, now: float) -> None:
        """BaseResource::Ping: a change of state is told to every job of the site."""
        resource.pinged = True
        down = resource.site.is_down
        resource.next_ping = now + self.settings.ping_interval if down else math.inf
        if down == resource.down:
            return
        resource.down = down
        for job_id in sorted(resource.jobs, key=_key):
            job = self.jobs.get(job_id)
            if job is not None:
                self._log(job, job.resource_down(now) if down else job.resource_up(now))

    def _policy_of(self, job: GridJob, now: float) -> None:
        """BaseJob::EvalPeriodicJobExpr (hold or remove; release and vacate are ignored)."""
        if job.status not in (JobStatus.IDLE, JobStatus.RUNNING) or job.finished:
            return
        outcome = periodic_policy(with_current_run(job, now), int(now))
        if outcome is None:
            return
        if outcome.action is PolicyAction.HOLD:
            self._log(job, job.held(outcome.reason, outcome.code, outcome.subcode, now))
        elif outcome.action is PolicyAction.REMOVE:
            job.removed(outcome.reason, now)

    def _schedule_policy(self, now: float) -> None:
        interval = self.settings.policy_interval
        if interval <= 0 or self.next_policy != math.inf:
            return
        if any(not periodic_policy_is_constant(j.ad) for j in self.jobs.values()
               if j.status in (JobStatus.IDLE, JobStatus.RUNNING)):
            self.next_policy = now + interval

    def _log(self, job: GridJob, events: list[LogEvent]) -> None:
        self.events += [(job, e) for e in events]

    def state_json(self) -> dict[str, Any]:
        """The sites' state, for the runner to keep."""
        return {name: r.site.to_json() for name, r in sorted(self.resources.items())}

    def load_state(self, data: dict[str, Any]) -> None:
        for name, state in data.items():
            resource = self.resources.get(name)
            if resource is not None and isinstance(state, dict):
                resource.site.load_json(state)


def _key(job_id: str) -> tuple[int, int]:
    cluster, _, proc = job_id.partition(".")
    return (int(cluster), int(proc)) if cluster.isdigit() and proc.isdigit() else (-1, -1)


def _key_of_ad(ad: ClassAd) -> tuple[int, int]:
    c, p = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
    return (c if isinstance(c, int) else -1, p if isinstance(p, int) else -1)
