"""condorsim status's views, byte for byte, and its command line.

The expected texts follow HTCondor 24's src/condor_status.V6/prettyPrint.cpp (the column
lists of ppSetStartdNormalCols, ppSetRunCols, ppSetStateCols, ppSetCollectorNormalCols,
ppSetAnyNormalCols and the schedd/submitter/master/negotiator print formats, with the
Name and Machine widths ppAdjustProjection gives them) and totals.cpp (displayTotals),
laid out by AttrListPrintMask: headings, a blank line, the rows, then the totals after
a blank line. Rows keep their trailing blanks (condor_status trims nothing); a missing
value is "[????]" as wide as its column, a missing %v value "undefined".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd, parse_expr
from condorsim.status import StatusArgError, format_status, parse_status_args
from condorsim.tools.status import main as status_main

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


def test_slot_view_and_its_totals() -> None:
    assert format_status(SLOTS, "slots", now=NOW) == """\
Name               OpSys      Arch    State      Activity LoadAv Mem    ActvtyTime

slot1@exec1.sim    LINUX      X86_64  Unclaimed  Idle      0.000  1024  0+00:16:30
slot2@exec1.sim    LINUX      X86_64  Preempting Vacating  0.500   256  0+00:00:10
slot10@exec1.sim   LINUX      X86_64  Claimed    Busy      1.000   512  1+01:01:01
slot1@exec2.sim    LINUX      aarch64 Owner      Idle     [????] 16384  0+00:16:35

               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

  X86_64/LINUX     3     0       1         1       0          1      0        0      0
 aarch64/LINUX     1     1       0         0       0          0      0        0      0

         Total     4     1       1         1       0          1      0        0      0
"""


def test_slot_view_reports_ads_it_cannot_total() -> None:
    ads = [slot("slot1@a", "a", State="Unclaimed", Activity="Idle", Memory=1,
                EnteredCurrentActivity=199_990),
           make_ad(Name="slot2@a", Machine="a", State="Unclaimed")]
    text = format_status(ads, "slots", now=NOW)
    # %v of a missing attribute shows "undefined"; %4d shows [??]; ActvtyTime's OR is "-"
    assert "\nslot2@a            undefined  undefined Unclaimed undefined [????] [??]" \
        + " " * 11 + "-\n" in text
    assert text.endswith("""
         Total     1     0       0         1       0          0      0        0      0

              (Omitted 1 malformed ads in computed attribute totals)

""")


def test_schedd_view_prints_its_blank_key_line() -> None:
    ads = [
        make_ad(MyType="Scheduler", Name="schedd@sub2.sim", Machine="sub2.sim",
                TotalRunningJobs=0, TotalIdleJobs=2, TotalHeldJobs=0),
        make_ad(MyType="Scheduler", Name="schedd@sub1.sim", Machine="sub1.sim",
                TotalRunningJobs=3, TotalIdleJobs=10, TotalHeldJobs=1),
    ]
    assert format_status(ads, "schedd", now=NOW) == """\
Name            Machine      RunningJobs   IdleJobs   HeldJobs

schedd@sub1.sim sub1.sim               3         10          1
schedd@sub2.sim sub2.sim               0          2          0

                TotalRunningJobs      TotalIdleJobs      TotalHeldJobs

""" + " " * 14 + """
         Total                 3                 12                  1
"""


def test_submitters_view_keys_totals_by_name() -> None:
    ads = [
        make_ad(MyType="Submitter", Name="bob@sim", Machine="sub2.sim", RunningJobs=0,
                IdleJobs=1, HeldJobs=1),
        make_ad(MyType="Submitter", Name="alice@sim", Machine="sub1.sim", RunningJobs=2,
                IdleJobs=3, HeldJobs=0),
    ]
    assert format_status(ads, "submitters", now=NOW) == """\
Name            Machine      RunningJobs   IdleJobs   HeldJobs

alice@sim       sub1.sim               2          3          0
bob@sim         sub2.sim               0          1          1

         RunningJobs   IdleJobs   HeldJobs

alice@sim          2          3          0
  bob@sim          0          1          1

    Total          2          4          1
