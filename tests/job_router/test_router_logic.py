"""The job router's life cycle without sockets: a table of (what the queue shows, when) ->
what the router asks the schedd and writes to the original's user log.

A small fake schedd plays the router's operations on a dict of job ads (the "mirror"), as
the real schedd's job_queue.log would show them at the next poll."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd, parse_expr
from condorsim.hooks import HookCall, HookResult
from daemons.job_router.logic import (
    Action,
    Claim,
    ClaimResult,
    JobRouterLogic,
    Phase,
    RemoveJob,
    RouterKnobs,
    RoutingTable,
    RunHook,
    SetAttrs,
    SubmitCopy,
    Yield,
)

T0 = 1_767_225_600
JobId = tuple[int, int]


@dataclass
class FakeRoute:
    name: str
    grid_resource: str = "batch slurm"
    max_jobs: int = 100
    max_idle_jobs: int = 50
    failure_rate_threshold: float = 0.03
    failure_test: str = ""
    in_place: bool = False

    def requirements_text(self) -> str:
        return "WantJobRouter is true"

    def matches(self, job: ClassAd, now: int) -> bool:
        return job.evaluate("WantJobRouter") is True

    def edit_job_in_place(self, job: ClassAd, now: int) -> bool:
        return self.in_place

    def job_failure_test(self, job: ClassAd, now: int) -> bool:
        if not self.failure_test:
            return False
        return parse_expr(self.failure_test).evaluate(my=job) is True

    def description(self) -> str:
        return f'[ Name = "{self.name}"; TargetUniverse = 9; GridResource = "{self.grid_resource}" ]'

    def make_copy(self, job: ClassAd, now: int, translated: ClassAd | None = None) -> ClassAd:
        copy = (translated if translated is not None else job).copy()
        if self.in_place:
            copy["Routed"] = True
            return copy
        for name in ("ClusterId", "ProcId", "UserLog", "QDate"):
            if name in copy:
                del copy[name]
        copy["JobStatus"] = 1
        copy["JobUniverse"] = 9
        copy["GridResource"] = self.grid_resource
        return copy


@dataclass
class FakeSchedd:
    """Plays the router's operations as the schedd would; what the mirror shows next."""

    jobs: dict[JobId, ClassAd] = field(default_factory=dict)
    next_cluster: int = 100
    log: list[Action] = field(default_factory=list)
    hooks: dict[str, Callable[[str], HookResult]] = field(default_factory=dict)
    """hook type -> what the hook does with its stdin (no entry: the hook is not configured)"""
    hook_stdin: dict[str, list[str]] = field(default_factory=dict)

    def find_hook(self, hook_type: str, ad: ClassAd) -> tuple[str, str] | None:
        if hook_type not in self.hooks:
            return None
        return f"SITE_HOOK_{hook_type}", f"/hooks/{hook_type.lower()}"

    def add(self, job: JobId, **attrs: object) -> None:
        ad = ClassAd({"ClusterId": job[0], "ProcId": job[1], "Owner": "alice", "JobStatus": 1,
                      "JobUniverse": 5, "WantJobRouter": True, **attrs})
        self.jobs[job] = ad

    def run(self, gen: Generator[Action, Any, None]) -> list[Action]:
        done: list[Action] = []
        result: Any = None
        try:
            while True:
                action = gen.send(result)
                done.append(action)
                result = self.apply(action)
        except StopIteration:
            pass
        self.log += done
        return done

    def apply(self, action: Action) -> Any:
        if isinstance(action, Claim):
            ad = self.jobs.get(action.job)
            if ad is None:
                return ClaimResult.ERROR
            managed = ad.evaluate("Managed")
            if ad.evaluate("JobStatus") != 1 or (isinstance(managed, str) and managed != "Schedd"):
                return ClaimResult.BUSY
            ad["Managed"], ad["ManagedManager"] = "External", "jobrouter"
            return ClaimResult.OK
        if isinstance(action, SubmitCopy):
            dest = (self.next_cluster, 0)
            self.next_cluster += 1
            ad = action.ad.copy()
            ad.update({"ClusterId": dest[0], "ProcId": 0})
            self.jobs[dest] = ad
            return dest
        if isinstance(action, SetAttrs):
            ad = self.jobs[action.job]
            status = ad.evaluate("JobStatus")
            for name, tree in action.attrs.pairs():
                if name == "JobStatus" and status in (3, 4):
                    continue
                ad[name] = tree
            for name in action.delete:
                if name in ad:
                    del ad[name]
            return True
        if isinstance(action, RemoveJob):
            self.jobs.pop(action.job, None)
            return True
        if isinstance(action, Yield):
            ad = self.jobs.get(action.job)
            if ad is None or ad.evaluate("Managed") != "External":
                return "stop"
            ad["Managed"] = "ScheddDone" if action.done else "Schedd"
            ad["ManagedManager"] = ""
            if ad.evaluate("JobStatus") == 3:
                del self.jobs[action.job]
            elif ad.evaluate("JobStatus") == 5 and \
                    ad.evaluate("HoldCopiedFromTargetJob") is True:
                del ad["HoldCopiedFromTargetJob"]
                ad["JobStatus"] = 1
            elif ad.evaluate("JobStatus") not in (1, 4, 5):
                ad["JobStatus"] = 1
            return True
        if isinstance(action, RunHook):
            configured = action.knob.split("_HOOK_", 1)[1]  # JOB_EXIT runs as JOB_FINALIZE
            self.hook_stdin.setdefault(configured, []).append(action.stdin)
            return self.hooks[configured](action.stdin)
        raise AssertionError(action)


