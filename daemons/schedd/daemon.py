"""condor_schedd's runner: the wire in front of :class:`~.queue.JobQueue`.

How this works
--------------
Serves the tools (SUBMIT_JOBS, ACT_ON_JOBS, QEDIT, QUERY_JOB_ADS, QUERY_HISTORY), the
negotiator (NEGOTIATE / SEND_RESOURCE_REQUEST_LIST / PERMISSION_AND_AD /
REJECTED_WITH_REASON / END_NEGOTIATE on one connection, kept per connection in
``_sessions``) and the shadow (SHADOW_UPDATE, SHADOW_EXIT, SHADOW_STARTED). Timers: the collector update
(every SCHEDD_INTERVAL, and SCHEDD_MIN_INTERVAL after a queue change), the periodic policy
(PERIODIC_EXPR_INTERVAL) and the claims' keep-alives. The schedd's cron jobs (cron.py) add
their output to the schedd ad. Claims live in :mod:`.claims`.
After a restart, the jobs the log shows running are reconnected (:mod:`.reconnect`).
A bad request is answered with FAILED and logged; the schedd carries on.
"""

from __future__ import annotations

from typing import Any

import trio

from condorsim.classad import ClassAd, ClassAdError
from condorsim.jobs.codes import JobStatus
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.wire import Message
from condorsim.wire import messages as m

from .claims import ClaimKeeper
from .cron import ScheddCron
from .history import read_history
from .negotiation import Negotiations
from .policy import evaluate_periodic
from .queue import JobQueue
from .reconnect import Reconnector
from .running import apply_shadow_ad, recover_after_restart, update_cron
from .store import JobId, ScheddError, job_str

QUEUE_COMMANDS = ("SUBMIT_JOBS", "ACT_ON_JOBS", "QEDIT", "QUERY_JOB_ADS", "QUERY_HISTORY")


def _parse_job(text: str) -> JobId | None:
    c, _, p = text.partition(".")
    return (int(c), int(p)) if c.isdigit() and p.isdigit() else None


