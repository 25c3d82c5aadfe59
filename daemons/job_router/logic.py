"""condor_job_router's decisions, with no I/O (HTCondor's ``JobRouter``, facts 3.1).

How this works
--------------
Every JOB_ROUTER_POLLING_PERIOD the runner brings the mirror of the schedd's queue up to
date and drives :meth:`JobRouterLogic.poll`, a generator: it yields each schedd operation
it needs (:class:`Claim`, :class:`SubmitCopy`, :class:`SetAttrs`, :class:`RemoveJob`,
:class:`Yield`) and is sent its result, so the whole poll reads as HTCondor's ``Poll``:

1. every 5th poll (the 1st, 6th, ...) ``AdoptOrphans``: copies this router submitted
   (RoutedBy) whose original it does not manage are taken back (or removed, when the
   original is gone); originals Managed by it without a copy are yielded;
2. ``UpdateRouteStats``: each route's current and running jobs, and its throttle
   (:mod:`.stats`, every 600 s);
3. ``GetCandidateJobs``: the idle jobs that match the umbrella constraint, each given the
   first matching route that accepts more jobs (or a round-robin pick among them), while
   the router has fewer than JOB_ROUTER_MAX_JOBS;
4. for every managed job, by its phase: claim the original (Managed = "External",
   ManagedManager); build and submit the routed copy, a new cluster (or, EditJobInPlace,
   push the transformed job as a diff); mirror the copy's status into the original and
   watch for the original's removal or hold and the copy's disappearance; finalize a
   completed copy (LeaveJobInQueue = false, 005, JobFailureTest); clean up (remove the
   copy unless it completed, yield the original: "ScheddDone" when done, else "Schedd"),
   count the route's success or failure; retire the job until the mirror shows it is no
   longer ours (or MAX_JOB_MIRROR_UPDATE_LAG passed).

:meth:`JobRouterLogic.periodic` is the original jobs' periodic policy, which the router
evaluates instead of the schedd (EvalAllSrcJobPeriodicExprs): a hold or removal is pushed
and the next poll cleans the job up. Time is passed in; ``self.records`` collects the log
records the runner writes to JobRouterLog.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from condorsim.classad import ClassAd, ClassAdError, EvalContext, ExprTree, parse_expr
from condorsim.hooks import HookResult, parse_all_or_nothing, print_ad
from condorsim.jobs.codes import JobStatus
from daemons.shadow.policy import PolicyAction, periodic_policy

from .mirror import WorkingCopy, hold_copied_from_target, update_job_status
from .stats import RouteStats

JobId = tuple[int, int]


def job_str(job: JobId) -> str:
    return f"{job[0]}.{job[1]}"


def parse_job(text: object) -> JobId | None:
    if not isinstance(text, str):
        return None
    c, _, p = text.partition(".")
    return (int(c), int(p)) if c.isdigit() and p.isdigit() else None


def hook_outcome(result: HookResult) -> str:
    """``"not_started"``, ``"failed"`` or ``"ok"``, as the router's hook clients read an exit.

    HTCondor tests ``WEXITSTATUS(status)``, which is 0 for a hook killed by a signal, so a
    signal counts as success; a hook condorsim killed after its timeout counts as failed
    (HTCondor has no timeout for these hooks)."""
    if not result.started:
        return "not_started"
    if result.timed_out or (result.signal is None and result.exit_code != 0):
        return "failed"
    return "ok"


# -- what the router needs of a route ---------------------------------------------------------
class RouteLike(Protocol):
    """A route of the routing table (built by condorsim.routing from the configuration)."""

    name: str
    max_jobs: int
    max_idle_jobs: int
    failure_rate_threshold: float

    def requirements_text(self) -> str:
        """The route's REQUIREMENTS as text ("" when it has none), for the umbrella."""
        ...

    def matches(self, job: ClassAd, now: int) -> bool:
        """REQUIREMENTS against the untransformed job (MY = the job, no TARGET)."""
        ...

    def edit_job_in_place(self, job: ClassAd, now: int) -> bool: ...

    def job_failure_test(self, job: ClassAd, now: int) -> bool: ...

    def make_copy(self, job: ClassAd, now: int, translated: ClassAd | None = None) -> ClassAd:
        """The routed copy (vanilla->grid, pre-route, route and post-route transforms) or,
        for EditJobInPlace, the edited job; raises RouteError when a transform fails.
        ``translated``: a TRANSLATE_JOB hook's output, the copy's starting point."""
        ...

    def description(self) -> str:
        """HTCondor's RouteDescription, the first part of TRANSLATE_JOB's standard input."""
        ...