"""


def test_master_negotiator_and_collector_views() -> None:
    master = make_ad(MyType="DaemonMaster", Name="master@localhost", Machine="localhost",
                     CondorVersion="$CondorVersion: 24.0.24 2026-09-24 BuildID: 812345 $",
                     DetectedCpus=8, DetectedMemory=16000, DaemonStartTime=NOW - 3725,
                     LastHeardFrom=NOW)
    assert format_status([master], "master", now=NOW) == (
        "Name             Version        Cpus   Memory      Uptime    \n\n"
        "master@localhost 24.0.24.812345    8    15.6 GB    0+01:02:05\n")
    negotiator = make_ad(MyType="Negotiator", Name="localhost",
                         LastNegotiationCycleEnd0=1767225610, LastNegotiationCycleDuration0=0,
                         LastNegotiationCycleCandidateSlots0=4,
                         LastNegotiationCycleActiveSubmitterCount0=1,
                         LastNegotiationCycleNumSchedulers0=1,
                         LastNegotiationCycleNumIdleJobs0=3, LastNegotiationCycleMatches0=3,
                         LastNegotiationCycleRejections0=0)
    assert format_status([negotiator], "negotiator", now=NOW) == (
        "Name         LastCycleEnd (Sec)   Slots Submitrs Schedds    Jobs Matches Rejections\n\n"
        "localhost      1/1  00:00     0       4        1       1       3       3          0\n")
    collector = make_ad(MyType="Collector", Name="My Pool - 127.0.0.1", Machine="localhost",
                        RunningJobs=2, IdleJobs=4, HostsTotal=4)
    assert format_status([collector], "collector", now=NOW) == (
        "Name                         Machine            RunningJobs IdleJobs HostsTotal\n\n"
        "My Pool - 127.0.0.1          localhost                    2        4          4\n")
    # before its first cycle the negotiator publishes no cycle statistics
    bare = make_ad(MyType="Negotiator", Name="localhost")
    assert format_status([bare], "negotiator", now=NOW).split("\n")[2] == "localhost" + " " * 74


def test_claimed_and_state_views() -> None:
    ads = [slot("slot1@a", "a", State="Claimed", Activity="Busy", CondorLoadAvg=1.0, Cpus=1,
                Memory=512, RemoteUser="alice@sim", ClientMachine="sub.sim", Mips=100,
                KFlops=2000, LoadAvg=1.0, EnteredCurrentState=199_000,
                EnteredCurrentActivity=199_500, KeyboardIdle=86400)]
    assert format_status(ads, "claimed", now=NOW) == (
        "Name            OpSys       Arch   LoadAv RemoteUser           ClientMachine   \n\n"
        "slot1@a         LINUX       X86_64  1.000 alice@sim            sub.sim         \n\n"
        """\
               Machines         MIPS       KFLOPS   AvgLoadAvg

  X86_64/LINUX        1          100         2000   1.000

         Total        1          100         2000   1.000
""")
    # the 11-wide time columns are 12 wide with no blank before them (ppSetColumnFormat)
    assert format_status(ads, "state", now=NOW) == """\
Name         Cpu  Mem  LoadAv  KbdIdle    State    StateTime  Activ  ActvtyTime

slot1@a        1   512  1.000  1+00:00:00 Claimed  0+00:16:30 Busy   0+00:08:10

               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle

          Busy     0     0         0       1          0       0      0        0      0

         Total     0     0         0       1          0       0      0        0      0
"""


def test_any_view() -> None:
    ads = [
        make_ad(MyType="Scheduler", Name="schedd@sub1.sim", Machine="sub1.sim"),
        make_ad(MyType="Machine", TargetType="Job", Name="slot1@exec1.sim", Machine="exec1.sim"),
        make_ad(MyType="AVeryLongGenericAdTypeName", Machine="zz"),
        make_ad(MyType="DaemonMaster", Name="exec1.sim", Machine="exec1.sim"),
    ]
    pad = " " * 26
    assert format_status(ads, "any", now=NOW) == (
        "MyType             TargetType         Name" + " " * 37 + "\n\n"
        "DaemonMaster       None               exec1.sim" + " " * 32 + "\n"
        "Machine            Job                slot1@exec1.sim" + pad + "\n"
        "Scheduler          None               schedd@sub1.sim" + pad + "\n"
        "AVeryLongGenericAd None               ?" + " " * 40 + "\n")


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


def test_autoformat_and_natural_order() -> None:
    ads = [make_ad(Name="slot1@a", Memory=2048, State="Claimed")]
    attrs = ["Name", "Memory", "Missing", "Memory / 1024.0", 'State == "Claimed"', "time()",
             "{1, \"x\"}", "1e20"]
    assert format_status(ads, "af", attrs=attrs, now=NOW) == (
        'slot1@a 2048 undefined 2.0 true 200000 { 1,"x" } 1E+20\n')
    ads = [make_ad(Name=f"slot{n}@m", Machine="m") for n in (10, 2, 1, 9)]
    ads.append(make_ad(Name="slot1@l", Machine="l"))
    text = format_status(ads, "af", attrs=["Name"], now=NOW)
    assert text.split() == ["slot1@l", "slot1@m", "slot2@m", "slot9@m", "slot10@m"]


def test_no_ads_print_nothing() -> None:
    for mode in ("slots", "schedd", "long", "any"):
        assert format_status([], mode, now=NOW) == ""


# ---------------------------------------------------------------- the command, on a file
def _ads_file(tmp_path: Path) -> Path:
    path = tmp_path / "pool.ads"
    path.write_text("".join(ad.to_long() + "\n" for ad in SLOTS) + make_ad(
        MyType="Scheduler", Name="schedd@sub1.sim", Machine="sub1.sim", TotalRunningJobs=1,
        TotalIdleJobs=2, TotalHeldJobs=0).to_long() + "\n")
    return path


def test_status_on_a_file_of_ads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    ads = _ads_file(tmp_path)
    assert status_main(["-ads", str(ads), "-tot"]) == 0
    assert capsys.readouterr().out == """
               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

  X86_64/LINUX     3     0       1         1       0          1      0        0      0
 aarch64/LINUX     1     1       0         0       0          0      0        0      0

         Total     4     1       1         1       0          1      0        0      0
