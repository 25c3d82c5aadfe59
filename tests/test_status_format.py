"""condorsim status: each view of a fixed set of ads, as golden text; argument parsing."""

from __future__ import annotations

import pytest

from condorsim.classad import ClassAd, parse_expr
from condorsim.status import StatusArgError, StatusRequest, format_status, parse_status_args

NOW = 200_000


def make_ad(exprs: dict[str, str] | None = None, /, **attrs: object) -> ClassAd:
    ad = ClassAd()
    for name, value in attrs.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str):
            text = '"' + value + '"'
        else:
            text = repr(value)
        ad[name] = parse_expr(text)
    for name, text in (exprs or {}).items():
        ad[name] = parse_expr(text)
    return ad


def slot(name: str, machine: str, **attrs: object) -> ClassAd:
    base: dict[str, object] = {"MyType": "Machine", "Name": name, "Machine": machine,
                               "OpSys": "LINUX", "Arch": "X86_64", "LastHeardFrom": 199_990}
    base.update(attrs)
    return make_ad(**base)


SLOTS = [
    slot("slot1@exec2.sim", "exec2.sim", Arch="aarch64", State="Owner", Activity="Idle",
         Memory=16384, MyCurrentTime=199_995, EnteredCurrentActivity=199_000),
    slot("slot10@exec1.sim", "exec1.sim", State="Claimed", Activity="Busy", CondorLoadAvg=1.0,
         Memory=512, EnteredCurrentActivity=199_990 - 90_061),
    slot("slot1@exec1.sim", "exec1.sim", State="Unclaimed", Activity="Idle", CondorLoadAvg=0.0,
         Memory=1024, EnteredCurrentActivity=199_000),
    slot("slot2@exec1.sim", "exec1.sim", State="Preempting", Activity="Vacating",
         CondorLoadAvg=0.5, Memory=256, EnteredCurrentActivity=199_980),
]


def test_default_view_is_the_slot_table_and_its_summary() -> None:
    assert format_status(SLOTS, "default", now=NOW) == """\
Name             OpSys      Arch    State      Activity LoadAv Mem    ActvtyTime

slot1@exec1.sim  LINUX      X86_64  Unclaimed  Idle      0.000  1024  0+00:16:30
slot2@exec1.sim  LINUX      X86_64  Preempting Vacating  0.500   256  0+00:00:10
slot10@exec1.sim LINUX      X86_64  Claimed    Busy      1.000   512  1+01:01:01
slot1@exec2.sim  LINUX      aarch64 Owner      Idle     [????] 16384  0+00:16:35

               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

  X86_64/LINUX     3     0       1         1       0          1      0        0      0
 aarch64/LINUX     1     1       0         0       0          0      0        0      0

         Total     4     1       1         1       0          1      0        0      0
"""


def test_default_view_reports_ads_it_cannot_total() -> None:
    ads = [slot("slot1@a", "a", State="Unclaimed", Activity="Idle", Memory=1,
                EnteredCurrentActivity=199_990),
           make_ad(Name="slot2@a", Machine="a", State="Unclaimed")]
    text = format_status(ads, "default", now=NOW)
    assert text.endswith("""
         Total     1     0       0         1       0          0      0        0      0

              (Omitted 1 malformed ads in computed attribute totals)

""")
    assert "\nslot2@a [????????] [????] Unclaimed [??????] [????] [??]   [Unknown]\n" in text


def test_schedd_view() -> None:
    ads = [
        make_ad(MyType="Scheduler", Name="schedd@sub2.sim", Machine="sub2.sim",
                TotalRunningJobs=0, TotalIdleJobs=2, TotalHeldJobs=0),
        make_ad(MyType="Scheduler", Name="schedd@sub1.sim", Machine="sub1.sim",
                TotalRunningJobs=3, TotalIdleJobs=10, TotalHeldJobs=1),
    ]
    assert format_status(ads, "schedd", now=NOW) == """\
Name            Machine  RunningJobs   IdleJobs   HeldJobs

schedd@sub1.sim sub1.sim           3         10          1
schedd@sub2.sim sub2.sim           0          2          0

                TotalRunningJobs      TotalIdleJobs      TotalHeldJobs


         Total                 3                 12                  1
"""


def test_submitters_view() -> None:
    ads = [
        make_ad(MyType="Submitter", Name="bob@sim", Machine="sub2.sim", RunningJobs=0,
                IdleJobs=1, HeldJobs=1),
        make_ad(MyType="Submitter", Name="alice@sim", Machine="sub1.sim", RunningJobs=2,
                IdleJobs=3, HeldJobs=0),
    ]
    assert format_status(ads, "submitters", now=NOW) == """\
Name      Machine  RunningJobs   IdleJobs   HeldJobs

alice@sim sub1.sim           2          3          0
bob@sim   sub2.sim           0          1          1

         RunningJobs   IdleJobs   HeldJobs

alice@sim          2          3          0
  bob@sim          0          1          1

    Total          2          4          1
"""


