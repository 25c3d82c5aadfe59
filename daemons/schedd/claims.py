"""The schedd's claims: from a match to a running shadow, keep-alives, reuse, release.

How this works
--------------
``matched`` (a PERMISSION_AND_AD) marks the job pending and queues the contact with the
slot's startd; ``contact_startds``, called when a negotiation session ends (as HTCondor's
``Scheduler::checkContactQueue`` timer, registered at the match "to start the process of
claiming the startds *after* we have completed negotiating"), starts one task per queued
match that sends REQUEST_CLAIM; on acceptance the claim is kept and its job started: marked running in the queue
(:func:`~.running.mark_running`) and handed to the shadow with SHADOW_START (the job ad
with ``$$()`` expanded). The shadow is found through the collector: the ad of MyType
"Shadow" whose ``ScheddDaemon`` names this schedd. When a shadow exits, the claim is
offered to the next idle job that matches the slot -- decided at the end of the instant,
in (time, claim id) order, for determinism -- or released when CLAIM_WORKLIFE is over or
no job fits.

Keep-alives are one periodic timer of the schedd, as HTCondor's (``Scheduler::sendAlives``,
registered to fire 10 s after the schedd starts and then every alive interval): each firing
sends ALIVE to every claim held, in one instant (the claims held once the instant is over,
after the claims of shadows that exit at the same instant were reused or released: the
order the two are heard in must not change the run). The interval is ALIVE_INTERVAL, lowered to
JobLeaseDuration/3 (floor 10 s) of the job with the shortest lease that has had a shadow,
and then the timer fires 10 s after that job's start and every new interval from there
(``Scheduler::RecomputeAliveInterval``). A claim made just after a firing waits at most one
interval for its first ALIVE; the startd's lease is MAX_CLAIM_ALIVES_MISSED (6) intervals.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import trio

from condorsim.classad import (
    ClassAd,
    DollarDollarError,
    EvalContext,
    ExprTree,
    expand_dollar_dollar,
    symmetric_match,
)
from condorsim.classad._tree import Literal
from condorsim.classad._unparse import unparse
from condorsim.jobs.codes import HoldCode, JobStatus, ShadowExit
from condorsim.jobs.managed import needs_a_slot
from condorsim.runtime.pipeline import RequestPipe
from condorsim.wire import Message, ProtocolError
from condorsim.wire import messages as m

from .autocluster import priority_key
from .host import ScheddHost
from .queue import JobQueue, _int
from .running import mark_running, shadow_exited
from .store import JobId, QueueWriteError, SortedJobs, job_str

ALIVE_FIRST = 10  # the keep-alive timer's first firing after the schedd starts (s)
ALIVE_FLOOR = 10  # the shortest keep-alive interval a job's lease can ask for (s)
# ALIVEs of one firing in flight at once: each was a connection of its own, and ten thousand
# at once ran the startd out of file descriptors (EMFILE); the same ALIVEs are sent in the
# same instant (simulated time does not move while they are in flight)
ALIVE_CONNECTIONS = 256
# Connections of the schedd's own to startds open at once (REQUEST_CLAIM, RELEASE_CLAIM): the
# P2 storm's 10,000 claim requests to the one startd process at once overflowed its listen
# queue, and a fifth of them were reset ("Connection reset by peer") and matched again a
# cycle later; in flight 256 at a time they are the same messages at the same instant.
STARTD_CONNECTIONS = 256


_DOLLAR_TEXTS: dict[int, tuple[ExprTree, bool]] = {}
"""Per expression (by identity; the entry keeps its tree alive, so an id is not reused while
it is there): whether its old-syntax text holds "$$". The procs of a cluster share most
of their trees, so a job's start looks most of them up instead of printing them."""
_DOLLAR_TEXTS_MAX = 4096


def may_hold_dollar_dollar(ad: ClassAd) -> bool:
    """False when no attribute's old-syntax text holds "$$": :func:`expand_dollar_dollar`
    then gives a plain copy of ``ad`` (it expands only the attributes whose text holds
    "$$"). True may be said of an ad it leaves as it is (a match_* attribute)."""
    kept = _DOLLAR_TEXTS
    for _, tree in ad.pairs():
        if type(tree) is Literal:
            # a string's old-syntax text is the string with \" for each quote: "$$" in one
            # is "$$" in the other; no other literal's text has a "$"
            value = tree.value
            if type(value) is str and "$$" in value:
                return True
            continue
        hit = kept.get(id(tree))
        if hit is not None and hit[0] is tree:
            found = hit[1]
        else:
            found = "$$" in unparse(tree, old_syntax=True)
            if len(kept) >= _DOLLAR_TEXTS_MAX:
                kept.clear()  # a bound, not an order
            kept[id(tree)] = (tree, found)
        if found:
            return True
    return False


