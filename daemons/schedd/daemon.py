"""condor_schedd's runner: the wire in front of :class:`~.queue.JobQueue`.

How this works
--------------
Serves the tools (SUBMIT_JOBS, ACT_ON_JOBS, QEDIT, QUERY_JOB_ADS, QUERY_HISTORY), the
negotiator (NEGOTIATE / SEND_RESOURCE_REQUEST_LIST / PERMISSION_AND_AD /
REJECTED_WITH_REASON / END_NEGOTIATE on one connection, kept per connection in
``_sessions``), the shadow (SHADOW_UPDATE, SHADOW_EXIT, SHADOW_STARTED) and the gridmanager
(GRIDMAN_UPDATE; grid jobs are handed to it, :mod:`.grid`). Timers: the collector update
(every SCHEDD_INTERVAL, sooner after a reschedule: HTCondor's timeout()), the periodic policy
(PERIODIC_EXPR_INTERVAL) and the claims' keep-alives. The schedd's cron jobs (cron.py) add
their output to the schedd ad. Claims live in :mod:`.claims`.
After a restart, the jobs the log shows running are reconnected (:mod:`.reconnect`).
A bad request is answered with FAILED and logged; the schedd carries on.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import trio

from condorsim.classad import ClassAd, ClassAdError
from condorsim.config import ConfigError
from condorsim.crontab import needs_crontab
from condorsim.jobqueue import JobQueueWriteError, writer
from condorsim.jobs.managed import NOT_IN_QUEUE, gridmanager_owns, is_grid, managed_externally
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.security import condor_names
from condorsim.submit.tool import submit_config
from condorsim.transform import JobTransforms
from condorsim.wire import Message
from condorsim.wire import messages as m

from . import qmgmt
from .claims import ClaimKeeper
from .counts import ZERO_COUNTS, OwnerCounts
from .cron import ScheddCron
from .grid import GridLink, apply_gridmanager_update
from .history import read_history
from .local import LocalJobs, Phase, start_expressions
from .negotiation import Negotiations
from .policy import evaluate_periodic, may_fire
from .queue import JobQueue, attr_rules
from .reconnect import Reconnector
from .running import apply_shadow_ad, recover_after_restart, update_cron
from .store import JobId, JobSet, ScheddError, job_str

QUEUE_COMMANDS = ("SUBMIT_JOBS", "ACT_ON_JOBS", "QEDIT", "QUERY_JOB_ADS", "QUERY_HISTORY")


def _parse_job(text: str) -> JobId | None:
    c, _, p = text.partition(".")
    return (int(c), int(p)) if c.isdigit() and p.isdigit() else None


class Schedd:
    def __init__(self) -> None:
        self.queue: JobQueue | None = None
        self._wakeup = trio.Event()
        self._reschedule_pending = False
        self._local_wake: dict[JobId, trio.Event] = {}
        self._last_owners: set[str] = set()
        self._counts: tuple[object, dict[str, dict[str, int]]] = (None, {})
        self._cron_set: JobSet | None = None
        self._policy_set: JobSet | None = None
        self._owner_counts: OwnerCounts | None = None
        self._host_attrs: tuple[object, dict[str, Any]] | None = None

    # -- life cycle

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self.ctx = ctx
        self._to_collector = ctx.collector_updates()
        cfg = ctx.config
        self.tz = cfg.get("SIM_TIMEZONE") or "UTC"
        self.name = cfg.get("SCHEDD_NAME") or "schedd@localhost"
        self.uid_domain = cfg.get("UID_DOMAIN") or "localhost"
        supers = cfg.get_list("QUEUE_SUPER_USERS") if cfg.get("QUEUE_SUPER_USERS") else [
            "root", "condor"]
        if "condor" in supers:  # "condor" is the condor user: a personal pool's own account too
            supers += sorted(condor_names(cfg.get("CONDOR_IDS")))
        now = int(trio.current_time())
        spool = ctx.path("SPOOL", "spool")
        writer.fsync_on = cfg.get_bool("CONDOR_FSYNC", True)
        self.queue = JobQueue(spool, history=ctx.path("HISTORY", str(spool / "history")),
                              tz=self.tz, super_users=supers, submit_config=submit_config(cfg),
                              on_warning=lambda w: ctx.log.warning("user_log_failed", error=w))
        self.queue.attr_rules = attr_rules(cfg)
        self.queue.on_secure_ignored = lambda attr, user: ctx.log.warning(
            "secure_attribute_ignored", attr=attr, user=user)
        self.queue.store.on_write_error = self._queue_write_failed
        try:
            self.queue.open(now)
            for w in self.queue.store.warnings:
                ctx.log.warning("job_queue_warning", warning=w)
            recovery = recover_after_restart(self.queue, now)
        except ScheddError as e:
            # HTCondor's schedd EXCEPTs here; this one says why in one line (stderr, which
            # the master and `condorsim up` quote) and exits 2, as for a knob it cannot use
            ctx.log.error("job_queue_unusable", spool=str(spool), error=str(e))
            self.queue.store.close()
            raise ConfigError(f"SPOOL = {spool}: {e}") from None
        self._load_transforms()
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
                self.local = LocalJobs(
                    self.queue, host=self.address, tz=self.tz,
                    default_runtime=cfg.get_float("SIM_DEFAULT_RUNTIME", 600),
                    start_exprs=self._start_expressions(),
                    cleanup_retry_delay=cfg.get_int("LOCAL_UNIVERSE_JOB_CLEANUP_RETRY_DELAY", 30),
                    max_cleanup_retries=cfg.get_int("LOCAL_UNIVERSE_MAX_JOB_CLEANUP_RETRIES", 5))
                self.claims = ClaimKeeper(self)
                self.grid = GridLink(self)
                self.reconnector = Reconnector(self, self.claims)
                self.reconnector.start(recovery.reconnect, now)
                self.negotiations = Negotiations(
                    self.queue, matched=self.claims.matched, pending=self.claims.pending,
                    before=self._cron_all, ended=self.claims.contact_startds, log=ctx.log)
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
            await self._to_collector.close()

    def _load_transforms(self) -> None:
        """JOB_TRANSFORM_NAMES (a transform that does not parse is logged and left out)."""
        assert self.queue is not None
        transforms = JobTransforms.from_config(self.ctx.config)
        for error in transforms.errors:
            self.ctx.log.error("job_transform_invalid", error=str(error))
        for note in transforms.notes:
            self.ctx.log.warning("job_transform_ignored", note=note)
        self.queue.transforms = transforms

    def need_reschedule(self) -> None:
        """Ask the negotiator for a cycle -- after the collector has our new counts.

        As HTCondor's ``needReschedule``: the schedd's timeout (no sooner than
        SCHEDD_MIN_INTERVAL after the last one) sends the schedd and submitter ads first and
        then RESCHEDULE, so the cycle it starts sees the jobs just submitted or released.
        """
        self._reschedule_pending = True
        self._wakeup.set()
        # reschedule_negotiator also runs StartJobs, which starts local jobs at once
        self.start_local_jobs(int(trio.current_time()))

    # -- timers

    async def _update_loop(self) -> None:
        """HTCondor's ``Scheduler::timeout``: the schedd and submitter ads, CronTab schedules,
        local jobs and the grid jobs' check, in one pass.

        It runs when the schedd starts, then every SCHEDD_INTERVAL after the last run. A
        reschedule (:meth:`need_reschedule`: a submit, a release) brings it forward to now,
        but no sooner than SCHEDD_MIN_INTERVAL after the last run (HTCondor's Timeslice,
        expedited), and RESCHEDULE goes to the negotiator after the ads. A job starting,
        finishing or changing moves nothing: its submitter's counts reach the collector at
        the next pass (docs/schedd.md, "The collector updates").
        """
        assert self.queue is not None
        cfg = self.ctx.config
        interval = cfg.get_int("SCHEDD_INTERVAL", 300)
        min_interval = cfg.get_int("SCHEDD_MIN_INTERVAL", 5)
        last = -math.inf
        while True:
            now = trio.current_time()
            due = last + interval
            if self._reschedule_pending:
                due = min(due, max(now, last + min_interval))
            if now >= due:
                last = now
                with self.queue_write_guard("schedd_update"):
                    self._cron_all(int(now))
                    self.start_local_jobs(int(now))
                    self.grid.check()
                await self._send_ads()
                if self._reschedule_pending:
                    self._reschedule_pending = False
                    await self._reschedule()
                continue
            # only need_reschedule moves the deadline (it sets the event)
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
            with self.queue_write_guard("periodic_policy"):
                self.periodic_policy(int(trio.current_time()))

    def periodic_policy(self, now: int) -> None:
        """Run PeriodicHold/Remove/Release over the jobs without a shadow."""
        q = self.queue
        assert q is not None
        for job in self._policy_jobs():
            # HTCondor's ResponsibleForPeriodicExprs: a shadow evaluates its running job's
            # policy; the schedd evaluates its local and scheduler universe jobs' always; a
            # job another manager holds (a managed grid job, a routed original) is theirs.
            if job not in q.jobs or (job in q.has_shadow and job not in self.local.running):
                continue
            if gridmanager_owns(q.jobs[job]) or managed_externally(q.jobs[job]):
                continue
            act = evaluate_periodic(q.jobs[job], now, self.tz)
            if act is None:
                continue
            self.ctx.log.info("periodic_policy", job=job_str(job), action=act.action)
            if act.action == "hold":
                q.hold(job, act.reason, act.code, act.subcode, now, system=True)
                self._stop_local(job, "hold", now)
            elif act.action == "remove":
                q.remove(job, act.reason, now)
                self._stop_local(job, "remove", now)
            else:
                q.release(job, act.reason, now)
                update_cron(q, job, now, self.tz)
                if is_grid(q.jobs[job]):
                    self.grid.added()
        # PeriodicExprEval's DestroyProc: a completed or removed job that no manager holds
        # and that need not stay (LeaveJobInQueue) leaves now -- a routed original yielded
        # "ScheddDone", a routed copy the router has collected
        for job in qmgmt.finished_unmanaged(q):
            self.ctx.log.info("job_left_queue", job=job_str(job), status=int(q.status(job)))
            q.leave(job, now)

    def _policy_jobs(self) -> list[JobId]:
        """The jobs whose periodic policy can fire, in order: found once per state of the
        queue. A job whose PeriodicHold, PeriodicRemove and PeriodicRelease are each absent
        or the literal false (condor_submit's defaults) can never be acted on, so it is not
        visited every PERIODIC_EXPR_INTERVAL."""
        q = self.queue
        assert q is not None
        if self._policy_set is None:
            self._policy_set = JobSet(q.store, may_fire)
        return self._policy_set.ordered()

    def _cron_all(self, now: int) -> None:
        q = self.queue
        assert q is not None
        for job in self._cron_jobs():
            update_cron(q, job, now, self.tz)

    def _cron_jobs(self) -> list[JobId]:
        """The jobs with a Cron* attribute, in order (the only ones update_cron changes):
        found once per state of the queue instead of at every pass."""
        q = self.queue
        assert q is not None
        if self._cron_set is None:
            self._cron_set = JobSet(q.store, needs_crontab)
        return self._cron_set.ordered()

    def _refresh_schedd_interval(self) -> None:
        q = self.queue
        assert q is not None
        interval = self.ctx.config.get_int("SCHEDD_INTERVAL", 300)
        for job, ad in q.jobs.items():
            if ad.lookup("ScheddInterval") is not None and ad.evaluate("ScheddInterval") != interval:
                q.store.change(job, {"ScheddInterval": interval})

    # -- local and scheduler universe jobs

    def host_ad_attrs(self) -> dict[str, Any]:
        """The submit host as the schedd's ad shows it (Scheduler::publish): Arch, OpSys,
        Memory (MB), Disk (KB), Cpus -- what a local job's Requirements are matched against.
        HTCondor detects them; condorsim takes ARCH, OPSYS, MEMORY, NUM_CPUS from the
        configuration (16 GiB and 100 GB of disk when unset) so that runs are reproducible.

        Read once per configuration (a Config does not change once loaded; a reconfig
        brings a new one), not at every ad: the dict is the schedd's own, not to change."""
        cfg = self.ctx.config
        kept = self._host_attrs
        if kept is not None and kept[0] is cfg:
            return kept[1]
        attrs = {"Arch": cfg.get("ARCH") or "X86_64", "OpSys": cfg.get("OPSYS") or "LINUX",
                 "Memory": cfg.get_int("MEMORY", 16384) if cfg.get("MEMORY") else 16384,
                 "Disk": 100_000_000, "Cpus": max(1, cfg.get_int("NUM_CPUS", 1))}
        self._host_attrs = (cfg, attrs)
        return attrs

    def _start_expressions(self) -> dict[int, str]:
        try:
            return start_expressions(self.ctx.config.get)
        except ValueError as e:
            self.ctx.log.error("bad_start_expression", error=str(e), using="the default")
            return {}

    def start_local_jobs(self, now: int) -> None:
        """At the end of this instant: start the runnable local and scheduler jobs (in
        priority order, so jobs submitted in one instant start the same way every run)."""
        self.ctx.at_end_of_instant((now, "schedd local jobs"), self._start_local_now)

    def _start_local_now(self) -> None:
        with self.queue_write_guard("start_local_jobs"):
            self._start_local(int(trio.current_time()))

    def _start_local(self, now: int) -> None:
        if not self.local.has_idle():
            # nothing to start: the schedd ad need not be built (its owner counts move on
            # as building it would move them)
            self._submitter_counts(self.counts())
            return
        ad, _ = self.schedd_ad(now)
        for job in self.local.runnable(ad, now):
            run = self.local.start(job, now)
            self.ctx.log.info("local_job_started", job=job_str(job), universe=run.universe)
            self._local_wake[job] = trio.Event()
            self.start_task(self._run_local, job)

    async def _run_local(self, job: JobId) -> None:
        """One local or scheduler universe job from start to exit (the local starter)."""
        q = self.queue
        assert q is not None
        run = self.local.running.get(job)
        error = self.local.user_log_error(run) if run is not None else None
        if error is not None:
            self.ctx.log.warning("local_job_user_log_failed", job=job_str(job), error=error)
            outcome = self.local.user_log_failed(job, int(trio.current_time()))
            self.ctx.log.info("local_job_stopped", job=job_str(job), became=outcome.became)
        while (run := self.local.running.get(job)) is not None:
            with trio.move_on_at(run.wake_at):
                await self._local_wake[job].wait()
            self._local_wake[job] = trio.Event()
            run = self.local.running.get(job)
            now = int(trio.current_time())
            if run is None or now < run.wake_at:
                continue
            if run.phase is Phase.WAITING:
                verdict, message = self.local.deferral(run, now)
                if verdict == "wait":
                    self.ctx.log.info("job_deferred", job=job_str(job), message=message)
                    continue
                if verdict == "abort":
                    self.ctx.log.info("job_missed_deferral_time", job=job_str(job),
                                      message=message)
                    self.local.missed_deferral(job, now)
                    break
                self.local.began(run, now)
                self.ctx.log.info("local_job_executing", job=job_str(job), runtime=run.runtime)
                continue
            try:
                outcome = self.local.requeue(job, now) if run.gave_up else \
                    self.local.exited(job, now)
            except ScheddError as e:
                # JICLocalSchedd::notifyJobExit: "Failed to update job queue - attempting
                # to retry", every LOCAL_UNIVERSE_JOB_CLEANUP_RETRY_DELAY
                retry = self.local.exit_failed(run, now)
                self.ctx.log.warning(
                    "local_job_exit_not_written", job=job_str(job), error=str(e),
                    then="requeue" if run.gave_up else "retry", attempt=run.exit_failures,
                    retry_in=self.local.cleanup_retry_delay)
                if not retry:
                    self.ctx.log.error(
                        "local_job_exit_given_up", job=job_str(job),
                        error="Maximum number of job cleanup retry attempts "
                              f"(LOCAL_UNIVERSE_MAX_JOB_CLEANUP_RETRIES="
                              f"{self.local.max_cleanup_retries}) reached")
                    run.wake_at = float(now)  # requeue at once
                continue
            self.ctx.log.info("local_job_exited", job=job_str(job), became=outcome.became)
            break
        self._local_wake.pop(job, None)
        self.start_local_jobs(int(trio.current_time()))

    def _stop_local(self, job: JobId, action: str, now: int) -> bool:
        """Tell a running local job what a tool or the policy asked; False if it is not one."""
        if job not in self.local.running:
            return False
        if action == "suspend":
            self.local.suspend(job, now)
        elif action == "continue":
            self.local.resume(job, now)
        elif action in ("hold", "remove", "vacate"):
            outcome = self.local.stopped(job, action, now)
            self.ctx.log.info("local_job_stopped", job=job_str(job), became=outcome.became)
            self.start_local_jobs(now)
        wake = self._local_wake.get(job)
        if wake is not None:
            wake.set()
        return True

    # -- the collector

    def counts(self) -> dict[str, dict[str, int]]:
        """Idle/Running/Held jobs per owner (counted once per state of the queue and of the
        running local jobs: the schedd asks at every ad and every instant that may start a
        local job)."""
        q = self.queue
        assert q is not None
        key = (q.store.version, frozenset(self.local.running))
        if self._counts[0] != key:
            self._counts = (key, self._count())
        return {owner: dict(c) for owner, c in self._counts[1].items()}

    def _count(self) -> dict[str, dict[str, int]]:
        q = self.queue
        assert q is not None
        if self._owner_counts is None:
            self._owner_counts = OwnerCounts(q.store)
        return self._owner_counts.count(self.local.running)

    def _submitter_counts(self, counts: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
        """The counts of the submitter ads: an owner whose last job left gets one more ad
        with zero counts (then none)."""
        out = dict(counts)
        for owner in self._last_owners - counts.keys():
            out[owner] = dict(ZERO_COUNTS)
        self._last_owners = {o for o, c in out.items() if any(c.values())}
        return out

    def schedd_ad(self, now: int) -> tuple[ClassAd, list[ClassAd]]:
        counts = self.counts()
        total = {k: sum(c[k] for c in counts.values()) for k in ("IdleJobs", "RunningJobs",
                                                                   "HeldJobs")}
        host = self.host_ad_attrs()
        q = self.queue
        assert q is not None
        ad = ClassAd()
        ad.update({
            "MyType": "Scheduler", "Name": self.name, "Machine": "localhost",
            "MyAddress": self.address, "ScheddIpAddr": self.address,
            "TotalIdleJobs": total["IdleJobs"], "TotalRunningJobs": total["RunningJobs"],
            "TotalHeldJobs": total["HeldJobs"], "TotalJobAds": len(q.jobs),
            # the shadows of running jobs (condor_status -schedd -run; one per job in
            # HTCondor, one process serving them all in condorsim)
            "ShadowsRunning": total["RunningJobs"],
            "NumUsers": len(counts), "UpdateSequenceNumber": int(now),
            **host, **self.local.ad_attrs(),
        })
        self.cron.merge_into(ad)
        subs = []
        for owner, c in sorted(self._submitter_counts(counts).items()):
            sub = ClassAd()
            sub.update({
                "MyType": "Submitter", "Name": f"{owner}@{self.uid_domain}",
                "ScheddName": self.name, "MyAddress": self.address, "Owner": owner,
                "IdleJobs": c["IdleJobs"], "RunningJobs": c["RunningJobs"],
                "HeldJobs": c["HeldJobs"], "WeightedIdleJobs": c["IdleJobs"],
                "WeightedRunningJobs": c["RunningJobs"], "FlockedJobs": 0,
                "SubmitterTag": "", "LocalJobsIdle": c["LocalJobsIdle"],
                "LocalJobsRunning": c["LocalJobsRunning"],
                "SchedulerJobsIdle": c["SchedulerJobsIdle"],
                "SchedulerJobsRunning": c["SchedulerJobsRunning"],
            })
            subs.append(sub)
        return ad, subs

    async def _send_ads(self) -> None:
        ad, subs = self.schedd_ad(int(trio.current_time()))
        await self._to_collector.send(m.UPDATE_SCHEDD_AD(ad=ad),
                                      *(m.UPDATE_SUBMITTOR_AD(ad=sub) for sub in subs))

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
        if reply is not None:
            await conn.send(reply)

    async def _dispatch(self, msg: Message, conn: Conn, now: int) -> Message | None:
        q = self.queue
        assert q is not None
        if isinstance(msg, m.SUBMIT_JOBS):
            owner = q.acting_user(conn.user, msg.owner)
            ids = q.submit(owner, msg.text, msg.iwd, msg.source, now)
            for job in ids:
                update_cron(q, job, now, self.tz)
            self.ctx.log.info("submitted", cluster=ids[0][0], procs=len(ids), owner=owner)
            if any(is_grid(q.jobs[job]) for job in ids):
                self.grid.added()
            self.need_reschedule()
            return m.SUBMIT_RESULT(cluster=ids[0][0], procs=len(ids))
        if isinstance(msg, m.ACT_ON_JOBS):
            user = q.acting_user(conn.user, msg.owner)
            out = q.act(msg.action, list(msg.ids), msg.constraint, msg.reason, user, now)
            if msg.action == "release" and out.done:
                self.need_reschedule()  # as condor_release asks for one
                for text in out.done:
                    released = _parse_job(text)
                    if released is not None:
                        update_cron(q, released, now, self.tz)
                        if released in q.jobs and is_grid(q.jobs[released]):
                            self.grid.added()
            for job, action in out.to_shadow:
                if not self._stop_local(job, action, now):
                    self.claims.tell_shadow(job, action, msg.reason)
            if out.to_gridmanager:
                self.grid.removed()
            return m.ACT_RESULT(done=out.done, errors=out.errors)
        if isinstance(msg, m.QEDIT):
            user = q.acting_user(conn.user, msg.owner)
            out = q.qedit(list(msg.ids), msg.constraint, msg.attr, msg.value, user, now)
            for job, _ in out.to_shadow:
                self.claims.note_qedit(job, msg.attr)
            for text in out.done:
                edited = _parse_job(text)
                if edited is not None:
                    self.grid.qedit(edited, msg.attr)
            return m.ACT_RESULT(done=out.done, errors=out.errors)
        if isinstance(msg, m.QUERY_JOB_ADS):
            return m.QUERY_RESULT(ads=q.query(msg.constraint, list(msg.projection), now))
        if isinstance(msg, m.QUERY_HISTORY):
            return m.QUERY_RESULT(ads=read_history(
                q.history_path, msg.constraint, list(msg.projection), msg.limit, now))
        if isinstance(msg, (m.DC_RECONFIG, m.DC_RECONFIG_FULL)):
            q.submit_config = submit_config(self.ctx.config)
            q.cron_cache.clear()
            self._load_transforms()
            self._refresh_schedd_interval()
            self._cron_all(now)
            return None
        if isinstance(msg, (m.NEGOTIATE, m.SEND_RESOURCE_REQUEST_LIST, m.PERMISSION_AND_AD,
                            m.REJECTED_WITH_REASON, m.END_NEGOTIATE)):
            if isinstance(msg, m.NEGOTIATE) and id(conn) not in self.negotiations.sessions:
                conn.at_close(lambda: self.negotiations.close(id(conn)))
            return self.negotiations.handle(id(conn), msg, now)
        if isinstance(msg, m.SHADOW_UPDATE):
            job = self._job(msg.job)
            if job in q.has_shadow:
                apply_shadow_ad(q, job, msg.ad, now, durable=msg.durable)
            return m.SHADOW_UPDATE_REPLY(ad=self.claims.take_qedits(job))
        if isinstance(msg, m.SHADOW_EXIT):
            self.claims.shadow_exit(self._job(msg.job), msg.exit_code, msg.ad, now)
            return m.OK()
        if isinstance(msg, m.QMGMT_CLAIM_JOB | m.QMGMT_YIELD_JOB | m.QMGMT_SET_ATTRIBUTES):
            return self._qmgmt(msg, now)
        if isinstance(msg, m.QMGMT_SUBMIT_AD):
            job = qmgmt.submit_ad(q, msg.owner, msg.ad, now)
            self.ctx.log.info("submitted", cluster=job[0], procs=1, owner=msg.owner,
                              routed_from=msg.ad.evaluate("RoutedFromJobId"))
            if is_grid(q.jobs[job]):
                self.grid.added()
            self.need_reschedule()
            return m.SUBMIT_RESULT(cluster=job[0], procs=1)
        if isinstance(msg, m.SHADOW_STARTED):
            self.reconnector.shadow_started(msg.address, now)
            return m.OK()
        if isinstance(msg, m.GRIDMAN_UPDATE):
            job = self._job(msg.job)
            if job not in q.jobs:
                return m.FAILED(reason=f"{NOT_IN_QUEUE}: {msg.job}")
            apply_gridmanager_update(q, job, msg.ad, msg.destroy, now)
            return m.OK()
        raise ScheddError(f"the schedd does not take {msg.command}")

    def _qmgmt(self, msg: Message, now: int) -> Message:
        """The job router's claim, yield and attribute pushes (:mod:`.qmgmt`)."""
        q = self.queue
        assert q is not None
        if isinstance(msg, m.QMGMT_CLAIM_JOB):
            code, why = qmgmt.claim_job(q, self._job(msg.job), msg.manager)
        elif isinstance(msg, m.QMGMT_YIELD_JOB):
            code, why = qmgmt.yield_job(q, self._job(msg.job), msg.manager, msg.done,
                                        msg.release_on_hold, now)
        else:
            assert isinstance(msg, m.QMGMT_SET_ATTRIBUTES)
            job = self._job(msg.job)
            qmgmt.set_attributes(q, job, msg.ad, msg.delete, now)
            if job in q.jobs and is_grid(q.jobs[job]):
                for name in msg.ad:
                    self.grid.qedit(job, name)
            code, why = "ok", ""
        if code != "ok":
            self.ctx.log.info("qmgmt_refused", cmd=msg.command, job=getattr(msg, "job", ""),
                              code=code, reason=why)
        return m.QMGMT_RESULT(ok=code == "ok", code=code, reason=why)

    def _job(self, text: str) -> JobId:
        job = _parse_job(text)
        if job is None:
            raise ScheddError(f"not a job id: {text!r}")
        return job

    # -- used by the claims

    def start_task(self, fn: Any, *args: Any) -> None:
        self.nursery.start_soon(self._guarded, fn, *args)

    # -- job_queue.log write failures: loud, and never the schedd's death

    def _queue_write_failed(self, e: JobQueueWriteError) -> None:
        """Every write the disk refused, in SchedLog (HTCondor: `write to <file> failed,
        errno = N`, then an EXCEPT; here the change is refused and the schedd goes on)."""
        self.ctx.log.error("job_queue_write_failed", file=e.path, errno=e.errno,
                           error=str(e))

    async def _guarded(self, fn: Any, *args: Any) -> None:
        """A task of the schedd's: a change it cannot make durable (or make at all) ends
        the task, not the schedd (the queue stays as job_queue.log says; the peer asks
        again or times out)."""
        with self.queue_write_guard(getattr(fn, "__name__", "task")):
            await fn(*args)

    @contextmanager
    def queue_write_guard(self, what: str) -> Iterator[None]:
        """Around work no peer waits on (timers, tasks): a change that could not be
        written is logged and dropped there; the next occasion tries again."""
        try:
            yield
        except ScheddError as e:  # QueueWriteError, or a change the log refused outright
            self.ctx.log.error("job_queue_change_dropped", during=what, error=str(e))
