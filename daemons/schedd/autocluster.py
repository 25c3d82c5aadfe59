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

from dataclasses import dataclass

from condorsim.classad import ClassAd, ExprTree
from condorsim.jobs.codes import JobStatus

from .store import JobId, text_of

BASE_ATTRS = ("Requirements", "Rank", "ConcurrencyLimits", "RequestCpus", "RequestMemory",
              "RequestDisk", "JobUniverse")


@dataclass
class Request:
    ad: ClassAd
    jobs: list[JobId]


def priority_key(job: JobId, ad: ClassAd) -> tuple[float, int, int, int]:
    prio = ad.evaluate("JobPrio")
    qdate = ad.evaluate("QDate")
    return (-(prio if isinstance(prio, (int, float)) else 0),
            qdate if isinstance(qdate, int) else 0, job[0], job[1])


class AutoClusters:
    """Assigns AutoClusterId to jobs and builds the resource-request list."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, ...], int] = {}
        # per job: the significant attributes' trees (by identity) and the signature they
        # gave -- trees are immutable, so the same trees give the same text
        self._sigs: dict[JobId, tuple[str, tuple[ExprTree | None, ...], tuple[str, ...]]] = {}
        self._literals: dict[object, ExprTree] = {}

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

    def requests(self, jobs: dict[JobId, ClassAd], eligible: list[JobId],
                 extra_attrs: str = "") -> list[Request]:
        """One request per autocluster of ``eligible`` (idle) jobs, in priority order.

        Sets AutoClusterId and AutoClusterAttrs on the jobs (in memory only).
        """
        attrs = self.significant(extra_attrs)
        attr_list = ",".join(attrs)
        groups: dict[int, Request] = {}
        order = sorted(eligible, key=lambda j: priority_key(j, jobs[j]))
        for job in order:
            ad = jobs[job]
            if ad.evaluate("JobStatus") != JobStatus.IDLE:
                continue
            trees = tuple(ad.lookup(a) for a in attrs)
            known = self._sigs.get(job)
            if known is not None and known[0] == attr_list and all(
                    x is y for x, y in zip(known[1], trees, strict=True)):
                sig = known[2]
            else:
                sig = tuple(text_of(t) if t is not None else "" for t in trees)
                self._sigs[job] = (attr_list, trees, sig)
            cid = self._ids.setdefault((attr_list, *sig), len(self._ids) + 1)
            # the same values as before are not set again (a set copies a shared ad)
            cid_tree = self._literal(cid)
            if ad.lookup("AutoClusterId") is not cid_tree:
                ad["AutoClusterId"] = cid_tree
            attrs_tree = self._literal(attr_list)
            if ad.lookup("AutoClusterAttrs") is not attrs_tree:
                ad["AutoClusterAttrs"] = attrs_tree
            if cid not in groups:
                groups[cid] = Request(ad=ad, jobs=[])
            groups[cid].jobs.append(job)
        if len(self._sigs) > 2 * len(jobs) + 1000:  # jobs that left the queue
            self._sigs = {j: v for j, v in self._sigs.items() if j in jobs}
        out = []
        for req in groups.values():
            rep = req.ad.copy()
            rep["_condor_RESOURCE_COUNT"] = len(req.jobs)
            out.append(Request(ad=rep, jobs=req.jobs))
        return out
