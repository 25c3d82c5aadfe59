"""A simulated remote site (a batch system the gridmanager submits to), with no I/O.

How this works
--------------
A :class:`Site` is a small discrete-event model of the remote batch system behind one
``[[site]]`` (``SIM_GRID_SITES``): it runs at most ``slots`` jobs at once and queues the
rest first come, first served. A job that gets a slot starts ``start_delay`` seconds later,
runs for its ``+SimRuntime`` (the starter's rules: :func:`daemons.starter.logic.payload_runtime`,
evaluated when it starts) and exits with ``+SimExitCode``, or with 1 if it is one of the
``failure_rate`` share of jobs that fail there (drawn once per job, at submission, from the
pool's seed, the site and the remote job id: the same scenario fails the same jobs).

Nothing here reads a clock: :meth:`Site.advance` is told the time and plays every step due
by then in time order, each at its own time, so a site whose gridmanager was dead for a
while catches up exactly. While the site is down (:meth:`Site.down` .. :meth:`Site.up`) its
jobs make no progress (each keeps the seconds it had left) and none starts.

A job's remote state is what the batch system would tell the gridmanager: ``IDLE`` (queued,
or in its start delay), ``RUNNING``, ``COMPLETED`` (with ``exit_code``) or ``REMOVED``
(cancelled). The whole state goes to and from JSON (:meth:`Site.to_json`), which the runner
keeps in the spool: the site outlives a gridmanager that dies, as a real one would.
"""

from __future__ import annotations

import datetime as _dt
import random
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd, ClassAdError, parse_expr
from daemons.starter.logic import payload_exit_code, payload_runtime

IDLE, RUNNING, COMPLETED, REMOVED = "IDLE", "RUNNING", "COMPLETED", "REMOVED"


@dataclass(frozen=True)
class SiteSpec:
    """One site: the GridResource it serves and how it behaves."""

    resource: str
    slots: int = 1
    start_delay: float = 0.0
    failure_rate: float = 0.0


@dataclass
class RemoteJob:
    """One job in the site's batch system."""

    remote_id: str
    sandbox: str
    job: str  # the schedd's job id, for logs
    seq: int  # order of arrival (the queue is first come, first served)
    ad: dict[str, str]  # the job ad as attribute -> expression text (runtime, exit code)
    submitted: float
    fails: bool
    state: str = IDLE
    slot: bool = False  # holds a slot (in its start delay, or running)
    due: float | None = None  # when its next step happens (start, or exit)
    left: float | None = None  # seconds to `due`, kept while the site is down
    started: float | None = None
    finished: float | None = None
    runtime: float | None = None
    exit_code: int | None = None