class Schedd:
    def __init__(self) -> None:
        self.queue: JobQueue | None = None
        self._wakeup = trio.Event()
        self._last_owners: set[str] = set()

    # -- life cycle

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self.ctx = ctx
        cfg = ctx.config
        self.tz = cfg.get("SIM_TIMEZONE") or "UTC"
        self.name = cfg.get("SCHEDD_NAME") or "schedd@localhost"
        self.uid_domain = cfg.get("UID_DOMAIN") or "localhost"
        supers = cfg.get_list("QUEUE_SUPER_USERS") if cfg.get("QUEUE_SUPER_USERS") else [
            "root", "condor"]
        now = int(trio.current_time())
        spool = ctx.path("SPOOL", "spool")
        self.queue = JobQueue(spool, history=ctx.path("HISTORY", str(spool / "history")),
                              tz=self.tz, super_users=supers,
                              on_warning=lambda w: ctx.log.warning("user_log_failed", error=w))
        try:
            self.queue.open(now)
        except ScheddError as e:
            ctx.log.error("job_queue_unreadable", error=str(e))
            raise
        for w in self.queue.store.warnings:
            ctx.log.warning("job_queue_warning", warning=w)
        recovery = recover_after_restart(self.queue, now)
        for job in recovery.requeued:
            ctx.log.info("job_requeued_after_restart", job=job_str(job))
        self._refresh_schedd_interval()
        self._cron_all(now)
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                self.address = await nursery.start(
                    lambda task_status: ctx.serve(self._handle, task_status=task_status))
                self.host = self.address
                self.queue.userlogs.host = self.address
                self.claims = ClaimKeeper(self)
                self.reconnector = Reconnector(self)
                self.reconnector.start(recovery.reconnect, now)
                self.negotiations = Negotiations(
                    self.queue, matched=self.claims.matched, is_pending=self.claims.is_pending,
                    before=self._cron_all, log=ctx.log)
                self.cron = ScheddCron(ctx)
                nursery.start_soon(self.cron.runner.run)
                nursery.start_soon(self._update_loop)
                nursery.start_soon(self._policy_loop)
                nursery.start_soon(self.claims.alive_loop)
                ctx.log.info("schedd_started", jobs=len(self.queue.jobs),
                             next_cluster=self.queue.store.next_cluster)
                task_status.started(self.address)
        finally:
            self.queue.store.close()

    def poke(self) -> None:
        """The queue changed: the collector update comes soon."""
        self._wakeup.set()

    # -- timers

    async def _update_loop(self) -> None:
        assert self.queue is not None
        cfg = self.ctx.config
        interval = cfg.get_int("SCHEDD_INTERVAL", 300)
        min_interval = cfg.get_int("SCHEDD_MIN_INTERVAL", 5)
        last = -1e18
        while True:
            now = trio.current_time()
            due = last + interval
            if self.queue.changed:
                due = min(due, max(now, last + min_interval))
            if now >= due:
                self.queue.changed = False
                last = now
                self._cron_all(int(now))
                await self._send_ads()
                continue
            with trio.move_on_at(due):
                await self._wakeup.wait()
            self._wakeup = trio.Event()

    async def _policy_loop(self) -> None:
        assert self.queue is not None
        interval = self.ctx.config.get_int("PERIODIC_EXPR_INTERVAL", 60)
        if interval <= 0:
            return
        while True:
            await trio.sleep(interval)
            self.periodic_policy(int(trio.current_time()))

    def periodic_policy(self, now: int) -> None:
        """Run PeriodicHold/Remove/Release over the jobs without a shadow."""
        q = self.queue
        assert q is not None
        for job in sorted(q.jobs):
            if job in q.has_shadow or job not in q.jobs:
                continue
            act = evaluate_periodic(q.jobs[job], now, self.tz)
            if act is None:
                continue
            self.ctx.log.info("periodic_policy", job=job_str(job), action=act.action)
            if act.action == "hold":
                q.hold(job, act.reason, act.code, act.subcode, now, system=True)
            elif act.action == "remove":
                q.remove(job, act.reason, now)
            else:
                q.release(job, act.reason, now)
                update_cron(q, job, now, self.tz)
        if q.changed:
            self.poke()

    def _cron_all(self, now: int) -> None:
        q = self.queue
        assert q is not None
        for job in sorted(q.jobs):
            update_cron(q, job, now, self.tz)

    def _refresh_schedd_interval(self) -> None:
        q = self.queue
        assert q is not None
        interval = self.ctx.config.get_int("SCHEDD_INTERVAL", 300)
        for job, ad in q.jobs.items():
            if ad.lookup("ScheddInterval") is not None and ad.evaluate("ScheddInterval") != interval:
                q.store.change(job, {"ScheddInterval": interval})

    # -- the collector

    def counts(self) -> dict[str, dict[str, int]]:
        """Idle/Running/Held jobs per owner."""
        q = self.queue
        assert q is not None
        out: dict[str, dict[str, int]] = {}
        for job, ad in q.jobs.items():
            owner = ad.evaluate("Owner")
            c = out.setdefault(owner if isinstance(owner, str) else "?",
                               {"IdleJobs": 0, "RunningJobs": 0, "HeldJobs": 0})
            st = q.status(job)
            if st == JobStatus.IDLE:
                c["IdleJobs"] += 1
            elif st in (JobStatus.RUNNING, JobStatus.SUSPENDED):
                c["RunningJobs"] += 1
            elif st == JobStatus.HELD:
                c["HeldJobs"] += 1
        return out

    def schedd_ad(self, now: int) -> tuple[ClassAd, list[ClassAd]]:
        counts = self.counts()
        total = {k: sum(c[k] for c in counts.values()) for k in ("IdleJobs", "RunningJobs",
                                                                   "HeldJobs")}
        q = self.queue
        assert q is not None
        ad = ClassAd()
        ad.update({
            "MyType": "Scheduler", "Name": self.name, "Machine": "localhost",
            "MyAddress": self.address, "ScheddIpAddr": self.address,
            "TotalIdleJobs": total["IdleJobs"], "TotalRunningJobs": total["RunningJobs"],
            "TotalHeldJobs": total["HeldJobs"], "TotalJobAds": len(q.jobs),
            "NumUsers": len(counts), "UpdateSequenceNumber": int(now),
        })
        self.cron.merge_into(ad)
        # An owner whose last job left gets one more ad with zero counts (then none).
        for owner in self._last_owners - counts.keys():
            counts[owner] = {"IdleJobs": 0, "RunningJobs": 0, "HeldJobs": 0}
        self._last_owners = {o for o, c in counts.items() if any(c.values())}
        subs = []
        for owner, c in sorted(counts.items()):
            sub = ClassAd()
            sub.update({
                "MyType": "Submitter", "Name": f"{owner}@{self.uid_domain}",
                "ScheddName": self.name, "MyAddress": self.address, "Owner": owner,
                "IdleJobs": c["IdleJobs"], "RunningJobs": c["RunningJobs"],
                "HeldJobs": c["HeldJobs"], "WeightedIdleJobs": c["IdleJobs"],
                "WeightedRunningJobs": c["RunningJobs"], "FlockedJobs": 0,
                "SubmitterTag": "",
            })
            subs.append(sub)
        return ad, subs

    async def _send_ads(self) -> None:
        ad, subs = self.schedd_ad(int(trio.current_time()))
        try:
            async with await self.ctx.connect(self.ctx.collector_address(), "collector") as conn:
                await conn.send(m.UPDATE_SCHEDD_AD(ad=ad))
                for sub in subs:
                    await conn.send(m.UPDATE_SUBMITTOR_AD(ad=sub))
        except (OSError, LookupError, trio.BrokenResourceError) as e:
            self.ctx.log.warning("collector_update_failed", error=str(e))

    async def query_collector(self, msg: Message) -> list[ClassAd]:
        try:
            async with await self.ctx.connect(self.ctx.collector_address(), "collector") as conn:
                reply = await conn.request(msg)
        except (OSError, LookupError, trio.BrokenResourceError) as e:
            self.ctx.log.warning("collector_query_failed", error=str(e))
            return []
        return list(reply.ads) if isinstance(reply, m.QUERY_RESULT) else []

    async def _reschedule(self) -> None:
        ads = await self.query_collector(m.QUERY_NEGOTIATOR_ADS(constraint="",
                                                                projection=["MyAddress"]))
        for ad in ads:
            addr = ad.evaluate("MyAddress")
            if not isinstance(addr, str):
                continue
            try:
                async with await self.ctx.connect(addr, "negotiator") as conn:
                    await conn.send(m.RESCHEDULE())
            except (OSError, trio.BrokenResourceError) as e:
                self.ctx.log.warning("reschedule_failed", error=str(e))

    # -- requests

    async def _handle(self, msg: Message, conn: Conn) -> None:
        q = self.queue
        assert q is not None
        now = int(trio.current_time())
        try:
            reply = await self._dispatch(msg, conn, now)
        except ScheddError as e:
            self.ctx.log.warning("request_refused", cmd=msg.command, error=str(e))
            reply = m.FAILED(reason=str(e))
        except (ClassAdError, ValueError) as e:
            # A request our checks let through but the ClassAd layer refuses: the peer gets
            # FAILED, the schedd carries on.
            self.ctx.log.error("request_failed", cmd=msg.command, error=str(e))
            reply = m.FAILED(reason=f"{msg.command}: {e}")
        if q.changed:
            self.poke()
        if reply is not None:
            await conn.send(reply)

    async def _dispatch(self, msg: Message, conn: Conn, now: int) -> Message | None:
        q = self.queue
        assert q is not None
        if isinstance(msg, m.SUBMIT_JOBS):
            ids = q.submit(msg.owner, msg.text, msg.iwd, msg.source, now)
            for job in ids:
                update_cron(q, job, now, self.tz)
            self.ctx.log.info("submitted", cluster=ids[0][0], procs=len(ids), owner=msg.owner)
            self.nursery.start_soon(self._reschedule)
            return m.SUBMIT_RESULT(cluster=ids[0][0], procs=len(ids))
        if isinstance(msg, m.ACT_ON_JOBS):
            out = q.act(msg.action, list(msg.ids), msg.constraint, msg.reason, msg.owner, now)
            if msg.action == "release" and out.done:
                self.nursery.start_soon(self._reschedule)  # as condor_release asks for one
                for text in out.done:
                    released = _parse_job(text)
                    if released is not None:
                        update_cron(q, released, now, self.tz)
            for job, action in out.to_shadow:
                self.claims.tell_shadow(job, action, msg.reason)
            return m.ACT_RESULT(done=out.done, errors=out.errors)
        if isinstance(msg, m.QEDIT):
            out = q.qedit(list(msg.ids), msg.constraint, msg.attr, msg.value, msg.owner, now)
            for job, _ in out.to_shadow:
                self.claims.note_qedit(job, msg.attr)
            return m.ACT_RESULT(done=out.done, errors=out.errors)
        if isinstance(msg, m.QUERY_JOB_ADS):
            return m.QUERY_RESULT(ads=q.query(msg.constraint, list(msg.projection), now))
        if isinstance(msg, m.QUERY_HISTORY):
            return m.QUERY_RESULT(ads=read_history(
                q.history_path, msg.constraint, list(msg.projection), msg.limit, now))
        if isinstance(msg, (m.DC_RECONFIG, m.DC_RECONFIG_FULL)):
            q.cron_cache.clear()
            self._refresh_schedd_interval()
            self._cron_all(now)
            return None
        if isinstance(msg, (m.NEGOTIATE, m.SEND_RESOURCE_REQUEST_LIST, m.PERMISSION_AND_AD,
                            m.REJECTED_WITH_REASON, m.END_NEGOTIATE)):
            return self.negotiations.handle(id(conn), msg, now)
        if isinstance(msg, m.SHADOW_UPDATE):
            job = self._job(msg.job)
            if job in q.has_shadow:
                apply_shadow_ad(q, job, msg.ad, now)
            return m.SHADOW_UPDATE_REPLY(ad=self.claims.take_qedits(job))
        if isinstance(msg, m.SHADOW_EXIT):
            self.claims.shadow_exit(self._job(msg.job), msg.exit_code, msg.ad, now)
            return m.OK()
        if isinstance(msg, m.SHADOW_STARTED):
            self.reconnector.shadow_started(msg.address, now)
            return m.OK()
        raise ScheddError(f"the schedd does not take {msg.command}")

    def _job(self, text: str) -> JobId:
        job = _parse_job(text)
        if job is None:
            raise ScheddError(f"not a job id: {text!r}")
        return job

    # -- used by the claims

    def start_task(self, fn: Any, *args: Any) -> None:
        self.nursery.start_soon(fn, *args)