def job_ad_for_shadow(job_ad: ClassAd, slot_ad: ClassAd, ctx: EvalContext) -> ClassAd:
    """The job ad with its $$() filled in from the slot (:func:`expand_dollar_dollar`),
    without printing every attribute of a job that has none."""
    if not may_hold_dollar_dollar(job_ad):
        return job_ad.copy()
    return expand_dollar_dollar(job_ad, slot_ad, ctx)


@dataclass
class Claim:
    claim_id: str
    startd_addr: str
    slot_ad: ClassAd
    created: int
    job: JobId | None = None
    closing: bool = False
    shadow_addr: str | None = None  # the shadow process that runs its job


class ClaimKeeper:
    def __init__(self, schedd: ScheddHost) -> None:
        self.schedd = schedd
        self.ctx = schedd.ctx
        self.claims: dict[str, Claim] = {}
        self.pending: set[JobId] = set()
        self._contacts: list[tuple[JobId, str, ClassAd]] = []
        self.qedits: dict[JobId, set[str]] = {}
        self._shadow_addr: str | None = None
        self._alive_wakeup = trio.Event()
        self._alive_next = math.inf
        self._alive_limit = trio.CapacityLimiter(ALIVE_CONNECTIONS)
        self._startd_limit = trio.CapacityLimiter(STARTD_CONNECTIONS)
        self._alive_pipes: dict[str, RequestPipe] = {}
        self._to_shadow = RequestPipe(self.ctx.connect, schedd.start_task, "shadow")
        """SHADOW_START down one kept connection to the shadow process (HTCondor forks a
        shadow per job; condorsim's one shadow process hosts them all), pipelined."""
        self._idle: SortedJobs[tuple[float, int, int, int]] | None = None
        cfg = self.ctx.config
        # the keep-alive timer's period: ALIVE_INTERVAL, or less for a job with a short lease
        self.alive_interval = cfg.get_int("ALIVE_INTERVAL", 300)

    @property
    def queue(self) -> JobQueue:
        q = self.schedd.queue
        assert q is not None
        return q

    def claim_of(self, job: JobId) -> Claim | None:
        for claim in self.claims.values():
            if claim.job == job:
                return claim
        return None

    def adopt(self, claim: Claim) -> None:
        """Keep a claim the schedd did not make in this life (a job it reconnects)."""
        self.claims[claim.claim_id] = claim
        if claim.job is not None:
            self._lease_of(self.queue.jobs.get(claim.job))

    # -- from a match to a claim

    def matched(self, job: JobId, claim_id: str, slot_ad: ClassAd, now: int) -> None:
        """A match from the negotiator: the job is pending, its startd contacted when the
        negotiation session is over (:meth:`contact_startds`)."""
        self.pending.add(job)
        self._contacts.append((job, claim_id, slot_ad))

    def contact_startds(self) -> None:
        """Start claiming every queued match (MAX_PENDING_STARTD_CONTACTS is 0: no limit)."""
        contacts, self._contacts = self._contacts, []
        for job, claim_id, slot_ad in contacts:
            self.schedd.start_task(self._request_claim, job, claim_id, slot_ad)

    async def _request_claim(self, job: JobId, claim_id: str, slot_ad: ClassAd) -> None:
        q = self.queue
        addr = slot_ad.evaluate("MyAddress")
        if not isinstance(addr, str) or job not in q.jobs:
            self.pending.discard(job)
            return
        job_ad = q.jobs[job]  # the ad as matched (the job may leave while this waits)
        try:
            async with self._startd_limit, await self.ctx.connect(addr, "startd") as conn:
                reply = await conn.request(m.REQUEST_CLAIM(
                    claim_id=claim_id, job_ad=job_ad, scheduler_addr=self.schedd.address))
        except (OSError, trio.BrokenResourceError, trio.EndOfChannel) as e:
            self.ctx.log.warning("request_claim_failed", job=job_str(job), error=str(e))
            self.pending.discard(job)
            return
        if not isinstance(reply, m.CLAIM_RESPONSE) or not reply.accepted:
            reason = reply.reason if isinstance(reply, (m.CLAIM_RESPONSE, m.FAILED)) else "?"
            self.ctx.log.info("claim_refused", job=job_str(job), reason=reason)
            self.pending.discard(job)
            return
        now = int(trio.current_time())
        claim = Claim(claim_id, addr, reply.slot_ad or slot_ad, now)
        self.claims[claim_id] = claim
        self.ctx.log.info("claimed", job=job_str(job), claim=claim_id)
        await self._start_job(claim, job)

    async def _start_job(self, claim: Claim, job: JobId) -> None:
        q = self.queue
        now = int(trio.current_time())
        if job not in q.jobs or q.status(job) != JobStatus.IDLE or job in q.has_shadow or \
                not needs_a_slot(q.jobs[job]):  # e.g. the router claimed it meanwhile
            self.pending.discard(job)
            self._offer(claim)
            return
        try:
            mark_running(q, job, claim_id=claim.claim_id, slot_ad=claim.slot_ad,
                         startd_addr=claim.startd_addr, now=now)
        except QueueWriteError as e:
            # job_queue.log refused the change: the job stays idle, the claim goes back
            self.ctx.log.error("job_not_started", job=job_str(job), error=str(e))
            claim.closing = True
            self._offer(claim)
            return
        finally:
            self.pending.discard(job)
        claim.job = job
        self._lease_of(q.jobs[job])
        try:
            ad = job_ad_for_shadow(q.jobs[job], claim.slot_ad, EvalContext(now=now))
        except DollarDollarError as e:
            shadow_exited(q, job, ShadowExit.JOB_NOT_STARTED, ClassAd(), now)
            q.hold(job, f"Cannot expand $$({e})", HoldCode.UNSPECIFIED, 0, now)
            claim.job = None
            self._offer(claim)
            return
        addr = await self._shadow()
        reply: Message | None = None
        if addr is not None:
            try:
                reply = await self._to_shadow.request(addr, m.SHADOW_START(
                    job_ad=ad, claim_id=claim.claim_id, startd_addr=claim.startd_addr,
                    slot_ad=claim.slot_ad, schedd_addr=self.schedd.address))
            except (OSError, trio.BrokenResourceError, trio.EndOfChannel, ProtocolError) as e:
                self.ctx.log.warning("shadow_unreachable", error=str(e))
                self._shadow_addr = None
        if not isinstance(reply, m.OK):
            self.ctx.log.warning("shadow_start_failed", job=job_str(job))
            shadow_exited(q, job, ShadowExit.JOB_NOT_STARTED, ClassAd(), int(trio.current_time()))
            claim.job = None
            claim.closing = True
            self._offer(claim)
            return
        claim.shadow_addr = addr
        self.ctx.log.info("shadow_started", job=job_str(job))

    async def _shadow(self) -> str | None:
        if self._shadow_addr is None:
            ads = await self.schedd.query_collector(m.QUERY_GENERIC_ADS(
                adtype="Shadow", constraint=f'ScheddDaemon == "{self.ctx.name}"',
                projection=["MyAddress"]))
            for ad in ads:
                addr = ad.evaluate("MyAddress")
                if isinstance(addr, str):
                    self._shadow_addr = addr
                    break
        return self._shadow_addr

    # -- the shadow's exit and the claim's next job

    def shadow_exit(self, job: JobId, exit_code: int, final: ClassAd, now: int) -> None:
        q = self.queue
        if job not in q.has_shadow:
            # A shadow of an earlier schedd life, or a repeated report: nothing runs here.
            self.ctx.log.info("stale_shadow_exit", job=job_str(job), code=exit_code)
            return
        claim = self.claim_of(job)
        try:
            outcome = shadow_exited(q, job, exit_code, final, now, self.schedd.tz)
        except QueueWriteError:
            # part of it may be in job_queue.log already: the shadow is told FAILED and
            # sends its exit again, which must find the job still its (each step repeats
            # harmlessly)
            q.has_shadow.add(job)
            raise
        self.ctx.log.info("shadow_exited", job=job_str(job), code=exit_code, outcome=outcome)
        self.qedits.pop(job, None)
        if claim is None:
            return
        claim.job = None
        if exit_code == ShadowExit.JOB_EXITED_AND_CLAIM_CLOSING:
            self._closed_by_startd(claim)
            return
        if exit_code in (ShadowExit.JOB_RECONNECT_FAILED, ShadowExit.JOB_NOT_STARTED):
            claim.closing = True
        self._offer(claim)

    def _closed_by_startd(self, claim: Claim) -> None:
        """The startd shuts the claim down itself: the match is forgotten without
        RELEASE_CLAIM, as HTCondor's schedd deletes it for JOB_EXITED_AND_CLAIM_CLOSING
        (``needs_release_claim = false``; the startd had answered its shadow's
        DEACTIVATE_CLAIM with "closing")."""
        del self.claims[claim.claim_id]
        self.ctx.log.info("claim_closed_by_startd", claim=claim.claim_id)

    def _offer(self, claim: Claim) -> None:
        """At the end of this instant: run the best idle job that fits, or release."""
        now = int(trio.current_time())
        self.ctx.at_end_of_instant((now, claim.claim_id), lambda: self._reuse(claim))

    def _reuse(self, claim: Claim) -> None:
        q = self.queue
        now = int(trio.current_time())
        if self.claims.get(claim.claim_id) is not claim or claim.job is not None:
            return
        # CLAIM_WORKLIFE is the startd's (its slot ad carries it): a claim older than that
        # takes no more jobs, and the startd shuts it down as its job exits -- HTCondor's
        # shadow learns so from DEACTIVATE_CLAIM's reply and exits with
        # JOB_EXITED_AND_CLAIM_CLOSING, and its schedd sends no RELEASE_CLAIM.
        worklife = claim.slot_ad.evaluate("CLAIM_WORKLIFE")
        if type(worklife) is int and 0 <= worklife < now - claim.created:
            self._closed_by_startd(claim)
            return
        if not claim.closing:
            ctx = EvalContext(now=now)
            for job in self._idle_by_priority():
                if q.status(job) != JobStatus.IDLE or job in q.has_shadow \
                        or job in self.pending or not needs_a_slot(q.jobs[job]):
                    continue
                if symmetric_match(q.jobs[job], claim.slot_ad, ctx):
                    self.pending.add(job)
                    self.schedd.start_task(self._start_job, claim, job)
                    return
        del self.claims[claim.claim_id]
        self.schedd.start_task(self._release, claim)

    def _idle_by_priority(self) -> Iterator[JobId]:
        """The idle jobs in priority order (JobPrio, QDate, job id: unique keys), kept
        sorted from the store's changes: a job changed since the last look moves to its new
        place, the others keep theirs (no sort of every idle job per state of the queue).
        The caller still checks each job as it is now, and walks the order without
        changing the queue meanwhile."""
        store = self.queue.store
        if self._idle is None or self._idle.store is not store:
            self._idle = SortedJobs(store, JobStatus.IDLE, priority_key)
        return (job for _, job in self._idle.ordered())

    async def _release(self, claim: Claim) -> None:
        await self._to_startd(claim, m.RELEASE_CLAIM(claim_id=claim.claim_id))
        self.ctx.log.info("claim_released", claim=claim.claim_id)

    async def _to_startd(self, claim: Claim, msg: Message) -> Message | None:
        try:
            async with self._startd_limit, await self.ctx.connect(claim.startd_addr,
                                                                  "startd") as conn:
                return await conn.request(msg)
        except (OSError, trio.BrokenResourceError, trio.EndOfChannel) as e:
            self.ctx.log.warning("startd_unreachable", cmd=msg.command, error=str(e))
            return None

    # -- keep-alives

    def _lease_of(self, ad: ClassAd | None) -> None:
        """A job got a shadow: a JobLeaseDuration whose third (floor 10 s) is shorter than the
        keep-alive interval becomes the interval, the next firing 10 s from now."""
        lease = _int(ad, "JobLeaseDuration", 0) if ad is not None else 0
        if lease <= 0:
            return
        interval = max(ALIVE_FLOOR, lease // 3)
        if interval < self.alive_interval:
            self.alive_interval = interval
            self._alive_next = trio.current_time() + ALIVE_FIRST
            self._alive_wakeup.set()

    async def alive_loop(self) -> None:
        """The keep-alive timer: ALIVE to every claim held, at each firing."""
        self._alive_next = trio.current_time() + ALIVE_FIRST
        while True:
            with trio.move_on_at(self._alive_next):
                await self._alive_wakeup.wait()
            self._alive_wakeup = trio.Event()
            now = trio.current_time()
            if now < self._alive_next:
                continue  # the interval changed: wait for the new deadline
            # The claims held once this instant is over: a shadow exiting at this instant
            # reports in any order against the timer, and its claim is reused or released
            # first (the "~" key sorts after every claim id, "<address>#...").
            swept = trio.Event()
            self.ctx.at_end_of_instant((int(now), "~schedd keep-alives"), swept.set)
            await swept.wait()
            for claim in sorted(self.claims.values(), key=lambda c: c.claim_id):
                self.schedd.start_task(self._alive, claim)
            # a period of 0 is a timer that fires once, as daemonCore's
            self._alive_next = now + self.alive_interval if self.alive_interval > 0 else math.inf

    async def _alive(self, claim: Claim) -> None:
        """ALIVE to the claim's startd. The keep-alives of one firing to one startd share a
        connection kept between firings, each sent without waiting for the replies before
        it (:class:`RequestPipe`): the messages are HTCondor's, a connection each is not
        (at 10,000 claims that was 10,000 connects, accepts and pool-key checks a firing)."""
        address = claim.startd_addr
        pipe = self._alive_pipes.get(address)
        if pipe is None:
            pipe = self._alive_pipes[address] = RequestPipe(
                self.ctx.connect, self.schedd.start_task, "startd")
        msg = m.ALIVE(claim_id=claim.claim_id)
        async with self._alive_limit:
            try:
                reply: Message | None = await pipe.request(address, msg)
            except (OSError, trio.BrokenResourceError, trio.EndOfChannel, ProtocolError) as e:
                self.ctx.log.warning("startd_unreachable", cmd=msg.command, error=str(e))
                reply = None
        if isinstance(reply, m.FAILED) and self.claims.get(claim.claim_id) is claim:
            self.ctx.log.info("claim_lost", claim=claim.claim_id)
            if claim.job is None:
                del self.claims[claim.claim_id]

    # -- user actions on running jobs

    def tell_shadow(self, job: JobId, action: str, reason: str) -> None:
        q = self.queue
        ad = q.jobs.get(job)
        text = job_str(job)
        msg: Message
        if action == "hold":
            msg = m.SHADOW_HOLD(job=text, reason=str(ad.evaluate("HoldReason")) if ad else reason,
                                code=_int(ad, "HoldReasonCode", 1) if ad else 1,
                                subcode=_int(ad, "HoldReasonSubCode") if ad else 0)
        elif action == "remove":
            msg = m.SHADOW_REMOVE(job=text, reason=str(ad.evaluate("RemoveReason")) if ad
                                  else reason)
        elif action == "suspend":
            msg = m.SHADOW_SUSPEND(job=text)
        elif action == "continue":
            msg = m.SHADOW_CONTINUE(job=text)
        elif action == "vacate":
            msg = m.SHADOW_VACATE(job=text)
            claim = self.claim_of(job)
            if claim is not None:
                claim.closing = True
        else:
            return
        self.schedd.start_task(self._send_shadow, msg)

    def note_qedit(self, job: JobId, attr: str) -> None:
        self.qedits.setdefault(job, set()).add(attr)
        ad = self.queue.jobs.get(job)
        if ad is None or ad.lookup(attr) is None:
            return
        change = ClassAd()
        change[attr] = ad.lookup(attr)
        self.schedd.start_task(self._send_shadow, m.SHADOW_QEDIT(job=job_str(job), ad=change))

    def take_qedits(self, job: JobId) -> ClassAd:
        out = ClassAd()
        ad = self.queue.jobs.get(job)
        for attr in sorted(self.qedits.pop(job, set())):
            tree = ad.lookup(attr) if ad is not None else None
            if tree is not None:
                out[attr] = tree
        return out

    async def _send_shadow(self, msg: Message) -> None:
        addr = await self._shadow()
        if addr is None:
            self.ctx.log.warning("no_shadow", cmd=msg.command)
            return
        try:
            async with await self.ctx.connect(addr, "shadow") as conn:
                await conn.request(msg)
        except (OSError, trio.BrokenResourceError, trio.EndOfChannel) as e:
            self.ctx.log.warning("shadow_unreachable", cmd=msg.command, error=str(e))
            self._shadow_addr = None
