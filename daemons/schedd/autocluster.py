"""Autoclusters and resource requests for the negotiator.

How this works
--------------
Idle jobs with equal values of the significant attributes match alike, so the schedd
sends the negotiator one resource request per autocluster: a representative job ad plus
``_condor_RESOURCE_COUNT`` and ``AutoClusterId`` (facts 9). The significant attributes
are the schedd's minimal set plus the negotiator's ``AutoClusterAttrs``. Requests come
in job priority order: JobPrio descending, then QDate, ClusterId, ProcId. Autocluster
ids are stable for the schedd's life (a dict from signature to id).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from condorsim.classad import ClassAd, ExprTree
from condorsim.classad._tree import NOT_CONST
from condorsim.jobs.codes import JobStatus

from .store import JobId, JobStore, text_of

_IDLE = int(JobStatus.IDLE)
_STAMPED = ("autoclusterid", "autoclusterattrs")

BASE_ATTRS = ("Requirements", "Rank", "ConcurrencyLimits", "RequestCpus", "RequestMemory",
              "RequestDisk", "JobUniverse")


@dataclass
class Request:
    ad: ClassAd
    jobs: list[JobId]
    #: jobs[:first] are taken already in the negotiation session that holds the request
    #: (matched in it): the next match looks from here, not from the start
    first: int = 0


def priority_key(job: JobId, ad: ClassAd) -> tuple[float, int, int, int]:
    prio = ad.evaluate("JobPrio")
    qdate = ad.evaluate("QDate")
    return (-(prio if isinstance(prio, (int, float)) else 0),
            qdate if isinstance(qdate, int) else 0, job[0], job[1])


class AutoClusters:
    """Assigns AutoClusterId to jobs and builds the resource-request list."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, ...], int] = {}
        self._literals: dict[object, ExprTree] = {}
        # (AutoClusterId tree, AutoClusterAttrs tree) by identity -> an ad of the two; the
        # trees are _literals' own, kept for the schedd's life
        self._stamps: dict[tuple[int, int], ClassAd] = {}
        # per job: the store's version of it when last looked at, the attribute list, its
        # priority key and autocluster id then (None: it was not idle)
        self._known: dict[JobId, tuple[int | None, str, tuple[float, int, int, int],
                                       int | None]] = {}
        # the jobs of the last call in priority order: the next call lists its jobs in this
        # order first, so that its sort (of unique keys: the order it gives is the same
        # whatever the input order) finds them nearly sorted
        self._last_order: list[JobId] = []

    def _literal(self, value: int | str) -> ExprTree:
        """One shared tree per AutoClusterId or AutoClusterAttrs value."""
        tree = self._literals.get(value)
        if tree is None:
            holder = ClassAd()
            holder["v"] = value
            tree = holder.lookup("v")
            assert tree is not None
            self._literals[value] = tree
        return tree

    def significant(self, extra: str) -> list[str]:
        names = list(BASE_ATTRS)
        for name in extra.replace(",", " ").split():
            if name.lower() not in {n.lower() for n in names}:
                names.append(name)
        return names

    def requests(self, jobs: dict[JobId, ClassAd], eligible: Iterable[JobId],
                 extra_attrs: str = "",
                 versions: Mapping[JobId, int] | None = None) -> list[Request]:
        """One request per autocluster of ``eligible`` (idle) jobs, in priority order.

        Sets AutoClusterId and AutoClusterAttrs on the jobs (in memory only). With
        ``versions`` (the store's ``job_version``), a job unchanged since the last call
        keeps its priority, its autocluster and the two attributes without being looked at
        again: a cycle costs O(jobs changed) evaluations, plus the sort.
        """
        attrs = self.significant(extra_attrs)
        attr_list = ",".join(attrs)
        attrs_tree = self._literal(attr_list)
        known = self._known
        keyed: list[tuple[tuple[float, int, int, int], JobId, bool, int | None]] = []
        wanted = set(eligible)
        last = [job for job in self._last_order if job in wanted]
        listed = set(last)
        if len(wanted) - len(listed) > len(jobs) // 8:
            # many jobs new to the list (the first cycle over a fresh queue): take them in
            # the queue's order, mostly their priority order already, so that the sort
            # below finds long runs instead of the set's scattered order
            rest = [job for job in jobs if job in wanted and job not in listed]
        else:
            rest = [job for job in wanted if job not in listed]
        for job in (*last, *rest):
            version = versions.get(job) if versions is not None else None
            entry = known.get(job)
            if version is None or entry is None or entry[0] != version or \
                    entry[1] != attr_list:
                keyed.append((priority_key(job, jobs[job]), job, True, version))
            else:
                keyed.append((entry[2], job, False, version))
        keyed.sort()
        self._last_order = [entry[1] for entry in keyed]
        ordered: list[tuple[JobId, int]] = []
        lowered = tuple(a.lower() for a in attrs)
        by_trees: dict[tuple[int, ...], tuple[tuple[str, ...], int]] = {}
        for key, job, stale, version in keyed:
            if stale:  # classified in priority order: new autocluster ids come in that order
                cid = self.classify(jobs[job], lowered, attr_list, attrs_tree, by_trees)
                known[job] = (version, attr_list, key, cid)
            else:
                cid = known[job][3]
            if cid is not None:
                ordered.append((job, cid))
        if len(known) > 2 * len(jobs) + 1000:  # jobs that left the queue
            self._known = {j: v for j, v in known.items() if j in jobs}
        groups: dict[int, Request] = {}
        for job, cid in ordered:
            req = groups.get(cid)
            if req is None:
                groups[cid] = req = Request(ad=jobs[job], jobs=[])
            req.jobs.append(job)
        out = []
        for req in groups.values():
            rep = req.ad.copy()
            rep["_condor_RESOURCE_COUNT"] = len(req.jobs)
            out.append(Request(ad=rep, jobs=req.jobs))
        return out

    def classify(self, ad: ClassAd, lowered: tuple[str, ...], attr_list: str,
                 attrs_tree: ExprTree,
                 by_trees: dict[tuple[int, ...], tuple[tuple[str, ...], int]]) -> int | None:
        """The job's autocluster id (None when it is not idle); sets AutoClusterId and
        AutoClusterAttrs. ``lowered``: the significant attributes (lower-cased) of
        ``attr_list``, whose shared literal is ``attrs_tree``; ``by_trees``: the call's
        signatures by tree identity."""
        tree = ad._attrs.get("jobstatus")  # evaluate's first step inline: a literal
        status = tree._const if tree is not None else NOT_CONST
        if status is NOT_CONST:
            status = ad.evaluate("JobStatus")
        if status != _IDLE:
            return None
        # the procs of a cluster share their cluster's trees: one signature (and so one
        # autocluster) per set of trees (by identity; ``by_trees`` lives for one call, while
        # the ads hold them, and trees are immutable: the same trees give the same text)
        trees = ad.trees(lowered)
        ids = tuple(map(id, trees))
        made = by_trees.get(ids)
        if made is None:
            sig = tuple(text_of(t) if t is not None else "" for t in trees)
            made = by_trees[ids] = (
                sig, self._ids.setdefault((attr_list, *sig), len(self._ids) + 1))
        cid = made[1]
        # the same values as before are not set again (a set copies a shared ad)
        cid_tree = self._literal(cid)
        old_cid, old_attrs = ad.trees(_STAMPED)
        if old_cid is not cid_tree and old_attrs is not attrs_tree:
            ad.update(self._stamp(cid_tree, attrs_tree))  # both, in this order, at once
        elif old_cid is not cid_tree:
            ad["AutoClusterId"] = cid_tree
        elif old_attrs is not attrs_tree:
            ad["AutoClusterAttrs"] = attrs_tree
        return cid

    def classify_many(self, ads: Iterable[ClassAd], lowered: tuple[str, ...], attr_list: str,
                      attrs_tree: ExprTree,
                      by_trees: dict[tuple[int, ...], tuple[tuple[str, ...], int]]
                      ) -> list[int | None]:
        """:meth:`classify` of each ad in turn: the same ids and stamps (set in the same
        order in each ad). An ad whose JobStatus, significant and stamp trees are the same
        objects as the ad's before it (the procs of a cluster, in a row) takes that ad's
        answer and stamps without its signature being looked at again -- when that ad's
        JobStatus is a constant (an expression's value depends on the ad's other
        attributes) and its stamps were both missing (set now) or both the ones wanted."""
        reads = ("jobstatus", *lowered, *_STAMPED)
        none = id(None)
        out: list[int | None] = []
        last: tuple[int, ...] | None = None  # the ids of the reads of the ad before
        last_cid: int | None = None
        stamp = False  # the ad before had no stamps: both were set
        cid_tree = attrs_tree
        for ad in ads:
            ids = tuple(map(id, map(ad._attrs.get, reads)))
            if ids == last:
                if stamp:  # ClassAd.update of _stamp's ad, inline: the two keys are new
                    if ad._shared:
                        ad._own()
                    names, attrs = ad._names, ad._attrs
                    names["autoclusterid"] = "AutoClusterId"
                    attrs["autoclusterid"] = cid_tree
                    names["autoclusterattrs"] = "AutoClusterAttrs"
                    attrs["autoclusterattrs"] = attrs_tree
                out.append(last_cid)
                continue
            cid = self.classify(ad, lowered, attr_list, attrs_tree, by_trees)
            out.append(cid)
            last = None
            status = ad._attrs.get("jobstatus")
            if status is not None and status._const is NOT_CONST:
                continue  # evaluated in each ad
            if cid is None:
                last, last_cid, stamp = ids, None, False
                continue
            cid_tree = self._literal(cid)
            if ids[-2] == none and ids[-1] == none:
                last, last_cid, stamp = ids, cid, True
            elif ids[-2] == id(cid_tree) and ids[-1] == id(attrs_tree):
                last, last_cid, stamp = ids, cid, False
        return out

    def _stamp(self, cid_tree: ExprTree, attrs_tree: ExprTree) -> ClassAd:
        """An ad of AutoClusterId and AutoClusterAttrs (in that order) with these trees."""
        stamp = self._stamps.get((id(cid_tree), id(attrs_tree)))
        if stamp is None:
            stamp = ClassAd()
            stamp["AutoClusterId"] = cid_tree
            stamp["AutoClusterAttrs"] = attrs_tree
            self._stamps[(id(cid_tree), id(attrs_tree))] = stamp
        return stamp