@dataclass
class Events:
    seen: list[tuple[str, str, float]] = field(default_factory=list)

    def _add(self, kind: str, ad: ClassAd, t: float) -> None:
        self.seen.append((kind, f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}", t))

    def execute(self, ad: ClassAd, t: float) -> None:
        self._add("execute", ad, t)

    def evicted(self, ad: ClassAd, t: float) -> None:
        self._add("evicted", ad, t)

    def aborted(self, ad: ClassAd, t: float) -> None:
        self._add("aborted", ad, t)

    def held(self, ad: ClassAd, t: float) -> None:
        self._add("held", ad, t)

    def terminated(self, ad: ClassAd, t: float) -> None:
        self._add("terminated", ad, t)


def _router(*routes: FakeRoute, **knobs: Any) -> tuple[JobRouterLogic, FakeSchedd, Events]:
    events = Events()
    schedd = FakeSchedd()
    logic = JobRouterLogic(RoutingTable(list(routes), round_robin=knobs.pop("rr", False)),
                           RouterKnobs(hook=schedd.find_hook, **knobs), events, start_time=T0)
    return logic, schedd, events


def _poll(logic: JobRouterLogic, schedd: FakeSchedd, t: int) -> list[Action]:
    """One poll on what the log showed when it began (the router's mirror is a snapshot)."""
    snapshot = {job: ad.copy() for job, ad in schedd.jobs.items()}
    return schedd.run(logic.poll(snapshot, T0 + t))


def _kinds(actions: list[Action]) -> list[str]:
    return [type(a).__name__ for a in actions]


def test_a_routed_job_is_claimed_copied_mirrored_and_finalized() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.add((1, 0))
    assert _kinds(_poll(logic, schedd, 0)) == ["Claim", "SubmitCopy"]
    copy = schedd.jobs[(100, 0)]
    assert copy.evaluate("RoutedFromJobId") == "1.0" and copy.evaluate("RouteName") == "Site1"
    assert copy.evaluate("RoutedBy") == "jobrouter" and copy.evaluate("JobUniverse") == 9
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "External"
    # next poll: RoutedToJobId goes back to the original with the first status update
    assert _kinds(_poll(logic, schedd, 10)) == ["SetAttrs"]
    assert schedd.jobs[(1, 0)].evaluate("RoutedToJobId") == "100.0"
    # the copy runs: the original runs, the router writes its execute event
    schedd.jobs[(100, 0)].update({"JobStatus": 2, "JobCurrentStartDate": T0 + 15})
    _poll(logic, schedd, 20)
    original = schedd.jobs[(1, 0)]
    assert original.evaluate("JobStatus") == 2
    assert original.evaluate("JobCurrentStartDate") == T0 + 15
    assert events.seen == [("execute", "1.0", T0 + 20)]
    # it completes: the original gets its figures, then it is finalized and yielded done
    schedd.jobs[(100, 0)].update({"JobStatus": 4, "ExitCode": 0, "ExitBySignal": False,
                                  "RemoteWallClockTime": 300.0,
                                  "JobFinishedHookDone": T0 + 330})
    actions = _poll(logic, schedd, 330)
    assert _kinds(actions) == ["SetAttrs", "SetAttrs", "Yield"]
    assert actions[1] == SetAttrs((100, 0), ClassAd({"LeaveJobInQueue": False}))
    assert original.evaluate("JobStatus") == 4 and original.evaluate("ExitCode") == 0
    assert original.evaluate("RemoteWallClockTime") == 300.0
    assert original.evaluate("Managed") == "ScheddDone"
    assert events.seen[-1] == ("terminated", "1.0", T0 + 330)
    assert logic.jobs[(1, 0)].phase is Phase.RETIRED
    assert logic.stats["Site1"].recent_succeeded == 1


def test_a_held_copy_holds_the_original_without_a_hold_event() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.add((1, 0))
    _poll(logic, schedd, 0)
    schedd.jobs[(100, 0)].update({"JobStatus": 5, "HoldReason": "site said no",
                                  "HoldReasonCode": 2, "HoldReasonSubCode": 7})
    _poll(logic, schedd, 10)
    original = schedd.jobs[(1, 0)]
    assert original.evaluate("JobStatus") == 5 and original.evaluate("HoldReasonCode") == 2
    assert original.evaluate("HoldReason") == "site said no"
    assert original.evaluate("HoldCopiedFromTargetJob") is True
    assert original.evaluate("NumSystemHolds") == 1
    assert events.seen == []  # no 012 for a mirrored hold
    # a mirrored hold does not interrupt the routing
    _poll(logic, schedd, 20)
    assert logic.jobs[(1, 0)].phase is Phase.SUBMITTED


def test_removing_the_original_removes_the_copy_and_the_original_leaves() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.add((1, 0), UserLog="/dev/null")
    _poll(logic, schedd, 0)
    schedd.jobs[(1, 0)].update({"JobStatus": 3, "RemoveReason": "via condor_rm"})
    actions = _poll(logic, schedd, 10)
    assert _kinds(actions) == ["RemoveJob", "Yield"]
    assert actions[0] == RemoveJob((100, 0), "JobRouter aborted job")
    assert (1, 0) not in schedd.jobs and (100, 0) not in schedd.jobs
    assert events.seen == [("aborted", "1.0", T0 + 10)]
    assert logic.stats["Site1"].recent_failed == 0  # interrupted: neither


def test_holding_the_original_removes_the_copy_and_the_original_stays_held() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.add((1, 0))
    _poll(logic, schedd, 0)
    schedd.jobs[(1, 0)].update({"JobStatus": 5, "HoldReasonCode": 1})
    assert _kinds(_poll(logic, schedd, 10)) == ["RemoveJob", "Yield"]
    assert schedd.jobs[(1, 0)].evaluate("JobStatus") == 5
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "Schedd"


def test_a_removed_copy_counts_as_a_failure_and_the_original_is_routed_again() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.add((1, 0))
    _poll(logic, schedd, 0)
    _poll(logic, schedd, 10)  # the copy is seen
    del schedd.jobs[(100, 0)]  # condor_rm of the copy
    # HTCondor's cleanup still tries to remove the copy (and fails), then yields
    assert _kinds(_poll(logic, schedd, 20)) == ["RemoveJob", "Yield"]
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "Schedd"
    assert logic.stats["Site1"].recent_failed == 1
    _poll(logic, schedd, 30)  # retired, then forgotten once the mirror agrees
    assert _kinds(_poll(logic, schedd, 40)) == ["Claim", "SubmitCopy"]
    assert (101, 0) in schedd.jobs


def test_max_idle_jobs_and_max_jobs_and_the_first_matching_route() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1", max_idle_jobs=2),
                               FakeRoute("Site2", max_jobs=1))
    for proc in range(5):
        schedd.add((1, proc))
    _poll(logic, schedd, 0)
    routes = sorted((ad.evaluate("RoutedFromJobId"), ad.evaluate("RouteName"))
                    for ad in schedd.jobs.values() if "RouteName" in ad)
    assert routes == [("1.0", "Site1"), ("1.1", "Site1"), ("1.2", "Site2")]
    assert "Managed" not in schedd.jobs[(1, 3)]  # every route is full
    why = {f["job"]: f["why"] for event, f in logic.records if event == "route_not_routed"}
    assert why == {"1.3": "Site1: MaxIdleJobs reached (2 idle of 2); Site2: MaxJobs reached "
                          "(1 of 1)",
                   "1.4": "Site1: MaxIdleJobs reached (2 idle of 2); Site2: MaxJobs reached "
                          "(1 of 1)"}
    logic.records.clear()
    _poll(logic, schedd, 10)  # the same reason is not said again
    assert [e for e, _ in logic.records if e == "route_not_routed"] == []


