"""The schedd's jobs in memory, made durable in job_queue.log.

How this works
--------------
Each job lives in memory as one ClassAd (its cluster ad's attributes overlaid by its
proc ad's). ``JobStore.change(job, set_, delete)`` turns a change into job_queue.log
records and commits them as one transaction (durable before it returns) before the
in-memory ad is changed; ``JobStore.transient(job, ...)`` changes the in-memory ad only
(HTCondor's non-durable attributes: DeferralTime, LastRejMatchReason, AutoClusterId ...).
The header ad ``0.0`` holds NextClusterNum. Loading replays the log, as the schedd does
at start-up. No sockets, no clock: callers pass ``now``.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from condorsim.classad import ClassAd, ClassAdError, ExprTree, parse_expr
from condorsim.classad._classad import to_tree
from condorsim.jobqueue import (
    HEADER_KEY,
    DeleteAttr,
    DestroyAd,
    JobQueueLog,
    JobQueueLogError,
    JobQueueWriteError,
    NewAd,
    Op,
    SetAttr,
    cluster_key,
    job_attrs,
    parse_key,
    proc_key,
)
from condorsim.jobs.codes import JobStatus

JobId = tuple[int, int]
T = TypeVar("T")

IDLE = int(JobStatus.IDLE)


class ScheddError(Exception):
    """A request the schedd refuses; the message is for the user."""


class QueueWriteError(ScheddError):
    """job_queue.log could not be written: the change was not made (nothing of it is in
    the log or in memory). The schedd refuses the request that asked for it."""


def job_str(job: JobId) -> str:
    return f"{job[0]}.{job[1]}"


def text_of(value: Any) -> str:
    """The ClassAd expression text of a Python value, an ExprTree or a ClassAd."""
    # What a ClassAd holding the value gives back: the value's tree (a str, int or bool
    # one shared, see to_tree) whose text is kept once made.
    return str(to_tree(value))


def job_status(ad: ClassAd) -> int:
    """JobStatus as the schedd reads it: a number as an int, Idle when it is none."""
    v = ad.evaluate("JobStatus")
    if isinstance(v, (bool, int, float)):
        return int(v)
    return IDLE


def _owner(ad: ClassAd) -> str | None:
    v = ad.evaluate("Owner")
    return v if isinstance(v, str) else None


class JobStore:
    """The job queue: ``jobs[(cluster, proc)]`` is the job's ClassAd.

    Indexes kept up to date at each change made through the store: the jobs by status
    (``by_status``, as :func:`job_status` reads it), by Owner and by cluster; and the sets
    handed out by :meth:`watch`, which collect the ids of the jobs changed, added or gone
    since their holder last emptied them (what :class:`Derived` and :class:`JobSet` keep
    their per-job views up to date with, in O(changes) instead of O(queue)).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.log = JobQueueLog(path)
        self.jobs: dict[JobId, ClassAd] = {}
        self.next_cluster = 1
        self.warnings: list[str] = []
        self.on_write_error: Callable[[JobQueueWriteError], None] | None = None
        """Told of every write to job_queue.log the disk refused (the schedd logs it)."""
        self.version = 0
        """Counts the changes made through this store (a commit or a transient change):
        what a cache of a view of the queue is keyed on."""
        self.by_status: dict[int, set[JobId]] = {}
        self.by_owner: dict[str | None, set[JobId]] = {}
        self.by_cluster: dict[int, set[JobId]] = {}
        self.job_version: dict[JobId, int] = {}
        """Per job: ``version`` at its last change (or when it was added)."""
        self._keys: dict[JobId, tuple[int, str | None]] = {}
        self._watchers: list[set[JobId]] = []

    # -- the indexes

    def watch(self) -> set[JobId]:
        """A set the store adds every job changed, added or removed to from now on (it
        starts with every job of the queue); the caller empties it as it catches up."""
        dirty = set(self.jobs)
        self._watchers.append(dirty)
        return dirty

    def _index(self, job: JobId) -> None:
        ad = self.jobs[job]
        key = (job_status(ad), _owner(ad))
        old = self._keys.get(job)
        if old != key:
            if old is None:
                self.by_cluster.setdefault(job[0], set()).add(job)
            else:
                self.by_status[old[0]].discard(job)
                self.by_owner[old[1]].discard(job)
            self.by_status.setdefault(key[0], set()).add(job)
            self.by_owner.setdefault(key[1], set()).add(job)
            self._keys[job] = key
        self.job_version[job] = self.version
        for dirty in self._watchers:
            dirty.add(job)

    def _unindex(self, job: JobId) -> None:
        key = self._keys.pop(job, None)
        if key is not None:
            self.by_status[key[0]].discard(job)
            self.by_owner[key[1]].discard(job)
            members = self.by_cluster[job[0]]
            members.discard(job)
            if not members:
                del self.by_cluster[job[0]]
        self.job_version.pop(job, None)
        for dirty in self._watchers:
            dirty.add(job)

    def with_status(self, *statuses: int) -> set[JobId]:
        """The jobs whose JobStatus is one of ``statuses`` (a new set)."""
        out: set[JobId] = set()
        for status in statuses:
            out |= self.by_status.get(status, set())
        return out

    # -- life cycle

    def open(self, now: int) -> None:
        """Replay job_queue.log (a missing log is a new, empty queue).

        Raises QueueWriteError for a spool directory the schedd cannot write (naming it),
        ScheddError for a log it cannot read."""
        spool = self.path.parent
        try:
            spool.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise QueueWriteError(f"cannot create the spool directory {spool}: "
                                  f"errno = {e.errno} ({e.strerror})") from None
        try:
            state = self.log.open(now)
        except JobQueueWriteError as e:
            raise QueueWriteError(f"cannot write in the spool directory {spool}: {e}") from None
        except JobQueueLogError as e:
            raise ScheddError(f"cannot load the job queue: {e}") from None
        self.warnings = list(self.log.warnings)
        header = state.get(HEADER_KEY)
        if header is not None and "NextClusterNum" in header:
            try:
                self.next_cluster = int(header["NextClusterNum"])
            except ValueError:
                self.warnings.append(f"bad NextClusterNum {header['NextClusterNum']!r}")
        for key in state:
            cluster, proc = parse_key(key)
            if proc < 0 or key == HEADER_KEY:
                continue
            attrs = job_attrs(state, cluster, proc)
            if attrs is None:
                continue
            ad = ClassAd()
            for name, text in attrs.items():
                try:
                    ad[name] = parse_expr(text)
                except ClassAdError as e:
                    self.warnings.append(f"job {cluster}.{proc}: {name}: {e}")
            self.jobs[(cluster, proc)] = ad
            self._index((cluster, proc))
            self.next_cluster = max(self.next_cluster, cluster + 1)

    def close(self) -> None:
        self.log.close()

    def _commit(self, ops: Iterable[Op], durable: bool = True) -> None:
        self.version += 1
        try:
            self.log.commit(ops, durable=None if durable else False)
        except JobQueueWriteError as e:
            self.report_write_error(e)
            raise QueueWriteError(f"cannot write the job queue: {e}") from None
        except JobQueueLogError as e:
            raise ScheddError(f"cannot write the job queue: {e}") from None
        if self.log.should_compact():
            try:
                self.log.compact()
            except JobQueueWriteError as e:  # the old log stays in use; it grows on
                self.report_write_error(e)

    def report_write_error(self, e: JobQueueWriteError) -> None:
        """Tell `on_write_error` of a write the disk refused (here or beside the log)."""
        if self.on_write_error is not None:
            self.on_write_error(e)

    # -- reading

    def __iter__(self) -> Iterator[JobId]:
        return iter(sorted(self.jobs))

    def get(self, job: JobId) -> ClassAd | None:
        return self.jobs.get(job)

    # -- writing

    def new_cluster(self) -> int:
        """Take the next cluster id, durably (a failed submit still uses it up)."""
        cluster = self.next_cluster
        ops: list[Op] = []
        if HEADER_KEY not in self.log.state:
            ops.append(NewAd(HEADER_KEY, "", ""))
        ops.append(SetAttr(HEADER_KEY, "NextClusterNum", str(cluster + 1)))
        self._commit(ops)
        self.next_cluster = cluster + 1
        return cluster

    def add_cluster(self, cluster: int, ads: list[ClassAd]) -> list[JobId]:
        """Commit a new cluster's procs as one transaction; attributes common to all go
        to the cluster ad."""
        memo: dict[int, str] = {}  # procs of a cluster share most trees: one text each

        def text(tree: ExprTree) -> str:
            out = memo.get(id(tree))
            if out is None:
                out = memo[id(tree)] = text_of(tree)
            return out

        texts = [{name: text(tree) for name, tree in ad.pairs()} for ad in ads]
        common = dict(texts[0])
        for t in texts[1:]:
            for name in list(common):
                if t.get(name) != common[name]:
                    del common[name]
        common.pop("ProcId", None)
        ops: list[Op] = [NewAd(cluster_key(cluster))]
        ops += [SetAttr(cluster_key(cluster), n, v) for n, v in common.items()]
        ids: list[JobId] = []
        for proc, t in enumerate(texts):
            key = proc_key(cluster, proc)
            ops.append(NewAd(key))
            ops += [SetAttr(key, n, v) for n, v in t.items() if n not in common]
            ids.append((cluster, proc))
        self._commit(ops)
        for job, ad in zip(ids, ads, strict=True):
            self.jobs[job] = ad
            self._index(job)
        return ids

    def change(
        self, job: JobId, set_: Mapping[str, Any], delete: Iterable[str] = (), *,
        durable: bool = True,
    ) -> None:
        """Set and delete attributes of a job as one transaction: durable (synced to disk
        before this returns) unless ``durable`` is false, for the commits HTCondor's schedd
        makes non-durable (``CommitNonDurableTransactionOrDieTrying``)."""
        ad = self.jobs[job]
        key = proc_key(*job)
        trees = {name: to_tree(value) for name, value in set_.items()}
        texts = {name: str(tree) for name, tree in trees.items()}  # text_of, tree made once
        gone = [name for name in delete if name in ad]
        ops: list[Op] = [SetAttr(key, n, v) for n, v in texts.items()]
        ops += [DeleteAttr(key, n) for n in gone]
        cluster_ad = self.log.state.get(cluster_key(job[0]))
        # An attribute that lives in the cluster ad must go from there too, or the
        # replayed job would get it back.
        stuck = [n for n in gone if cluster_ad is not None and n in cluster_ad]
        if stuck:
            ops += [SetAttr(key, n, "undefined") for n in stuck]
        self._commit(ops, durable)
        ad.update(trees)
        for name in gone:
            del ad[name]
        self._index(job)

    def transient(self, job: JobId, set_: Mapping[str, Any]) -> None:
        """Set attributes in memory only (not in job_queue.log), as HTCondor's Assign."""
        self.version += 1
        ad = self.jobs[job]
        for name, value in set_.items():
            ad[name] = value
        self._index(job)

    def destroy(self, job: JobId, *, durable: bool = True) -> ClassAd:
        """Remove a job from the queue (and its cluster ad with its last proc)."""
        ops: list[Op] = [DestroyAd(proc_key(*job))]
        # the cluster's last proc: no other member (not a copy of the cluster's set less
        # this job, which cost O(procs) at every job's leaving)
        members = self.by_cluster.get(job[0], ())
        last = len(members) <= 1 and (not members or job in members)
        if last and cluster_key(job[0]) in self.log.state:
            ops.append(DestroyAd(cluster_key(job[0])))
        self._commit(ops, durable)
        self._unindex(job)
        return self.jobs.pop(job)


