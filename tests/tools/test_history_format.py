"""condorsim history: condor_history's default table, byte for byte, read from the history
file with no pool running.

The expected text follows init_default_custom_format of HTCondor 24's
src/condor_tools/history.cpp: " ID" (the job id, 7 wide, left), OWNER (14, left), SUBMITTED
and COMPLETED (format_date, 11), RUN_TIME (RemoteWallClockTime as format_time, 12; blank
when 0), ST (format_job_status_char: no letter for a held job), CMD (Cmd and its
arguments, at least 15 wide, never cut). Headings are printed before the first job and
rows keep their trailing blanks (condor_history trims nothing); a completion date of 0 is
shown as the epoch, as HTCondor's format_date does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from condorsim.tools.history import main as history_main

DATA = Path(__file__).parent / "data" / "history"
HEAD = " ID     OWNER          SUBMITTED   RUN_TIME     ST COMPLETED   CMD            \n"
ROWS = {
    "2.0": "2.0     bob             1/1  00:00   0+01:02:05 C   1/1  02:00 "
           "/home/bob/analyze_all_the_data --fast\n",
    "1.1": "1.1     alice           1/1  00:00              X   1/1  00:00 /bin/sleep 600 \n",
    "1.0": "1.0     alice           1/1  00:00   0+00:10:00 C   1/1  00:11 /bin/sleep 600 \n",
}


@pytest.fixture
def pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A pool home with a history file and no pool running."""
    (tmp_path / "spool").mkdir()
    shutil.copy(DATA, tmp_path / "spool" / "history")
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    return tmp_path


@pytest.mark.parametrize(("args", "expected"), [
    ([], HEAD + ROWS["2.0"] + ROWS["1.1"] + ROWS["1.0"]),
    (["-match", "1"], HEAD + ROWS["2.0"]),
    (["-lim", "2", "alice"], HEAD + ROWS["1.1"] + ROWS["1.0"]),
    (["-forwards"], HEAD + ROWS["1.0"] + ROWS["1.1"] + ROWS["2.0"]),
    (["1.1"], HEAD + ROWS["1.1"]),
    (["-const", "JobStatus == 4", "-af:j", "Owner", "RemoteWallClockTime"],
     "2.0 bob 3725.0\n1.0 alice 600.0\n"),
    (["-format", "%d.", "ClusterId", "-format", "%d\\n", "ProcId"], "2.0\n1.1\n1.0\n"),
    (["-json", "-attributes", "Owner,ClusterId", "1.1"],
     '[\n{\n  "ClusterId": 1,\n  "Owner": "alice"\n}\n]\n'),
    (["-json", "7"], "[\n]\n"),
    (["-l", "-attributes", "Owner,ExitCode", "bob"], 'ExitCode = 0\nOwner = "bob"\n\n'),
])
def test_history_reads_the_file_with_the_pool_down(pool: Path, args: list[str], expected: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert history_main(args) == 0
    assert capsys.readouterr().out == expected


def test_history_file_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONDORSIM_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    assert history_main(["-file", str(DATA), "-af", "Owner"]) == 0
    assert capsys.readouterr().out == "bob\nalice\nalice\n"
    assert history_main([]) == 0  # no history file yet: the headings, no job
    assert capsys.readouterr().out == HEAD
    assert history_main(["-file", str(tmp_path / "none")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert history_main(["-zap"]) == 1
    assert capsys.readouterr().err == "Error: unrecognized argument -zap\n"
    assert history_main(["-help"]) == 0
    assert "-forwards" in capsys.readouterr().out