def test_a_route_whose_requirements_look_at_target_takes_nothing() -> None:
    """REQUIREMENTS is evaluated with the job as MY and no TARGET (facts 3.2): the umbrella
    lets the job through, the route does not, and the router says so."""
    route = FakeRoute("Site1")
    route.matches = lambda job, now: False  # type: ignore[method-assign]
    logic, schedd, _ = _router(route)
    schedd.add((1, 0))
    assert _poll(logic, schedd, 0) == []
    assert ("route_not_routed", {"job": "1.0", "why": "no route's REQUIREMENTS matches it"}) \
        in logic.records


def test_round_robin_spreads_jobs_over_the_matching_routes() -> None:
    logic, schedd, _ = _router(FakeRoute("A"), FakeRoute("B"), rr=True)
    for proc in range(4):
        schedd.add((1, proc))
    _poll(logic, schedd, 0)
    assert sorted(ad.evaluate("RouteName") for ad in schedd.jobs.values()
                  if "RouteName" in ad) == ["A", "A", "B", "B"]


def test_job_router_max_jobs_caps_the_router() -> None:
    logic, schedd, _ = _router(FakeRoute("A"), max_jobs=2)
    for proc in range(4):
        schedd.add((1, proc))
    _poll(logic, schedd, 0)
    assert len([a for a in schedd.jobs.values() if "RouteName" in a]) == 2


