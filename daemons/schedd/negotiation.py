"""The schedd's side of a negotiation, one session per negotiator connection.

How this works
--------------
NEGOTIATE opens a session for a submitter: the idle jobs of that owner (no shadow, no
claim being requested) are grouped into autoclusters, in job priority order. Each
SEND_RESOURCE_REQUEST_LIST hands out the next ``count`` requests; ``request_index`` of a
PERMISSION_AND_AD or REJECTED_WITH_REASON counts within the latest list. A match takes
the first job of the autocluster not yet matched in the session and is passed to
``matched`` (the claim keeper, which queues the contact with the startd); a rejection is written into the request's job, the
autocluster's representative (LastRejMatchReason, LastRejMatchTime, in job_queue.log as
HTCondor's NONDURABLE SetAttribute). END_NEGOTIATE closes the session, and so does the
connection's end or a new NEGOTIATE on it; then ``ended`` is called, which starts the
claims of the matches queued (HTCondor's schedd claims its startds once it has completed
negotiating: its contact queue is drained by a zero-second timer, after the session).
No I/O: the runner feeds messages and sends the replies.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd
from condorsim.jobs.codes import JobStatus
from condorsim.jobs.managed import NEEDS_A_SLOT_READS, needs_a_slot
from condorsim.wire import Message
from condorsim.wire import messages as m

from .autocluster import AutoClusters, IdleIndex, Request
from .queue import JobQueue
from .store import JobId, ScheddError


@dataclass
class Session:
    """One negotiation (one submitter) on one connection."""

    owner: str
    attrs: str
    requests: list[Request] = field(default_factory=list)
    pending: list[Request] = field(default_factory=list)
    taken: set[JobId] = field(default_factory=set)


class Negotiations:
    def __init__(self, queue: JobQueue, *,
                 matched: Callable[[JobId, str, ClassAd, int], None],
                 pending: Collection[JobId],
                 before: Callable[[int], None], ended: Callable[[], None],
                 log: Any) -> None:
        self.queue = queue
        self.autoclusters = AutoClusters()
        # the idle jobs that need a slot (service_this_universe), by owner and autocluster
        self.idle = IdleIndex(queue.store, self.autoclusters, needs_a_slot, NEEDS_A_SLOT_READS)
        self.matched = matched
        self.pending = pending
        self.before = before
        self.ended = ended
        self.log = log
        self.sessions: dict[object, Session] = {}

    def close(self, key: object) -> None:
        """The session of connection ``key`` is over (END_NEGOTIATE, or the connection
        ended without it): the startds of its matches are contacted."""
        if self.sessions.pop(key, None) is not None:
            self.ended()

    def handle(self, key: object, msg: Message, now: int) -> Message | None:
        """Feed one negotiation message of connection ``key``; the reply, if any."""
        q = self.queue
        if isinstance(msg, m.NEGOTIATE):
            attrs = msg.ad.evaluate("AutoClusterAttrs")
            owner = msg.submitter.split("@", 1)[0]
            session = Session(owner, attrs if isinstance(attrs, str) else "")
            if key in self.sessions:  # a NEGOTIATE without END_NEGOTIATE before it
                self.ended()
            self.sessions[key] = session
            self.before(now)  # CronTab times are brought up to date first
            session.pending = self.idle.requests(owner, session.attrs,
                                                 (q.has_shadow, self.pending))
            return None
        current = self.sessions.get(key)
        if current is None:
            raise ScheddError(f"{msg.command} outside a negotiation")
        session = current
        if isinstance(msg, m.SEND_RESOURCE_REQUEST_LIST):
            batch = session.pending[: max(0, msg.count)]
            session.pending = session.pending[len(batch):]
            session.requests = batch
            return m.RESOURCE_REQUEST_LIST(requests=[r.ad for r in batch])
        if isinstance(msg, m.END_NEGOTIATE):
            self.close(key)
            return None
        if not isinstance(msg, (m.PERMISSION_AND_AD, m.REJECTED_WITH_REASON)):
            raise ScheddError(f"{msg.command} is not part of a negotiation")
        index = msg.request_index
        if not 0 <= index < len(session.requests):
            self.log.warning("bad_request_index", index=index)
            return None
        req = session.requests[index]
        if isinstance(msg, m.REJECTED_WITH_REASON):
            # scheduler_handleJobRejected: the request's job (the autocluster's
            # representative) gets LastRejMatchReason and LastRejMatchTime by SetAttribute,
            # NONDURABLE -- in job_queue.log (not fsync'ed), so the job router sees them
            # (the seed's +WantJobRouter = LastRejMatchTime =!= UNDEFINED)
            job = req.jobs[0] if req.jobs else None
            if job is not None and job in q.jobs:
                q.store.change(job, {"LastRejMatchReason": msg.reason,
                                     "LastRejMatchTime": now})
            return None
        # the first job of the autocluster not taken in this session and still idle; the
        # taken ones at its head are passed over once, not at every match (a storm cycle
        # matches thousands of one autocluster's jobs: scanning from the start each time
        # cost O(matches^2))
        jobs, taken = req.jobs, session.taken
        first = req.first
        while first < len(jobs) and jobs[first] in taken:
            first += 1
        req.first = first
        for i in range(first, len(jobs)):
            job = jobs[i]
            if job in taken or job not in q.jobs or q.status(job) != JobStatus.IDLE:
                continue
            taken.add(job)
            slot = msg.slot_ad.evaluate("Name")
            self.log.info("match_received", job=f"{job[0]}.{job[1]}",
                          slot=slot if isinstance(slot, str) else "?",
                          request=f"{req.jobs[0][0]}.{req.jobs[0][1]}")
            self.matched(job, msg.claim_id, msg.slot_ad, now)
            return None
        self.log.info("match_unused", claim=msg.claim_id.split("#", 1)[0])
        return None
