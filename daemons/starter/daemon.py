"""condor_starter's runner: one process per startd process, each job an instance (a trio task).

How this works
--------------
The starter advertises itself to the collector (MyType "Starter", UPDATE_AD_GENERIC) at
start and every 300 s. STARTER_START from the startd is answered OK and starts an
instance task, which

1. introduces itself to the shadow (REGISTER_STARTER_INFO: its address),
2. waits ``+SimInputTransferTime`` seconds (input transfer),
3. checks the deferral time on the execute machine's clock (now + the slot's
   SimClockOffset): abort with JOB_MISSED_DEFERRAL_TIME, wait, or go on,
4. sends BEGIN_EXECUTION and runs the payload on a :class:`~.logic.PayloadClock`,
   sending REGISTER_JOB_INFO (shadow) and STARTER_UPDATE (startd)
   STARTER_INITIAL_UPDATE_INTERVAL after the start, then every STARTER_UPDATE_INTERVAL,
   and at once on suspend and unsuspend,
5. reports JOB_EXIT to the shadow and STARTER_EXITED to the startd.

Hooks (docs/hooks.md): before the input transfer the instance runs
PREPARE_JOB_BEFORE_TRANSFER, after it PREPARE_JOB (each may change the job ad, or hold the
job or send it back to idle), UPDATE_JOB_INFO at each periodic update and JOB_EXIT before
it reports the exit (hooks.py decides, hookrun.py runs). A job with no shadow
(``shadow_addr`` empty: the startd fetched it) talks to no shadow: its events go to its
``StarterUserLog`` (localjob.py) and its last figures to the startd in a final
STARTER_UPDATE.

STARTER_SUSPEND / CONTINUE / HOLD / REMOVE only change the instance's state and wake its
task, so a connection's handler never waits on a job. Each instance keeps one connection
to its shadow (messages arrive in the order sent) and one to its startd.

The starter dies with its startd, as HTCondor's starter (a child of the startd) shuts down
fast when its parent goes away: for every startd it runs jobs for, it holds a connection
open on which the startd never sends anything. When that connection ends, the startd
process is gone (killed; a restarted startd knows none of the old claims): every job of
that startd is killed at once and reported to its shadow as JOB_KILLED (the shadow
writes JOB_EVICTED and the schedd requeues the job); nothing is sent to the dead startd.
"""

from __future__ import annotations

import itertools
import math
import signal
from dataclasses import dataclass, field

import trio

from condorsim.classad import ClassAd
from condorsim.hooks import HookLane, JobHooks
from condorsim.jobs.codes import ShadowExit
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.runtime.process import wait_real
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

from .hookrun import run_job_exit, run_prepare, submit_update_info
from .hooks import PrepareOutcome, remote_error_ad, starter_hooks
from .localjob import LocalLog
from .logic import (
    DeferralAction,
    PayloadClock,
    UpdateAd,
    deferral_decision,
    exit_ad,
    payload_exit_code,
    payload_runtime,
    provisioned_ad,
    starter_ad,
)
from .real import SpawnError, finished, spawn
from .watch import wait_until_gone

AD_INTERVAL = 300
JOB_KILL_GRACE = 1.0  # real seconds a job has after SIGTERM at shutdown, before SIGKILL
STARTER_ERROR_CODE = 1007
"""HTCondor's ``CONDOR_HOLD_CODE::StarterError``: a starter error without a hold code (vacate)."""
PEER_ERRORS = (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError,
               trio.ClosedResourceError)


def _number(ad: ClassAd, attr: str) -> float:
    value = ad.evaluate(attr)
    return float(value) if type(value) in (int, float) else 0.0


def _job_id(ad: ClassAd) -> str:
    return f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}"


def _fetched_key(ad: ClassAd, slot_ad: ClassAd) -> str:
    """A fetched job's name here: ``<cluster>.<proc>@<slot>`` (1.0 when the ad has none,
    as HTCondor's JICLocal), so that jobs of several slots with one id do not collide."""
    cluster, proc, slot = ad.evaluate("ClusterId"), ad.evaluate("ProcId"), slot_ad.evaluate("Name")
    return (f"{cluster if type(cluster) is int else 1}.{proc if type(proc) is int else 0}"
            f"@{slot if isinstance(slot, str) else '?'}")