def test_edit_job_in_place_pushes_a_diff_and_submits_no_copy() -> None:
    logic, schedd, _ = _router(FakeRoute("Edit", in_place=True))
    schedd.add((1, 0))
    actions = _poll(logic, schedd, 0)
    assert _kinds(actions) == ["SetAttrs"]
    assert schedd.jobs[(1, 0)].evaluate("Routed") is True
    assert len(schedd.jobs) == 1 and logic.stats["Edit"].recent_succeeded == 1


def test_orphans_are_adopted_or_yielded_after_a_router_restart() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.add((1, 0), Managed="External", ManagedManager="jobrouter")
    schedd.add((2, 0), Managed="External", ManagedManager="jobrouter")
    schedd.add((100, 0), RoutedBy="jobrouter", RoutedFromJobId="1.0", RouteName="Site1",
               JobUniverse=9, WantJobRouter=False)
    schedd.add((101, 0), RoutedBy="jobrouter", RoutedFromJobId="9.0", RouteName="Site1",
               JobUniverse=9, WantJobRouter=False)
    actions = _poll(logic, schedd, 0)
    assert RemoveJob((101, 0), "JobRouter orphan") in actions  # its original is gone
    assert Yield((2, 0), done=False) in actions  # managed by us, but no copy
    assert logic.jobs[(1, 0)].phase is Phase.SUBMITTED and logic.jobs[(1, 0)].dest == (100, 0)
    assert schedd.jobs[(2, 0)].evaluate("Managed") == "Schedd"