class RouteError(Exception):
    """A transform failed for this job: the job is not routed."""


@dataclass
class RoutingTable:
    routes: Sequence[RouteLike]
    source_constraint: str = ""
    round_robin: bool = False


# -- the schedd operations the poll asks for ---------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """claim_job: Idle and Managed missing or "Schedd" -> Managed = "External"."""

    job: JobId


class ClaimResult(enum.Enum):
    OK = "ok"
    BUSY = "busy"
    ERROR = "error"


@dataclass(frozen=True)
class SubmitCopy:
    """submit_job: the routed copy as a new cluster of one proc, as the original's owner."""

    src: JobId
    owner: str
    ad: ClassAd


@dataclass(frozen=True)
class SetAttrs:
    """push_dirty_attributes / push_classad_diff (JobStatus never leaves Removed/Completed)."""

    job: JobId
    attrs: ClassAd
    delete: tuple[str, ...] = ()


@dataclass(frozen=True)
class RemoveJob:
    job: JobId
    reason: str


@dataclass(frozen=True)
class Yield:
    """yield_job: Managed back to "Schedd" (or "ScheddDone" when done). Its result is True
    (done), "stop" (the job is not ours to yield: give up) or False (try again)."""

    job: JobId
    done: bool


@dataclass(frozen=True)
class RunHook:
    """Run a job router hook (``knob`` names it, e.g. ``MYHOOK_HOOK_TRANSLATE_JOB``); the
    result is a :class:`~condorsim.hooks.HookResult`. The hook takes no simulated time."""

    job: JobId
    hook_type: str
    knob: str
    path: str
    stdin: str


Action = Claim | SubmitCopy | SetAttrs | RemoveJob | Yield | RunHook

HookFinder = Callable[[str, ClassAd], "tuple[str, str] | None"]
"""(hook type, source job) -> (knob, path) of the job's usable hook of that type, or None."""

HOOK_SEPARATOR = "\n------\n"
"""What separates two ads on a job router hook's standard input."""


class UserLogSink(Protocol):
    def execute(self, ad: ClassAd, t: float) -> None: ...

    def evicted(self, ad: ClassAd, t: float) -> None: ...

    def aborted(self, ad: ClassAd, t: float) -> None: ...

    def held(self, ad: ClassAd, t: float) -> None: ...

    def terminated(self, ad: ClassAd, t: float) -> None: ...


# -- the router's jobs -------------------------------------------------------------------------
class Phase(enum.Enum):
    UNCLAIMED = "unclaimed"
    CLAIMED = "claimed"
    SUBMITTED = "submitted"
    FINISHED = "finished"
    CLEANUP = "cleanup"
    RETIRED = "retired"


@dataclass
class RoutedJob:
    src: JobId
    route: str
    phase: Phase
    src_copy: WorkingCopy
    dest: JobId | None = None
    dest_ad: ClassAd | None = None
    submitted_at: float = 0.0
    saw_dest: bool = False
    is_claimed: bool = False
    is_done: bool = False
    is_success: bool = False
    is_interrupted: bool = False
    is_running: bool = False
    edit_in_place: bool = False
    retired_at: float = 0.0

    @property
    def desc(self) -> str:
        dest = job_str(self.dest) if self.dest else "None"
        return f"src={job_str(self.src)},route={self.route or '?'},dest={dest}"


@dataclass
class RouterKnobs:
    name: str = "jobrouter"
    max_jobs: int = -1
    release_on_hold: bool = True
    max_mirror_lag: int = 600
    attrs_to_copy: Callable[[ClassAd], Iterable[str]] = lambda ad: ()
    chirp_prefixes: tuple[str, ...] = ()
    hook: HookFinder = lambda hook_type, ad: None


