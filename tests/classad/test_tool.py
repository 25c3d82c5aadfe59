"""The classad_eval tool, with the examples of HTCondor's manual page."""

from __future__ import annotations

import io
from pathlib import Path

from condorsim.classad.tool import main


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def test_context_printed_before_results_after_each_change() -> None:
    code, out, _ = run("x = y", "x", "y = 7", "x", '[ x = 6; z = "foo"; ]', "x")
    assert code == 0
    assert out.splitlines() == [
        "[ x = y ]",
        "undefined",
        "[ x = y; y = 7 ]",
        "7",
        '[ x = 6; y = 7; z = "foo" ]',
        "6",
    ]


def test_quiet_stops_echoing_the_context() -> None:
    code, out, _ = run("x = y", "x", "-quiet", "y = 7", "x", '[ x = 6; z = "foo"; ]', "x")
    assert code == 0
    assert out.splitlines() == ["[ x = y ]", "undefined", "7", "6"]


def test_assignments_without_spaces_and_expressions_without_context() -> None:
    assert run("a=2", "a*2")[1].splitlines() == ["[ a = 2 ]", "4"]
    assert run("-quiet", 'strcat("foo", "bar")')[1] == '"foobar"\n'
    assert run("-quiet", "a = 1; b = 2", "{ a, b }", "a == 1")[1] == "{ 1,2 }\ntrue\n"


def test_files_for_my_and_target(tmp_path: Path) -> None:
    job = tmp_path / "job.ad"
    job.write_text('RequestMemory = 2048\nRequirements = TARGET.Memory >= RequestMemory\n\nNext = 1\n')
    slot = tmp_path / "slot.ad"
    slot.write_text('[ Memory = 4096; Requirements = TARGET.RequestMemory < MY.Memory ]\n[ Memory = 1 ]')
    code, out, _ = run(
        "-quiet", "-my-file", str(job), "-target-file", str(slot),
        "MY.Requirements", "TARGET.Requirements", "Next",
    )
    assert code == 0
    assert out.splitlines() == ["true", "true", "undefined"]


def test_errors_and_exit_codes(tmp_path: Path) -> None:
    code, _, err = run("-bogus")
    assert code == 255 and "unknown option" in err
    code, _, err = run("[ a = ]")
    assert code == 1 and "cannot parse ClassAd" in err
    code, _, err = run("a +")
    assert code == 1 and "line 1, column 4" in err
    code, _, err = run("-file", str(tmp_path / "missing.ad"))
    assert code == 1 and "cannot read" in err
    code, out, _ = run("-help")
    assert code == 0 and out.startswith("Usage: classad_eval")