def test_the_originals_periodic_policy_is_the_routers() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.add((1, 0), PeriodicRemove=ClassAd.parse("[x = time() > 1767225700]").lookup("x"))
    _poll(logic, schedd, 0)
    assert list(schedd.run(logic.periodic(T0 + 60))) == []
    actions = schedd.run(logic.periodic(T0 + 120))
    assert _kinds(actions) == ["SetAttrs"] and schedd.jobs[(1, 0)].evaluate("JobStatus") == 3
    assert _kinds(_poll(logic, schedd, 130)) == ["RemoveJob", "Yield"]
    assert events.seen == [("aborted", "1.0", T0 + 130)]


def test_the_failure_throttle_follows_htcondors_arithmetic() -> None:
    logic, _, _ = _router(FakeRoute("Site1", failure_rate_threshold=0.001))
    stats = logic.stats["Site1"]
    stats.recent_failed, stats.current = 3, 1
    assert stats.adjust(T0 + 599) is None  # not yet 600 s
    # 3 failures in 600 s is above 0.001/s: 600 * 0.001 / (3 / (3 + 1 + 0)) jobs per window
    assert stats.adjust(T0 + 600) == "adjusting throttle from none to 0.00133333 jobs/sec"
    assert abs(stats.throttle - 0.8) < 1e-9
    stats.recent_routed = 1
    assert not stats.accepting()  # 1 routed in this window >= 0.8
    stats.recent_succeeded = 2  # a good window: x (2 + 6/2) = x5
    stats.adjust(T0 + 1200)
    assert abs(stats.throttle - 4.0) < 1e-9 and stats.accepting()


# -- the job router's hooks (facts 8.2) ---------------------------------------------------------
def _hook(stdout: str = "", exit_code: int | None = 0, signal: int | None = None,
          timed_out: bool = False) -> Callable[[str], HookResult]:
    def run(stdin: str) -> HookResult:
        return HookResult(HookCall("hook", "/hook", stdin=stdin), exit_code=exit_code,
                          signal=signal, stdout=stdout, timed_out=timed_out)
    return run


def _translate_echo(extra: str) -> Callable[[str], HookResult]:
    """A translate hook that prints the job it was given (the part after the separator) plus
    ``extra`` lines, as a site's script would."""
    def run(stdin: str) -> HookResult:
        _route, _, job = stdin.partition("\n------\n")
        return _hook(job + extra)(stdin)
    return run


def _submitted(logic: JobRouterLogic, schedd: FakeSchedd) -> None:
    schedd.add((1, 0), HookKeyword="SITE", Cmd="/bin/sleep")
    _poll(logic, schedd, 0)
    _poll(logic, schedd, 10)  # the copy is seen


def test_translate_hook_gets_the_route_and_the_job_and_its_output_is_the_copy() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.hooks["TRANSLATE_JOB"] = _translate_echo('Cmd = "/opt/site/wrapper"\n')
    schedd.add((1, 0), HookKeyword="SITE", Cmd="/bin/sleep")
    assert _kinds(_poll(logic, schedd, 0)) == ["Claim", "RunHook", "SubmitCopy"]
    stdin = schedd.hook_stdin["TRANSLATE_JOB"][0]
    route, sep, job = stdin.partition("\n------\n")
    assert sep and route == '[ Name = "Site1"; TargetUniverse = 9; GridResource = "batch slurm" ]'
    assert ClassAd.parse_old(job).evaluate("Cmd") == "/bin/sleep"  # the original
    copy = schedd.jobs[(100, 0)]
    assert copy.evaluate("Cmd") == "/opt/site/wrapper"  # the hook's output, then vanilla->grid
    assert copy.evaluate("JobUniverse") == 9 and copy.evaluate("RoutedFromJobId") == "1.0"


