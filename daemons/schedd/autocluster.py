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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from condorsim.classad import ClassAd, ExprTree
from condorsim.jobs.codes import JobStatus

from .store import JobId, text_of

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
                cid = self._classify(job, jobs[job], lowered, attr_list, attrs_tree, version,
                                     key, by_trees)
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

    def _classify(self, job: JobId, ad: ClassAd, lowered: tuple[str, ...], attr_list: str,
                  attrs_tree: ExprTree, version: int | None,
                  key: tuple[float, int, int, int],
                  by_trees: dict[tuple[int, ...], tuple[tuple[str, ...], int]]) -> int | None:
        """The job's autocluster id (None when it is not idle), remembered with ``version``;
        sets AutoClusterId and AutoClusterAttrs."""
        if ad.evaluate("JobStatus") != _IDLE:
            self._known[job] = (version, attr_list, key, None)
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
        self._known[job] = (version, attr_list, key, cid)
        return cid

    def _stamp(self, cid_tree: ExprTree, attrs_tree: ExprTree) -> ClassAd:
        """An ad of AutoClusterId and AutoClusterAttrs (in that order) with these trees."""
        stamp = self._stamps.get((id(cid_tree), id(attrs_tree)))
        if stamp is None:
            stamp = ClassAd()
            stamp["AutoClusterId"] = cid_tree
            stamp["AutoClusterAttrs"] = attrs_tree
            self._stamps[(id(cid_tree), id(attrs_tree))] = stamp
        return stamp