"""
    assert status_main(["-ads", str(ads), "-af", "Name", "-cons", 'State == "Claimed"']) == 0
    assert capsys.readouterr().out == "slot10@exec1.sim\n"
    assert status_main(["-ads", str(ads), "-sc", "-af", "Name", "TotalIdleJobs"]) == 0
    assert capsys.readouterr().out == "schedd@sub1.sim 2\n"
    assert status_main(["-ads", str(ads), "exec2.sim", "-format", "%s:", "Name",
                        "-format", "%d\\n", "Memory"]) == 0
    assert capsys.readouterr().out == "slot1@exec2.sim:16384\n"
    assert status_main(["-ads", str(ads), "-json", "-attributes", "Name", "exec2.sim"]) == 0
    assert capsys.readouterr().out == '[\n{\n  "Name": "slot1@exec2.sim"\n}\n]\n'
    assert status_main(["-ads", str(ads), "-l", "-attributes", "Name,Memory", "exec2.sim"]) == 0
    assert capsys.readouterr().out == 'Memory = 16384\nName = "slot1@exec2.sim"\n\n'
    assert status_main(["-ads", str(ads), "-af:h", "Name", "Memory", "-cons", "Memory > 600"]) == 0
    assert capsys.readouterr().out == ("Name            Memory\nslot1@exec1.sim 1024  \n"
                                       "slot1@exec2.sim 16384 \n")


@pytest.mark.parametrize(("argv", "style"), [
    ([], "slots"), (["-schedd"], "schedd"), (["-subm"], "submitters"),
    (["--submitters"], "submitters"), (["-m"], "master"), (["-n"], "negotiator"),
    (["-col"], "collector"), (["-an"], "any"), (["-av"], "avail"), (["-cl"], "claimed"),
    (["-run"], "schedd_run"), (["-slots", "-run"], "claimed"), (["-schedd", "-run"], "schedd_run"),
    (["-stat"], "state"), (["-se"], "server"),
])
def test_view_flags_and_their_abbreviations(argv: list[str], style: str) -> None:
    assert parse_status_args(argv).style == style


def test_constraints_are_anded_and_names_ored() -> None:
    req = parse_status_args(["-constraint", "A > 1", "slot1@a", "-const", "B", "b"])
    assert req.constraint == ('( (A > 1) && (B) ) && ( (Name=="slot1@a" || Machine=="slot1@a") '
                              '|| (Name=="b" || Machine=="b") )')
    assert parse_status_args(["-avail"]).constraint == \
        '( (State == "Unclaimed" && Cpus > 0 && Memory > 0) )'
    assert parse_status_args(["-claimed", "alice@sim"]).constraint == \
        '( (State == "Claimed") || (RemoteUser == "alice@sim") )'


@pytest.mark.parametrize(("argv", "message"), [
    (["-bogus"], "unrecognized argument -bogus"),
    (["-constraint"], "needs a value"),
    (["-constraint", "Memory >"], "is not a valid ClassAd expression"),
    (["-co"], "unrecognized argument -co"),
    (["-sub"], "unrecognized argument -sub"),  # -submitters needs 4 letters
])
def test_bad_arguments(argv: list[str], message: str) -> None:
    with pytest.raises(StatusArgError, match=message):
        parse_status_args(argv)


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert status_main(["-help"]) == 0
    assert "-total" in capsys.readouterr().out
    assert status_main(["-version"]) == 0
    assert capsys.readouterr().out.startswith("$CondorVersion: 24.0.24 ")


# -compact: startdCompact_PrintFormat (and the server, state and claimed ones) of
# prettyPrint.cpp, rows folded per machine as status.cpp's reduce_slot_results does.
# data/compact.ads: a partitionable slot with one dynamic slot (m1), two static slots
# (e1: one busy, one idle) and a lone static slot (solo).
COMPACT_ADS = Path(__file__).parent / "data" / "compact.ads"
COMPACT_TOTALS = """
               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