SortKey = tuple[float, int, JobId]
"""A job's place in the request order: (-JobPrio, QDate, job id), ordered as
:func:`priority_key`."""


def sort_key(job: JobId, ad: ClassAd) -> SortKey:
    prio, qdate = ad.evaluate("JobPrio"), ad.evaluate("QDate")
    return (-(prio if isinstance(prio, (int, float)) else 0),
            qdate if isinstance(qdate, int) else 0, job)


_BATCH = 16  # more changes than this to one sorted list: rebuilt, not bisected
_ENTRY_READS = ("owner", "jobprio", "qdate")


class IdleIndex:
    """The idle jobs the schedd negotiates for, per owner and autocluster, in priority
    order, kept up to date from the store's changes: a NEGOTIATE costs O(jobs changed since
    the last one) plus a copy of each autocluster's job list, where
    :meth:`AutoClusters.requests` walks and sorts every idle job each time.

    It gives the requests :meth:`AutoClusters.requests` gives for the same eligible jobs
    (``tests/schedd/test_negotiation.py`` compares the two): a job is classified when it is
    eligible and changed since it was last classified (or the significant attributes
    changed), in priority order, so new autocluster ids come in the same order; the others
    keep their autocluster and place.
    """

    def __init__(self, store: JobStore, autoclusters: AutoClusters,
                 wanted: Callable[[ClassAd], bool], reads: tuple[str, ...] = ()) -> None:
        self.store = store
        self.autoclusters = autoclusters
        self.wanted = wanted  # needs_a_slot
        # the attributes ``wanted`` reads (none given: its answer is never reused); with
        # Owner, JobPrio and QDate, what a job's entry is made of
        self._reads = (tuple(name.lower() for name in reads) + _ENTRY_READS) if reads else ()
        self._dirty = store.watch()
        # every idle job ``wanted`` holds: its owner and its sort key
        self._owner: dict[JobId, str | None] = {}
        self._key: dict[JobId, SortKey] = {}
        # its autocluster (None: not idle by its JobStatus) once classified; the others
        # wait in ``_stale`` by owner
        self._cid: dict[JobId, int | None] = {}
        self._stale: dict[str | None, set[JobId]] = {}
        # by owner, by autocluster: the sort keys of the classified jobs, sorted
        self._lists: dict[str | None, dict[int, list[SortKey]]] = {}
        self._attr_list: str | None = None

    def _refresh(self) -> None:
        """Take in the jobs changed, added or gone since the last call."""
        dirty = self._dirty
        if not dirty:
            return
        jobs = self.store.jobs
        idle = self.store.by_status.get(_IDLE, set())
        gone: dict[tuple[str | None, int], set[SortKey]] = {}
        owners, keys, cids, stale = self._owner, self._key, self._cid, self._stale
        reads = self._reads
        # the procs of a cluster share their cluster's trees: a job whose trees of
        # ``reads`` are all constants (or missing) has the entry of the first job with
        # the same trees (by identity; the ads hold them for this call, and a constant
        # tree evaluates to its value in any ad: the entry is what evaluating gives)
        entries: dict[tuple[int, ...], tuple[bool, str | None, float, int]] = {}
        order: Iterable[JobId] = dirty
        if len(dirty) > len(jobs) // 8:
            # many (a fresh queue): in the queue's order, the order the ads were made in
            # (near each other in memory), not the set's scattered one; the outcome is the
            # same in any order
            order = [job for job in jobs if job in dirty]
            if len(order) < len(dirty):  # and the jobs gone
                order += [job for job in dirty if job not in jobs]
        owner_set: tuple[str | None, set[JobId]] | None = None  # the last owner's stale set
        for job in order:
            key = keys.pop(job, None)
            if key is not None:
                owner = owners.pop(job)
                cid = cids.pop(job, -1)
                if cid == -1:
                    stale[owner].discard(job)
                elif cid is not None:
                    gone.setdefault((owner, cid), set()).add(key)
            ad = jobs.get(job)
            if ad is None or job not in idle:
                continue
            entry = None
            if reads and ad._parent is None:
                trees = ad.trees(reads)
                ids = tuple(map(id, trees))
                entry = entries.get(ids)
                if entry is None and all(t is None or t._const is not NOT_CONST
                                         for t in trees):
                    entry = entries[ids] = self._entry(ad)
            if entry is None:
                entry = self._entry(ad)
            if entry[0]:
                owner = owners[job] = entry[1]
                keys[job] = (entry[2], entry[3], job)  # sort_key
                if owner_set is None or owner_set[0] != owner:
                    owner_set = (owner, stale.setdefault(owner, set()))
                owner_set[1].add(job)
        dirty.clear()
        for (owner, cid), out in gone.items():
            by_cid = self._lists[owner]
            sorted_keys = by_cid[cid]
            if len(out) > _BATCH:
                sorted_keys[:] = [k for k in sorted_keys if k not in out]
            else:
                for k in out:
                    del sorted_keys[bisect_left(sorted_keys, k)]
            if not sorted_keys:
                del by_cid[cid]

    def _entry(self, ad: ClassAd) -> tuple[bool, str | None, float, int]:
        """Whether the job is ``wanted``, its Owner (None: not a string) and the first two
        parts of its :func:`sort_key`."""
        if not self.wanted(ad):
            return (False, None, 0, 0)
        value = ad.evaluate("Owner")
        prio, qdate = ad.evaluate("JobPrio"), ad.evaluate("QDate")
        return (True, value if isinstance(value, str) else None,
                -(prio if isinstance(prio, (int, float)) else 0),
                qdate if isinstance(qdate, int) else 0)

    def requests(self, owner: str, extra_attrs: str,
                 excluded: Iterable[Collection[JobId]]) -> list[Request]:
        """The requests of ``owner``'s idle jobs, less the jobs in ``excluded`` (those
        with a shadow, those matched and not yet claimed), as :meth:`AutoClusters.requests`
        makes them."""
        self._refresh()
        ac = self.autoclusters
        attrs = ac.significant(extra_attrs)
        attr_list = ",".join(attrs)
        if attr_list != self._attr_list:  # every job is classified again
            for job in self._cid:
                self._stale.setdefault(self._owner[job], set()).add(job)
            self._cid.clear()
            self._lists.clear()
            self._attr_list = attr_list
        owners = self._owner
        out_jobs: set[JobId] = set()
        for jobs_set in excluded:
            out_jobs.update(j for j in jobs_set if owners.get(j, 0) == owner)
        by_cid = self._lists.setdefault(owner, {})
        stale = self._stale.get(owner)
        if stale:
            key_of = self._key
            if len(stale) > len(self.store.jobs) // 8:
                # many (a fresh queue): in the queue's order, mostly their priority order
                # already, so that the sort finds long runs (the keys are unique: the same
                # order whatever the input's)
                todo = [key_of[j] for j in self.store.jobs if j in stale and j not in out_jobs]
                todo.sort()
            else:
                todo = sorted(key_of[j] for j in stale if j not in out_jobs)
            lowered = tuple(a.lower() for a in attrs)
            attrs_tree = ac._literal(attr_list)
            by_trees: dict[tuple[int, ...], tuple[tuple[str, ...], int]] = {}
            added: dict[int, list[SortKey]] = {}
            jobs = self.store.jobs
            cids = self._cid
            # in priority order: new autocluster ids come in that order
            job_ids = list(map(itemgetter(2), todo))
            classified = ac.classify_many(list(map(jobs.__getitem__, job_ids)), lowered,
                                          attr_list, attrs_tree, by_trees)
            cids.update(zip(job_ids, classified, strict=True))
            start = 0
            for cid, run in groupby(classified):  # runs of one autocluster (a cluster's)
                end = start + sum(1 for _ in run)
                if cid is not None:
                    bucket = added.get(cid)
                    if bucket is None:
                        bucket = added[cid] = []
                    bucket.extend(todo[start:end])
                start = end
            stale.difference_update(job_ids)
            for cid, keys in added.items():
                sorted_keys = by_cid.get(cid)
                if sorted_keys is None:
                    by_cid[cid] = keys
                elif len(keys) > _BATCH:
                    sorted_keys.extend(keys)
                    sorted_keys.sort()
                else:
                    for k in keys:
                        insort(sorted_keys, k)
        hit = {self._cid.get(j) for j in out_jobs}
        made: list[tuple[SortKey, Request]] = []
        ads = self.store.jobs
        for cid, sorted_keys in by_cid.items():
            if cid in hit:
                members = [k[2] for k in sorted_keys if k[2] not in out_jobs]
                if not members:
                    continue
                first = self._key[members[0]]
            else:
                members = list(map(itemgetter(2), sorted_keys))
                first = sorted_keys[0]
            rep = ads[members[0]].copy()
            rep["_condor_RESOURCE_COUNT"] = len(members)
            made.append((first, Request(ad=rep, jobs=members)))
        made.sort(key=itemgetter(0))
        return [request for _, request in made]
