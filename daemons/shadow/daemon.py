"""condor_shadow's runner: one process per schedd, each running job an instance (a trio task).

How this works
--------------
The shadow advertises itself to the collector (MyType "Shadow") at start and every 300 s.
SHADOW_START from the schedd is answered OK and starts an instance task with an inbox;
every later message about the job (from the starter or the schedd) goes into that inbox,
so one job's events are handled one at a time, in the order they arrived, and a
connection's handler never waits on a job. The instance

1. runs the job's SHADOW_PREPARE_JOB hook, if it has one (hooks.py: it may change the job
   ad, hold the job or send it back to idle), then activates the claim (ACTIVATE_CLAIM to
   the startd; a refusal ends it with JOB_NOT_STARTED),
2. learns where its starter is (REGISTER_STARTER_INFO) and forwards the schedd's suspend,
   continue, hold, remove and vacate to it,
3. feeds the starter's reports to its :class:`~.logic.ShadowJob` and writes the user-log
   events it returns (EXECUTE, IMAGE_SIZE, JOB_SUSPENDED, JOB_UNSUSPENDED, JOB_EVICTED,
   JOB_TERMINATED),
4. from the start of execution, pushes dirty attributes to the schedd every
   SHADOW_QUEUE_UPDATE_INTERVAL and at once on a status change (SHADOW_UPDATE; the reply's
   qedit attributes are taken) and evaluates the periodic policy every
   PERIODIC_EXPR_INTERVAL,
5. on JOB_EXIT sends SHADOW_EXIT with the final attributes, retried every
   SHADOW_JOB_CLEANUP_RETRY_DELAY up to SHADOW_MAX_JOB_CLEANUP_RETRIES times; an exit
   that never got through is kept until a restarted schedd asks for the job.

The shadow outlives its schedd: a restarted schedd sends SHADOW_RECONNECT for each job its
log shows Running. With ``reconnect`` the instance writes JOB_RECONNECTED and reports to
the new schedd from then on; without, the schedd has requeued the job and the instance ends
quietly (its starter is stopped, nothing is logged or reported). A job that already ended
(its exit being retried, or kept) is answered with its SHADOW_EXIT either way, so the new
schedd completes it once instead of running it again. At start the shadow tells its schedd where it listens (SHADOW_STARTED): a
restarted shadow has none of the old one's instances.

The schedd is found through the collector (the schedd ad named after this shadow, or the
only schedd) unless its address was given to :class:`Shadow`.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass, field

import trio

from condorsim.classad import ClassAd
from condorsim.eventlog import EventLogError, EventLogWriter
from condorsim.hooks import HookLane
from condorsim.jobs.codes import HoldCode, ShadowExit
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.runtime.pipeline import RequestPipe
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

from .hooks import shadow_prepare
from .logic import LogEvent, Request, ShadowJob
from .policy import periodic_policy_is_constant

AD_INTERVAL = 300
PEER_ERRORS = (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError,
               trio.ClosedResourceError)
JOB_MESSAGES = (
    m.REGISTER_STARTER_INFO, m.BEGIN_EXECUTION, m.REGISTER_JOB_INFO, m.JOB_EXIT,
    m.SHADOW_HOLD, m.SHADOW_REMOVE, m.SHADOW_SUSPEND, m.SHADOW_CONTINUE, m.SHADOW_VACATE,
    m.SHADOW_QEDIT, m.SHADOW_RECONNECT, m.ULOG,
)
REPLY_OK = (m.JOB_EXIT, m.SHADOW_HOLD, m.SHADOW_REMOVE, m.SHADOW_SUSPEND, m.SHADOW_CONTINUE,
            m.SHADOW_VACATE, m.SHADOW_QEDIT)


class _PushNow:
    """Put in a job instance's own channel at the end of an instant: the periodic queue
    update is due. Sending it only once every message of that instant has been handled
    (a starter update may arrive at the very instant the timer fires) makes what the
    update carries the same in every replay."""


@dataclass
class _Instance:
    job: ShadowJob
    send: trio.MemorySendChannel[Message | _PushNow]
    receive: trio.MemoryReceiveChannel[Message | _PushNow]
    log: EventLogWriter | None
    starter_addr: str | None = None
    pending: list[Message] = field(default_factory=list)  # for the starter, not yet known
    next_push: float = math.inf  # the timers start when the job starts executing
    next_policy: float = math.inf
    began: float = math.inf  # when the job began executing: the policy timer's phase
    abandoned: bool = False  # the restarted schedd requeued the job: end quietly
    unreported: m.SHADOW_EXIT | None = None  # the exit no schedd took (yet)
    exiting: m.SHADOW_EXIT | None = None  # the exit being reported (with retries) now
    handed_over: bool = False  # a restarted schedd took the exit in its SHADOW_RECONNECT


class Shadow:
    def __init__(self, schedd_addr: str | None = None) -> None:
        self.instances: dict[str, _Instance] = {}
        self._schedd_addr = schedd_addr
        self._schedd_given = schedd_addr is not None

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self._ctx = ctx
        cfg = ctx.config
        self._queue_interval = cfg.get_int("SHADOW_QUEUE_UPDATE_INTERVAL", 900)
        self._lazy = cfg.get_bool("SHADOW_LAZY_QUEUE_UPDATE", True)
        self._policy_interval = cfg.get_int("PERIODIC_EXPR_INTERVAL", 60)
        self._retry_delay = cfg.get_int("SHADOW_JOB_CLEANUP_RETRY_DELAY", 30)
        self._retries = cfg.get_int("SHADOW_MAX_JOB_CLEANUP_RETRIES", 5)
        self._lane = HookLane(ctx.log, ctx.busy)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._to_schedd = RequestPipe(ctx.connect, nursery.start_soon, "schedd")
            nursery.start_soon(self._lane.serve)
            self.address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status)
            )
            nursery.start_soon(self._advertise)
            nursery.start_soon(self._announce)
            task_status.started(self.address)

    # -- talking to others ----------------------------------------------------------------
    async def _request(self, address: str, peer: str, msg: Message) -> Message | None:
        """``msg``'s reply, or None (logged) when ``peer`` cannot be reached. The jobs'
        updates and exits to the schedd go down one kept connection shared by every shadow
        of this process (:mod:`condorsim.runtime.pipeline`); the rest each on a connection
        of its own."""
        try:
            if isinstance(msg, m.SHADOW_UPDATE | m.SHADOW_EXIT):
                return await self._to_schedd.request(address, msg)
            async with await self._ctx.connect(address, peer) as conn:
                return await conn.request(msg)
        except PEER_ERRORS as e:
            self._ctx.log.warning("request_failed", to=peer, cmd=msg.command, error=str(e))
            return None

    def shadow_ad(self) -> ClassAd:
        name = self._ctx.name
        return ClassAd({
            "MyType": "Shadow", "Name": f"{name}@localhost",
            "ScheddDaemon": name.replace("shadow", "schedd"), "MyAddress": self.address,
            "NumInstances": len(self.instances),
        })

    async def _advertise(self) -> None:
        async with self._ctx.collector_updates() as to_collector:
            while True:
                await to_collector.send(m.UPDATE_AD_GENERIC(ad=self.shadow_ad()))
                await trio.sleep(AD_INTERVAL)

    async def _announce(self) -> None:
        """SHADOW_STARTED to the schedd, until it answers (it may be down right now)."""
        for _ in range(self._retries + 1):
            address = await self._schedd()
            reply = await self._request(address, "schedd", m.SHADOW_STARTED(
                address=self.address)) if address else None
            if isinstance(reply, m.OK):
                return
            self._schedd_failed()
            await trio.sleep(self._retry_delay)
        self._ctx.log.warning("shadow_started_not_told")

    def _schedd_failed(self) -> None:
        """The schedd did not answer: look it up again next time (it may have restarted)."""
        if not self._schedd_given:
            self._schedd_addr = None

    async def _schedd(self) -> str | None:
        if self._schedd_addr is not None:
            return self._schedd_addr
        reply = await self._request(self._ctx.collector_address(), "collector",
                                    m.QUERY_SCHEDD_ADS(constraint="", projection=[]))
        if not isinstance(reply, m.QUERY_RESULT):
            return None
        mine = self._ctx.name.replace("shadow", "schedd")
        found = [ad for ad in reply.ads
                 if str(ad.evaluate("Name")).split("@", 1)[0] in (mine, mine.split("@", 1)[0])]
        ads = found or (reply.ads if len(reply.ads) == 1 else [])
        address = ads[0].evaluate("MyAddress") if ads else None
        if isinstance(address, str):
            self._schedd_addr = address
            return address
        self._ctx.log.warning("schedd_not_found", name=mine)
        return None

    # -- commands -------------------------------------------------------------------------
    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.DC_RECONFIG | m.DC_RECONFIG_FULL):
            return  # nothing to re-read; no answer, as the schedd
        if isinstance(msg, m.SHADOW_START):
            await conn.send(self._start(msg))
            return
        if not isinstance(msg, JOB_MESSAGES):
            await conn.send(m.FAILED(reason=f"the shadow does not take {msg.command}"))
            return
        inst = self.instances.get(msg.job)
        if isinstance(msg, m.SHADOW_RECONNECT):
            await conn.send(self._reconnect(msg, inst))
            return
        if inst is None:
            self._ctx.log.warning("unknown_job", job=msg.job, cmd=msg.command)
            if isinstance(msg, REPLY_OK):
                await conn.send(m.FAILED(reason=f"no job {msg.job} in this shadow"))
            return
        inst.send.send_nowait(msg)
        if isinstance(msg, REPLY_OK):
            await conn.send(m.OK())

    def _reconnect(self, msg: m.SHADOW_RECONNECT, inst: _Instance | None) -> Message:
        """A restarted schedd asks for a job: re-attach it, or let it go. A job that has
        already ended (its JOB_TERMINATED or eviction is in the user log) is answered with
        its SHADOW_EXIT, lease or not: the new schedd ends it once rather than run it again."""
        log = self._ctx.log
        if inst is None or inst.job.claim_id != msg.claim_id or inst.abandoned:
            log.info("reconnect_unknown_job", job=msg.job, reconnect=msg.reconnect)
            return m.FAILED(reason="Job not found at execution machine") if msg.reconnect \
                else m.OK()
        self._schedd_failed()  # the schedd listens elsewhere now
        ended = inst.unreported or inst.exiting
        if ended is not None:  # the job ended while no schedd listened
            inst.unreported = inst.exiting = None
            inst.handed_over = True
            if self.instances.get(msg.job) is inst:
                del self.instances[msg.job]
            log.info("reconnect_job_ended", job=msg.job, exit_code=ended.exit_code)
            return ended
        log.info("reconnect", job=msg.job, reconnect=msg.reconnect)
        inst.send.send_nowait(msg)
        return m.OK()

    def _start(self, msg: m.SHADOW_START) -> Message:
        if type(msg.job_ad.evaluate("ClusterId")) is not int or \
                type(msg.job_ad.evaluate("ProcId")) is not int:
            return m.FAILED(reason="the job ad has no integer ClusterId and ProcId")
        job = ShadowJob(msg.job_ad, msg.slot_ad, msg.claim_id, msg.startd_addr)
        old = self.instances.get(job.job)
        if old is not None and old.unreported is None:
            return m.FAILED(reason=f"job {job.job} already has a shadow")
        if not self._schedd_given and msg.schedd_addr:
            # The schedd that hands over a job is the one to report to: a schedd restarted
            # since this shadow last looked listens elsewhere, and learning that only from
            # a failed SHADOW_EXIT would make the exit wait SHADOW_JOB_CLEANUP_RETRY_DELAY.
            self._schedd_addr = msg.schedd_addr
        send, receive = trio.open_memory_channel[Message | _PushNow](math.inf)
        inst = _Instance(job, send, receive, self._user_log(job.ad))
        self.instances[job.job] = inst
        self._nursery.start_soon(self._run_job, inst)
        return m.OK()

    def _user_log(self, ad: ClassAd) -> EventLogWriter | None:
        log = ad.evaluate("UserLog")
        if not isinstance(log, str) or not log:
            return None
        iwd = ad.evaluate("Iwd")
        base = iwd if isinstance(iwd, str) and iwd else str(self._ctx.run_dir)
        path = os.path.join(self._ctx.run_dir, base, log)
        fmt = self._ctx.config.get("DEFAULT_USERLOG_FORMAT_OPTIONS") or "iso"
        try:
            return EventLogWriter(path, fmt=fmt)
        except EventLogError as e:
            self._ctx.log.warning("bad_user_log", path=path, error=str(e))
            return None

    # -- one job --------------------------------------------------------------------------
    async def _run_job(self, inst: _Instance) -> None:
        job = inst.job
        log = self._ctx.log
        try:
            await self._schedd()  # where to report (HTCondor's shadow is told at its birth)
            if not await self._open_user_log(inst):
                return
            prepared = await shadow_prepare(self._ctx, self._lane, job.ad, job.job)
            if prepared is not None and prepared.exit_code is not None:
                await self._prepare_failed(inst, prepared.exit_code, prepared.exception,
                                           prepared.hold)
                return
            if prepared is not None:
                job.ad.update(prepared.update)  # what the starter gets; not pushed
            reply = await self._request(job.startd_addr, "startd", m.ACTIVATE_CLAIM(
                claim_id=job.claim_id, job_ad=job.ad, shadow_addr=self.address))
            if not isinstance(reply, m.OK):
                why = reply.reason if isinstance(reply, m.FAILED) else "no answer"
                log.warning("activate_claim_failed", job=job.job, reason=why)
                await self._shadow_exit(inst, int(ShadowExit.JOB_NOT_STARTED))
                return
            job.activated(trio.current_time())
            while True:
                msg: Message | _PushNow | None = None
                deadline = min(inst.next_push, inst.next_policy)
                if deadline == math.inf:  # no timer yet: a scope that can never fire, saved
                    msg = await inst.receive.receive()
                else:
                    with trio.move_on_at(deadline):
                        msg = await inst.receive.receive()
                now = trio.current_time()
                if msg is None:
                    if now >= inst.next_push:
                        inst.next_push = now + self._queue_interval
                        self._push_at_end_of_instant(inst, now)
                    if now >= inst.next_policy:
                        inst.next_policy = now + self._policy_interval
                        await self._policy(inst, now)
                    continue
                if isinstance(msg, _PushNow):  # the periodic push (U_PERIODIC)
                    await self._push(inst, durable=False)
                    continue
                if isinstance(msg, m.JOB_EXIT) and inst.abandoned:
                    log.info("abandoned_job_exit", job=job.job, reason=msg.reason)
                    return
                if isinstance(msg, m.JOB_EXIT):
                    decision = job.job_exit(msg.reason, msg.ad, now)
                    log.info("job_exit", job=job.job, reason=msg.reason,
                             exit_code=decision.exit_code)
                    self._write(inst, decision.events)
                    await self._shadow_exit(inst, decision.exit_code)
                    return
                await self._on_message(inst, msg, now)
        finally:
            if inst.unreported is None and self.instances.get(job.job) is inst:
                del self.instances[job.job]

    async def _open_user_log(self, inst: _Instance) -> bool:
        """BaseShadow::initUserLog: the job's user log is opened before anything else; one
        that cannot be puts the job on hold (``Failed to initialize user log``, code 22
        UnableToInitUserLog, subcode 0) and ends the shadow's part (JOB_SHOULD_HOLD)."""
        if inst.log is None:
            return True
        try:
            inst.log.check_open()
            return True
        except EventLogError as e:
            error = str(e)
        job = inst.job
        reason = "Failed to initialize user log"
        self._ctx.log.warning("user_log_init_failed", job=job.job, reason=reason, error=error)
        job.set("HoldReason", reason)
        job.set("HoldReasonCode", int(HoldCode.UNABLE_TO_INIT_USER_LOG))
        job.set("HoldReasonSubCode", 0)
        inst.log = None  # nothing more is written to it
        await self._shadow_exit(inst, int(ShadowExit.JOB_SHOULD_HOLD))
        return False

    async def _prepare_failed(self, inst: _Instance, exit_code: int, exception: str,
                              hold: ClassAd | None) -> None:
        """SHADOW_PREPARE_JOB ended the job before its claim was activated."""
        job = inst.job
        if exception:
            job.set("LastShadowException", exception)
            self._write(inst, [LogEvent("shadow_exception", trio.current_time(),
                                        {"message": exception})])
        for name, tree in (hold.pairs() if hold is not None else []):
            job.set(name, tree)
        self._ctx.log.info("shadow_prepare_hook_ended_job", job=job.job, exit_code=exit_code,
                           why=exception or (hold.evaluate("HoldReason") if hold else ""))
        await self._shadow_exit(inst, exit_code)

    async def _on_message(self, inst: _Instance, msg: Message, now: float) -> None:
        job = inst.job
        if isinstance(msg, m.ULOG):
            self._write(inst, job.remote_error(msg.ad, now))
        elif isinstance(msg, m.REGISTER_STARTER_INFO):
            addr = msg.ad.evaluate("StarterIpAddr")
            inst.starter_addr = addr if isinstance(addr, str) else None
            job.starter_ad = msg.ad
            pending, inst.pending = inst.pending, []
            for command in pending:
                await self._to_starter(inst, command)
        elif isinstance(msg, m.BEGIN_EXECUTION):
            self._write(inst, job.begin_execution(now))
            # The periodic policy and queue updates start with the execution
            # (BaseShadow::resourceBeganExecution).
            inst.next_push = now + self._queue_interval
            inst.began = now
            self._schedule_policy(inst, now)
            if not self._lazy:
                await self._push(inst)
        elif isinstance(msg, m.REGISTER_JOB_INFO):
            state = msg.ad.evaluate("JobState")
            events = job.register_job_info(msg.ad, now)
            if state == "Suspended":
                events += job.suspend(now)
            elif state == "Running":
                events += job.unsuspend(now)
            self._write(inst, events)
            if any(e.kind in ("suspended", "unsuspended") for e in events):
                await self._push(inst)
        elif isinstance(msg, m.SHADOW_RECONNECT):
            if msg.reconnect:
                self._write(inst, job.reconnected(now, inst.starter_addr))
            else:
                inst.abandoned = True
                inst.next_push = inst.next_policy = math.inf
                await self._to_starter(inst, m.STARTER_REMOVE(job=job.job))
        elif isinstance(msg, m.SHADOW_QEDIT):
            job.take_qedit(msg.ad)
            if job.executing:  # the policy may read what changed (handleUpdateJobAd)
                await self._policy(inst, now)
                self._schedule_policy(inst, now)
        elif isinstance(msg, m.SHADOW_SUSPEND):
            await self._to_starter(inst, m.STARTER_SUSPEND(job=job.job))
        elif isinstance(msg, m.SHADOW_CONTINUE):
            await self._to_starter(inst, m.STARTER_CONTINUE(job=job.job))
        elif isinstance(msg, m.SHADOW_HOLD | m.SHADOW_REMOVE | m.SHADOW_VACATE):
            if job.request is None:
                if isinstance(msg, m.SHADOW_HOLD):
                    job.request = Request("hold", msg.reason, msg.code, msg.subcode)
                elif isinstance(msg, m.SHADOW_REMOVE):
                    job.request = Request("remove", msg.reason)
                else:
                    job.request = Request("vacate")
                await self._stop(inst)

    async def _stop(self, inst: _Instance) -> None:
        job = inst.job
        assert job.request is not None
        self._ctx.log.info("stopping_job", job=job.job, why=job.request.action)
        if job.request.action == "hold":
            await self._to_starter(inst, m.STARTER_HOLD(job=job.job))
        else:
            await self._to_starter(inst, m.STARTER_REMOVE(job=job.job))

    def _push_at_end_of_instant(self, inst: _Instance, now: float) -> None:
        def due() -> None:
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                inst.send.send_nowait(_PushNow())
        self._ctx.at_end_of_instant((now, "shadow queue update", inst.job.job), due)

    def _schedule_policy(self, inst: _Instance, now: float) -> None:
        """Arm the periodic policy timer, on its phase from the execution's start.

        A policy that cannot fire however long the job runs (policy.py,
        periodic_policy_is_constant: the submit defaults PeriodicHold = false and
        PeriodicRemove = false) gets no timer: its evaluations would change nothing, and
        each would cost the pool a simulated instant.
        """
        if self._policy_interval <= 0 or inst.abandoned or inst.next_policy != math.inf:
            return
        if periodic_policy_is_constant(inst.job.ad):
            return
        ticks = math.floor((now - inst.began) / self._policy_interval) + 1
        inst.next_policy = inst.began + ticks * self._policy_interval

    async def _policy(self, inst: _Instance, now: float) -> None:
        if inst.abandoned:
            return
        outcome = inst.job.periodic(now)
        if outcome is not None:
            self._ctx.log.info("policy_fired", job=inst.job.job, attr=outcome.attr,
                               reason=outcome.reason)
            await self._stop(inst)

    async def _to_starter(self, inst: _Instance, msg: Message) -> None:
        if inst.starter_addr is None:
            inst.pending.append(msg)
            return
        reply = await self._request(inst.starter_addr, "starter", msg)
        if not isinstance(reply, m.OK):
            self._ctx.log.warning("starter_refused", job=inst.job.job, cmd=msg.command)

    def _write(self, inst: _Instance, events: list[LogEvent]) -> None:
        if inst.log is None or inst.abandoned:
            return
        job = inst.job
        try:
            for event in events:
                write_event(inst.log, job.cluster, job.proc, event)
        except EventLogError as e:
            self._ctx.log.warning("user_log_failed", job=job.job, error=str(e))

    async def _push(self, inst: _Instance, *, durable: bool = True) -> None:
        """SHADOW_UPDATE of the dirty attributes; the reply's qedit attributes are taken.
        The periodic push is committed non-durably, as HTCondor's (``durable`` false)."""
        job = inst.job
        if inst.abandoned:
            return
        ad = job.take_dirty()
        if not len(ad):
            return
        address = await self._schedd()
        reply = await self._request(address, "schedd", m.SHADOW_UPDATE(job=job.job, ad=ad, durable=durable)) \
            if address else None
        if isinstance(reply, m.SHADOW_UPDATE_REPLY):
            job.take_qedit(reply.ad)
        else:
            job.dirty.update(ad.keys())  # try again with the next push
            if reply is None:
                self._schedd_failed()

    async def _shadow_exit(self, inst: _Instance, exit_code: int) -> None:
        job = inst.job
        if inst.abandoned:
            return
        ad = job.take_dirty()
        msg = m.SHADOW_EXIT(job=job.job, exit_code=exit_code, ad=ad)
        if not await self._report_exit(inst, msg):
            inst.unreported = msg

    async def _report_exit(self, inst: _Instance, msg: m.SHADOW_EXIT) -> bool:
        """Send SHADOW_EXIT with retries; True once a schedd took it (this one, or a
        restarted one in its SHADOW_RECONNECT's answer)."""
        inst.exiting = msg
        try:
            for attempt in range(self._retries + 1):
                if attempt:
                    await trio.sleep(self._retry_delay)
                if inst.handed_over:
                    return True
                address = await self._schedd()
                reply = await self._request(address, "schedd", msg) if address else None
                if inst.handed_over:
                    return True
                if isinstance(reply, m.OK):
                    if self.instances.get(msg.job) is inst:
                        del self.instances[msg.job]
                    return True
                if reply is None:
                    self._schedd_failed()
        finally:
            inst.exiting = None
        self._ctx.log.error("shadow_exit_gave_up", job=msg.job, exit_code=msg.exit_code)
        return False


