"""The router's mirror of the schedd's queue: job_queue.log, followed (HTCondor's JobLogMirror).

How this works
--------------
:class:`QueueMirror` wraps :class:`~condorsim.jobqueue.follower.JobQueueLogFollower` (which
plays the log's records as the schedd writes them, transactions ignored) and keeps one
ClassAd per job (cluster ad overlaid by proc ad). A bulk reload (the first poll, or a
compacted or replaced log) rebuilds every job; an incremental poll rebuilds only the jobs the
new records touched (a cluster ad's change touches all its procs). What the schedd never
logs -- a CronTab job's computed DeferralTime, AutoClusterId -- is not in the mirror, exactly
as in HTCondor. An attribute whose text does not parse is left out with a warning.
"""

from __future__ import annotations

import os

from condorsim.classad import ClassAd, ClassAdError, parse_expr
from condorsim.jobqueue.follower import FollowKind, JobQueueLogFollower
from condorsim.jobqueue.records import (
    DeleteAttr,
    DestroyAd,
    JobQueueLogError,
    NewAd,
    SetAttr,
    parse_key,
)
from condorsim.jobqueue.state import job_attrs

JobId = tuple[int, int]


class QueueMirror:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.follower = JobQueueLogFollower(path)
        self.jobs: dict[JobId, ClassAd] = {}

    def poll(self) -> list[str]:
        """Bring the mirror up to date; warnings about records or values it skipped."""
        result = self.follower.poll()
        warnings = list(result.warnings)
        if result.kind is FollowKind.BULK:
            self.jobs = {}
            touched = set()
            for key in result.state.ads:
                try:
                    touched.add(parse_key(key))
                except JobQueueLogError:
                    continue
            self._rebuild(touched, warnings)
        elif result.kind is FollowKind.INCREMENTAL:
            touched = set()
            for record in result.records:
                if isinstance(record, NewAd | DestroyAd | SetAttr | DeleteAttr):
                    try:
                        touched.add(parse_key(record.key))
                    except JobQueueLogError:  # a bad key: the follower warned about it
                        continue
            self._rebuild(touched, warnings)
        return warnings

    def _rebuild(self, keys: set[tuple[int, int]], warnings: list[str]) -> None:
        state = self.follower.state.ads
        clusters = {c for c, p in keys if p == -1 and c > 0}
        jobs = {(c, p) for c, p in keys if c > 0 and p >= 0}
        if clusters:
            for key in state:
                c, p = parse_key(key)
                if c in clusters and p >= 0:
                    jobs.add((c, p))
        for job in jobs:
            attrs = job_attrs(state, *job)
            if attrs is None:
                self.jobs.pop(job, None)
                continue
            ad = ClassAd()
            for name, text in attrs.items():
                try:
                    ad[name] = parse_expr(text)
                except ClassAdError as e:
                    warnings.append(f"job {job[0]}.{job[1]}: {name} = {text!r} skipped: {e}")
            self.jobs[job] = ad
