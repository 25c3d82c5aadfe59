"""condorsim q -better-analyze, byte for byte.

The expected texts follow HTCondor 24's src/condor_q.V6/jobmatch.cpp
(printJobRunAnalysis, doJobMatchAnalysisToBuffer, appendJobRunAnalysisToBuffer) and
src/condor_utils/expr_analyze.cpp (PrettyPrintExprTree, AnalyzeRequirementsForEachTarget,
AddReferencedAttribsToBuffer), worked by hand:

* the job id is ``C.PPP`` in the Requirements sections and ``CCC.PPP`` before the summary;
* the Requirements expression is folded after an ``&&``/``||`` at 80 columns, the new line
  indented to its parenthesis depth (4 + 2 per open parenthesis);
* the job's attributes are its raw expressions, sorted, followed through the job's own
  attributes (DiskUsage through RequestDisk), with ``(kb)``/``(mb)`` after RequestDisk and
  RequestMemory;
* steps are numbered in post-order over comparisons, logical operators and their
  operands: ``A && B && C && D && (E || F)`` gives A=[0] B=[1] [0]&&[1]=[2] C=[3] [4] D=[5]
  [6] E=[7] F=[8] [7]||[8]=[9] [10]; an ``&&`` matching as many slots as one side is that
  side (hidden), an ``||`` with a side matching every slot prunes the other side: the table
  shows [0] [1] [3] [5] [8];
* a slot runs "your jobs" when its RemoteUser is the job's User.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.tools.analyze import analyze
from condorsim.tools.q import main as q_main

REQ = ('(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) '
       '&& (TARGET.Memory >= RequestMemory) && ((TARGET.FileSystemDomain == MY.FileSystemDomain) '
       '|| (TARGET.HasFileTransfer))')
JOB = f"""ClusterId = 7
ProcId = 0
Owner = "alice"
User = "alice@site"
JobStatus = 1
JobUniverse = 5
DiskUsage = 20
RequestDisk = DiskUsage
RequestMemory = 2048
FileSystemDomain = "a"
LastRejMatchTime = 1767225600
LastRejMatchReason = "no match found"
Requirements = {REQ}
"""


def _slot(name: str, memory: int = 10000, start: str = "true", remote: str = "") -> ClassAd:
    text = (f'Name = "{name}"\nArch = "X86_64"\nOpSys = "LINUX"\nDisk = 1000\n'
            f'Memory = {memory}\nFileSystemDomain = "b"\nHasFileTransfer = true\n'
            f"START = {start}\nRequirements = START\n")
    if remote:
        text += f'RemoteUser = "{remote}"\n'
    return ClassAd.parse(text)


SLOTS = [_slot("slot1@free"), _slot("slot1@small", memory=100),
         _slot("slot1@picky", start="false"), _slot("slot1@mine", remote="alice@site"),
         _slot("slot1@busy", remote="bob@site")]

HEAD = """The Requirements expression for job 7.000 is

    (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") &&
    (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) &&
    ((TARGET.FileSystemDomain == MY.FileSystemDomain) ||
      (TARGET.HasFileTransfer))

Job 7.000 defines the following attributes:

    DiskUsage = 20
    FileSystemDomain = "a"
    RequestDisk = DiskUsage (kb)
    RequestMemory = 2048 (mb)

The Requirements expression for job 7.000 reduces to these conditions:

         Slots
Step    Matched  Condition
-----  --------  ---------
"""


def test_an_idle_job_against_five_slots() -> None:
    expected = HEAD + """\
[0]           5  TARGET.Arch == "X86_64"
[1]           5  TARGET.OpSys == "LINUX"
[3]           5  TARGET.Disk >= RequestDisk
[5]           4  TARGET.Memory >= RequestMemory
[8]           5  TARGET.HasFileTransfer

No successful match recorded.
Last failed match: Thu Jan  1 00:00:00 2026

Reason for last match failure: no match found

007.000:  Run analysis summary ignoring user priority.  Of 5 machines,
      1 are rejected by your job's requirements
      1 reject your job because of their own requirements
      1 match and are already running your jobs
      1 match but are serving other users
      1 are able to run your job

"""
    assert analyze(ClassAd.parse(JOB), SLOTS, now=1767229325, tz="UTC") == expected


def test_a_job_no_slot_matches_gets_the_warning() -> None:
    job = ClassAd.parse(JOB.replace("RequestMemory = 2048", "RequestMemory = 200000"))
    text = analyze(job, SLOTS, now=1767229325, tz="UTC")
    assert """\
[0]           5  TARGET.Arch == "X86_64"
[1]           5  TARGET.OpSys == "LINUX"
[3]           5  TARGET.Disk >= RequestDisk
[5]           0  TARGET.Memory >= RequestMemory
[8]           5  TARGET.HasFileTransfer
""" in text
    assert text.endswith("""\
007.000:  Run analysis summary ignoring user priority.  Of 5 machines,
      5 are rejected by your job's requirements
      0 reject your job because of their own requirements
      0 match and are already running your jobs
      0 match but are serving other users
      0 are able to run your job

WARNING:  Be advised:
   No machines matched the jobs's constraints

""")


def _table(requirements: str) -> str:
    job = ClassAd.parse('ClusterId = 3\nProcId = 1\nOwner = "bob"\nJobStatus = 1\n'
                        f"JobUniverse = 5\nRequestCpus = 1\nRequirements = {requirements}")
    text = analyze(job, SLOTS, now=0)
    start = text.index("-----  --------  ---------\n") + 27
    return text[start:text.index("\n\n\n", start)]


@pytest.mark.parametrize(("requirements", "rows"), [
    # RequestCpus > 0 refers to the job alone: a constant. True || x is always, x pruned.
    ("(RequestCpus > 0) || (TARGET.Memory > 5)", "[0]      always  RequestCpus > 0"),
    # false && x is never, x irrelevant
    ("(RequestCpus > 5) && (TARGET.Memory > 5)", "[0]       never  RequestCpus > 5"),
    # true && x is x: the constant side is irrelevant
    ("(RequestCpus > 0) && (TARGET.Memory > 5)", "[1]           5  TARGET.Memory > 5"),
    # a ! whose operand is a step already is not a step of its own (HTCondor counts the
    # operand, not its negation); an && that matches fewer slots than both sides is shown
    ("!(TARGET.Memory < 200) && TARGET.HasFileTransfer",
     "[0]           1  TARGET.Memory < 200\n[1]           5  TARGET.HasFileTransfer\n"
     "[2]           4  [0] && [1]"),
])
def test_constant_clauses_fold(requirements: str, rows: str) -> None:
    assert _table(requirements) == rows


def test_better_analyze_on_a_file_of_ads_with_no_pool(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path / "nopool"))
    ads = tmp_path / "held.ads"
    ads.write_text('ClusterId = 1\nProcId = 2\nOwner = "alice"\nJobStatus = 5\nJobUniverse = 5\n'
                   'HoldReason = "via condor_hold (by user alice)"\n')
    assert q_main(["-jobads", str(ads), "-better-analyze"]) == 0
    assert capsys.readouterr().out == f"""

-- Jobads: {ads}
Job 1.002 defines the following attributes:


The Requirements expression for job 1.002 reduces to these conditions:



001.002:  Job is held.

Hold reason: via condor_hold (by user alice)


"""
