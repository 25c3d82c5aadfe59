"""Routes from the configuration (htcondor-facts.md §3.2, §3.3): the manual's and the seed's
example configurations, the old ClassAd syntax, special macros, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.routing import (
    MISSING_REQUIREMENTS,
    choose_route,
    is_candidate,
    load_router_config,
    parse_constraint,
    umbrella_constraint,
)

DATA = Path(__file__).parent / "data"


def router(text: str):  # type: ignore[no-untyped-def]
    return load_router_config(Config.from_text(text, name="pool.conf"))


def job(**attrs: object) -> ClassAd:
    ad = ClassAd.parse_old(
        'ClusterId = 12\nProcId = 0\nJobStatus = 1\nOwner = "alice"\nJobUniverse = 5\n'
        'Cmd = "/bin/sleep"\nQDate = 100\n'
    )
    ad.update(attrs)
    return ad


# -- the manual's example (new syntax) --------------------------------------------------------

def test_the_manual_example_configuration() -> None:
    r = router((DATA / "manual-new-syntax.conf").read_text())
    assert r.enabled and r.errors == []
    assert [x.name for x in r.routes] == ["Site1", "Site2", "CondorSite"]
    assert [(x.max_jobs, x.max_idle_jobs) for x in r.routes] == [(200, 10), (200, 10), (200, 20)]
    assert [x.grid_resource for x in r.routes] == [
        "batch slurm", "arc site2.edu", "condor submit.site3.edu cm.site3.edu"]
    assert all(x.target_universe == 9 and x.failure_rate_threshold == 0.03 for x in r.routes)
    assert [t.name for t in r.pre_route] == ["Defaults"] and r.post_route == []
    # The example's pre-route PeriodicRemove has one ')' too many: HTCondor reports it and
    # the routed copy lacks PeriodicRemove (facts §3.5).
    assert [w.reason for w in r.pre_route[0].warnings] == [
        "SET PeriodicRemove invalid expression : JobStatus == 5 || (JobStatus == 1 && "
        "(time() - QDate) > 3600*6))"]
    # the routes have no REQUIREMENTS: they take what JOB_ROUTER_SOURCE_JOB_CONSTRAINT takes
    umbrella = umbrella_constraint(r.routes, r.source_constraint, r.router_name)
    assert umbrella == (
        '(WantJobRouter) && ( (True) ) && (target.ProcId >= 0 && target.JobStatus == 1 && '
        '(target.StageInStart is undefined || target.StageInFinish isnt undefined) && '
        'target.Managed isnt "ScheddDone" && target.Managed isnt "External" && '
        'target.Owner isnt Undefined && target.RoutedBy isnt "jobrouter")')
    tree = parse_constraint(umbrella)
    assert is_candidate(job(WantJobRouter=True), tree)
    assert not is_candidate(job(), tree)
    assert not is_candidate(job(WantJobRouter=True, JobStatus=2), tree)
    assert not is_candidate(job(WantJobRouter=True, Managed="External"), tree)
    assert not is_candidate(job(WantJobRouter=True, RoutedBy="jobrouter"), tree)
    assert not is_candidate(job(WantJobRouter=True, StageInStart=5), tree)
    assert is_candidate(job(WantJobRouter=True, StageInStart=5, StageInFinish=6), tree)


def test_a_route_without_requirements_and_no_source_constraint_is_rejected() -> None:
    text = (DATA / "manual-new-syntax.conf").read_text().replace(
        "JOB_ROUTER_SOURCE_JOB_CONSTRAINT = WantJobRouter", "")
    r = router(text)
    assert [(e.source, e.reason) for e in r.errors] == [
        (f"JOB_ROUTER_ROUTE_{name}", MISSING_REQUIREMENTS) for name in ("Site1", "Site2", "CondorSite")]
    assert MISSING_REQUIREMENTS == "JobRouter CONFIGURATION ERROR: Missing Requirements in job route."
    assert r.routes == []
    with pytest.raises(Exception, match="Missing Requirements in job route"):
        r.check()


def test_special_macros_and_their_knob_defaults() -> None:
    r = router("""\
JOB_ROUTER_ROUTE_NAMES = A B
JOB_ROUTER_ROUTE_A @=end
  REQUIREMENTS true
  MaxJobs = 7
  MaxIdleJobs = $(idle)
  idle = 3
  FailureRateThreshold = 0.5
  TargetUniverse = 5
  EditJobInPlace = MY.x == 1
  JobShouldBeSandboxed = true
  JobFailureTest = RemoteWallClockTime < 1800
  SendIDTokens = "t1 t2"
  if defined MY.Owner
     MaxJobs = 1
  endif
@end
JOB_ROUTER_ROUTE_B @=end
  REQUIREMENTS true
  MaxJobs = lots
  GridResource = "$(site) x"