class _Peer:
    """One lazily opened connection to a daemon; dropped (and reopened) when it breaks."""

    def __init__(self, ctx: DaemonContext, address: str | None, name: str) -> None:
        self._ctx = ctx
        self.address = address
        self._name = name
        self._conn: Conn | None = None

    async def _open(self) -> Conn:
        if self.address is None:
            raise ConnectionRefusedError(f"no address for the {self._name}")
        if self._conn is not None and self._conn.peer_closed():
            # as HTCondor's condor_write: the peer closed our cached connection (it
            # restarted); a message written into it would be lost, so open a new one
            self._ctx.log.info("reconnect", to=self._name,
                               reason="the peer closed the cached connection")
            await self.close()
        if self._conn is None:
            self._conn = await self._ctx.connect(self.address, self._name)
        return self._conn

    async def send(self, msg: Message) -> bool:
        try:
            await (await self._open()).send(msg)
            return True
        except PEER_ERRORS as e:
            self._ctx.log.warning("send_failed", to=self._name, cmd=msg.command, error=str(e))
            await self.close()
            return False

    async def request(self, msg: Message) -> Message | None:
        try:
            return await (await self._open()).request(msg)
        except PEER_ERRORS as e:
            self._ctx.log.warning("request_failed", to=self._name, cmd=msg.command, error=str(e))
            await self.close()
            return None

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            with trio.CancelScope(shield=True):
                try:
                    await conn.aclose()
                except PEER_ERRORS:
                    pass


@dataclass
class _Instance:
    job: str
    claim_id: str
    job_ad: ClassAd
    slot_ad: ClassAd
    pid: int
    shadow: _Peer
    startd: _Peer
    suspended: bool = False  # asked to be suspended (also before the payload starts)
    kill: str | None = None  # "hold", "remove", "evict" or "startd_gone" once asked to stop
    clock: PayloadClock | None = None
    update_now: bool = False
    process: trio.Process | None = None  # the real executable (SIM_EXECUTE_REAL_JOBS)
    returncode: int | None = None
    wake: trio.Event = field(default_factory=trio.Event)
    fetched: bool = False  # no shadow: the startd fetched this job
    hooks: JobHooks = field(default_factory=JobHooks)
    local: LocalLog | None = None  # a fetched job's StarterUserLog
    update_ad: UpdateAd | None = None  # made at the first update


