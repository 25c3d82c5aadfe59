"""The gridmanager's logic and the schedd's queue, wired together without sockets or clocks.

The gridmanager side is :class:`daemons.gridmanager.logic.GridManager`, stepped as its runner
steps it (time passes, every job is evaluated, the schedd is contacted when due); the schedd
side is the real :class:`daemons.schedd.queue.JobQueue` with the schedd's own handling of the
gridmanager's updates (``apply_gridmanager_update``) and its signal delays. Time is a number
the test moves; everything happens at the times the two would make it happen.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from condorsim.classad import ClassAd
from daemons.gridmanager.logic import GridManager, Settings
from daemons.gridmanager.sites import parse_sites
from daemons.schedd.grid import ADD_DELAY, REMOVE_DELAY, apply_gridmanager_update
from daemons.schedd.history import read_history
from daemons.schedd.queue import JobQueue
from daemons.schedd.store import job_str

T0 = 1_767_225_600
SLURM = '[ Resource = "batch slurm"; Slots = 2; StartDelay = 30 ]'


def grid_job(runtime: int = 600, resource: str = "batch slurm", extra: str = "",
             count: int = 1) -> str:
    return (f"universe = grid\ngrid_resource = {resource}\nexecutable = /bin/sleep\n"
            f"arguments = {runtime}\nlog = grid.log\n{extra}\nqueue {count}\n")


class Harness:
    def __init__(self, tmp_path: Path, sites: str = SLURM, **settings: float) -> None:
        self.tmp_path = tmp_path
        self.sites = sites
        self.now = float(T0)
        self.queue = JobQueue(tmp_path / "spool")
        self.queue.open(T0)
        self.logic = self._new_logic(**settings)
        self.events: list[tuple[str, str, float]] = []  # (job, kind, time) the gridmanager wrote
        self.pending: list[tuple[float, int, Callable[[], None]]] = []
        self.contacts = 0
        self._seq = 0

    def _new_logic(self, **settings: float) -> GridManager:
        self.settings = {"seed": 7, **settings}
        return GridManager(parse_sites(self.sites), Settings(**self.settings))  # type: ignore[arg-type]

    # -- the schedd ----------------------------------------------------------------------------
    def submit(self, text: str, owner: str = "alice") -> list[str]:
        ids = self.queue.submit(owner, text, str(self.tmp_path), "test", int(self.now))
        self.at(self.now + ADD_DELAY, self.logic.signaled)
        return [job_str(j) for j in ids]

    def act(self, action: str, job: str, reason: str = "") -> None:
        out = self.queue.act(action, [job], "", reason, "alice", int(self.now))
        assert not out.errors, out.errors
        if out.to_gridmanager:
            self.at(self.now + REMOVE_DELAY, self.logic.signaled)
        if action == "release":
            self.at(self.now + ADD_DELAY, self.logic.signaled)

    def qedit(self, job: str, attr: str, value: str) -> None:
        out = self.queue.qedit([job], "", attr, value, "alice", int(self.now))
        ad = self.queue.jobs[tuple(map(int, job.split(".")))]  # type: ignore[index]
        change = ClassAd()
        change[attr] = ad.lookup(attr)
        assert out.done
        self.logic.qedit(job, change, self.now)
        self._step()

    def ad(self, job: str) -> ClassAd:
        """The job as condor_q, else condor_history, shows it."""
        key = tuple(int(x) for x in job.split("."))
        if key in self.queue.jobs:
            return self.queue.jobs[key]  # type: ignore[index]
        for ad in read_history(self.queue.history_path, "", [], 0, int(self.now)):
            if f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}" == job:
                return ad
        raise KeyError(job)

    def in_queue(self, job: str) -> bool:
        return tuple(int(x) for x in job.split(".")) in self.queue.jobs

    # -- the gridmanager ---------------------------------------------------------------------
    def restart_gridmanager(self) -> None:
        """A new gridmanager on the same sites' state (the spool file's content)."""
        state = self.logic.state_json()
        self.logic = self._new_logic(**{k: v for k, v in self.settings.items() if k != "seed"})
        self.logic.load_state(state)

    def kinds(self, job: str) -> list[str]:
        return [kind for j, kind, _ in self.events if j == job]

    def when(self, job: str, kind: str) -> float:
        return next(t for j, k, t in self.events if j == job and k == kind)

    def at(self, t: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        self.pending.append((t, self._seq, fn))

    def run_until(self, until: float) -> None:
        """Let time pass to ``until`` (seconds after T0 if small), stepping at every deadline."""
        end = T0 + until if until < T0 else until
        while True:
            due = min([self.logic.next_deadline(), *(t for t, _, _ in self.pending)])
            if due > end:
                break
            self.now = max(self.now, due)
            ready = sorted(p for p in self.pending if p[0] <= self.now)
            self.pending = [p for p in self.pending if p[0] > self.now]
            for _, _, fn in ready:
                fn()
            self._step()
        self.now = end

    def _step(self) -> None:
        logic, now = self.logic, self.now
        logic.tick(now)
        logic.evaluate_all(now)
        if now >= logic.contact_due():
            self._contact()
            logic.evaluate_all(now)
        self.events += [(job.id, e.kind, e.t) for job, e in logic.events]
        logic.events = []

    def _contact(self) -> None:
        """The runner's doContactSchedd against the real queue."""
        logic, now, q = self.logic, self.now, self.queue
        self.contacts += 1
        adopt, stopped = logic.contact_queries(now)
        if adopt is not None:
            logic.adopt(q.query(adopt, [], int(now)), now)
        logic.contact_done(logic.from_schedd(q.query(stopped, [], int(now)), now))
        pushed = logic.pushes()
        for job in pushed:
            ad = job.take_dirty()
            key = (job.cluster, job.proc)
            if key in q.jobs:
                apply_gridmanager_update(q, key, ad, job.finished and job.destroy, int(now))
            else:  # the schedd's FAILED: not in the queue
                logic.vanished(job, now)
        logic.committed(pushed, now)


def never() -> float:
    return math.inf
