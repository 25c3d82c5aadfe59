"""The routed copy, attribute by attribute (htcondor-facts.md §3.1 "Creating the routed copy")."""

from __future__ import annotations

from pathlib import Path

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.routing import (
    DELETED,
    RESET,
    ad_diff,
    edit_in_place,
    load_router_config,
    make_routed_copy,
    vanilla_to_grid,
)

DATA = Path(__file__).parent / "data"

ORIGINAL = ClassAd.parse_old(
    """\
ClusterId = 12
ProcId = 3
Owner = "alice"
User = "alice@example.org"
JobUniverse = 5
JobStatus = 1
Cmd = "/bin/sleep"
QDate = 1700000000
GlobalJobId = "schedd#12.3#1700000000"
CondorVersion = "$CondorVersion: 24.0.24 $"
CondorPlatform = "$CondorPlatform: X86_64 $"
BufferSize = 524288
BufferBlockSize = 32768
CoreSize = 0
RemoteWallClockTime = 50.0
LastRemoteWallClockTime = 50.0
ServerTime = 1700000100
AutoClusterId = 4
AutoClusterAttrs = "Requirements"
TotalSubmitProcs = 4
StageInStart = 1
StageInFinish = 2
UserLog = "/home/alice/job.log"
UserLogUseXML = false
DAGManNodesLog = "/home/alice/dag.nodes.log"
DAGManNodesMask = "0,1,2"
TimerRemove = 100
SUBMIT_Iwd = "/home/alice"
CurrentHosts = 0
RemoteUserCpu = 12.0
RemoteSysCpu = 3.0
ExitStatus = 1
CompletionDate = 17
NumCkpts = 2
NumRestarts = 1
NumSystemHolds = 2
CommittedTime = 9
CommittedSlotTime = 9
CumulativeSlotTime = 9
TotalSuspensions = 1
LastSuspensionTime = 5
CumulativeSuspensionTime = 5
CommittedSuspensionTime = 5
ExitBySignal = true
Out = "job.out"
Err = "job.err"
TransferOutputRemaps = "job.out=/home/alice/out/job.out;job.err=/home/alice/out/job.err"
RoutedToJobId = "99.0"
WantJobRouter = true
Requirements = TARGET.Arch == "X86_64"
Iwd = "/home/alice"
"""
)

CONFIG = """\
JOB_ROUTER_ROUTE_NAMES = Site1 InPlace
JOB_ROUTER_ROUTE_Site1 @=end
  REQUIREMENTS WantJobRouter
  GridResource = "batch slurm"
  EVALSET Stage = strcat(Stage, "-route")
  SET RouteSawUniverse = $(MY.JobUniverse)
@end
JOB_ROUTER_ROUTE_InPlace @=end
  REQUIREMENTS true
  EditJobInPlace = true
  SET Edited = true
  DELETE WantJobRouter
@end
JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES = First Skipped
JOB_ROUTER_TRANSFORM_First @=end
  REQUIREMENTS JobUniverse == 9
  SET Stage = "pre"
  m = from-pre
@end
JOB_ROUTER_TRANSFORM_Skipped @=end
  REQUIREMENTS JobUniverse == 5
  SET NeverSet = true
@end
JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES = Post
JOB_ROUTER_TRANSFORM_Post @=end
  EVALSET Stage = strcat(Stage, "-post")
  SET FromPre = "$(m)"
  SET RouterName = "$(JOB_ROUTER_NAME)"
@end
JOB_ROUTER_NAME = myrouter
"""


def router():  # type: ignore[no-untyped-def]
    return load_router_config(Config.from_text(CONFIG))


def test_the_routed_copy_attribute_by_attribute() -> None:
    r = router()
    assert r.errors == []
    site1 = r.route("Site1")
    assert site1 is not None
    routed = make_routed_copy(ORIGINAL, "12.3", site1, r, now=1700000500)
    assert routed.ok and not routed.edit_in_place and routed.messages == []
    copy = routed.ad
    # 2. vanillaToGrid: deleted ...
    for name in DELETED:
        assert name not in copy, name
    assert "CurrentHosts" not in copy
    # ... and reset
    for name, value in RESET:
        assert copy.evaluate(name) == value and type(copy.evaluate(name)) is type(value), name
    assert copy.evaluate("JobUniverse") == 9 and copy.evaluate("Remote_JobUniverse") == 5
    assert copy.evaluate("GridResource") == "batch slurm"
    assert "TransferOutputRemaps" not in copy
    assert copy.evaluate("Out") == "/home/alice/out/job.out"
    assert copy.evaluate("Err") == "/home/alice/out/job.err"
    # 3. pre-route (whose REQUIREMENTS see the converted copy), route, post-route, one macro table
    assert copy.evaluate("Stage") == "pre-route-post"
    assert copy.evaluate("RouteSawUniverse") == 9
    assert "NeverSet" not in copy
    assert copy.evaluate("FromPre") == "from-pre"
    assert copy.evaluate("RouterName") == "myrouter"  # the pool's configuration
    assert routed.applied == ["First", "Site1", "Post"]
    # 4. the routing attributes
    assert copy.evaluate("RoutedFromJobId") == "12.3"
    assert copy.evaluate("RoutedBy") == "myrouter"
    assert copy.evaluate("RouteName") == "Site1"
    assert "RoutedToJobId" not in copy
    # everything else is the original's
    kept = {"Owner", "Cmd", "WantJobRouter", "Requirements", "Iwd"}
    for name in kept:
        assert copy[name] == ORIGINAL[name], name
    assert "Managed" not in copy and "ManagedManager" not in copy


