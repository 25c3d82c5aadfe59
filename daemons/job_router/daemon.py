"""condor_job_router's runner: the mirror, the timers and the schedd connection.

How this works
--------------
At start the routing table is read from the configuration (condorsim.routing); a table that
does not load is logged in JobRouterLog, knob by knob, and the router routes nothing (as
HTCondor's does). Every JOB_ROUTER_POLLING_PERIOD, at the end of the instant (once every
message of it has been handled, so the schedd has written what it will write and a replay
sees the same log every time), the router polls job_queue.log (JOB_ROUTER_SCHEDD1_JOB_QUEUE_LOG,
default $(SPOOL)/job_queue.log) and drives :class:`~.logic.JobRouterLogic`'s poll, turning
each operation into a schedd command (QMGMT_*, and ACT_ON_JOBS for removals, as the condor
user). Every PERIODIC_EXPR_INTERVAL it drives the originals' periodic policy the same way.
Its Job_Router ad goes to the collector every UPDATE_INTERVAL. A command that fails (the
schedd is restarting) fails that step only; the next poll tries again. The routes are read
again on DC_RECONFIG (condorsim reconfig) and every JOB_ROUTER_ENTRIES_REFRESH seconds when
it is positive (it matters for JOB_ROUTER_ENTRIES_CMD and _FILE, whose output can change).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import Any

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config, ConfigError, split_list
from condorsim.hooks import (
    HookCall,
    check_hook_path,
    hook_knob,
    hook_timeout,
    log_hook_result,
    run_hook,
)
from condorsim.jobqueue.records import JobQueueLogError
from condorsim.routing import Route, RouterConfig, load_router_config, make_routed_copy
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.wire import Message
from condorsim.wire import messages as m

from .logic import (
    Action,
    Claim,
    ClaimResult,
    JobRouterLogic,
    RemoveJob,
    RouteError,
    RouterKnobs,
    RoutingTable,
    RunHook,
    SetAttrs,
    SubmitCopy,
    Yield,
    job_str,
    parse_job,
)
from .queue_mirror import QueueMirror
from .userlog import RouterUserLogs

PEER_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError, trio.EndOfChannel)
ROUTER_USER = "condor"
"""Who the router acts as at the schedd (HTCondor's runs as root or condor: a queue super
user, so it may remove the routed copies)."""


class RouteAdapter:
    """A condorsim.routing Route as the logic sees it (:class:`~.logic.RouteLike`)."""

    def __init__(self, route: Route, router: RouterConfig, ctx: DaemonContext) -> None:
        self.route = route
        self.router = router
        self.ctx = ctx
        self.name = route.name
        self.max_jobs = route.max_jobs
        self.max_idle_jobs = route.max_idle_jobs
        self.failure_rate_threshold = route.failure_rate_threshold

    def requirements_text(self) -> str:
        return self.route.requirements_text

    def matches(self, job: ClassAd, now: int) -> bool:
        return self.route.matches(job, now)

    def edit_job_in_place(self, job: ClassAd, now: int) -> bool:
        return self.route.test("EditJobInPlace", job, now)

    def job_failure_test(self, job: ClassAd, now: int) -> bool:
        return self.route.test("JobFailureTest", job, now)

    def description(self) -> str:
        return self.route.description()

    def make_copy(self, job: ClassAd, now: int, translated: ClassAd | None = None) -> ClassAd:
        c, p = job.evaluate("ClusterId"), job.evaluate("ProcId")
        routed = make_routed_copy(job, f"{c}.{p}", self.route, self.router, now=now,
                                  rng=self.ctx.rng, translated=translated)
        for message in routed.messages:
            self.ctx.log.info("route_message", route=self.name, job=f"{c}.{p}", message=message)
        if not routed.ok:
            raise RouteError(routed.error or "the route's transform failed")
        return routed.ad


class RouterHooks:
    """Which hook a job gets (HTCondor's ``JobRouterHookMgr``): the keyword is the job's
    HookKeyword, else JOB_ROUTER_HOOK_KEYWORD; the path is ``<Keyword>_HOOK_<TYPE>``. A path
    that is missing, not executable or world-writable is logged once and the hook counts as
    not configured (HTCondor's validateHookPath collapses the two). Paths are looked up once
    per keyword and type, as HTCondor caches them until a reconfig."""

    def __init__(self, ctx: DaemonContext, default_keyword: str) -> None:
        self.ctx = ctx
        self.default_keyword = default_keyword
        self._paths: dict[tuple[str, str], str | None] = {}

    def keyword(self, ad: ClassAd) -> str:
        value = ad.evaluate("HookKeyword")
        return value if isinstance(value, str) else self.default_keyword

    def find(self, hook_type: str, ad: ClassAd) -> tuple[str, str] | None:
        keyword = self.keyword(ad)
        if not keyword:
            return None
        knob = hook_knob(keyword, hook_type)
        key = (keyword, hook_type)
        if key not in self._paths:
            value = self.ctx.config.get(knob)
            path: str | None = None
            if value is not None:
                checked = check_hook_path(knob, value, self.ctx.run_dir)
                path = checked.path
                if path is None:
                    self.ctx.log.error("hook_path_refused", knob=knob, error=checked.error,
                                       outcome="the hook counts as not configured")
            self._paths[key] = path
        path = self._paths[key]
        return (knob, path) if path is not None else None

    def call(self, action: RunHook) -> HookCall:
        keyword = action.knob[: -len(f"_HOOK_{action.hook_type}")]
        return HookCall(name=action.knob, path=action.path, stdin=action.stdin,
                        cwd=str(self.ctx.run_dir),
                        timeout=hook_timeout(self.ctx.config.get, keyword, action.hook_type))


class JobRouter:
    def __init__(self) -> None:
        self.logic: JobRouterLogic | None = None
        self.mirror: QueueMirror | None = None
        self._schedd_address: str | None = None

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self.ctx = ctx
        cfg = ctx.config
        now = int(trio.current_time())
        router, table = self._load_table(cfg)
        routes = table.routes
        hook_keyword = (cfg.get("JOB_ROUTER_HOOK_KEYWORD") or "").strip()
        self.hooks = RouterHooks(ctx, hook_keyword)

        def attrs_to_copy(ad: ClassAd) -> list[str]:
            key = self.hooks.keyword(ad)
            return split_list(cfg.get(f"{key}_ATTRS_TO_COPY") or "") if key else []

        chirp = cfg.get("CHIRP_DELAYED_UPDATE_PREFIX") or ""
        knobs = RouterKnobs(
            name=router.router_name, max_jobs=router.max_jobs,
            release_on_hold=router.release_on_hold,
            max_mirror_lag=cfg.get_int("MAX_JOB_MIRROR_UPDATE_LAG", 600),
            attrs_to_copy=attrs_to_copy, chirp_prefixes=tuple(split_list(chirp)),
            hook=self.hooks.find)
        tz = cfg.get("SIM_TIMEZONE") or "UTC"
        userlogs = RouterUserLogs(tz=tz, on_error=lambda e: ctx.log.warning(
            "user_log_failed", error=e))
        self.logic = JobRouterLogic(table, knobs, userlogs, start_time=now)
        log_path = cfg.get("JOB_ROUTER_SCHEDD1_JOB_QUEUE_LOG") or str(
            ctx.path("SPOOL", "spool") / "job_queue.log")
        self.mirror = QueueMirror(log_path)
        self.name = router.router_name
        self.polling = max(1, router.polling_period)
        self._turns: deque[trio.Event] = deque()  # polls and periodic passes, in turn
        self._turn_taken = False
        async with trio.open_nursery() as nursery:
            self.address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status))
            nursery.start_soon(self._advertise)
            nursery.start_soon(self._poll_loop)
            interval = cfg.get_int("PERIODIC_EXPR_INTERVAL", 60)
            if interval > 0:
                nursery.start_soon(self._periodic_loop, interval)
            refresh = cfg.get_int("JOB_ROUTER_ENTRIES_REFRESH", 0)
            if refresh > 0:
                nursery.start_soon(self._refresh_loop, refresh)
            ctx.log.info("job_router_started", routes=[r.name for r in routes],
                         job_queue_log=str(log_path))
            task_status.started(self.address)

    def _load_table(self, cfg: Config) -> tuple[RouterConfig, RoutingTable]:
        """The routing table from the configuration (JobRouter::config); what does not load
        is logged, and a table that does not load routes nothing."""
        ctx = self.ctx
        router = load_router_config(cfg)
        for error in router.errors:
            ctx.log.error("route_configuration_error", error=str(error))
        for note in router.notes:
            ctx.log.warning("route_configuration_note", note=note)
        routes = [RouteAdapter(r, router, ctx) for r in router.routes] if router.enabled else []
        if not router.enabled:
            ctx.log.error("routing_disabled", why="the routing table did not load")
        return router, RoutingTable(routes, router.source_constraint, router.round_robin)

    def _reload_table(self, why: str) -> None:
        """Read the routes again (reconfig, JOB_ROUTER_ENTRIES_REFRESH): the configuration
        files are read anew; the router's name, its knobs and its hooks stay as they were."""
        logic = self.logic
        assert logic is not None
        try:
            cfg = self.ctx.config.with_subsystem(self.ctx.config.subsystem)
            _, table = self._load_table(cfg)
        except ConfigError as e:
            self.ctx.log.error("route_configuration_error", error=str(e),
                               outcome="the routes stay as they were")
            return
        logic.set_table(table)
        self.ctx.log.info("routes_reloaded", why=why, routes=[r.name for r in table.routes])

    async def _refresh_loop(self, seconds: int) -> None:
        while True:
            await trio.sleep(seconds)
            self._reload_table("JOB_ROUTER_ENTRIES_REFRESH")

    # -- messages to us ------------------------------------------------------------------
    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.DC_RECONFIG | m.DC_RECONFIG_FULL):
            self._reload_table("reconfig")
            return
        self.ctx.log.warning("unexpected_command", cmd=msg.command, peer=conn.peer)
        if not msg.command.startswith("DC_"):
            await conn.send(m.FAILED(reason=f"the job router does not take {msg.command}"))

    # -- the collector -------------------------------------------------------------------
    def router_ad(self) -> ClassAd:
        logic = self.logic
        assert logic is not None
        ad = ClassAd({"MyType": "Job_Router", "Name": self.name, "MyAddress": self.address,
                      "NumManagedJobs": len(logic.jobs),
                      "RouteNames": ",".join(r.name for r in logic.table.routes)})
        return ad

    async def _advertise(self) -> None:
        interval = max(1, self.ctx.config.get_int("UPDATE_INTERVAL", 300))
        async with self.ctx.collector_updates() as to_collector:
            while True:
                await to_collector.send(m.UPDATE_AD_GENERIC(ad=self.router_ad()))
                await trio.sleep(interval)

    # -- polls ---------------------------------------------------------------------------
    async def _turn(self, what: str) -> None:
        """Wait for the end of this instant, then for this task's turn: a poll and a periodic
        pass due at one instant run one after the other, in key order ("job router
        periodic" first), never interleaved (each waits on the schedd between its steps, so
        which went first would otherwise be trio's choice). Call :meth:`_turn_over` after."""
        mine = trio.Event()

        def due() -> None:
            self._turns.append(mine)
            if not self._turn_taken:
                self._turn_over()

        self.ctx.at_end_of_instant((int(trio.current_time()), what), due)
        try:
            await mine.wait()
        except BaseException:
            if mine.is_set():
                self._turn_over()
            elif mine in self._turns:
                self._turns.remove(mine)
            raise

    def _turn_over(self) -> None:
        """The task whose turn it was is done: the next one waiting goes."""
        self._turn_taken = bool(self._turns)
        if self._turns:
            self._turns.popleft().set()

    async def _poll_loop(self) -> None:
        logic, mirror = self.logic, self.mirror
        assert logic is not None and mirror is not None
        while True:
            await self._turn("job router poll")
            try:
                now = int(trio.current_time())
                try:
                    warnings = mirror.poll()
                except JobQueueLogError as e:  # a log we cannot read: say so, try later
                    self.ctx.log.error("job_queue_log_unreadable", error=str(e))
                    warnings = None
                if warnings is not None:
                    for warning in warnings[:20]:
                        self.ctx.log.warning("job_queue_log_warning", warning=warning)
                    await self._drive(logic.poll(dict(mirror.jobs), now))
            finally:
                self._turn_over()
            await trio.sleep(self.polling)

    async def _periodic_loop(self, interval: int) -> None:
        logic = self.logic
        assert logic is not None
        while True:
            await trio.sleep(interval)
            await self._turn("job router periodic")
            try:
                await self._drive(logic.periodic(int(trio.current_time())))
            finally:
                self._turn_over()

    async def _drive(self, steps: Generator[Action, Any, None]) -> None:
        """Run one poll of the logic: each operation it yields becomes a schedd command."""
        logic = self.logic
        assert logic is not None
        result: Any = None
        try:
            while True:
                action = steps.send(result)
                self._flush_records()  # the decisions before the command they lead to
                result = await self._execute(action)
        except StopIteration:
            pass
        finally:
            self._flush_records()

    def _flush_records(self) -> None:
        logic = self.logic
        assert logic is not None
        for event, fields in logic.records:
            self.ctx.log.info(event, **fields)
        logic.records.clear()

    async def _schedd(self) -> str | None:
        """The schedd's address from the collector (remembered until a request to it fails,
        as a daemon's DCSchedd locates it once)."""
        if self._schedd_address is not None:
            return self._schedd_address
        try:
            async with await self.ctx.connect(self.ctx.collector_address(), "collector") as c:
                reply = await c.request(m.QUERY_SCHEDD_ADS(constraint="",
                                                           projection=["MyAddress"]))
        except PEER_ERRORS as e:
            self.ctx.log.warning("collector_query_failed", error=str(e))
            return None
        if not isinstance(reply, m.QUERY_RESULT):
            return None
        for ad in reply.ads:
            address = ad.evaluate("MyAddress")
            if isinstance(address, str):
                self._schedd_address = address
                return address
        return None

    async def _request(self, msg: Message) -> Message | None:
        address = await self._schedd()
        if address is None:
            return None
        try:
            async with await self.ctx.connect(address, "schedd") as conn:
                return await conn.request(msg)
        except PEER_ERRORS as e:
            self._schedd_address = None  # a restarted schedd may listen elsewhere
            self.ctx.log.warning("schedd_request_failed", cmd=msg.command, error=str(e))
            return None

    async def _execute(self, action: Action) -> Any:
        if isinstance(action, Claim):
            reply = await self._request(m.QMGMT_CLAIM_JOB(job=job_str(action.job),
                                                          manager=self.name))
            if isinstance(reply, m.QMGMT_RESULT):
                return {"ok": ClaimResult.OK, "busy": ClaimResult.BUSY}.get(
                    reply.code, ClaimResult.ERROR)
            return ClaimResult.ERROR
        if isinstance(action, SubmitCopy):
            reply = await self._request(m.QMGMT_SUBMIT_AD(owner=action.owner, ad=action.ad))
            if isinstance(reply, m.SUBMIT_RESULT):
                return (reply.cluster, 0)
            if isinstance(reply, m.FAILED):
                self.ctx.log.warning("copy_refused", src=job_str(action.src), reason=reply.reason)
            return None
        if isinstance(action, SetAttrs):
            reply = await self._request(m.QMGMT_SET_ATTRIBUTES(
                job=job_str(action.job), ad=action.attrs, delete=list(action.delete)))
            return isinstance(reply, m.QMGMT_RESULT) and reply.ok
        if isinstance(action, RemoveJob):
            reply = await self._request(m.ACT_ON_JOBS(
                action="remove", ids=[job_str(action.job)], constraint="",
                reason=action.reason, owner=ROUTER_USER))
            return isinstance(reply, m.ACT_RESULT) and not reply.errors
        if isinstance(action, Yield):
            logic = self.logic
            assert logic is not None
            reply = await self._request(m.QMGMT_YIELD_JOB(
                job=job_str(action.job), manager=self.name, done=action.done,
                release_on_hold=logic.knobs.release_on_hold))
            if isinstance(reply, m.QMGMT_RESULT):
                return True if reply.ok else ("stop" if reply.code == "stop" else False)
            return False
        if isinstance(action, RunHook):
            result = await run_hook(self.hooks.call(action), self.ctx.busy)
            log_hook_result(self.ctx.log, result, job=job_str(action.job))
            return result
        raise AssertionError(f"unknown router action {action!r}")


__all__ = ["JobRouter", "parse_job"]