@dataclass
class Site:
    """The state of one simulated site (see the module comment)."""

    spec: SiteSpec
    seed: int = 0
    default_runtime: float = 600.0
    jobs: dict[str, RemoteJob] = field(default_factory=dict)
    counter: int = 0
    is_down: bool = False

    # -- what the gridmanager asks ----------------------------------------------------------
    def submit(self, job: str, sandbox: str, ad: ClassAd, batch_type: str,
               now: float) -> RemoteJob:
        """Queue a job; the same sandbox while its job is still there gets that job back (a
        resubmission after a lost reply does not run the job twice)."""
        for known in self.jobs.values():
            if known.sandbox == sandbox and known.state in (IDLE, RUNNING):
                return known
        self.counter += 1
        day = _dt.datetime.fromtimestamp(now, _dt.UTC).strftime("%Y%m%d")
        remote_id = f"{batch_type}/{day}/{self.counter}"
        draw = random.Random(f"{self.seed}/{self.spec.resource}/{remote_id}").random()
        remote = RemoteJob(remote_id, sandbox, job, self.counter,
                           {name: str(tree) for name, tree in ad.pairs()}, now,
                           fails=draw < self.spec.failure_rate)
        self.jobs[remote_id] = remote
        self._fill(now)
        return remote

    def cancel(self, remote_id: str, now: float) -> None:
        """Remove a job from the batch system (its slot goes to the next in the queue)."""
        self.advance(now)
        remote = self.jobs.get(remote_id)
        if remote is None or remote.state in (COMPLETED, REMOVED):
            return
        remote.state, remote.finished = REMOVED, now
        remote.due = remote.left = None
        if remote.slot:
            remote.slot = False
            self._fill(now)

    def forget_sandbox(self, sandbox: str) -> None:
        """The gridmanager is done with a job: its finished remote jobs leave the system."""
        for remote_id in [r.remote_id for r in self.jobs.values()
                          if r.sandbox == sandbox and r.state in (COMPLETED, REMOVED)]:
            del self.jobs[remote_id]

    def down(self, now: float) -> None:
        """The site goes down: everything stops where it is."""
        self.advance(now)
        if self.is_down:
            return
        self.is_down = True
        for remote in self.jobs.values():
            if remote.due is not None:
                remote.left, remote.due = remote.due - now, None

    def up(self, now: float) -> None:
        """The site is back: each job goes on with the time it had left."""
        if not self.is_down:
            return
        self.is_down = False
        for remote in self.jobs.values():
            if remote.left is not None:
                remote.due, remote.left = now + remote.left, None
        self._fill(now)

    # -- time -------------------------------------------------------------------------------
    def next_due(self) -> float | None:
        """When the next step happens (None: nothing will happen by itself)."""
        dues = [r.due for r in self.jobs.values() if r.due is not None]
        return min(dues) if dues else None

    def advance(self, now: float) -> list[RemoteJob]:
        """Play every step due by ``now``, in time order; the jobs that changed state."""
        changed: list[RemoteJob] = []
        while True:
            ready = [r for r in self.jobs.values() if r.due is not None and r.due <= now]
            if not ready:
                return changed
            remote = min(ready, key=lambda r: (r.due, r.seq))
            assert remote.due is not None
            self._step(remote, remote.due)
            changed.append(remote)

    def _step(self, remote: RemoteJob, t: float) -> None:
        if remote.state == IDLE:  # its start delay is over: it runs
            remote.state, remote.started = RUNNING, t
            ad = self._ad(remote)
            remote.runtime = payload_runtime(ad, self.default_runtime, int(t))
            remote.exit_code = 1 if remote.fails else payload_exit_code(ad, int(t))
            remote.due = t + remote.runtime
        else:  # it exits; its slot goes to the next in the queue
            remote.state, remote.finished, remote.due = COMPLETED, t, None
            remote.slot = False
            self._fill(t)

    def _fill(self, t: float) -> None:
        """Give free slots to queued jobs, first come first served (none while down)."""
        if self.is_down:
            return
        busy = sum(1 for r in self.jobs.values() if r.slot)
        waiting = sorted((r for r in self.jobs.values() if r.state == IDLE and not r.slot),
                         key=lambda r: r.seq)
        for remote in waiting[: max(0, self.spec.slots - busy)]:
            remote.slot = True
            remote.due = t + self.spec.start_delay

    @staticmethod
    def _ad(remote: RemoteJob) -> ClassAd:
        ad = ClassAd()
        for name, text in remote.ad.items():
            try:
                ad[name] = parse_expr(text)
            except ClassAdError:
                continue
        return ad

    # -- persistence ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"counter": self.counter, "down": self.is_down,
                "jobs": [vars(r) for r in sorted(self.jobs.values(), key=lambda r: r.seq)]}

    def load_json(self, data: dict[str, Any]) -> None:
        """Take the state saved by :meth:`to_json` (the spec stays the configured one)."""
        self.counter = int(data.get("counter", 0))
        self.is_down = bool(data.get("down", False))
        self.jobs = {}
        for raw in data.get("jobs", []):
            remote = RemoteJob(**raw)
            self.jobs[remote.remote_id] = remote