def test_a_sandboxed_grid_copy_keeps_its_output_remaps() -> None:
    converted = vanilla_to_grid(ORIGINAL, 9, "batch slurm", sandboxed=True)
    assert converted["TransferOutputRemaps"] == ORIGINAL["TransferOutputRemaps"]
    assert converted.evaluate("Out") == "job.out"


def test_another_target_universe_keeps_current_hosts_and_sets_no_grid_resource() -> None:
    converted = vanilla_to_grid(ORIGINAL, 5, "", sandboxed=False)
    assert converted.evaluate("JobUniverse") == 5 and converted.evaluate("Remote_JobUniverse") == 5
    assert "GridResource" not in converted and "CurrentHosts" in converted
    assert "TransferOutputRemaps" in converted


def test_old_syntax_entries_skip_the_pre_and_post_route_transforms() -> None:
    r = load_router_config(Config.from_text(
        'JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES = true\n'
        'JOB_ROUTER_ENTRIES = [ Name = "Old"; GridResource = "x"; Requirements = true; '
        'set_A = 1; ]\n'
        'JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES = P\nJOB_ROUTER_TRANSFORM_P = SET Pre 1\n'))
    old = r.route("Old")
    assert old is not None
    routed = make_routed_copy(ORIGINAL, "12.3", old, r)
    assert routed.ok and routed.ad.evaluate("A") == 1 and "Pre" not in routed.ad


def test_a_failing_transform_fails_the_routing() -> None:
    r = load_router_config(Config.from_text(
        "JOB_ROUTER_ROUTE_NAMES = A\nJOB_ROUTER_ROUTE_A @=end\nREQUIREMENTS true\n"
        "SET X $INT(nope)\n@end\n"))
    route = r.route("A")
    assert route is not None
    routed = make_routed_copy(ORIGINAL, "12.3", route, r)
    assert not routed.ok
    assert routed.error == "A: $INT() macro: nope does not evaluate to an integer!"


def test_edit_job_in_place_is_a_diff_on_the_original() -> None:
    r = router()
    route = r.route("InPlace")
    assert route is not None and route.test("EditJobInPlace", ORIGINAL)
    routed, sets, deletes = edit_in_place(ORIGINAL, route, r)
    assert routed.ok and routed.edit_in_place
    # no conversion, no routing attributes: the pre-route transforms that match the
    # original (JobUniverse 5) and the route's own edits
    assert sets == {"NeverSet": routed.ad["NeverSet"], "Edited": routed.ad["Edited"],
                    "Stage": routed.ad["Stage"], "FromPre": routed.ad["FromPre"],
                    "RouterName": routed.ad["RouterName"]}
    assert deletes == ["WantJobRouter"]
    assert routed.ad.evaluate("JobUniverse") == 5 and "RoutedBy" not in routed.ad
    also = make_routed_copy(ORIGINAL, "12.3", route, r)
    assert also.edit_in_place and "RoutedFromJobId" not in also.ad


def test_ad_diff() -> None:
    old = ClassAd.parse_old("A = 1\nB = 2\nC = 3\n")
    new = ClassAd.parse_old("A = 1\nB = 5\nD = 4\n")
    sets, deletes = ad_diff(old, new)
    assert {k: str(v) for k, v in sets.items()} == {"B": "5", "D": "4"}
    assert deletes == ["C"]


def test_the_manual_example_routes_a_job_as_htcondor_does() -> None:
    r = load_router_config(Config.from_text((DATA / "manual-new-syntax.conf").read_text()))
    routed = make_routed_copy(ORIGINAL, "12.3", r.routes[0], r)
    assert routed.ok
    copy = routed.ad
    assert copy.evaluate("GridResource") == "batch slurm"
    assert "WantJobRouter" not in copy and copy.evaluate("Requirements") is True
    assert "PeriodicRemove" not in copy  # the example's expression does not parse
    assert routed.messages == [
        "ERROR: SET PeriodicRemove invalid expression : JobStatus == 5 || (JobStatus == 1 "
        "&& (time() - QDate) > 3600*6))"]
