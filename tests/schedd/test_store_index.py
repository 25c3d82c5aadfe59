"""The store's indexes (jobs by status, owner and cluster; the per-job views kept from its
changes: the idle jobs in priority order, the owners' counts in the order of their first
job) always say what a pass over the whole queue would, after any mix of submits, holds,
releases, removals, qedits and a reload."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from daemons.schedd.autocluster import priority_key
from daemons.schedd.counts import OwnerCounts
from daemons.schedd.policy import may_fire
from daemons.schedd.queue import JobQueue
from daemons.schedd.store import JobSet, JobStore, SortedJobs

T0 = 1_767_225_600
SUB = "executable = /bin/sleep\nqueue {n}\n"
POLICY_SUB = "executable = /bin/sleep\nperiodic_remove = JobStatus == 5\nqueue {n}\n"

step = st.tuples(st.sampled_from(["submit", "policy_submit", "hold", "release", "remove",
                                  "qedit", "prio", "run", "complete"]),
                 st.sampled_from(["alice", "bob"]), st.integers(0, 30), st.integers(1, 3))


Views = tuple[JobSet, SortedJobs[tuple[float, int, int, int]], OwnerCounts]


def _views(store: JobStore) -> Views:
    return JobSet(store, may_fire), SortedJobs(store, 1, priority_key), OwnerCounts(store)


def _check(store: JobStore, views: Views) -> None:
    view, idle, counts = views
    by_status: dict[int, set[tuple[int, int]]] = {}
    by_owner: dict[str | None, set[tuple[int, int]]] = {}
    for job, ad in store.jobs.items():
        status = ad.evaluate("JobStatus")
        by_status.setdefault(status if isinstance(status, int) else 1, set()).add(job)
        owner = ad.evaluate("Owner")
        by_owner.setdefault(owner if isinstance(owner, str) else None, set()).add(job)
    assert {k: v for k, v in store.by_status.items() if v} == by_status
    assert {k: v for k, v in store.by_owner.items() if v} == by_owner
    assert {c: set(m) for c, m in store.by_cluster.items()} == \
        {c: {j for j in store.jobs if j[0] == c} for c in {j[0] for j in store.jobs}}
    assert view.ordered() == [j for j in sorted(store.jobs) if may_fire(store.jobs[j])]
    assert [j for _, j in idle.ordered()] == \
        sorted(by_status.get(1, ()), key=lambda j: priority_key(j, store.jobs[j]))
    expect: dict[str, dict[str, int]] = {}
    for job in sorted(store.jobs):
        c = expect.setdefault(store.jobs[job].evaluate("Owner"), {
            "IdleJobs": 0, "RunningJobs": 0, "HeldJobs": 0, "LocalJobsIdle": 0,
            "LocalJobsRunning": 0, "SchedulerJobsIdle": 0, "SchedulerJobsRunning": 0})
        key = {1: "IdleJobs", 2: "RunningJobs", 5: "HeldJobs"}.get(store.jobs[job]["JobStatus"]
                                                                   .evaluate())
        if key:
            c[key] += 1
    got = counts.count(())
    assert list(got) == list(expect)  # owners in the order of their first job
    assert got == expect


@settings(max_examples=25, deadline=None)
@given(st.lists(step, min_size=1, max_size=25))
def test_indexes_agree_with_a_pass_over_the_queue(steps: list[tuple[str, str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        q = JobQueue(Path(tmp) / "spool")
        q.open(T0)
        views = _views(q.store)
        for i, (action, owner, pick, n) in enumerate(steps):
            now = T0 + i
            jobs = sorted(q.jobs)
            job = jobs[pick % len(jobs)] if jobs else None
            if action in ("submit", "policy_submit"):
                text = (SUB if action == "submit" else POLICY_SUB).format(n=n)
                q.submit(owner, text, tmp, "", now)
            elif job is None:
                continue
            elif action == "run":
                if q.status(job) == 1:
                    q.set_status(job, 2, now)
            elif action == "complete":
                if q.status(job) == 2:
                    q.set_status(job, 4, now)
                    q.leave(job, now)
            elif action == "prio":
                q.qedit([f"{job[0]}.{job[1]}"], "", "JobPrio", str(n - 2), "condor", now)
            elif action == "qedit":
                q.qedit([f"{job[0]}.{job[1]}"], "", "PeriodicHold", "true", "condor", now)
            else:
                q.act(action, [f"{job[0]}.{job[1]}"], "", "", "condor", now)
            _check(q.store, views)
        q.store.close()
        again = JobQueue(Path(tmp) / "spool")
        again.open(T0 + 100)
        _check(again.store, _views(again.store))
        again.store.close()
