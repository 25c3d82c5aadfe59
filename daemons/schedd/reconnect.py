"""A restarted schedd and its running jobs; a restarted shadow and the jobs it lost.

How this works
--------------
HTCondor's schedd, starting, spawns a shadow in reconnect mode for each job its log shows
Running with a valid job lease (``JobLeaseDuration`` and ``LastJobLeaseRenewal``), and
marks the others stopped. The shadow writes JOB_RECONNECTED (023) and goes on, or
JOB_RECONNECT_FAILED (024) and exits JOB_RECONNECT_FAILED: the job is requeued.

In condorsim the shadow is one process that outlives the schedd, its job instances still
running. So the restarted schedd keeps every job with a recorded claim Running
(:func:`~.running.recover_after_restart`), adopts its claim (ALIVEs resume) and asks the
shadow with SHADOW_RECONNECT:

* lease valid, the shadow has the instance (OK): the job is reconnected -- the shadow's
  updates and its SHADOW_EXIT come to this schedd; the claim is released after the job
  (its slot ad is not in the job queue, so it is not offered to another job);
* lease valid, no instance (FAILED, or no shadow to ask): JOB_RECONNECT_FAILED with
  "Job not found at execution machine", the job is requeued, the claim released (the
  startd stops whatever still runs on it);
* no lease, or it expired: the job is requeued with no event, the claim released; the
  shadow ends its instance without a word;
* the job ended while the schedd was down (the shadow is retrying its SHADOW_EXIT, or
  kept it): the shadow answers with that SHADOW_EXIT, lease or not, and the job ends once
  (its JOB_TERMINATED is already in the user log; running it again would end it twice). So too for a job held or removed while it ran
  whose shadow had not exited: it stays held, or leaves for the history.

A SHADOW_EXIT that arrives while the question is out ends the job as usual; the answer
then finds nothing to do. A shadow process that starts tells its schedd (SHADOW_STARTED):
jobs handed to a shadow at another address are gone with it, and are requeued with no
event and their claims released, as HTCondor's schedd does when it reaps a shadow that
died of a signal (``kill_zombie``: ``mark_job_stopped``).
"""

from __future__ import annotations

import trio

from condorsim.classad import ClassAd
from condorsim.jobs.codes import JobStatus, ShadowExit
from condorsim.wire import Message
from condorsim.wire import messages as m

from .claims import Claim, ClaimKeeper
from .host import ScheddHost
from .queue import _str
from .store import JobId, job_str

NOT_FOUND = "Job not found at execution machine"
PEER_ERRORS = (OSError, trio.BrokenResourceError, trio.EndOfChannel)


class Reconnector:
    def __init__(self, schedd: ScheddHost, claims: ClaimKeeper) -> None:
        self.schedd = schedd
        self.ctx = schedd.ctx
        self.claims = claims

    def start(self, jobs: list[tuple[JobId, bool]], now: int) -> None:
        """Adopt the claims of the jobs a restart found running and ask the shadow."""
        q = self.schedd.queue
        assert q is not None
        for job, lease_ok in jobs:
            ad = q.jobs[job]
            slot = ClassAd()
            host = _str(ad, "RemoteHost")
            if host is not None:
                slot["Name"] = host
            claim = Claim(str(_str(ad, "ClaimId")), str(_str(ad, "StartdIpAddr")), slot,
                          created=now, job=job, closing=True)
            self.claims.adopt(claim)
            self.ctx.log.info("job_reconnecting", job=job_str(job), lease=lease_ok)
            self.schedd.start_task(self._ask, job, claim, lease_ok)

    async def _ask(self, job: JobId, claim: Claim, lease_ok: bool) -> None:
        msg = m.SHADOW_RECONNECT(job=job_str(job), claim_id=claim.claim_id, reconnect=lease_ok)
        addr = await self.claims._shadow()
        reply: Message | None = None
        if addr is not None:
            try:
                async with await self.ctx.connect(addr, "shadow") as conn:
                    reply = await conn.request(msg)
            except PEER_ERRORS as e:
                self.ctx.log.warning("shadow_unreachable", cmd=msg.command, error=str(e))
                self.claims._shadow_addr = None
        q = self.schedd.queue
        assert q is not None
        if job not in q.has_shadow or self.claims.claim_of(job) is not claim:
            return  # its SHADOW_EXIT came first: the job is over
        now = int(trio.current_time())
        if isinstance(reply, m.SHADOW_EXIT) and reply.job == job_str(job):
            # The job ended while no schedd listened (its terminate event is written): it
            # ends here once, lease or not, rather than running again.
            self.ctx.log.info("job_ended_while_down", job=job_str(job), code=reply.exit_code)
            self.claims.shadow_exit(job, reply.exit_code, reply.ad, now)
            return
        if lease_ok and isinstance(reply, m.OK):
            claim.shadow_addr = addr
            self.ctx.log.info("job_reconnected", job=job_str(job))
            return
        if lease_ok:
            reason = reply.reason if isinstance(reply, m.FAILED) else NOT_FOUND
            q.userlogs.reconnect_failed(q.jobs[job], now, reason,
                                        _str(q.jobs[job], "RemoteHost") or claim.startd_addr)
            self.ctx.log.info("job_reconnect_failed", job=job_str(job), reason=reason)
        elif q.status(job) in (JobStatus.RUNNING, JobStatus.SUSPENDED):
            self.ctx.log.info("job_requeued_after_restart", job=job_str(job))
        self.claims.shadow_exit(job, ShadowExit.JOB_RECONNECT_FAILED, ClassAd(), now)

    def shadow_started(self, address: str, now: int) -> None:
        """A shadow process started at ``address``: jobs run by another one are lost."""
        self.claims._shadow_addr = address
        lost = sorted((c.job, c) for c in self.claims.claims.values()
                      if c.job is not None and c.shadow_addr not in (None, address))
        for job, claim in lost:
            self.ctx.log.info("job_lost_with_shadow", job=job_str(job),
                              shadow=claim.shadow_addr)
            claim.closing = True
            self.claims.shadow_exit(job, ShadowExit.JOB_EXCEPTION, ClassAd(), now)