@dataclass
class JobRouterLogic:
    table: RoutingTable
    knobs: RouterKnobs
    userlogs: UserLogSink
    start_time: float = 0.0
    jobs: dict[JobId, RoutedJob] = field(default_factory=dict)
    stats: dict[str, RouteStats] = field(default_factory=dict)
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    poll_count: int = 0
    _round_robin: int = 0
    _umbrella: ExprTree | None = None
    _umbrella_text: str = ""
    _waiting: dict[JobId, str] = field(default_factory=dict)
    _waiting_tree: ExprTree | None = None
    _waiting_text: str = ""

    def __post_init__(self) -> None:
        for route in self.table.routes:
            self.stats.setdefault(route.name, RouteStats(
                max_jobs=route.max_jobs, max_idle_jobs=route.max_idle_jobs,
                failure_rate_threshold=route.failure_rate_threshold,
                window_start=self.start_time))

    def set_table(self, table: RoutingTable) -> None:
        """A routing table read again (reconfig, JOB_ROUTER_ENTRIES_REFRESH), as HTCondor's
        JobRouter::config replaces its routes: a route that stays keeps its counters and
        throttle and takes its new limits; jobs already routed go on (a job whose route is
        gone and not yet submitted is let go)."""
        self.table = table
        for route in table.routes:
            stats = self.stats.get(route.name)
            if stats is None:
                self.stats[route.name] = RouteStats(
                    max_jobs=route.max_jobs, max_idle_jobs=route.max_idle_jobs,
                    failure_rate_threshold=route.failure_rate_threshold,
                    window_start=self.start_time)
            else:
                stats.max_jobs, stats.max_idle_jobs = route.max_jobs, route.max_idle_jobs
                stats.failure_rate_threshold = route.failure_rate_threshold
        names = {route.name for route in table.routes}
        for name in [n for n in self.stats if n not in names]:
            del self.stats[name]
        self._umbrella_text = self._waiting_text = ""
        self._waiting.clear()

    def log(self, event: str, **fields: Any) -> None:
        self.records.append((event, fields))

    def log_job(self, event: str, job: RoutedJob, **fields: Any) -> None:
        """A record about a routed job: ``job`` is the original, ``dest`` its copy."""
        self.log(event, job=job_str(job.src), route=job.route or None,
                 dest=job_str(job.dest) if job.dest else None, **fields)

    def route(self, name: str) -> RouteLike | None:
        return next((r for r in self.table.routes if r.name == name), None)

    def accepting(self) -> bool:
        """The router as a whole takes more jobs (JOB_ROUTER_MAX_JOBS; -1: no limit)."""
        return self.knobs.max_jobs < 0 or len(self.jobs) < self.knobs.max_jobs

    # -- the poll -------------------------------------------------------------------------
    def poll(self, mirror: Mapping[JobId, ClassAd], now: int
             ) -> Generator[Action, Any, None]:
        """One poll (see the module comment): yields schedd operations, is sent results."""
        self.poll_count += 1
        if self.poll_count % 5 == 1:
            yield from self._adopt_orphans(mirror, now)
        self._update_route_stats(now)
        self._candidates(mirror, now)
        for src in sorted(self.jobs):
            job = self.jobs.get(src)
            if job is None:
                continue
            yield from self._take_over(job)
            yield from self._submit(job, mirror, now)
            yield from self._check_submitted(job, mirror, now)
            yield from self._finalize(job, now)
            yield from self._cleanup(job, mirror, now)
            self._cleanup_retired(job, mirror, now)

    # -- 1. orphans -----------------------------------------------------------------------
    def _adopt_orphans(self, mirror: Mapping[JobId, ClassAd], now: int
                       ) -> Generator[Action, Any, None]:
        me = self.knobs.name
        managed_dests = {j.dest for j in self.jobs.values() if j.dest is not None}
        for dest, ad in sorted(mirror.items()):
            if ad.evaluate("RoutedBy") != me or not isinstance(ad.evaluate("Owner"), str):
                continue
            src = parse_job(ad.evaluate("RoutedFromJobId"))
            route_name = ad.evaluate("RouteName")
            if src is None or not isinstance(route_name, str):
                self.log("route_orphan_without_routing", dest=job_str(dest))
                continue
            if dest in managed_dests:
                continue
            known = self.jobs.get(src)
            if known is not None and known.dest == dest:
                continue
            src_ad = mirror.get(src)
            if src_ad is None:
                self.log("route_orphan_removed", job=job_str(src), dest=job_str(dest),
                         why="no matching source job")
                yield RemoveJob(dest, "JobRouter orphan")
                continue
            job = RoutedJob(src=src, route=route_name, phase=Phase.SUBMITTED,
                            src_copy=WorkingCopy(src_ad), dest=dest, dest_ad=ad,
                            submitted_at=now, is_claimed=True)
            self.jobs[src] = job
            self.log_job("route_orphan_adopted", job)
        for src, ad in sorted(mirror.items()):
            if ad.evaluate("Managed") != "External" or ad.evaluate("ManagedManager") != me \
                    or not isinstance(ad.evaluate("Owner"), str) or src in self.jobs:
                continue
            self.log("route_orphan_yielded", job=job_str(src))
            result = yield Yield(src, done=False)
            if result is True and ad.evaluate("JobStatus") in (
                    JobStatus.RUNNING, JobStatus.TRANSFERRING_OUTPUT):
                self.userlogs.evicted(ad, now)

    # -- 2. statistics --------------------------------------------------------------------
    def _update_route_stats(self, now: int) -> None:
        for stats in self.stats.values():
            stats.current = stats.running = 0
        for job in self.jobs.values():
            stats_of = self.stats.get(job.route) if job.route else None
            if stats_of is not None:
                stats_of.current += 1
                if job.is_running:
                    stats_of.running += 1
        for name, stats in self.stats.items():
            change = stats.adjust(now)
            if change:
                self.log("route_throttle_changed", route=name, change=change)

    # -- 3. candidates --------------------------------------------------------------------
    def umbrella(self, *, every_route: bool = False) -> str:
        """The candidate constraint (GetCandidateJobs), the job as TARGET; "" when no route
        accepts jobs now (``every_route``: as if every route did)."""
        parts: list[str] = []
        for route in self.table.routes:
            if not every_route and not self.stats[route.name].accepting():
                continue
            text = route.requirements_text() or "True"
            if f"({text})" not in parts:
                parts.append(f"({text})")
        if not parts:
            return ""
        out = f"({self.table.source_constraint}) && " if self.table.source_constraint else ""
        out += "( " + " || ".join(parts) + " )"
        out += (' && (target.ProcId >= 0 && target.JobStatus == 1 && (target.StageInStart is '
                'undefined || target.StageInFinish isnt undefined) && target.Managed isnt '
                '"ScheddDone" && target.Managed isnt "External" && target.Owner isnt Undefined'
                f' && target.RoutedBy isnt "{self.knobs.name}")')
        return out

    def _candidates(self, mirror: Mapping[JobId, ClassAd], now: int) -> None:
        if not self.table.routes:
            return
        if not self.accepting():
            self._explain_waiting(mirror, now, f"the router manages JOB_ROUTER_MAX_JOBS "
                                  f"({self.knobs.max_jobs}) jobs")
            return
        text = self.umbrella()
        if not text:
            self._explain_waiting(mirror, now, "")
            return
        if text != self._umbrella_text:
            self._umbrella_text, self._umbrella = text, parse_expr(text)
        assert self._umbrella is not None
        empty = ClassAd()
        ctx = EvalContext(now=now)
        for src, ad in sorted(mirror.items()):
            if not self.accepting():
                return
            if src in self.jobs:
                continue
            try:
                if self._umbrella.evaluate(my=empty, target=ad, ctx=ctx) is not True:
                    continue
            except ClassAdError:
                continue
            route, all_full = self._choose_route(ad, now)
            if route is None:
                if all_full:
                    self._explain_waiting(mirror, now, "")
                    return
                self._why_not(src, "no route's REQUIREMENTS matches it")
                continue
            job = RoutedJob(src=src, route=route.name, phase=Phase.UNCLAIMED,
                            src_copy=WorkingCopy(ad))
            job.edit_in_place = route.edit_job_in_place(ad, now)
            self._waiting.pop(src, None)
            self.jobs[src] = job
            self.log_job("route_candidate", job)

    def _why_not(self, src: JobId, why: str) -> None:
        """Log why a job that asks to be routed is not, once per change of reason."""
        if self._waiting.get(src) != why:
            self._waiting[src] = why
            self.log("route_not_routed", job=job_str(src), why=why)

    def _explain_waiting(self, mirror: Mapping[JobId, ClassAd], now: int, why: str) -> None:
        """The idle jobs some route would take were it not full: say which limit holds them
        (a route full, its idle cap, its throttle, the router's own limit)."""
        if not why:
            why = "; ".join(f"{r.name}: {self.stats[r.name].refusal()}"
                            for r in self.table.routes if self.stats[r.name].refusal())
        text = self.umbrella(every_route=True)
        if not text:
            return
        if text != self._waiting_text:
            self._waiting_text, self._waiting_tree = text, parse_expr(text)
        assert self._waiting_tree is not None
        empty, ctx = ClassAd(), EvalContext(now=now)
        for src, ad in sorted(mirror.items()):
            if src in self.jobs:
                continue
            try:
                if self._waiting_tree.evaluate(my=empty, target=ad, ctx=ctx) is True:
                    self._why_not(src, why)
            except ClassAdError:
                continue

    def _choose_route(self, ad: ClassAd, now: int) -> tuple[RouteLike | None, bool]:
        matches: list[RouteLike] = []
        all_full = True
        for route in self.table.routes:
            if not self.stats[route.name].accepting():
                continue
            all_full = False
            if route.matches(ad, now):
                matches.append(route)
            if not self.table.round_robin and matches:
                break
        if not matches:
            return None, all_full
        choice = matches[self._round_robin % len(matches)]
        self._round_robin += 1
        self.stats[choice.name].routed_one()
        return choice, False

    # -- 4. the phases --------------------------------------------------------------------
    def _remove(self, job: RoutedJob) -> None:
        """GracefullyRemoveJob: clean up at once."""
        job.phase = Phase.CLEANUP

    def _take_over(self, job: RoutedJob) -> Generator[Action, Any, None]:
        if job.phase is not Phase.UNCLAIMED:
            return
        if job.edit_in_place:
            job.phase = Phase.CLAIMED
            return
        result = yield Claim(job.src)
        if result is ClaimResult.OK:
            job.phase, job.is_claimed = Phase.CLAIMED, True
            self.log_job("route_claimed", job)
        else:
            self.log_job("route_claim_failed", job,
                     why="already claimed by somebody else" if result is ClaimResult.BUSY
                     else "could not be claimed")
            self._remove(job)

    def _submit(self, job: RoutedJob, mirror: Mapping[JobId, ClassAd], now: int
                ) -> Generator[Action, Any, None]:
        if job.phase is not Phase.CLAIMED:
            return
        route = self.route(job.route)
        if route is None:
            self.log_job("route_gone", job)
            self._remove(job)
            return
        src_ad = job.src_copy.ad
        translated: ClassAd | None = None
        hook = self.knobs.hook("TRANSLATE_JOB", src_ad)
        if hook is not None:
            result = yield RunHook(job.src, "TRANSLATE_JOB", hook[0], hook[1],
                                   route.description() + HOOK_SEPARATOR + print_ad(src_ad))
            translated = self._hook_ad(job, hook[0], result)
            if translated is None:
                return
        job.dest_ad = translated if translated is not None else src_ad.copy()
        try:
            made = route.make_copy(src_ad, now, translated)
        except RouteError as e:
            self.log_job("route_transform_failed", job, error=str(e))
            self._remove(job)
            return
        if job.edit_in_place:
            ok = yield from self._push_diff(job, made)
            if ok:
                job.is_success = job.is_done = True
                self.log_job("route_edited_in_place", job)
            self._remove(job)
            return
        made["RoutedFromJobId"] = job_str(job.src)
        made["RoutedBy"] = self.knobs.name
        made["RouteName"] = route.name
        if "RoutedToJobId" in made:
            del made["RoutedToJobId"]
        owner = src_ad.evaluate("Owner")
        if not isinstance(owner, str):
            self._remove(job)
            return
        dest = yield SubmitCopy(job.src, owner, made)
        if not isinstance(dest, tuple):
            self.log_job("route_submit_failed", job)
            self._remove(job)
            return
        job.dest, job.dest_ad = dest, made
        job.src_copy.set("RoutedToJobId", job_str(dest))  # pushed with the next update
        job.phase, job.submitted_at = Phase.SUBMITTED, now
        self.log_job("route_submitted", job)

    def _hook_ad(self, job: RoutedJob, knob: str, result: HookResult) -> ClassAd | None:
        """TRANSLATE_JOB's result: the ad it printed, or None when there is none -- the job
        is dropped (a failed hook, a line that is not an attribute) or, when the hook did not
        start or printed nothing, stays claimed and the hook runs again next poll."""
        outcome = hook_outcome(result)
        if outcome == "not_started":
            self.log_job("route_hook_not_started", job, hook=knob, error=result.error)
            return None
        if outcome == "failed":
            self.log_job("route_hook_failed", job, hook=knob, status=result.status_text(),
                         outcome="the job is not routed")
            self._remove(job)
            return None
        if not result.stdout:
            self.log_job("route_hook_no_data", job, hook=knob,
                         outcome="the job stays claimed; the hook runs again next poll")
            return None
        parsed = parse_all_or_nothing(result.stdout)
        if parsed.bad_line is not None:
            self.log_job("route_hook_bad_output", job, hook=knob, line=parsed.bad_line,
                         outcome="the job is not routed")
            self._remove(job)
            return None
        self.log_job("route_hook_translated", job, hook=knob, attributes=len(parsed.ad))
        return parsed.ad

    def _push_diff(self, job: RoutedJob, edited: ClassAd) -> Generator[Action, Any, bool]:
        before = job.src_copy.ad
        changed = ClassAd()
        for name, tree in edited.pairs():
            old = before.lookup(name)
            if old is None or str(old) != str(tree):
                changed[name] = tree
        gone = tuple(n for n in before if n not in edited)
        if not len(changed) and not gone:
            return True
        result = yield SetAttrs(job.src, changed, gone)
        return result is True

    def _check_submitted(self, job: RoutedJob, mirror: Mapping[JobId, ClassAd], now: int
                         ) -> Generator[Action, Any, None]:
        if job.phase is not Phase.SUBMITTED:
            return
        assert job.dest is not None
        dest_ad = mirror.get(job.dest)
        if job.saw_dest and job.dest_ad is not None:
            # HTCondor runs UPDATE_JOB_INFO first; only when it exits does the router look at
            # the original, so a hook that keeps failing holds everything up
            hook = self.knobs.hook("UPDATE_JOB_INFO", job.src_copy.ad)
            if hook is not None:
                go_on, dest_ad = yield from self._update_hook(job, hook[0], hook[1], dest_ad)
                if not go_on:
                    return
        src_ad = mirror.get(job.src)
        if src_ad is None:
            self.log_job("route_source_gone", job)
            job.is_interrupted = True
            self._remove(job)
            return
        status = src_ad.evaluate("JobStatus")
        if status == JobStatus.REMOVED:
            self.log_job("route_source_removed", job)
            self.userlogs.aborted(src_ad, now)
            job.is_interrupted = True
            self._remove(job)
            return
        if status == JobStatus.HELD and not hold_copied_from_target(src_ad):
            self.log_job("route_source_held", job)
            job.is_interrupted = True
            self._remove(job)
            return
        if dest_ad is None:
            if job.saw_dest:
                self.log_job("route_dest_removed", job)
                self._remove(job)
            elif now - job.submitted_at > self.knobs.max_mirror_lag:
                self.log_job("route_dest_never_seen", job, seconds=int(now - job.submitted_at))
                self._remove(job)
            return
        job.saw_dest, job.dest_ad = True, dest_ad
        events = update_job_status(src_ad, dest_ad, job.src_copy, now,
                                   self.knobs.attrs_to_copy(src_ad), self.knobs.chirp_prefixes)
        for event in events:
            if event == "execute":
                self.userlogs.execute(src_ad, now)
            else:
                self.userlogs.evicted(src_ad, now)
        if job.src_copy.dirty:
            attrs, deleted = job.src_copy.take_dirty()
            ok = yield SetAttrs(job.src, attrs, tuple(deleted))
            if ok is not True:
                self.log_job("route_update_failed", job)
                self._remove(job)
                return
        dest_status = dest_ad.evaluate("JobStatus")
        job.is_running = dest_status in (JobStatus.RUNNING, JobStatus.TRANSFERRING_OUTPUT)
        finished = dest_ad.evaluate("JobFinishedHookDone")
        if dest_status == JobStatus.COMPLETED and type(finished) is int and finished != 0:
            self.log_job("route_dest_finished", job)
            job.phase = Phase.FINISHED

    def _update_hook(self, job: RoutedJob, knob: str, path: str, current: ClassAd | None
                     ) -> Generator[Action, Any, tuple[bool, ClassAd | None]]:
        """UPDATE_JOB_INFO (HTCondor's StatusClient): the routed copy as last seen on stdin;
        what the hook prints updates the routed copy (pushed to the schedd) before the usual
        mirroring, which then sees the update. Returns (go on, the copy to mirror from); not
        going on when the hook failed or did not start (nothing happens this poll) or the job
        is being cleaned up."""
        assert job.dest_ad is not None and job.dest is not None
        result = yield RunHook(job.src, "UPDATE_JOB_INFO", knob, path, print_ad(job.dest_ad))
        outcome = hook_outcome(result)
        if outcome != "ok":
            self.log_job("route_hook_failed" if outcome == "failed" else "route_hook_not_started",
                         job, hook=knob, status=result.status_text(),
                         outcome="the job's status is not updated this poll")
            return False, None
        if not result.stdout:
            return True, current
        parsed = parse_all_or_nothing(result.stdout)
        if parsed.bad_line is not None:
            self.log_job("route_hook_bad_output", job, hook=knob, line=parsed.bad_line,
                         outcome="the job is no longer routed")
            self._remove(job)
            return False, None
        update = parsed.ad
        for name in ("MyType", "TargetType"):
            if name in update:
                del update[name]
        if current is None:
            self.log_job("route_dest_removed", job, why="the routed copy disappeared before "
                         "its update was pushed")
            self._remove(job)
            return False, None
        if len(update):
            ok = yield SetAttrs(job.dest, update)
            if ok is not True:
                self.log_job("route_update_failed", job, what="the routed copy")
                self._remove(job)
                return False, None
        self.log_job("route_hook_updated_copy", job, hook=knob,
                     attributes=sorted(update, key=str.lower))
        merged = current.copy()
        merged.update(update)
        return True, merged

    def _finalize(self, job: RoutedJob, now: int) -> Generator[Action, Any, None]:
        if job.phase is not Phase.FINISHED:
            return
        assert job.dest is not None
        src = job.src_copy.ad
        hook = self.knobs.hook("JOB_FINALIZE", src) or self.knobs.hook("JOB_EXIT", src)
        if hook is not None:
            go_on = yield from self._finalize_hook(job, hook[0], hook[1], now)
            if not go_on:
                return
        ok = yield SetAttrs(job.dest, ClassAd({"LeaveJobInQueue": False}))
        if ok is not True:
            self.log_job("route_finalize_failed", job)
            yield from self._set_idle(job, now)
        else:
            self.userlogs.terminated(job.src_copy.ad, now)
            job.is_done = True
            route = self.route(job.route)
            job.is_success = route is None or not route.job_failure_test(job.src_copy.ad, now)
            self.log_job("route_finalized", job, success=job.is_success)
        self._remove(job)

    def _finalize_hook(self, job: RoutedJob, knob: str, path: str, now: int
                       ) -> Generator[Action, Any, bool]:
        """JOB_FINALIZE (HTCondor's ExitClient): the original then the routed copy on stdin;
        on exit 0 what it prints is merged into the original and pushed; a non-zero exit, a
        bad line or a failed push re-routes the job. True: finalize as usual."""
        before = job.src_copy.ad.copy()
        result = yield RunHook(job.src, "JOB_FINALIZE", knob, path,
                               print_ad(before) + HOOK_SEPARATOR
                               + print_ad(job.dest_ad or ClassAd()))
        outcome = hook_outcome(result)
        if outcome == "not_started":
            self.log_job("route_hook_not_started", job, hook=knob, error=result.error,
                         outcome="tried again next poll")
            return False
        if outcome == "ok" and result.stdout:
            parsed = parse_all_or_nothing(result.stdout)
            if parsed.bad_line is not None:
                self.log_job("route_hook_bad_output", job, hook=knob, line=parsed.bad_line,
                             outcome="the job is re-routed")
                yield from self._reroute(job, now)
                return False
            for name, tree in parsed.ad.pairs():
                job.src_copy.set(name, tree)
            attrs, deleted = job.src_copy.take_dirty()
            ok = yield SetAttrs(job.src, attrs, tuple(deleted))
            if ok is not True:
                self.log_job("route_update_failed", job, what="the original",
                             outcome="the job is re-routed")
                job.src_copy = WorkingCopy(before)
                yield from self._reroute(job, now)
                return False
            self.log_job("route_hook_updated_source", job, hook=knob,
                         attributes=sorted(parsed.ad, key=str.lower))
        if outcome == "failed":
            self.log_job("route_hook_failed", job, hook=knob, status=result.status_text(),
                         outcome="the job is re-routed")
            yield from self._reroute(job, now)
            return False
        return True

    def _reroute(self, job: RoutedJob, now: int) -> Generator[Action, Any, None]:
        """RerouteJob: the original back to Idle, then clean up (the copy is removed and the
        original yielded, so it is routed afresh)."""
        yield from self._set_idle(job, now)
        self._remove(job)

    def _set_idle(self, job: RoutedJob, now: int) -> Generator[Action, Any, None]:
        if job.src_copy.status() != JobStatus.IDLE:
            if job.src_copy.status() in (JobStatus.RUNNING, JobStatus.TRANSFERRING_OUTPUT):
                self.userlogs.evicted(job.src_copy.ad, now)
            job.src_copy.set("JobStatus", int(JobStatus.IDLE))
            attrs, deleted = job.src_copy.take_dirty()
            yield SetAttrs(job.src, attrs, tuple(deleted))

    def _cleanup(self, job: RoutedJob, mirror: Mapping[JobId, ClassAd], now: int
                 ) -> Generator[Action, Any, None]:
        if job.phase is not Phase.CLEANUP:
            return
        hook = self.knobs.hook("JOB_CLEANUP", job.src_copy.ad)
        if hook is not None and job.dest_ad is not None and len(job.dest_ad):
            result = yield RunHook(job.src, "JOB_CLEANUP", hook[0], hook[1],
                                   print_ad(job.dest_ad))
            outcome = hook_outcome(result)
            if outcome != "ok":
                self.log_job("route_hook_failed" if outcome == "failed"
                             else "route_hook_not_started", job, hook=hook[0],
                             status=result.status_text(),
                             outcome="the cleanup is tried again next poll")
                return
        if not job.is_done and job.dest is not None:
            ok = yield RemoveJob(job.dest, "JobRouter aborted job")
            if ok is True:
                self.log_job("route_dest_removed_by_router", job)
        if job.is_claimed:
            if job.src_copy.status() in (JobStatus.RUNNING, JobStatus.TRANSFERRING_OUTPUT):
                self.userlogs.evicted(job.src_copy.ad, now)
            result = yield Yield(job.src, done=job.is_done)
            if result is False and job.src in mirror:
                return  # a transient failure: try again next poll
            job.is_claimed = False
            self.log_job("route_yielded", job, done=job.is_done)
        stats = self.stats.get(job.route)
        if stats is not None:
            if job.is_success:
                stats.recent_succeeded += 1
            elif not job.is_interrupted:
                stats.recent_failed += 1
        self.log_job("route_cleaned_up", job, success=job.is_success,
                 interrupted=job.is_interrupted)
        job.phase, job.retired_at, job.route = Phase.RETIRED, now, ""

    def _cleanup_retired(self, job: RoutedJob, mirror: Mapping[JobId, ClassAd],
                         now: int) -> None:
        if job.phase is not Phase.RETIRED:
            return
        src_ad = mirror.get(job.src)
        src_synced = src_ad is None or not (
            src_ad.evaluate("Managed") == "External"
            and src_ad.evaluate("ManagedManager") == self.knobs.name)
        dest_ad = mirror.get(job.dest) if job.dest is not None else None
        dest_synced = dest_ad is None or dest_ad.evaluate("RoutedBy") != self.knobs.name
        if (src_synced and dest_synced) or now - job.retired_at >= self.knobs.max_mirror_lag:
            del self.jobs[job.src]

    # -- the originals' periodic policy ---------------------------------------------------
    def periodic(self, now: int) -> Generator[Action, Any, None]:
        """EvalAllSrcJobPeriodicExprs: hold or remove originals whose policy (evaluated in the
        router's working copy of each) says so."""
        for src in sorted(self.jobs):
            job = self.jobs[src]
            if job.phase in (Phase.CLEANUP, Phase.RETIRED) or job.edit_in_place:
                continue
            outcome = periodic_policy(job.src_copy.ad, now)
            if outcome is None:
                continue
            status = job.src_copy.status()
            copy = job.src_copy
            if outcome.action is PolicyAction.HOLD:
                if status in (JobStatus.HELD, JobStatus.REMOVED, JobStatus.COMPLETED):
                    continue
                copy.set("JobStatus", int(JobStatus.HELD))
                copy.set("EnteredCurrentStatus", now)
                copy.set("HoldReason", outcome.reason)
                copy.set("HoldReasonCode", outcome.code)
                copy.set("HoldReasonSubCode", outcome.subcode)
                release = copy.ad.evaluate("ReleaseReason")
                if isinstance(release, str):
                    copy.set("LastReleaseReason", release)
                copy.set("ReleaseReason", "Undefined")
                held = copy.ad.evaluate("NumSystemHolds")
                copy.set("NumSystemHolds", (held if type(held) is int else 0) + 1)
                self.userlogs.held(copy.ad, now)
            elif outcome.action is PolicyAction.REMOVE:
                if status == JobStatus.REMOVED:
                    continue
                copy.set("JobStatus", int(JobStatus.REMOVED))
                copy.set("EnteredCurrentStatus", now)
                copy.set("RemoveReason", outcome.reason)
            else:
                continue
            self.log_job("route_periodic_policy", job, action=outcome.action.value,
                     reason=outcome.reason)
            attrs, deleted = copy.take_dirty()
            yield SetAttrs(src, attrs, tuple(deleted))