def write_event(writer: EventLogWriter, cluster: int, proc: int, event: LogEvent) -> None:
    """Write one :class:`LogEvent` with the EventLogWriter method of its kind."""
    f = event.fields
    if event.kind == "execute":
        writer.execute(cluster, proc, event.t, f["host"], slot_name=f.get("slot_name"),
                       props=f.get("props"))
    elif event.kind == "image_size":
        mem, rss = f.get("memory_usage_mb", -1), f.get("rss_kb", -1)
        writer.image_size(cluster, proc, event.t, f["size_kb"],
                          memory_usage_mb=mem if mem >= 0 else None,
                          rss_kb=rss if rss >= 0 else None)
    elif event.kind == "suspended":
        writer.suspended(cluster, proc, event.t, f["n_pids"])
    elif event.kind == "unsuspended":
        writer.unsuspended(cluster, proc, event.t)
    elif event.kind == "evicted":
        writer.evicted(cluster, proc, event.t, **f)
    elif event.kind == "terminated":
        writer.terminated(cluster, proc, event.t, **f)
    elif event.kind == "remote_error":
        writer.remote_error(cluster, proc, event.t, **f)
    elif event.kind == "shadow_exception":
        writer.shadow_exception(cluster, proc, event.t, f["message"])
    elif event.kind == "reconnected":
        writer.write_event("JOB_RECONNECTED", cluster, proc, event.t, (
            f"Job reconnected to {f['startd_name']}\n"
            f"    startd address: {f['startd_addr']}\n"
            f"    starter address: {f['starter_addr']}\n"))
    else:
        raise ValueError(f"no user-log event {event.kind!r}")