@end
site = batch
""")
    a, b = r.routes
    assert (a.max_jobs, a.max_idle_jobs, a.failure_rate_threshold, a.target_universe) == (7, 3, 0.5, 5)
    assert a.grid_resource == ""  # only for the grid universe
    assert a.test("EditJobInPlace", job(x=1)) and not a.test("EditJobInPlace", job())
    assert a.test("JobShouldBeSandboxed", job())
    assert a.test("JobFailureTest", job(RemoteWallClockTime=10))
    assert a.idtokens(job(), default="") == ["t1", "t2"]
    assert (b.max_jobs, b.max_idle_jobs, b.target_universe, b.grid_resource) == (100, 50, 9, "batch x")
    assert b.idtokens(job(), default="tok") == ["tok"]
    assert not b.test("EditJobInPlace", job())


def test_routes_are_tried_in_job_router_route_names_order_first_match_or_round_robin() -> None:
    r = router("""\
JOB_ROUTER_ROUTE_NAMES = Second First Third
JOB_ROUTER_ROUTE_First = REQUIREMENTS true
JOB_ROUTER_ROUTE_Second = REQUIREMENTS Cpus > 1
JOB_ROUTER_ROUTE_Third = REQUIREMENTS true
JOB_ROUTER_ROUTE_Unlisted = REQUIREMENTS true
""")
    assert [x.name for x in r.routes] == ["Second", "First", "Third"]
    assert any("Unlisted" in n for n in r.notes) is False  # not named: never read
    assert choose_route(job(), r.routes, lambda x: True).route.name == "First"  # type: ignore[union-attr]
    assert choose_route(job(Cpus=2), r.routes, lambda x: True).route.name == "Second"  # type: ignore[union-attr]
    full = choose_route(job(), r.routes, lambda x: x.name == "Second")
    assert full.route is None and not full.all_full
    assert choose_route(job(), r.routes, lambda x: False).all_full
    picks = [choose_route(job(), r.routes, lambda x: True, round_robin=True, turn=t).route
             for t in range(4)]
    assert [p.name for p in picks if p] == ["First", "Third", "First", "Third"]


def test_route_requirements_see_the_job_as_my_and_no_target() -> None:
    r = router("""\
JOB_ROUTER_ROUTE_NAMES = T M U
JOB_ROUTER_ROUTE_T = REQUIREMENTS target.WantJobRouter is true
JOB_ROUTER_ROUTE_M = REQUIREMENTS MY.WantJobRouter
JOB_ROUTER_ROUTE_U = REQUIREMENTS WantJobRouter is true
""")
    t, m, u = r.routes
    j = job(WantJobRouter=True)
    assert not t.matches(j)  # a route in the current syntax sees no TARGET: it takes nothing
    assert m.matches(j) and u.matches(j)
    # The umbrella query sees the job as TARGET: an unscoped name finds it, MY.x does not
    # (HTCondor's collection query; so a route written with MY. takes nothing either).
    assert is_candidate(j, parse_constraint(umbrella_constraint([u], "", "jobrouter") or ""))
    assert not is_candidate(j, parse_constraint(umbrella_constraint([m], "", "jobrouter") or ""))


def test_a_route_that_does_not_parse_is_named_by_knob_and_line_and_left_out() -> None:
    r = router("""\
JOB_ROUTER_ROUTE_NAMES = Good Bad
JOB_ROUTER_ROUTE_Good = REQUIREMENTS true
JOB_ROUTER_ROUTE_Bad @=end
  REQUIREMENTS true
  SET A 1
  FROB B
@end
""")
    assert [x.name for x in r.routes] == ["Good"] and r.enabled
    assert [str(e) for e in r.errors] == ["JOB_ROUTER_ROUTE_Bad, line 3: FROB is not a valid transform keyword"]


def test_a_missing_or_bad_pre_route_transform_disables_routing() -> None:
    base = "JOB_ROUTER_ROUTE_NAMES = A\nJOB_ROUTER_ROUTE_A = REQUIREMENTS true\n"
    r = router(base + "JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES = Missing\n")
    assert not r.enabled
    assert [str(e) for e in r.errors] == [
        "JOB_ROUTER_TRANSFORM_Missing: JOB_ROUTER_TRANSFORM_Missing not found "
        "(named by JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES)"]
    r = router(base + "JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES = P\nJOB_ROUTER_TRANSFORM_P = else\n")
    assert not r.enabled and r.errors[0].source == "JOB_ROUTER_TRANSFORM_P"


def test_no_route_names_means_no_routing() -> None:
    r = router("JOB_ROUTER_ROUTE_A = REQUIREMENTS true\n")
    assert not r.enabled and r.routes == []


# -- the old ClassAd syntax ----------------------------------------------------------------

SEED_SITE_1 = """\
# autoconversion of route 'Site_1' from old route syntax
NAME Site_1
REQUIREMENTS WantJobRouter =?= true