x64/AlmaLinux9     6     0       3         3       0          0      0        0      0

         Total     6     0       3         3       0          0      0        0      0
"""


def _bare(text: str) -> str:
    """An expected text whose rows end in blanks, each such row marked by a final |."""
    return text.replace("|\n", "\n")


def _status_out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert status_main(argv) == 0
    return capsys.readouterr().out


def test_compact_folds_each_machine_into_one_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    # e1: 2 static slots (S), free cpus and memory of the idle one only, the largest
    # slot's memory, ** for Claimed/Busy + Unclaimed/Idle, no RecentJobStarts (_);
    # m1: its dynamic slot is counted in Slots (NumDynamicSlots), ST is * for the pslot's
    # Unclaimed against its children's Claimed, * for Idle against Busy+Idle (#);
    # solo: a lone row is not folded, but it is cooked as the last row of the list.
    assert _status_out(["-ads", str(COMPACT_ADS), "-compact"], capsys) == """\
Machine      Platform       Slots Cpus Gpus  TotalGb FreCpu  FreeGb  CpuLoad ST Jobs/Min MaxSlotGb

e1.sim       x64/AlmaLinux9    2S    1          1.00      1     1.00    0.50 ** _             1.00
m1.sim       x64/AlmaLinux9    2     4          8.00      2     2.00    0.38 **     0.15      2.00
solo.sim     x64/AlmaLinux9    1S    8          4.00      8     4.00    0.00 Ui _             4.00
""" + COMPACT_TOTALS
    # -avail: only the unclaimed static slots and the pslots with free cpus and memory
    assert _status_out(["-ads", str(COMPACT_ADS), "-comp", "-av"], capsys).splitlines()[2] \
        == "e1.sim       x64/AlmaLinux9    1S    1          1.00      1     1.00    0.50 Ui " \
           "_             1.00"
    # -total: the compact totals, with condor_status's warning
    assert status_main(["-ads", str(COMPACT_ADS), "-compact", "-tot"]) == 0
    out, err = capsys.readouterr()
    assert out == COMPACT_TOTALS
    assert err == "Warning: ignoring -compact option because -total option is also set\n"
    # -slots after -compact turns it off again
    assert _status_out(["-ads", str(COMPACT_ADS), "-compact", "-slots"], capsys).startswith(
        "Name               OpSys      Arch   State")


def test_compact_state_server_and_claimed_views(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    # the state totals are keyed by Activity (the pslot's Idle counts its children too)
    assert _status_out(["-ads", str(COMPACT_ADS), "-compact", "-state"], capsys) == _bare("""\
Machine      Platform       Slots Cpus Gpus  TotalGb CpuLoad ST Jobs/Min

e1.sim       x64/AlmaLinux9    2S    1          1.00    0.50 ** _       |
m1.sim       x64/AlmaLinux9    2     4          8.00    0.38 **     0.15
solo.sim     x64/AlmaLinux9    1S    8          4.00    0.00 Ui _       |

               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle

          Busy     0     0         0       1          0       0      0        0      0
          Idle     0     0         3       2          0       0      0        0      0

         Total     0     0         3       3          0       0      0        0      0
""")
    # StartdServerTotal ignores the rollup options: the pslot counts twice
    assert _status_out(["-ads", str(COMPACT_ADS), "-compact", "-server"], capsys) == _bare("""\
Machine      Platform       Slots Cpus Gpus  TotalGb  Mips    KFlops   CpuLoad ST Jobs/Min

e1.sim       x64/AlmaLinux9    2S    1          1.00 -       -            0.50 ** _       |
m1.sim       x64/AlmaLinux9    2     4          8.00 -       -            0.38 **     0.15
solo.sim     x64/AlmaLinux9    1S    8          4.00 -       -            0.00 Ui _       |

               Machines Avail  Memory        Disk        MIPS      KFLOPS

x64/AlmaLinux9        5     5       10240           0           0           0

         Total        5     5       10240           0           0           0

              (Omitted 5 malformed ads in computed attribute totals)

""")
    # -claimed: the claimed static slots and the pslots with dynamic slots; Users is the
    # pslot's ChildRemoteUser, distinct and sorted
    assert _status_out(["-ads", str(COMPACT_ADS), "-compact", "-claimed"], capsys) == _bare("""\
Machine      Platform       Slots Users             |

e1.sim       x64/AlmaLinux9    1S                   |
m1.sim       x64/AlmaLinux9    2  alice@sim, bob@sim

               Machines         MIPS       KFLOPS   AvgLoadAvg

x64/AlmaLinux9        3            0            0   0.000

         Total        3            0            0   0.000

              (Omitted 3 malformed ads in computed attribute totals)

""")