def test_translate_hook_output_replaces_the_job_entirely() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.hooks["TRANSLATE_JOB"] = _hook('Owner = "alice"\nCmd = "/x"\n')
    schedd.add((1, 0), HookKeyword="SITE", Cmd="/bin/sleep", Extra=7)
    _poll(logic, schedd, 0)
    copy = schedd.jobs[(100, 0)]
    assert "Extra" not in copy and copy.evaluate("Cmd") == "/x"


def test_translate_hook_without_output_leaves_the_job_claimed_and_runs_again() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.hooks["TRANSLATE_JOB"] = _hook("")
    schedd.add((1, 0), HookKeyword="SITE")
    assert _kinds(_poll(logic, schedd, 0)) == ["Claim", "RunHook"]
    assert _kinds(_poll(logic, schedd, 10)) == ["RunHook"]
    assert logic.jobs[(1, 0)].phase is Phase.CLAIMED and len(schedd.jobs) == 1
    assert any(e == "route_hook_no_data" for e, _ in logic.records)


def test_a_failed_translate_hook_routes_nothing_and_never_falls_back() -> None:
    for failing in (_hook('Cmd = "/x"\n', exit_code=1), _hook("", timed_out=True, exit_code=None,
                                                             signal=9),
                    _hook("this is not an attribute\n")):
        logic, schedd, _ = _router(FakeRoute("Site1"))
        schedd.hooks["TRANSLATE_JOB"] = failing
        schedd.add((1, 0), HookKeyword="SITE")
        assert _kinds(_poll(logic, schedd, 0)) == ["Claim", "RunHook", "Yield"]
        assert len(schedd.jobs) == 1  # no copy: the built-in transform is not used instead
        assert schedd.jobs[(1, 0)].evaluate("Managed") == "Schedd"
        assert logic.stats["Site1"].recent_failed == 1


def test_a_translate_hook_that_did_not_start_is_tried_again() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.hooks["TRANSLATE_JOB"] = lambda stdin: HookResult(HookCall("h", "/h"), error="EACCES")
    schedd.add((1, 0), HookKeyword="SITE")
    _poll(logic, schedd, 0)
    assert logic.jobs[(1, 0)].phase is Phase.CLAIMED


def test_update_hook_updates_the_copy_and_the_mirroring_sees_it_at_once() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.hooks["UPDATE_JOB_INFO"] = _hook(
        'MyType = "Job"\nJobStatus = 2\nJobCurrentStartDate = 1767225615\n')
    schedd.add((1, 0), HookKeyword="SITE")
    _poll(logic, schedd, 0)
    assert "UPDATE_JOB_INFO" not in schedd.hook_stdin  # not before the copy is seen
    _poll(logic, schedd, 10)
    assert "UPDATE_JOB_INFO" not in schedd.hook_stdin  # the poll that first sees it
    actions = _poll(logic, schedd, 20)
    assert _kinds(actions) == ["RunHook", "SetAttrs", "SetAttrs"]
    assert actions[1] == SetAttrs((100, 0), ClassAd({"JobStatus": 2,
                                                     "JobCurrentStartDate": 1767225615}))
    assert ClassAd.parse_old(schedd.hook_stdin["UPDATE_JOB_INFO"][0]).evaluate(
        "RoutedFromJobId") == "1.0"  # the routed copy on stdin
    assert schedd.jobs[(1, 0)].evaluate("JobStatus") == 2  # mirrored in the same poll
    assert events.seen == [("execute", "1.0", T0 + 20)]


def test_a_failing_update_hook_stops_the_mirroring_for_that_poll() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.hooks["UPDATE_JOB_INFO"] = _hook("JobStatus = 2\n", exit_code=3)
    _submitted(logic, schedd)
    schedd.jobs[(100, 0)].update({"JobStatus": 2})
    assert _kinds(_poll(logic, schedd, 20)) == ["RunHook"]
    assert schedd.jobs[(1, 0)].evaluate("JobStatus") == 1 and events.seen == []