class Derived(Generic[T]):
    """``fn(ad)`` of every job of a store, recomputed only for the jobs changed through the
    store since it was last read. ``fn`` must depend on the ad's attributes alone."""

    def __init__(self, store: JobStore, fn: Callable[[ClassAd], T]) -> None:
        self.store = store
        self.fn = fn
        self.values: dict[JobId, T] = {}
        self._dirty = store.watch()

    def refresh(self) -> set[JobId]:
        """Bring the values up to date; the jobs whose value was recomputed or dropped."""
        done = set(self._dirty)
        jobs = self.store.jobs
        for job in done:
            ad = jobs.get(job)
            if ad is None:
                self.values.pop(job, None)
            else:
                self.values[job] = self.fn(ad)
        self._dirty.clear()
        return done

    def __getitem__(self, job: JobId) -> T:
        if self._dirty:
            self.refresh()
        return self.values[job]


class JobSet:
    """The jobs of a store for which ``pred(ad)`` is true, in job id order, kept up to date
    from the store's changes (a new list whenever the membership changes, so a caller may
    change the queue while it walks the list it got)."""

    def __init__(self, store: JobStore, pred: Callable[[ClassAd], bool]) -> None:
        self._derived = Derived(store, pred)
        self._members: set[JobId] = set()
        self._sorted: list[JobId] = []

    def ordered(self) -> list[JobId]:
        changed = False
        derived = self._derived
        for job in derived.refresh():
            if derived.values.get(job, False):
                if job not in self._members:
                    self._members.add(job)
                    changed = True
            elif job in self._members:
                self._members.discard(job)
                changed = True
        if changed:
            self._sorted = sorted(self._members)
        return self._sorted


