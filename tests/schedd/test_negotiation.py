"""The schedd's negotiation sessions without sockets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from condorsim.classad import ClassAd
from condorsim.wire import messages as m
from daemons.schedd.negotiation import Negotiations
from daemons.schedd.queue import JobQueue
from daemons.schedd.store import ScheddError

T0 = 1_767_225_600


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def warning(self, event: str, **kw: Any) -> None:
        self.events.append(event)

    info = warning


def _setup(tmp_path: Path, ended: list[int] | None = None,
           ) -> tuple[JobQueue, Negotiations, list[tuple[Any, ...]], _Log]:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    q.submit("alice", "executable = /bin/true\nrequest_memory = 1\nqueue 2\n", "/", "a", T0)
    q.submit("alice", "executable = /bin/true\nrequest_memory = 2\nqueue 1\n", "/", "b", T0)
    q.submit("bob", "executable = /bin/true\nqueue 1\n", "/", "c", T0)
    matched: list[tuple[Any, ...]] = []
    log = _Log()
    ends = ended if ended is not None else []
    n = Negotiations(q, matched=lambda *a: matched.append(a), pending=set(),
                     before=lambda now: None, ended=lambda: ends.append(len(matched)),
                     log=log)
    return q, n, matched, log


def test_requests_by_autocluster_matches_and_rejections(tmp_path: Path) -> None:
    q, n, matched, log = _setup(tmp_path)
    assert n.handle("c", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0) is None
    first = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=1), T0)
    assert isinstance(first, m.RESOURCE_REQUEST_LIST)
    assert [r.evaluate("_condor_RESOURCE_COUNT") for r in first.requests] == [2]
    slot = ClassAd.parse('[ Name = "slot1@e" ]')
    for _ in range(3):  # the third match finds no unmatched job of that autocluster
        n.handle("c", m.PERMISSION_AND_AD(claim_id="c1", slot_ad=slot, request_index=0), T0)
    assert [a[0] for a in matched] == [(1, 0), (1, 1)]
    assert log.events == ["match_received", "match_received", "match_unused"]
    second = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=5), T0)
    assert isinstance(second, m.RESOURCE_REQUEST_LIST) and len(second.requests) == 1
    n.handle("c", m.REJECTED_WITH_REASON(reason="no match found", request_index=0), T0 + 1)
    assert q.jobs[(2, 0)].evaluate("LastRejMatchReason") == "no match found"
    assert q.jobs[(2, 0)].evaluate("LastRejMatchTime") == T0 + 1
    n.handle("c", m.REJECTED_WITH_REASON(reason="x", request_index=9), T0)
    assert log.events[-1] == "bad_request_index"
    empty = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=5), T0)
    assert empty == m.RESOURCE_REQUEST_LIST(requests=[])
    n.handle("c", m.END_NEGOTIATE(), T0)
    with pytest.raises(ScheddError, match="outside a negotiation"):
        n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=1), T0)


def test_the_startds_are_contacted_when_the_session_is_over(tmp_path: Path) -> None:
    """HTCondor's schedd claims the matched startds once it has completed negotiating: the
    contact queue is drained after the session, not between its messages."""
    ended: list[int] = []
    _q, n, matched, _ = _setup(tmp_path, ended)
    n.handle("c", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0)
    n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=1), T0)
    slot = ClassAd.parse('[ Name = "slot1@e" ]')
    n.handle("c", m.PERMISSION_AND_AD(claim_id="c1", slot_ad=slot, request_index=0), T0)
    n.handle("c", m.PERMISSION_AND_AD(claim_id="c2", slot_ad=slot, request_index=0), T0)
    assert len(matched) == 2 and ended == []
    n.handle("c", m.END_NEGOTIATE(), T0)
    assert ended == [2]
    n.close("c")  # the connection's end after END_NEGOTIATE: nothing more to start
    assert ended == [2]
    # a negotiator that goes away in the middle of a session: its matches are claimed
    n.handle("d", m.NEGOTIATE(submitter="bob@x", ad=ClassAd()), T0)
    n.handle("d", m.SEND_RESOURCE_REQUEST_LIST(count=1), T0)
    n.handle("d", m.PERMISSION_AND_AD(claim_id="c3", slot_ad=slot, request_index=0), T0)
    n.close("d")
    assert ended == [2, 3] and not n.sessions
    # a NEGOTIATE on a connection whose session never ended ends that one first
    n.handle("e", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0)
    n.handle("e", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0)
    assert ended == [2, 3, 3]


def test_procs_of_a_cluster_share_an_autocluster_only_where_their_values_agree(
        tmp_path: Path) -> None:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    q.submit("alice", "executable = /bin/true\nrequest_memory = $(mem)\n"
             "queue mem in (1, 1, 2, 2, 3, 3)\n", "/", "a", T0)
    q.submit("alice", "executable = /bin/true\nrequest_memory = 1\nqueue 3\n", "/", "b", T0)
    n = Negotiations(q, matched=lambda *a: None, pending=set(),
                     before=lambda now: None, ended=lambda: None, log=_Log())
    n.handle("c", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0)
    reply = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=50), T0)
    assert isinstance(reply, m.RESOURCE_REQUEST_LIST)
    # request_memory 1, 1, 2, 2, 3, 3 in cluster 1, 1 in cluster 2: the first two procs and
    # cluster 2 alike (the same expression), then one autocluster per expression
    counts = sorted(r.evaluate("_condor_RESOURCE_COUNT") for r in reply.requests)
    ids = {job: q.jobs[job].evaluate("AutoClusterId") for job in q.jobs}
    assert ids[(1, 0)] == ids[(1, 1)] and ids[(1, 2)] == ids[(1, 3)] != ids[(1, 0)]
    assert ids[(1, 4)] == ids[(1, 5)] not in (ids[(1, 0)], ids[(1, 2)])
    assert ids[(2, 0)] == ids[(2, 1)] == ids[(2, 2)] == ids[(1, 0)]
    assert counts == [2, 2, 5]


def test_each_match_takes_the_next_job_of_its_autocluster_and_still_sees_the_ones_passed(
        tmp_path: Path) -> None:
    # a storm cycle matches thousands of one autocluster's jobs in one session: the jobs
    # taken are passed over once, while a job skipped because it was held is taken as soon
    # as it is idle again
    q, n, matched, log = _setup(tmp_path)
    q.submit("carol", "executable = /bin/true\nqueue 6\n", "/", "d", T0)
    n.handle("c", m.NEGOTIATE(submitter="carol@x", ad=ClassAd()), T0)
    reply = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=1), T0)
    assert isinstance(reply, m.RESOURCE_REQUEST_LIST)
    assert [r.evaluate("_condor_RESOURCE_COUNT") for r in reply.requests] == [6]
    slot = ClassAd.parse('[ Name = "slot1@e" ]')

    def match() -> None:
        n.handle("c", m.PERMISSION_AND_AD(claim_id="c", slot_ad=slot, request_index=0), T0)

    match()
    q.hold((4, 1), "by hand", 1, 0, T0)
    match()
    match()
    assert [a[0] for a in matched] == [(4, 0), (4, 2), (4, 3)]
    q.release((4, 1), "by hand", T0)
    match()
    match()
    match()
    match()  # all six taken
    assert [a[0] for a in matched][3:] == [(4, 1), (4, 4), (4, 5)]
    assert log.events[-1] == "match_unused"


def _old_requests(q: JobQueue, ac: Any, owner: str, attrs: str,
                  excluded: set[Any]) -> list[Any]:
    """The requests as the schedd made them before IdleIndex: every idle job of the owner
    that needs a slot, walked and sorted at each NEGOTIATE."""
    from condorsim.jobs.codes import JobStatus
    from condorsim.jobs.managed import needs_a_slot

    idle = q.store.by_status.get(JobStatus.IDLE, set()) & q.store.by_owner.get(owner, set())
    eligible = [j for j in idle if j not in excluded and needs_a_slot(q.jobs[j])]
    return ac.requests(q.jobs, eligible, attrs, q.store.job_version)


def _seen(q: JobQueue, requests: list[Any]) -> list[Any]:
    """What a request list says: each request's jobs and ad, and every job's stamps."""
    stamps = sorted((job, str(ad.get("AutoClusterId")), str(ad.get("AutoClusterAttrs")))
                    for job, ad in q.jobs.items())
    return [[(r.jobs, str(r.ad)) for r in requests], stamps]


@pytest.mark.parametrize(("batch", "memo"), [(0, False), (16, False), (16, True)])
def test_the_kept_index_of_idle_jobs_gives_the_requests_a_walk_of_the_queue_gave(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int, memo: bool) -> None:
    """IdleIndex keeps the idle jobs by owner and autocluster from the store's changes; a
    random run of changes (priorities, statuses, requirements, new and removed jobs, jobs
    with a shadow or a match pending, the significant attributes) gives at every NEGOTIATE
    the requests and AutoClusterIds the old walk over every idle job gave (its sorted lists
    changed key by key, or rebuilt: ``batch``). With ``memo``, the index is told what
    needs_a_slot reads and reuses a job's entry for the jobs with the same constant trees;
    the changes then include universes that need no slot and a JobPrio that is an
    expression (not reused: its value depends on the job's other attributes)."""
    import random

    from condorsim.classad import parse_expression
    from condorsim.jobs.managed import NEEDS_A_SLOT_READS, needs_a_slot
    from daemons.schedd import autocluster
    from daemons.schedd.autocluster import AutoClusters, IdleIndex

    monkeypatch.setattr(autocluster, "_BATCH", batch)
    rng = random.Random(16)
    queues = []
    for side in ("old", "new"):
        q = JobQueue(tmp_path / side)
        q.open(T0)
        queues.append(q)
    index = IdleIndex(queues[1].store, AutoClusters(), needs_a_slot, NEEDS_A_SLOT_READS) \
        if memo else IdleIndex(queues[1].store, AutoClusters(), lambda ad: True)
    extra = ({"JobUniverse": 12}, {"JobUniverse": 5}, {"Managed": "External"},
             {"JobPrio": parse_expression("RequestMemory - 2")}) if memo else ()
    old_ac = AutoClusters()
    owners = ("alice", "bob")
    for step in range(120):
        op = rng.random()
        jobs = sorted(queues[0].jobs)
        if op < 0.15 or not jobs:
            owner = rng.choice(owners)
            text = (f"executable = /bin/true\nrequest_memory = {rng.choice((1, 2, 3))}\n"
                    f"priority = {rng.choice((0, 0, 5))}\nqueue {rng.randint(1, 4)}\n")
            for q in queues:
                q.submit(owner, text, "/", "s", T0 + step)
        elif op < 0.7:
            job = rng.choice(jobs)
            change = rng.choice(({"JobPrio": rng.randint(-3, 3)}, {"JobStatus": 2},
                                 {"JobStatus": 1}, {"JobStatus": 5},
                                 {"RequestMemory": rng.choice((1, 2, 4))},
                                 {"QDate": T0 - rng.randint(0, 9)}, *extra))
            for q in queues:
                q.store.change(job, change)
        elif op < 0.8:
            job = rng.choice(jobs)
            for q in queues:
                q.store.destroy(job)
        else:
            owner = rng.choice(owners)
            attrs = rng.choice(("", "", "Memory,Cpus", "Cpus"))
            excluded = set(rng.sample(jobs, min(len(jobs), rng.randint(0, 3))))
            old = _old_requests(queues[0], old_ac, owner, attrs, excluded)
            new = index.requests(owner, attrs, (excluded, set()))
            assert _seen(queues[1], new) == _seen(queues[0], old), step


def test_jobs_sharing_a_jobprio_expression_are_ordered_by_its_value_in_each(
        tmp_path: Path) -> None:
    """The procs of a cluster share their trees, and the schedd reuses a job's priority
    for the jobs with the same trees only when they are constants: a JobPrio that refers
    to another attribute (one tree, shared) orders the jobs by its value in each."""
    from condorsim.classad import parse_expression

    q, n, _, _ = _setup(tmp_path)
    prio = parse_expression("RequestMemory * 10")
    for proc, memory in ((0, 1), (1, 3)):
        q.store.change((1, proc), {"JobPrio": prio, "RequestMemory": memory})
    q.store.change((2, 0), {"JobPrio": prio})  # RequestMemory 2
    n.handle("c", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0)
    reply = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=10), T0)
    assert isinstance(reply, m.RESOURCE_REQUEST_LIST)
    assert [r.evaluate("ProcId") * 10 + r.evaluate("ClusterId") for r in reply.requests] \
        == [11, 2, 1]  # job 1.1 (JobPrio 30), 2.0 (20), 1.0 (10)