def test_any_view() -> None:
    ads = [
        make_ad(MyType="Scheduler", Name="schedd@sub1.sim", Machine="sub1.sim"),
        make_ad(MyType="Machine", TargetType="Job", Name="slot1@exec1.sim", Machine="exec1.sim"),
        make_ad(MyType="AVeryLongGenericAdTypeName", Machine="zz"),
        make_ad(MyType="DaemonMaster", Name="exec1.sim", Machine="exec1.sim"),
    ]
    assert format_status(ads, "any", now=NOW) == """\
MyType             TargetType         Name

DaemonMaster       None               exec1.sim
Machine            Job                slot1@exec1.sim
Scheduler          None               schedd@sub1.sim
AVeryLongGenericAd None               [???]
"""


def test_long_view_sorts_attributes_and_separates_ads() -> None:
    ads = [
        make_ad({"Requirements": 'START && Memory >= 0.5 * 2'}, zeta=True, Name="b",
                Memory=1024, Alpha=1, LoadAvg=0.25),
        make_ad(Name="a"),
    ]
    assert format_status(ads, "long", now=NOW) == """\
Name = "a"

Alpha = 1
LoadAvg = 0.25
Memory = 1024
Name = "b"
Requirements = START && Memory >= 0.5 * 2
zeta = true

"""


def test_autoformat_view() -> None:
    ads = [make_ad(Name="slot1@a", Memory=2048, State="Claimed")]
    attrs = ["Name", "Memory", "Missing", "Memory / 1024.0", 'State == "Claimed"', "time()",
             "{1, \"x\"}", "1e20"]
    assert format_status(ads, "af", attrs=attrs, now=NOW) == (
        'slot1@a 2048 undefined 2.0 true 200000 { 1,"x" } 1E+20\n'
    )


def test_every_view_sorts_machine_then_name_naturally() -> None:
    ads = [make_ad(Name=f"slot{n}@m", Machine="m") for n in (10, 2, 1, 9)]
    ads.append(make_ad(Name="slot1@l", Machine="l"))
    text = format_status(ads, "af", attrs=["Name"], now=NOW)
    assert text.split() == ["slot1@l", "slot1@m", "slot2@m", "slot9@m", "slot10@m"]


def test_no_ads_print_nothing() -> None:
    for mode in ("default", "schedd", "long", "any"):
        assert format_status([], mode, now=NOW) == ""


def test_unknown_view_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown status view"):
        format_status(SLOTS, "wide", now=NOW)


# ---------------------------------------------------------------- arguments
def test_default_request_is_slots_with_their_projection() -> None:
    req = parse_status_args([])
    assert (req.adtype, req.mode, req.constraint) == ("Machine", "default", None)
    assert req.projection is not None
    for attr in ("Name", "Machine", "State", "Activity", "Arch", "OpSys", "Memory",
                 "CondorLoadAvg", "EnteredCurrentActivity", "LastHeardFrom"):
        assert attr in req.projection


@pytest.mark.parametrize(("argv", "adtype", "mode"), [
    (["-schedd"], "Scheduler", "schedd"),
    (["-sub"], "Submitter", "submitters"),
    (["--submitters"], "Submitter", "submitters"),
    (["-master"], "DaemonMaster", "master"),
    (["-neg"], "Negotiator", "negotiator"),
    (["-collector"], "Collector", "collector"),
    (["-any"], "Any", "any"),
    (["-l"], "Machine", "long"),
    (["-schedd", "-long"], "Scheduler", "long"),
])
def test_type_and_view_flags(argv: list[str], adtype: str, mode: str) -> None:
    req = parse_status_args(argv)
    assert (req.adtype, req.mode) == (adtype, mode)


def test_long_fetches_whole_ads() -> None:
    assert parse_status_args(["-l"]).projection is None


def test_autoformat_attributes_and_projection() -> None:
    req = parse_status_args(["-af", "Name", "Memory", "-constraint", "Memory > 1"])
    assert req == StatusRequest("Machine", "af", "Memory > 1", ["Name", "Memory", "Machine"],
                                ["Name", "Memory"])
    expr = parse_status_args(["-autoformat", "Memory/1024", "Cpus + Disk", "time()"])
    assert expr.projection == ["Memory", "Cpus", "Disk", "Machine", "Name"]


def test_constraints_are_anded_and_names_ored() -> None:
    req = parse_status_args(["-constraint", "A > 1", "slot1@a", "-const", "B", "b"])
    assert req.constraint == (
        '((Name == "slot1@a") || (Machine == "slot1@a") || (Name == "b") || (Machine == "b"))'
        " && (A > 1) && (B)"
    )
    assert parse_status_args(["host"]).constraint == '(Name == "host") || (Machine == "host")'


def test_help() -> None:
    assert parse_status_args(["-help"]).help is True


@pytest.mark.parametrize(("argv", "message"), [
    (["-bogus"], "unknown option -bogus"),
    (["-constraint"], "-constraint needs an expression"),
    (["-constraint", "Memory >"], "is not a valid ClassAd expression"),
    (["-af"], "-af needs at least one attribute"),
    (["-af", "-schedd"], "-af needs at least one attribute"),
])
def test_bad_arguments(argv: list[str], message: str) -> None:
    with pytest.raises(StatusArgError, match=message) as info:
        parse_status_args(argv)
    assert "Usage: condorsim status" in str(info.value)