class Starter:
    def __init__(self) -> None:
        self.instances: dict[str, _Instance] = {}
        self._pids = itertools.count(1000)
        self._watched: set[str] = set()  # startd addresses whose death we watch for
        self._job_processes: list[trio.Process] = []  # real job processes not yet reaped

    @property
    def ctx(self) -> DaemonContext:
        return self._ctx

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self._ctx = ctx
        self._initial = ctx.config.get_int("STARTER_INITIAL_UPDATE_INTERVAL", 8)
        self._interval = max(1, ctx.config.get_int("STARTER_UPDATE_INTERVAL", 300))
        self._default_runtime = ctx.config.get_float("SIM_DEFAULT_RUNTIME", 600)
        self._real = ctx.config.get_bool("SIM_EXECUTE_REAL_JOBS", False)
        self._execute_dir = str(ctx.path("EXECUTE", "execute"))
        self._lane = HookLane(ctx.log, ctx.busy)
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._lane.serve)
                self.address = await nursery.start(
                    lambda task_status: ctx.serve(self._handle, task_status=task_status)
                )
                nursery.start_soon(self._advertise)
                task_status.started(self.address)
        finally:
            with trio.CancelScope(shield=True):
                await self._kill_jobs()

    async def _kill_jobs(self) -> None:
        """The starter is ending: no job process may outlive it. A graceful shutdown sends
        each job SIGTERM and SIGKILL after JOB_KILL_GRACE real seconds; a fast one SIGKILL
        at once (HTCondor's starter: soft kill, then hard kill; -fast: hard kill)."""
        procs = [p for p in self._job_processes if p.returncode is None]
        fast = self._ctx.shutdown == "fast"
        for proc in procs:
            self._ctx.log.info("job_process_killed_at_shutdown", pid=proc.pid,
                               how=self._ctx.shutdown)
            proc.send_signal(signal.SIGKILL if fast else signal.SIGTERM)
        for proc in procs:
            if not await wait_real(proc, 0 if fast else JOB_KILL_GRACE):
                proc.kill()
                await wait_real(proc, JOB_KILL_GRACE)

    # -- the collector ----------------------------------------------------------------------
    def starter_ad(self) -> ClassAd:
        name = self._ctx.name
        return ClassAd({
            "MyType": "Starter",
            "Name": f"{name}@localhost",
            "StartdDaemon": name.replace("starter", "startd"),
            "MyAddress": self.address,
            "HasJobDeferral": True,
            "NumInstances": len(self.instances),
        })

    async def _advertise(self) -> None:
        peer = _Peer(self._ctx, self._ctx.collector_address(), "collector")
        while True:
            await peer.send(m.UPDATE_AD_GENERIC(ad=self.starter_ad()))
            await trio.sleep(AD_INTERVAL)

    # -- commands ---------------------------------------------------------------------------
    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.DC_RECONFIG | m.DC_RECONFIG_FULL):
            return  # nothing to re-read; no answer, as the schedd
        if isinstance(msg, m.STARTER_START):
            await conn.send(self._start(msg))
            return
        job = getattr(msg, "job", None)
        inst = self.instances.get(job) if isinstance(job, str) else None
        if inst is None or not isinstance(
            msg, m.STARTER_SUSPEND | m.STARTER_CONTINUE | m.STARTER_HOLD | m.STARTER_REMOVE
        ):
            what = f"no job {job} here" if inst is None else f"the starter does not take {msg.command}"
            await conn.send(m.FAILED(reason=what))
            return
        now = trio.current_time()
        if isinstance(msg, m.STARTER_SUSPEND) and not inst.suspended:
            inst.suspended = True
            if inst.clock is not None and inst.clock.suspend(now):
                inst.update_now = True
        elif isinstance(msg, m.STARTER_CONTINUE) and inst.suspended:
            inst.suspended = False
            if inst.clock is not None and inst.clock.resume(now):
                inst.update_now = True
        elif isinstance(msg, m.STARTER_HOLD | m.STARTER_REMOVE) and inst.kill is None:
            # the startd stops a job to evict it (preemption, PREEMPT, a release)
            from_startd = conn.peer.startswith("startd")
            inst.kill = "hold" if isinstance(msg, m.STARTER_HOLD) else \
                "evict" if from_startd else "remove"
        self._signal(inst, msg)
        self._ctx.log.info("job_command", job=inst.job, cmd=msg.command)
        inst.wake.set()
        await conn.send(m.OK())

    def _signal(self, inst: _Instance, msg: Message) -> None:
        """Pass a command on to a real process: SIGSTOP, SIGCONT or SIGTERM."""
        if inst.process is None or inst.returncode is not None:
            return
        sig = {m.STARTER_SUSPEND: signal.SIGSTOP, m.STARTER_CONTINUE: signal.SIGCONT,
               m.STARTER_HOLD: signal.SIGTERM, m.STARTER_REMOVE: signal.SIGTERM}.get(type(msg))
        if sig is not None:
            try:
                inst.process.send_signal(sig)
                if sig == signal.SIGTERM:
                    inst.process.send_signal(signal.SIGCONT)
            except ProcessLookupError:
                pass

    def _start(self, msg: m.STARTER_START) -> Message:
        fetched = not msg.shadow_addr
        if not fetched and (type(msg.job_ad.evaluate("ClusterId")) is not int or
                            type(msg.job_ad.evaluate("ProcId")) is not int):
            return m.FAILED(reason="the job ad has no integer ClusterId and ProcId")
        job = _fetched_key(msg.job_ad, msg.slot_ad) if fetched else _job_id(msg.job_ad)
        if job in self.instances:
            return m.FAILED(reason=f"job {job} already runs in this starter")
        hooks = starter_hooks(self._ctx.config, msg.job_ad, msg.slot_ad, self._ctx.run_dir)
        for event, fields in hooks.notes:
            self._ctx.log.info(event, job=job, **fields)
        if hooks.failed is not None:  # HTCondor's StarterHookMgr::reconfig fails: no job
            self._ctx.log.error("job_hooks_unusable", job=job, error=hooks.failed)
            return m.FAILED(reason=f"the job's hooks cannot be used: {hooks.failed}")
        slot_addr = msg.slot_ad.evaluate("MyAddress")
        inst = _Instance(
            job=job, claim_id=msg.claim_id, job_ad=msg.job_ad.copy(), slot_ad=msg.slot_ad,
            pid=next(self._pids),
            shadow=_Peer(self._ctx, msg.shadow_addr or None, "shadow"),
            startd=_Peer(self._ctx, slot_addr if isinstance(slot_addr, str) else None, "startd"),
            fetched=fetched, hooks=hooks,
            local=LocalLog(msg.job_ad, self._ctx.run_dir, self._ctx.log, self._userlog_format())
            if fetched else None,
        )
        self.instances[job] = inst
        if inst.startd.address is not None and inst.startd.address not in self._watched:
            self._watched.add(inst.startd.address)
            self._nursery.start_soon(self._watch_startd, inst.startd.address)
        self._nursery.start_soon(self._run_instance, inst)
        return m.OK()

    def _userlog_format(self) -> str:
        return self._ctx.config.get("DEFAULT_USERLOG_FORMAT_OPTIONS") or "iso"

    def _slot_name(self, inst: _Instance) -> str:
        name = inst.slot_ad.evaluate("Name")
        return name if isinstance(name, str) else "?"

    async def _prepare(self, inst: _Instance, hook_type: str) -> bool:
        """Run a prepare hook; False when it ended the job (held, back to idle)."""
        outcome = await run_prepare(self, self._lane, inst, hook_type)
        if outcome is None:
            return True
        if outcome.remote_error:
            await self._remote_error(inst, outcome)
        if outcome.action == "continue":
            return True
        await self._prepare_failed(inst, outcome)
        return False

    async def _remote_error(self, inst: _Instance, outcome: PrepareOutcome) -> None:
        """What HTCondor's ``notifyStarterError`` writes to the job's event log."""
        critical = outcome.status != 0
        if inst.local is not None:
            inst.local.remote_error(trio.current_time(), self._slot_name(inst), outcome.log_msg,
                                    critical, outcome.hold_code, outcome.status)
        elif not inst.fetched:
            await inst.shadow.send(m.ULOG(job=inst.job, ad=remote_error_ad(
                outcome.log_msg, critical, outcome.hold_code, outcome.status)))

    async def _prepare_failed(self, inst: _Instance, outcome: PrepareOutcome) -> None:
        """The job does not run: held (1-299) or back to idle; the starter goes away."""
        if inst.fetched:
            await self._starter_exited(inst)
            return
        reason = f"Error from {self._slot_name(inst)}: {outcome.log_msg}"
        if outcome.action == "hold":
            await self._finish(inst, ShadowExit.JOB_SHOULD_HOLD, ClassAd({
                "HoldReason": reason, "HoldReasonCode": outcome.hold_code,
                "HoldReasonSubCode": outcome.status, "VacateReason": reason,
                "VacateReasonCode": outcome.hold_code,
                "VacateReasonSubCode": outcome.status}))
        else:
            await self._finish(inst, ShadowExit.JOB_NOT_STARTED, ClassAd({
                "VacateReason": reason, "VacateReasonCode": STARTER_ERROR_CODE,
                "VacateReasonSubCode": outcome.status}))

    # -- the startd's death -----------------------------------------------------------------
    async def _watch_startd(self, address: str) -> None:
        """Hold a connection to the startd at ``address`` until it ends, then kill its jobs."""
        why = await wait_until_gone(self._ctx, address, "startd")
        self._watched.discard(address)
        orphans = sorted((i for i in self.instances.values() if i.startd.address == address),
                         key=lambda i: i.job)
        report = self._ctx.log.warning if orphans else self._ctx.log.info
        report("startd_gone", address=address, error=why, jobs=[i.job for i in orphans])
        for inst in orphans:
            if inst.kill is None:
                inst.kill = "startd_gone"
            if inst.process is not None and inst.returncode is None:
                try:
                    inst.process.kill()  # HTCondor's fast shutdown: no grace period
                except ProcessLookupError:
                    pass
            inst.wake.set()

    # -- one job ----------------------------------------------------------------------------
    async def _wait(self, inst: _Instance, deadline: float) -> None:
        """Sleep until ``deadline`` or until a command wakes the instance."""
        with trio.move_on_at(deadline):
            await inst.wake.wait()
        inst.wake = trio.Event()

    async def _wait_unless_killed(self, inst: _Instance, deadline: float) -> None:
        while inst.kill is None and trio.current_time() < deadline:
            await self._wait(inst, deadline)

    async def _run_instance(self, inst: _Instance) -> None:
        log = self._ctx.log
        try:
            if not inst.fetched:
                await inst.shadow.send(m.REGISTER_STARTER_INFO(job=inst.job, ad=starter_ad(
                    inst.slot_ad, self.address, self._execute_dir, inst.pid)))
            if not await self._prepare(inst, "PREPARE_JOB_BEFORE_TRANSFER"):
                return
            transfer = _number(inst.job_ad, "SimInputTransferTime")
            if transfer > 0:
                await self._wait_unless_killed(inst, trio.current_time() + transfer)
            if inst.kill is None and not await self._prepare(inst, "PREPARE_JOB"):
                return
            if inst.kill is None:
                offset = int(_number(inst.slot_ad, "SimClockOffset"))
                machine_now = int(trio.current_time()) + offset
                decision = deferral_decision(inst.job_ad, machine_now, inst.job)
                if decision.action is DeferralAction.ABORT:
                    log.info("job_missed_deferral_time", job=inst.job, message=decision.message)
                    await self._finish(inst, ShadowExit.JOB_MISSED_DEFERRAL_TIME, ClassAd())
                    return
                if decision.action is DeferralAction.WAIT:
                    log.info("job_deferred", job=inst.job, seconds=decision.delay)
                    await self._wait_unless_killed(inst, trio.current_time() + decision.delay)
                elif decision.message:
                    log.info("job_within_deferral_window", job=inst.job, message=decision.message)
            if inst.kill is not None:
                await self._finish(inst, ShadowExit.JOB_KILLED, exit_ad(
                    inst.job_ad, None, trio.current_time(), inst.pid, None))
                return
            await self._execute(inst)
        finally:
            self.instances.pop(inst.job, None)
            await inst.shadow.close()
            await inst.startd.close()

    async def _execute(self, inst: _Instance) -> None:
        now = trio.current_time()
        if inst.local is not None:
            inst.local.execute(now, inst.startd.address or "", self._slot_name(inst))
        if not inst.fetched:
            await inst.shadow.send(m.BEGIN_EXECUTION(job=inst.job))
        runtime = payload_runtime(inst.job_ad, self._default_runtime, int(now))
        if self._real:
            runtime = math.inf
            try:
                inst.process = await spawn(inst.job_ad, self._ctx.run_dir,
                                           self._ctx.path("EXECUTE", "execute"))
            except SpawnError as e:
                self._ctx.log.warning("job_spawn_failed", job=inst.job, error=str(e))
                await self._finish(inst, ShadowExit.JOB_SHOULD_HOLD, ClassAd({
                    "HoldReason": f"Error from {self._ctx.name}@localhost: {e}",
                    "HoldReasonCode": 6, "HoldReasonSubCode": 0,
                }))
                return
            inst.pid = inst.process.pid
            self._job_processes.append(inst.process)
            self._nursery.start_soon(self._reap, inst)
        inst.clock = clock = PayloadClock(now, runtime)
        self._ctx.log.info("job_started", job=inst.job, runtime=runtime, pid=inst.pid)
        if inst.suspended:  # suspended while it waited: spawned, then suspended at once
            clock.suspend(now)
            inst.update_now = True
            self._signal(inst, m.STARTER_SUSPEND(job=inst.job))
        next_update = now + self._initial
        while True:
            now = trio.current_time()
            if inst.update_now or now >= next_update:
                periodic = now >= next_update
                if periodic:
                    next_update = now + self._interval
                inst.update_now = False
                await self._update(inst, now, periodic)
                continue
            finish = clock.finish_time()
            if inst.kill is not None or inst.returncode is not None or (
                    finish is not None and now >= finish):
                break
            await self._wait(inst, min(next_update, finish if finish is not None else math.inf))
        now = trio.current_time()
        if inst.process is not None and inst.returncode is None:
            with trio.move_on_after(10):  # a stubborn process: SIGKILL after 10 s
                await inst.process.wait()
            if inst.process.returncode is None:
                inst.process.kill()
        if inst.kill is not None:
            self._ctx.log.info("job_killed", job=inst.job, why=inst.kill)
            sig = signal.SIGKILL if inst.kill == "startd_gone" else signal.SIGTERM
            await self._finish(inst, ShadowExit.JOB_KILLED,
                               exit_ad(inst.job_ad, clock, now, inst.pid, None, signal=int(sig)))
            return
        if inst.returncode is not None and inst.returncode < 0:
            ad = exit_ad(inst.job_ad, clock, now, inst.pid, None, signal=-inst.returncode,
                         own_accord=True)
            self._ctx.log.info("job_exited", job=inst.job, signal=-inst.returncode, pid=inst.pid)
            await self._finish(inst, ShadowExit.JOB_EXITED, ad)
            return
        code = inst.returncode if inst.returncode is not None else \
            payload_exit_code(inst.job_ad, int(now))
        self._ctx.log.info("job_exited", job=inst.job, exit_code=code, pid=inst.pid)
        await self._finish(inst, ShadowExit.JOB_EXITED,
                           exit_ad(inst.job_ad, clock, now, inst.pid, code, own_accord=True))

    async def _reap(self, inst: _Instance) -> None:
        """Wait for a real process (virtual time waits too) and wake its instance."""
        assert inst.process is not None
        with self._ctx.busy():
            inst.returncode = await inst.process.wait()
            if inst.process in self._job_processes:
                self._job_processes.remove(inst.process)
            for problem in finished(inst.process, exited=inst.kill is None):
                self._ctx.log.warning("output_transfer_failed", job=inst.job, error=problem)
        inst.wake.set()

    async def _update(self, inst: _Instance, now: float, periodic: bool = True) -> None:
        assert inst.clock is not None
        made = inst.update_ad
        if made is None:
            made = inst.update_ad = UpdateAd(inst.job_ad, inst.slot_ad, inst.clock, inst.pid, now)
        ad = made.at(now)
        if periodic:
            submit_update_info(self, self._lane, inst, ad)
        if inst.local is not None and not periodic:
            inst.local.suspended(now, inst.clock.suspended)
        if not inst.fetched:
            await inst.shadow.send(m.REGISTER_JOB_INFO(job=inst.job, ad=ad))
        await inst.startd.send(m.STARTER_UPDATE(claim_id=inst.claim_id, ad=ad))

    async def _finish(self, inst: _Instance, reason: int, ad: ClassAd) -> None:
        if inst.clock is not None:  # the job ran: JOB_EXIT first, the starter waits for it
            ad.update(provisioned_ad(inst.slot_ad))
            await run_job_exit(self, self._lane, inst, ad)
        if inst.fetched:
            if inst.local is not None and inst.clock is not None:
                inst.local.exited(trio.current_time(), ad, inst.kill is not None)
            if inst.kill != "startd_gone":  # the last figures, for the startd history
                await inst.startd.send(m.STARTER_UPDATE(claim_id=inst.claim_id, ad=ad))
            await self._starter_exited(inst)
            return
        reply = await inst.shadow.request(m.JOB_EXIT(job=inst.job, reason=int(reason), ad=ad))
        if reply is not None and not isinstance(reply, m.OK):
            self._ctx.log.warning("job_exit_refused", job=inst.job, reply=reply.command)
        await self._starter_exited(inst)

    async def _starter_exited(self, inst: _Instance) -> None:
        if inst.kill != "startd_gone":
            await inst.startd.send(m.STARTER_EXITED(claim_id=inst.claim_id))