def _finished(logic: JobRouterLogic, schedd: FakeSchedd) -> None:
    _submitted(logic, schedd)
    schedd.jobs[(100, 0)].update({"JobStatus": 4, "ExitCode": 0,
                                  "JobFinishedHookDone": T0 + 100})


def test_finalize_hook_output_is_merged_into_the_original() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.hooks["JOB_FINALIZE"] = _hook('FinalizedBy = "site"\nExternalId = 42\n')
    _finished(logic, schedd)
    actions = _poll(logic, schedd, 100)
    assert _kinds(actions) == ["SetAttrs", "RunHook", "SetAttrs", "SetAttrs", "Yield"]
    assert actions[2] == SetAttrs((1, 0), ClassAd({"ExternalId": 42, "FinalizedBy": "site"}))
    src, _, dest = schedd.hook_stdin["JOB_FINALIZE"][0].partition("\n------\n")
    assert ClassAd.parse_old(src).evaluate("ClusterId") == 1
    assert ClassAd.parse_old(dest).evaluate("ClusterId") == 100
    original = schedd.jobs[(1, 0)]
    assert original.evaluate("FinalizedBy") == "site" and original.evaluate("JobStatus") == 4
    assert original.evaluate("Managed") == "ScheddDone" and events.seen[-1][0] == "terminated"


def test_a_failing_finalize_hook_reroutes_the_job() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.hooks["JOB_FINALIZE"] = _hook('FinalizedBy = "site"\n', exit_code=1)
    _finished(logic, schedd)
    actions = _poll(logic, schedd, 100)
    # RerouteJob: the original is set Idle, the copy removed, the original yielded (not done)
    assert _kinds(actions) == ["SetAttrs", "RunHook", "SetAttrs", "RemoveJob", "Yield"]
    assert actions[2] == SetAttrs((1, 0), ClassAd({"JobStatus": 1}))
    assert actions[3] == RemoveJob((100, 0), "JobRouter aborted job")
    original = schedd.jobs[(1, 0)]
    assert "FinalizedBy" not in original  # a failed hook's output is ignored
    assert original.evaluate("Managed") == "Schedd"
    assert all(kind != "terminated" for kind, _, _ in events.seen)
    # ... but the mirroring had already made the original Completed in this very poll, and
    # HTCondor's push_dirty_attributes never moves a job away from Completed: it stays so
    assert original.evaluate("JobStatus") == 4
    assert logic.stats["Site1"].recent_failed == 1


def test_the_old_name_job_exit_is_a_finalize_hook() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.hooks["JOB_EXIT"] = _hook('FinalizedBy = "old"\n')
    _finished(logic, schedd)
    _poll(logic, schedd, 100)
    assert schedd.jobs[(1, 0)].evaluate("FinalizedBy") == "old"


def test_cleanup_hook_must_succeed_before_the_job_is_let_go() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    results = iter([_hook(exit_code=1), _hook(exit_code=None, signal=15), _hook()])
    schedd.hooks["JOB_CLEANUP"] = lambda stdin: next(results)(stdin)
    _finished(logic, schedd)
    actions = _poll(logic, schedd, 100)  # finalized; the cleanup hook fails: no yield yet
    assert _kinds(actions)[-1] == "RunHook" and "Yield" not in _kinds(actions)
    assert ClassAd.parse_old(schedd.hook_stdin["JOB_CLEANUP"][0]).evaluate("ClusterId") == 100
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "External"
    # killed by a signal: HTCondor counts that as done
    assert _kinds(_poll(logic, schedd, 110)) == ["RunHook", "Yield"]
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "ScheddDone"
    assert len(schedd.hook_stdin["JOB_CLEANUP"]) == 2


