"""condor_startd's runner: the wire in front of :class:`~.logic.StartdState`.

How this works
--------------
One startd process hosts the simulated machines of SIM_MACHINES (machines.py), each with
its slots (slot.py). The runner serves the claim messages (REQUEST_CLAIM, ACTIVATE_CLAIM,
DEACTIVATE_CLAIM(_FORCIBLY), RELEASE_CLAIM, ALIVE) and the starter's (STARTER_UPDATE,
STARTER_EXITED), feeds them to the slot with the simulated time, carries out the actions
the slot returns, and sends a slot's ad to the collector at once whenever its state or
activity changed. Every UPDATE_INTERVAL (first after UPDATE_OFFSET) all slot ads go to
the collector. A policy timer evaluates the policy every POLLING_INTERVAL while some
expression can change its mind, and wakes at each claim lease deadline.

Hooks (docs/hooks.md): the fetch-work hooks run in hooks.py (a slot that fetches a job
holds a *fetched* claim: no schedd, its job started here with STARTER_START and no
shadow); every machine's startd cron jobs and benchmarks run in cron.py and their output
is merged into its slot ads. DC_RECONFIG re-reads the hooks' and the cron jobs' knobs.

The starter process of this startd is found through the collector: the ad with
``MyType == "Starter"`` and ``StartdDaemon`` equal to this daemon's name. As HTCondor's
startd reaps its starters, this one notices its starter process die: it holds a
connection to it open (the starter sends nothing on it), and when that ends, every job
the dead starter ran is over: the slot goes on as after STARTER_EXITED (history,
Claimed/Idle) and the job's shadow gets the JOB_EXIT the starter could not send
(JOB_KILLED, ExitSignal 9), so it requeues the job (JOB_EVICTED). The next lookup finds the
restarted starter.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import trio

from condorsim.classad import ClassAd
from condorsim.hooks import machine_lookup
from condorsim.jobs.codes import ShadowExit
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m
from daemons.starter.watch import wait_until_gone

from .actions import (
    Action,
    ClaimGranted,
    ClaimRefused,
    FetchClaimEvicted,
    StartFetchedJob,
    StopJob,
    SuspendJob,
    WriteHistory,
)
from .cron import RUN_BENCHMARKS_DEFAULT, MachineCron
from .hooks import StartdHooks
from .logic import SlotDeadlines, StartdState, history_record
from .machines import POLICY_KNOBS, read_machines
from .slot import Slot

_NET_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError, ProtocolError,
               ConnectionClosed)
_DYNAMIC_POLICY = [k for k in POLICY_KNOBS if k not in (
    "RANK", "MAXJOBRETIREMENTTIME", "MachineMaxVacateTime", "WANT_VACATE", "CLAIM_WORKLIFE")]


class Startd:
    def __init__(self) -> None:
        self.state: StartdState | None = None
        self._wakeup = trio.Event()
        self._pending: dict[str, tuple[trio.Event, list[Action]]] = {}
        self._starter_addr: str | None = None
        # One lookup at a time: activations of the same instant share its answer, so the
        # number of collector queries does not depend on the order trio runs them in.
        self._starter_lookup = trio.Lock()
        # each slot's last state/activity, for the StartLog's "Changing state" lines; a slot
        # begins in Owner/Idle, as HTCondor's do
        self._last_state: dict[str, str] = {}
        # condor_drain: each machine's last request id, and the machines that resume
        # once drained (-resume-on-completion)
        self._drain_ids: dict[str, int] = {}
        self._drain_resume: set[str] = set()
        self._updates_due: set[tuple[float, str, str]] = set()
        self._watched: set[str] = set()  # starter addresses whose death we watch for
        # claim id -> (job, shadow address, starter address) of each activation
        self._activations: dict[str, tuple[str, str, str]] = {}

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self._ctx = ctx
        self._to_collector = ctx.collector_updates()
        cfg = ctx.config
        machines = read_machines(cfg)
        alive = cfg.get_int("ALIVE_INTERVAL", 300)
        lease = cfg.get_int("MAX_CLAIM_ALIVES_MISSED", 6) * alive
        self._update_interval = cfg.get_int("UPDATE_INTERVAL", 300)
        self._update_offset = cfg.get_int("UPDATE_OFFSET", 0)
        self._polling = cfg.get_int("POLLING_INTERVAL", 5)
        self._needs_polling = any(
            not mach.policy[k].is_literal for mach in machines for k in _DYNAMIC_POLICY
        ) or any(mach.policy["PREEMPT"].literal_value is True for mach in machines
                 if mach.policy["PREEMPT"].is_literal) or \
            (cfg.get("RunBenchmarks") or RUN_BENCHMARKS_DEFAULT).strip() != RUN_BENCHMARKS_DEFAULT
        self._history = ctx.path("STARTD_HISTORY", "spool/startd_history")
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status))
            self.state = StartdState(
                machines, now=trio.current_time(), address=address,
                lease_duration=lease, uid_domain=cfg.get("UID_DOMAIN") or "localhost",
                filesystem_domain=cfg.get("FILESYSTEM_DOMAIN") or "localhost",
            )
            self._deadlines = SlotDeadlines(self.state.slots)
            for slot in self.state.slots:
                self._log_transitions(slot)
                slot.ad_changed = False
            self.hooks = StartdHooks(self, cfg, trio.current_time())
            self.crons = [self._machine_cron(cfg, mach) for mach in machines]
            nursery.start_soon(self.hooks.lane.serve)
            nursery.start_soon(self.hooks.fetch_loop)
            for mc in self.crons:
                nursery.start_soon(mc.run)
            nursery.start_soon(self._first_benchmarks)
            nursery.start_soon(self._update_loop)
            nursery.start_soon(self._policy_loop)
            ctx.log.info("startd_ready", slots=len(self.state.slots), address=address)
            task_status.started(address)

    def _machine_cron(self, cfg: Any, machine: Any) -> MachineCron:
        assert self.state is not None
        slots = [s for s in self.state.slots if s.machine is machine]
        return MachineCron(machine, slots, self.state.common, machine_lookup(cfg, machine.name),
                           log=self._ctx.log, run_dir=self._ctx.run_dir, busy=self._ctx.busy,
                           send_ads=self._send_at_end_of_instant)

    @property
    def ctx(self) -> DaemonContext:
        return self._ctx

    async def after(self, slot: Slot, actions: list[Action]) -> None:
        """Carry out what a slot decided (for hooks.py)."""
        await self._after(slot, actions)

    def _send_at_end_of_instant(self, slots: list[Slot]) -> None:
        """A cron job asked for an update: the slots' ads go once this instant is over."""
        now = trio.current_time()
        key = (now, "startd cron update", slots[0].machine.name if slots else "")
        if key in self._updates_due:
            return
        self._updates_due.add(key)

        def send() -> None:
            self._updates_due.discard(key)
            for slot in slots:
                slot.ad_changed = True
            self._nursery.start_soon(self._publish_all, slots)

        self._ctx.at_end_of_instant(key, send)

    async def _publish_all(self, slots: list[Slot]) -> None:
        for slot in slots:
            await self._publish(slot)

    async def _first_benchmarks(self) -> None:
        """Benchmarks at the first evaluation of the slots (one POLLING_INTERVAL in)."""
        await trio.sleep(self._polling)
        self._check_benchmarks(trio.current_time())

    def _check_benchmarks(self, now: float) -> None:
        assert self.state is not None
        state = self.state
        for mc in self.crons:
            mc.check_benchmarks(now, lambda slot: state.slot_ad(slot, now))

    def _reconfig(self) -> None:
        """DC_RECONFIG: the hooks' and the cron jobs' knobs are read again."""
        cfg = self._ctx.config.with_subsystem(self._ctx.config.subsystem)
        self._ctx.log.info("reconfig", what="hooks and daemon cron jobs")
        self.hooks.reconfig(cfg)
        for mc in self.crons:
            mc.reconfig(machine_lookup(cfg, mc.machine.name))

    # -- collector updates ---------------------------------------------------------------

    async def _send_to_collector(self, msg: Message) -> None:
        """Down the connection kept to the collector, as HTCondor's TCP updates
        (DCCollector::sendTCPUpdate; :class:`KeptConnection`, docs/startd.md)."""
        await self._to_collector.send(msg)

    async def _publish(self, slot: Slot) -> None:
        assert self.state is not None
        slot.ad_changed = False
        await self._send_to_collector(
            m.UPDATE_STARTD_AD(ad=self.state.slot_ad(slot, trio.current_time(), sealed=True)))

    async def _update_loop(self) -> None:
        assert self.state is not None
        next_time = trio.current_time() + self._update_offset
        while True:
            await trio.sleep_until(next_time)
            for slot in self.state.slots:
                await self._publish(slot)
            next_time += self._update_interval

    async def _after(self, slot: Slot, actions: list[Action]) -> None:
        """Log the slot's transitions, write the history, send the ad if it changed, carry
        out the other ``actions``."""
        self._deadlines.touch(slot)
        self._log_transitions(slot)
        for action in actions:  # local and at once: the job's history comes first
            if isinstance(action, WriteHistory):
                self._write_history(action.job_ad)
        if slot.ad_changed:
            await self._publish(slot)
        await self._drain_complete(slot)
        self._wakeup.set()
        self.hooks.wake()
        for action in actions:
            if not isinstance(action, WriteHistory):
                await self._do(action, slot)

    # -- condor_drain ------------------------------------------------------------------------

    async def _drain_command(self, msg: m.DRAIN_JOBS | m.CANCEL_DRAIN_JOBS, conn: Conn,
                             now: float) -> None:
        """DRAIN_JOBS / CANCEL_DRAIN_JOBS for one machine (``ResMgr::startDraining``)."""
        assert self.state is not None
        slots = [s for s in self.state.slots if s.machine.name == msg.machine]
        if not slots:
            await conn.send(m.FAILED(reason=f"this startd has no machine {msg.machine!r}"))
            return
        if isinstance(msg, m.CANCEL_DRAIN_JOBS):
            current = self._drain_ids.get(msg.machine)
            if msg.request_id and current is not None and msg.request_id != str(current):
                await conn.send(m.FAILED(reason=f"No matching draining request id "
                                                f"{msg.request_id}."))
                return
            self._ctx.log.info("draining_cancelled", machine=msg.machine)
            await self._undrain(msg.machine, slots, now)
            await conn.send(m.OK())
            return
        if any(s.draining is not None for s in slots):
            await conn.send(m.FAILED(reason="Draining already in progress."))
            return
        if msg.check:
            from condorsim.classad import ClassAdError, EvalContext, parse_expr
            try:
                check = parse_expr(msg.check)
            except ClassAdError as e:
                await conn.send(m.FAILED(reason=f"bad draining check expression: {e}"))
                return
            for s in slots:
                value = check.evaluate(my=self.state.slot_ad(s, now), ctx=EvalContext(now=int(now)))
                if type(value) is not bool:
                    await conn.send(m.FAILED(reason="Draining check expression does not "
                                                    f"evaluate to a bool on {s.name}."))
                    return
                if not value:
                    await conn.send(m.FAILED(reason=f"Draining check expression is false on "
                                                    f"{s.name}."))
                    return
        self._drain_ids[msg.machine] = self._drain_ids.get(msg.machine, 0) + 1
        if msg.on_completion == "resume":
            self._drain_resume.add(msg.machine)
        self._ctx.log.info("draining_started", machine=msg.machine, how=msg.how,
                           reason=msg.reason, request_id=self._drain_ids[msg.machine])
        await conn.send(m.OK())
        for s in slots:
            await self._after(s, s.drain(msg.how, msg.reason, now))

    async def _undrain(self, machine: str, slots: list[Slot], now: float) -> None:
        self._drain_resume.discard(machine)
        for s in slots:
            await self._after(s, s.undrain(now))

    async def _drain_complete(self, slot: Slot) -> None:
        """-resume-on-completion: once every slot of the machine is Drained, resume."""
        assert self.state is not None
        machine = slot.machine.name
        if machine not in self._drain_resume or not slot.drained():
            return
        slots = [s for s in self.state.slots if s.machine.name == machine]
        if all(s.drained() for s in slots):
            self._ctx.log.info("draining_complete", machine=machine)
            await self._undrain(machine, slots, trio.current_time())

    def _log_transitions(self, slot: Slot) -> None:
        for when, state, activity, event in slot.transitions:
            was = self._last_state.get(slot.name, "Owner/Idle")
            self._ctx.log.info("slot_state_changed", slot=slot.name, state=state.value,
                               activity=activity.value, cause=event.value, time=when, was=was)
            self._last_state[slot.name] = f"{state.value}/{activity.value}"
        slot.transitions.clear()

    # -- policy ----------------------------------------------------------------------------

    async def _policy_loop(self) -> None:
        """Tick the slots whose lease is due, and every slot at each poll when needed.

        The slots' deadlines are kept in :class:`SlotDeadlines` (asked again only for the
        slots something happened to): the same slots are ticked, in the same order, as
        when every slot is asked at every wake-up."""
        assert self.state is not None
        slots = self.state.slots
        deadlines = self._deadlines
        next_poll = trio.current_time() + self._polling
        while True:
            now = trio.current_time()
            deadlines.refresh()
            wake = deadlines.earliest() or math.inf
            polling = self._needs_polling or deadlines.polling()
            if polling:
                next_poll = max(next_poll, now) if next_poll > now else now + self._polling
                wake = min(wake, next_poll)
            if wake > now:
                with trio.move_on_at(wake):
                    await self._wakeup.wait()
                self._wakeup = trio.Event()
            now = trio.current_time()
            poll_due = polling and now >= next_poll
            if poll_due:
                next_poll = now + self._polling
                self._check_benchmarks(now)
                for slot in slots:
                    actions = slot.tick(now)
                    deadlines.touch(slot)
                    if actions or slot.ad_changed or slot.transitions:
                        await self._after(slot, actions)
                continue
            deadlines.refresh()
            due = deadlines.due(now)
            last = -1
            while due:
                i = heapq.heappop(due)
                if i <= last:
                    continue
                last = i
                slot = slots[i]
                deadline = slot.next_deadline()
                if deadline is None or deadline > now:
                    continue
                actions = slot.tick(now)
                deadlines.touch(slot)
                if actions or slot.ad_changed or slot.transitions:
                    await self._after(slot, actions)
                # a later slot that became due meanwhile is ticked in this pass too
                for j in deadlines.refresh():
                    if j > i and deadlines.deadline(j) <= now:
                        heapq.heappush(due, j)

    # -- actions -------------------------------------------------------------------------

    async def _do(self, action: Action, slot: Slot) -> None:
        if isinstance(action, (ClaimGranted, ClaimRefused)):
            pending = self._pending.pop(action.claim_id, None)
            if pending is not None:
                pending[1].append(action)
                pending[0].set()
        elif isinstance(action, StopJob):
            self._nursery.start_soon(self._tell_starter, m.STARTER_REMOVE(job=action.job))
        elif isinstance(action, SuspendJob):
            msg: Message = (m.STARTER_SUSPEND(job=action.job) if action.suspend
                            else m.STARTER_CONTINUE(job=action.job))
            self._nursery.start_soon(self._tell_starter, msg)
        elif isinstance(action, WriteHistory):
            self._write_history(action.job_ad)
        elif isinstance(action, StartFetchedJob):
            self._nursery.start_soon(self._start_fetched, slot, action)
        elif isinstance(action, FetchClaimEvicted):
            self.hooks.evicted(slot, action)

    def _write_history(self, job_ad: ClassAd) -> None:
        path = self._history
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            offset = path.stat().st_size if path.exists() else 0
            with path.open("a", encoding="utf-8") as f:
                f.write(history_record(job_ad, offset, trio.current_time()))
        except OSError as e:
            self._ctx.log.warning("startd_history_failed", path=str(path), error=str(e))

    async def starter_address(self) -> str | None:
        """This startd's starter's address (looked up in the collector), or None."""
        return await self._find_starter()

    async def _find_starter(self) -> str | None:
        async with self._starter_lookup:
            return await self._lookup_starter()

    async def _lookup_starter(self) -> str | None:
        if self._starter_addr is not None:
            return self._starter_addr
        name = self._ctx.name.replace("\\", "\\\\").replace('"', '\\"')
        query = m.QUERY_GENERIC_ADS(adtype="Starter", constraint=f'StartdDaemon == "{name}"',
                                    projection=["MyAddress"])
        try:
            async with await self._ctx.connect(self._ctx.collector_address(), "collector") as c:
                reply = await c.request(query)
        except _NET_ERRORS as e:
            self._ctx.log.warning("starter_lookup_failed", error=str(e))
            return None
        if isinstance(reply, m.QUERY_RESULT):
            for ad in reply.ads:
                addr = ad.evaluate("MyAddress")
                if type(addr) is str:
                    self._starter_addr = addr
                    if addr not in self._watched:
                        self._watched.add(addr)
                        self._nursery.start_soon(self._watch_starter, addr)
                    return addr
        return None

    async def _watch_starter(self, address: str) -> None:
        """Hold a connection to the starter at ``address``; when it ends, its jobs are over."""
        assert self.state is not None
        why = await wait_until_gone(self._ctx, address, "starter")
        self._watched.discard(address)
        if self._starter_addr == address:
            self._starter_addr = None
        lost = sorted((claim_id, job, shadow) for claim_id, (job, shadow, starter)
                      in self._activations.items() if starter == address)
        report = self._ctx.log.warning if lost else self._ctx.log.info
        report("starter_gone", address=address, error=why, jobs=[job for _, job, _ in lost])
        now = trio.current_time()
        for claim_id, job, shadow in lost:
            del self._activations[claim_id]
            slot = self.state.slot_for_claim(claim_id)
            if slot is None or slot.claim is None or slot.claim.claim_id != claim_id or \
                    slot.claim.job_ad is None or slot.claim.starter_job() != job:
                continue
            ad = slot.claim.starter_ad.copy()  # the last update the starter sent
            ad.update({"ExitBySignal": True, "ExitSignal": 9, "ExitReason": "died on signal 9",
                       "JobCoreDumped": False})
            await self._after(slot, slot.starter_exited(claim_id, now))
            if shadow:
                self._nursery.start_soon(self._tell_shadow, shadow, m.JOB_EXIT(
                    job=job, reason=int(ShadowExit.JOB_KILLED), ad=ad))
            else:
                self.hooks.starter_exited(slot)

    async def _tell_shadow(self, address: str, msg: Message) -> None:
        try:
            async with await self._ctx.connect(address, "shadow") as conn:
                await conn.request(msg)
        except _NET_ERRORS as e:
            self._ctx.log.warning("shadow_unreachable", address=address, error=str(e))

    async def _tell_starter(self, msg: Message) -> Message | None:
        """Send ``msg`` to the starter and return its reply (None when unreachable)."""
        for _attempt in range(2):
            addr = await self._find_starter()
            if addr is None:
                self._ctx.log.warning("no_starter", cmd=msg.command)
                return None
            try:
                async with await self._ctx.connect(addr, "starter") as conn:
                    return await conn.request(msg)
            except _NET_ERRORS as e:
                self._ctx.log.warning("starter_unreachable", address=addr, error=str(e))
                self._starter_addr = None
        return None

    # -- messages ------------------------------------------------------------------------

    async def _handle(self, msg: Message, conn: Conn) -> None:
        assert self.state is not None
        now = trio.current_time()
        claim_id = getattr(msg, "claim_id", None)
        slot = self.state.slot_for_claim(claim_id) if isinstance(claim_id, str) else None
        if isinstance(msg, m.REQUEST_CLAIM):
            await self._request_claim(msg, slot, conn)
        elif isinstance(msg, m.ACTIVATE_CLAIM):
            await self._activate_claim(msg, slot, conn)
        elif isinstance(msg, m.STARTER_UPDATE):
            if slot is not None:
                slot.starter_update(msg.claim_id, msg.ad)
        elif isinstance(msg, m.STARTER_EXITED):
            self._activations.pop(msg.claim_id, None)
            if slot is not None:
                await self._after(slot, slot.starter_exited(msg.claim_id, now))
                self.hooks.starter_exited(slot)
        elif isinstance(msg, (m.DC_RECONFIG, m.DC_RECONFIG_FULL)):
            self._reconfig()  # no answer, as the other daemons
        elif isinstance(msg, (m.DEACTIVATE_CLAIM, m.DEACTIVATE_CLAIM_FORCIBLY, m.RELEASE_CLAIM)):
            actions = None
            if slot is not None:
                if isinstance(msg, m.RELEASE_CLAIM):
                    actions = slot.release(msg.claim_id, now)
                else:
                    forcibly = isinstance(msg, m.DEACTIVATE_CLAIM_FORCIBLY)
                    actions = slot.deactivate(msg.claim_id, forcibly, now)
            if actions is None:
                await conn.send(m.FAILED(reason=f"claim id is not valid: {msg.claim_id}"))
                return
            assert slot is not None
            await self._after(slot, actions)
            await conn.send(m.OK())
        elif isinstance(msg, m.ALIVE):
            ok = slot is not None and slot.alive(msg.claim_id, now)
            if slot is not None:
                self._deadlines.touch(slot)  # its lease deadline moved
            await conn.send(m.OK() if ok else m.FAILED(reason="claim id is not valid"))
        elif isinstance(msg, m.DRAIN_JOBS | m.CANCEL_DRAIN_JOBS):
            await self._drain_command(msg, conn, now)
        else:
            self._ctx.log.warning("unexpected_command", cmd=msg.command, peer=conn.peer)
            if not msg.command.startswith("DC_"):  # daemon-control commands have no reply
                await conn.send(m.FAILED(reason=f"the startd does not take {msg.command}"))

    async def _request_claim(self, msg: m.REQUEST_CLAIM, slot: Slot | None, conn: Conn) -> None:
        assert self.state is not None
        if slot is None:
            await conn.send(m.CLAIM_RESPONSE(accepted=False, reason="claim id is not valid",
                                             slot_ad=None))
            return
        now = trio.current_time()
        accepted, reason, actions = slot.request_claim(
            msg.claim_id, msg.job_ad, msg.scheduler_addr, now)
        self._ctx.log.info("request_claim", slot=slot.name, accepted=accepted, reason=reason)
        waiting = accepted and not any(
            isinstance(a, ClaimGranted) and a.claim_id == msg.claim_id for a in actions
        ) and slot.current_claim_id != msg.claim_id
        outcome: list[Action] = []
        if waiting:
            done = trio.Event()
            self._pending[msg.claim_id] = (done, outcome)
        await self._after(slot, actions)
        if waiting:
            await done.wait()
            refused = [a for a in outcome if isinstance(a, ClaimRefused)]
            if refused:
                accepted, reason = False, refused[0].reason
        slot_ad = self.state.slot_ad(slot, trio.current_time()) if accepted else None
        await conn.send(m.CLAIM_RESPONSE(accepted=accepted, reason=reason, slot_ad=slot_ad))

    async def _activate_claim(self, msg: m.ACTIVATE_CLAIM, slot: Slot | None,
                              conn: Conn) -> None:
        assert self.state is not None
        now = trio.current_time()
        error = "claim id is not valid" if slot is None else slot.activate(
            msg.claim_id, msg.job_ad, now)
        if error is not None or slot is None:
            await conn.send(m.FAILED(reason=error or "claim id is not valid"))
            return
        await self._after(slot, [])
        start = m.STARTER_START(claim_id=msg.claim_id, job_ad=msg.job_ad,
                                shadow_addr=msg.shadow_addr, slot_ad=self.state.slot_ad(slot, now))
        reply = await self._tell_starter(start)
        if isinstance(reply, m.OK):
            # (the job may be over already: STARTER_EXITED can overtake this reply)
            if self._starter_addr is not None and slot.claim is not None and \
                    slot.claim.claim_id == msg.claim_id and slot.job_running:
                self._activations[msg.claim_id] = (
                    slot.claim.starter_job(), msg.shadow_addr, self._starter_addr)
            await conn.send(m.OK())
            return
        slot.activation_failed(trio.current_time())
        await self._after(slot, [])
        why = reply.reason if isinstance(reply, m.FAILED) else "no starter is available"
        await conn.send(m.FAILED(reason=f"cannot start the job: {why}"))

    async def _start_fetched(self, slot: Slot, action: StartFetchedJob) -> None:
        """STARTER_START for a fetched job: no shadow (``shadow_addr`` empty)."""
        assert self.state is not None
        now = trio.current_time()
        start = m.STARTER_START(claim_id=action.claim_id, job_ad=action.job_ad, shadow_addr="",
                                slot_ad=self.state.slot_ad(slot, now))
        reply = await self._tell_starter(start)
        claim = slot.claim
        if isinstance(reply, m.OK):
            if self._starter_addr is not None and claim is not None and \
                    claim.claim_id == action.claim_id and slot.job_running:
                self._activations[action.claim_id] = (claim.starter_job(), "",
                                                      self._starter_addr)
            return
        why = reply.reason if isinstance(reply, m.FAILED) else "no starter is available"
        self._ctx.log.warning("fetched_job_not_started", slot=slot.name, reason=why)
        if claim is not None and claim.claim_id == action.claim_id:
            await self._after(slot, slot.fetched_start_failed(trio.current_time()))