GridResource = "batch slurm"
MaxIdleJobs = 10
MaxJobs = 200

# delete_* rules
DELETE WantJobRouter

# set_* rules
SET PeriodicRemove JobStatus == 5 || (JobStatus == 1 && (time() - QDate) > 3600 * 6)
SET requirements true"""


def test_the_seeds_old_syntax_example_is_converted_as_htcondor_converts_it() -> None:
    r = router((DATA / "seed-old-syntax.conf").read_text())
    assert r.errors == [] and r.enabled
    assert [x.name for x in r.routes] == ["Site_1", "Site_2", "Site_3"]
    site1, site2, site3 = r.routes
    assert site1.transform.text == SEED_SITE_1
    assert "SET ArcRte \"ENV/PROXY\"\nSET PeriodicRemove" in site2.transform.text
    assert site3.transform.text.endswith(
        "SET remote_jobuniverse 5\nSET requirements true")
    assert [(x.max_jobs, x.max_idle_jobs, x.grid_resource) for x in r.routes] == [
        (200, 10, "batch slurm"), (200, 10, "arc"), (200, 10, "condor")]
    assert site1.requirements_text == "WantJobRouter =?= true"
    assert site1.from_old_syntax and not site1.use_pre_route_transforms
    # the statements that are not hoisted, as condor_job_router_info -config shows them
    assert site1.transform.formatted() == (
        "NAME Site_1\nREQUIREMENTS WantJobRouter =?= true\nGridResource = \"batch slurm\"\n"
        "MaxIdleJobs = 10\nMaxJobs = 200\nDELETE WantJobRouter\nSET PeriodicRemove JobStatus "
        "== 5 || (JobStatus == 1 && (time() - QDate) > 3600 * 6)\nSET requirements true")


def test_old_syntax_entries_need_use_deprecated_router_entries() -> None:
    text = (DATA / "seed-old-syntax.conf").read_text().replace(
        "JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES = true", "")
    r = router(text)
    assert r.routes == [] and not r.enabled
    assert any("JOB_ROUTER_DEFAULTS, JOB_ROUTER_ENTRIES ignored" in n for n in r.notes)


def test_an_old_syntax_route_knob_is_converted_without_the_knob() -> None:
    r = router("""\
JOB_ROUTER_ROUTE_NAMES = Old
site = condor
JOB_ROUTER_ROUTE_Old = /* old */ [ Name = "Other"; GridResource = "$(site) x y"; \\
   Requirements = TARGET.Cpus > 1 && TARGET.x =?= y; y = 3; TargetUniverse = 9; \\
   eval_set_Slots = y * 2; copy_Cmd = "OrigCmd"; EditJobInPlace = TARGET.Foo; MaxJobs = 4; ]
""")
    assert r.errors == []
    (old,) = r.routes
    assert old.name == "Old"  # the knob's name (HTCondor asserts when the ad names another)
    assert old.use_pre_route_transforms  # a route knob in the old syntax does get them
    assert old.transform.text == """\
# autoconversion of route 'Other' from old route syntax
NAME Other
UNIVERSE 9
REQUIREMENTS Cpus > 1 && x =?= 3

EditJobInPlace = MY.Foo
GridResource = "condor x y"
MaxJobs = 4
y = 3

# copy_* rules
COPY Cmd OrigCmd

# eval_set_* rules
EVALSET Slots 6"""
    assert old.grid_resource == "condor x y" and old.max_jobs == 4


def test_old_syntax_entries_without_a_name_and_overrides() -> None:
    r = router("""\
JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES = true
JOB_ROUTER_ENTRIES = [ GridResource = "a"; Requirements = true; ] \\
   [ Name = "n"; GridResource = "b"; Requirements = true; ] \\
   [ Name = "n"; GridResource = "c"; Requirements = true; ] \\
   [ Name = "n"; GridResource = "d"; Requirements = true; OverrideRoutingEntry = false; ]
""")
    assert [(x.name, x.grid_resource) for x in r.routes] == [("entries:0", "a"), ("n", "c")]
    assert any("will override the first one" in n for n in r.notes)


# -- HTCondor's own test configuration (job_router_xform.run) ---------------------------------

def test_the_job_router_xform_test_configuration() -> None:
    r = router((DATA / "job-router-xform.conf").read_text())
    assert r.errors == []
    assert [(x.name, x.target_universe) for x in r.routes] == [
        ("Production1", 5), ("Analysis3", 5), ("Production2", 5), ("Analysis4", 5)]
    assert r.routes[3].requirements_text == "RouteMe && !(ProcId & 1)"
    odd, even = job(RouteMe=True, ProcId=1), job(RouteMe=True, ProcId=2)
    assert choose_route(odd, r.routes, lambda x: True).route is r.routes[0]
    assert choose_route(even, r.routes, lambda x: True).route is r.routes[1]