def test_no_cleanup_hook_for_a_job_that_never_had_a_routed_ad() -> None:
    logic, schedd, _ = _router(FakeRoute("Site1"))
    schedd.hooks["TRANSLATE_JOB"] = _hook(exit_code=1)
    schedd.hooks["JOB_CLEANUP"] = _hook()
    schedd.add((1, 0), HookKeyword="SITE")
    _poll(logic, schedd, 0)
    assert "JOB_CLEANUP" not in schedd.hook_stdin


def test_job_failure_test_makes_a_completed_job_count_as_a_failure() -> None:
    logic, schedd, events = _router(FakeRoute("Site1", failure_test="ExitCode != 0"))
    _submitted(logic, schedd)
    schedd.jobs[(100, 0)].update({"JobStatus": 4, "ExitCode": 3, "JobFinishedHookDone": T0})
    _poll(logic, schedd, 100)
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "ScheddDone"  # finalized all the same
    assert events.seen[-1][0] == "terminated"
    assert (logic.stats["Site1"].recent_failed, logic.stats["Site1"].recent_succeeded) == (1, 0)


def test_a_copy_never_seen_within_max_job_mirror_update_lag_is_given_up() -> None:
    """The routed copy never shows in the mirror (facts 3.1): after MAX_JOB_MIRROR_UPDATE_LAG
    the router cleans up -- a failure of the route -- and the original is routed again."""
    logic, schedd, _ = _router(FakeRoute("Site1"), max_mirror_lag=600)
    schedd.add((1, 0))
    _poll(logic, schedd, 0)
    lost = schedd.jobs.pop((100, 0))  # submitted, but the log never shows it
    assert lost is not None
    assert _poll(logic, schedd, 600) == []  # still waiting for it
    assert _kinds(_poll(logic, schedd, 610)) == ["RemoveJob", "Yield"]
    assert ("route_dest_never_seen", {"job": "1.0", "route": "Site1", "dest": "100.0",
                                      "seconds": 610}) in logic.records
    assert logic.stats["Site1"].recent_failed == 1
    assert schedd.jobs[(1, 0)].evaluate("Managed") == "Schedd"


def test_a_copy_back_to_idle_makes_the_original_idle_with_an_evicted_event() -> None:
    logic, schedd, events = _router(FakeRoute("Site1"))
    schedd.add((1, 0))
    _poll(logic, schedd, 0)
    schedd.jobs[(100, 0)]["JobStatus"] = 2
    _poll(logic, schedd, 10)
    schedd.jobs[(100, 0)]["JobStatus"] = 1  # the site evicted it: idle again
    _poll(logic, schedd, 20)
    original = schedd.jobs[(1, 0)]
    assert original.evaluate("JobStatus") == 1
    assert original.evaluate("EnteredCurrentStatus") == T0 + 20
    assert events.seen == [("execute", "1.0", T0 + 10), ("evicted", "1.0", T0 + 20)]
    assert logic.jobs[(1, 0)].phase is Phase.SUBMITTED  # still routed


def test_routes_read_again_keep_their_counters_and_take_their_new_limits() -> None:
    """Reconfig (or JOB_ROUTER_ENTRIES_REFRESH) replaces the routing table: a route that
    stays keeps what it has routed, with its new MaxJobs; a new route takes jobs at once."""
    logic, schedd, _ = _router(FakeRoute("Site1", max_jobs=1))
    for proc in range(3):
        schedd.add((1, proc))
    _poll(logic, schedd, 0)
    assert logic.stats["Site1"].recent_routed == 1
    logic.set_table(RoutingTable([FakeRoute("Site1", max_jobs=2), FakeRoute("Site2")]))
    assert logic.stats["Site1"].recent_routed == 1 and logic.stats["Site1"].max_jobs == 2
    _poll(logic, schedd, 10)
    assert sorted(ad.evaluate("RouteName") for ad in schedd.jobs.values()
                  if "RouteName" in ad) == ["Site1", "Site1", "Site2"]
    logic.set_table(RoutingTable([]))  # every route gone: routed jobs go on, none is added
    schedd.add((1, 3))
    _poll(logic, schedd, 20)
    assert "Managed" not in schedd.jobs[(1, 3)] and "Site1" not in logic.stats