K = TypeVar("K")


class SortedJobs(Generic[K]):
    """The jobs of a store with JobStatus ``status``, in the order of ``key(job, ad)``, kept
    up to date from the store's changes: a job changed since the last look is taken out
    and put back at its new key (a binary search each), instead of sorting the whole set
    again. Keys must be unique (e.g. end in the job id), so the order is the one a sort
    of the whole set would give."""

    def __init__(self, store: JobStore, status: int, key: Callable[[JobId, ClassAd], K]) -> None:
        self.store = store
        self.status = status
        self.key = key
        self._dirty = store.watch()
        self._keys: dict[JobId, K] = {}
        self._order: list[tuple[K, JobId]] = []

    def ordered(self) -> list[tuple[K, JobId]]:
        """(key, job) of the member jobs in key order; the list is this object's own
        (read it before the store changes again, do not change it)."""
        if self._dirty:
            jobs, keys, order = self.store.jobs, self._keys, self._order
            for job in self._dirty:
                old = keys.pop(job, None)
                if old is not None:
                    at = bisect_left(order, (old, job))
                    if at < len(order) and order[at][1] == job:
                        del order[at]
                    else:  # a key that does not order (a NaN in it): find it the long way
                        del order[next(i for i, (_, j) in enumerate(order) if j == job)]
                ad = jobs.get(job)
                if ad is not None and job_status(ad) == self.status:
                    new = keys[job] = self.key(job, ad)
                    insort(order, (new, job))
            self._dirty.clear()
        return self._order
