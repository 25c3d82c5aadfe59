"""``condorsim transform_ads``: the manual page's example, HTCondor's own test of the tool
(src/condor_tests/cmd_transform_ads.run), its flags, and htcondor-facts.md §3.5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condorsim.cli import main as cli

INPUT = """\
ResidentSetSize = 500
DiskUsage = 2500000
NumCkpts = 0
TransferrErr = false
Err = "/dev/null"
"""
RULES = """\
EVALSET MemoryUsage ( ResidentSetSize / 100 )
EVALMACRO WantDisk = ( DiskUsage * 2 )
SET RequestDisk ( $(WantDisk) / 1024 )
RENAME NumCkpts NumCheckPoints
DELETE /(.+)Err/
"""
JOBS = """\
ClusterId = 100
ProcId = 0
Owner = "alice"
MaxHosts = 1
RequestCpus = 1
RequestMemory = 128
RemoteUser = "x"
JobStatus = 5

ClusterId = 100
ProcId = 1
Owner = "bob"
MaxHosts = 1
RequestCpus = 2
RequestMemory = 256
RemoteUser = "y"
JobStatus = 2
"""


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "pool.conf"
    config.write_text("JOB_TRANSFORM_Tag = SET Tag \"from-config\"\nSITE = here\n")
    monkeypatch.setenv("CONDORSIM_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_input").write_text(INPUT)
    (tmp_path / "my_rules").write_text(RULES)
    (tmp_path / "jobs").write_text(JOBS)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli(["transform_ads", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def ads(text: str) -> list[dict[str, str]]:
    out = []
    for block in text.strip().split("\n\n"):
        out.append(dict(line.split(" = ", 1) for line in block.splitlines()))
    return out


def test_the_manual_page_example(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "-rules", "my_rules", "-in", "my_input")
    assert (status, err) == (0, "")  # HTCondor 24 exits 1 after writing ads (its man page: 0)
    # The manual prints "( 5000000 / 1024 )": HTCondor 24 prints "(5000000 / 1024)".
    assert out == (
        "DiskUsage = 2500000\n"
        'Err = "/dev/null"\n'
        "MemoryUsage = 5\n"
        "NumCheckPoints = 0\n"
        "RequestDisk = (5000000 / 1024)\n"
        "ResidentSetSize = 500\n\n"
    )


def test_htcondors_general_rules(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "general.rules").write_text(
        'SET ClusterId 200\nDEFAULT Fooo "test"\nCOPY MaxHosts TransferIn\n'
        "RENAME RequestCpus NumCpus\nDELETE RequestMemory\nDELETE /(.+)User/\nTRANSFORM 1")
    status, out, _ = run(capsys, "-rules", "general.rules", "jobs")
    first, second = ads(out)
    assert status == 0
    assert first == {"ClusterId": "200", "Fooo": '"test"', "JobStatus": "5", "MaxHosts": "1",
                     "NumCpus": "1", "Owner": '"alice"', "ProcId": "0", "TransferIn": "1"}
    assert second["NumCpus"] == "2" and "RemoteUser" not in second


def test_transform_iterations(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "in1.rules").write_text('SET ARG1 $(argument)\nTRANSFORM argument in (2.0, 100, "test")')
    status, out, _ = run(capsys, "-rules", "in1.rules", "jobs")
    assert status == 0
    assert [a["ARG1"] for a in ads(out)] == ["2.0", "100", '"test"'] * 2
    (work / "in2.rules").write_text("SET ARG1 $(x)\nSET S $(Step)\nTRANSFORM 2 x in (p, q)")
    _, out, _ = run(capsys, "-rules", "in2.rules", "my_input")
    assert [(a["ARG1"], a["S"]) for a in ads(out)] == [("p", "0"), ("p", "1"), ("q", "0"), ("q", "1")]
    (work / "from.rules").write_text(
        "SET SIZE_IMAGE $(macro1)\nSET SIZE_DISK $(macro2)\nTRANSFORM macro1, macro2 from (\n"
        "1000 120.0\n\n2000 128.0\n)")
    _, out, _ = run(capsys, "-rules", "from.rules", "my_input")
    # a blank line inside the block is an empty item (facts §3.5)
    got = [(a.get("SIZE_IMAGE"), a.get("SIZE_DISK")) for a in ads(out)]
    assert got == [("1000", "120.0"), (None, None), ("2000", "128.0")]
    (work / "items.txt").write_text("1000 120.0\n2000 128.0")
    (work / "from2.rules").write_text("SET SIZE_IMAGE $(macro1)\nTRANSFORM macro1, macro2 from items.txt")
    _, out, _ = run(capsys, "-rules", "from2.rules", "my_input")
    assert [a["SIZE_IMAGE"] for a in ads(out)] == ["1000", "2000"]
    (work / "n.rules").write_text("SET N $(XFormId)\nTRANSFORM 3")
    _, out, _ = run(capsys, "-rules", "n.rules", "my_input")
    assert [a["N"] for a in ads(out)] == ["0", "1", "2"]
    (work / "zero.rules").write_text("SET A 1\nTRANSFORM 0")
    _, out, _ = run(capsys, "-rules", "zero.rules", "my_input")
    assert len(ads(out)) == 1


def test_regex_rules_and_verbose_steps(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "regex.rules").write_text(
        "COPY /^Max(.+)/  TotalSuspensions\nRENAME /(.+)User/ Test\\0\n"
        "RENAME /^Request(.+)/ Time\\1\nTRANSFORM")
    status, out, err = run(capsys, "-verbose", "-rules", "regex.rules", "jobs")
    assert status == 0
    assert "COPY MaxHosts to TotalSuspensions\n" in out  # the step log goes to stdout
    assert "RENAME RemoteUser to TestRemoteUser\n" in out
    assert "# Applying transforms to ads from jobs" in err and "#   Job 100.0" in err
    assert "TimeCpus = 1" in out and "TestRemoteUser = \"x\"" in out


def test_job_transforms_and_routes_from_the_configuration_or_a_rules_file(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "-jobtransforms", "Tag", "my_input")
    assert status == 0 and 'Tag = "from-config"' in out
    (work / "defs.rules").write_text(
        "JOB_ROUTER_ROUTE_R @=end\n  GridResource = \"x\"\n  SET Site \"$(SITE)\"\n@end\n"
        "JOB_TRANSFORM_Tag = SET Tag \"from-rules\"\n")
    status, out, _ = run(capsys, "-rules", "defs.rules", "-jobroute", "R", "-jobtransforms",
                         "Tag", "my_input")
    assert status == 0 and 'Site = "here"' in out and 'Tag = "from-rules"' in out
    status, _, err = run(capsys, "-jobroute", "Nope", "my_input")
    assert status == 1
    assert err == "ERROR: JOB_ROUTER_ROUTE_Nope is not defined (in a rules file or the configuration)\n"


def test_key_value_arguments_are_macros(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "kv.rules").write_text('SET Who "$(FOO)"\n')
    status, out, _ = run(capsys, "-rules", "kv.rules", "FOO=bar", "my_input")
    assert status == 0 and 'Who = "bar"' in out  # HTCondor 24: "OO=bar" (first character cut)


def test_output_forms(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "-rules", "my_rules", "-out:json", "-", "my_input")
    data = json.loads(out)
    assert data[0]["MemoryUsage"] == 5 and data[0]["RequestDisk"] == "/Expr((5000000 / 1024))/"
    (work / "in.json").write_text(out)
    _, again, _ = run(capsys, "-rules", "my_rules", "-json", "in.json")
    assert json.loads(again)[0]["MemoryUsage"] == 5  # -json: the input and the output form
    _, out, _ = run(capsys, "-rules", "my_rules", "-out:new", "-", "my_input")
    assert out.startswith("{\n[ DiskUsage = 2500000; Err = ") and out.endswith("]\n}\n")
    _, out, _ = run(capsys, "-rules", "my_rules", "-out:long,nosort", "-", "my_input")
    assert out.splitlines()[0] == "ResidentSetSize = 500"
    status, _, _ = run(capsys, "-rules", "my_rules", "-out", str(work / "o.txt"), "my_input")
    assert status == 0 and "MemoryUsage = 5" in (work / "o.txt").read_text()


def test_facts_about_values(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "v.rules").write_text(
        'SET A "$ENV(CONDORSIM_SURELY_UNSET)"\nSET B $REAL(17)\nSET owner "x"\nRENAME Err err\n')
    _, out, _ = run(capsys, "-rules", "v.rules", "my_input")
    got = ads(out)[0]
    assert got["A"] == '"UNDEFINED"' and got["B"] == "17" and got["owner"] == '"x"'
    assert "err" in got and "Err" not in got


def test_failures_and_errors(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "bad.rules").write_text("SET A $INT(abc)\n")
    status, out, err = run(capsys, "-rules", "bad.rules", "my_input", "jobs")
    assert status == 255 and out == ""
    assert "$INT() macro: abc does not evaluate to an integer!" in err
    assert "Transform of ad failed!" in err
    (work / "syntax.rules").write_text("SET A 1\nFROB\n")
    status, _, err = run(capsys, "-rules", "syntax.rules", "my_input")
    assert (status, err) == (1, "ERROR: syntax.rules, line 2: FROB is not a valid transform keyword\n")
    (work / "macros.rules").write_text("x = 1\n# only a macro\n")
    status, _, err = run(capsys, "-rules", "macros.rules", "my_input")  # HTCondor: SIGSEGV
    assert status == 1 and "no transform to apply" in err
    status, _, err = run(capsys, "-rules", "my_rules")
    assert status == 1 and "no input file specified" in err
    status, _, err = run(capsys, "my_input")
    assert status == 1 and "no transform rules specified" in err
    status, _, err = run(capsys, "-rules", "my_rules", "nosuchfile")
    assert status == 0 and "Can't open file of ClassAds: nosuchfile" in err


def test_help_describes_and_runs_nothing(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "-help")
    assert status == 0 and out.startswith("Usage: condorsim transform_ads")
    status, out, _ = run(capsys, "-help", "rules")
    assert status == 0 and "SET     <attr> <expr>" in out
    status, out, _ = run(capsys, "-help", "convert")
    assert status == 0 and "Converting old JobRouter routes" in out


SEED_OLD = (Path(__file__).parents[1] / "routing" / "data" / "seed-old-syntax.conf").read_text()


def test_convert_old_routes_from_the_configuration(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (work / "old.conf").write_text(SEED_OLD)
    monkeypatch.setenv("CONDORSIM_CONFIG", str(work / "old.conf"))
    status, out, _ = run(capsys, "-convertoldroutes")
    assert status == 0
    blocks = out.split("\n##### ")
    assert blocks[1].startswith("JOB_ROUTER_ENTRIES [1] #####\nNAME Site_1\nREQUIREMENTS "
                                "WantJobRouter =?= true\n# autoconversion of route 'Site_1' "
                                "from old route syntax\n\nGridResource = \"batch slurm\"\n")
    assert len(blocks) == 4


def test_convert_old_routes_from_a_configuration_summary(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "summary").write_text(SEED_OLD)
    status, out, _ = run(capsys, "-convertoldroutes:file", "summary")
    assert status == 0
    assert "\n##### Route 1\nJOB_ROUTER_ROUTE_Site_1 @=jre\n   REQUIREMENTS WantJobRouter =?= true\n" in out
    assert out.rstrip().endswith("JOB_ROUTER_ROUTE_NAMES = Site_1 Site_2 Site_3")
