"""``condorsim NAME -help``: every command describes itself and runs nothing.

Each command of the table is asked for ``-help`` with no pool, in an empty home: the answer
is a usage text naming the command, the exit status 0, and no file is written (``up -help``
starts no pool, ``demo -help`` replays nothing, ``submit -help`` submits nothing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim import cli


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
@pytest.mark.parametrize("word", ["-help", "--help", "-h"])
def test_help_describes_the_command_and_runs_nothing(
        name: str, word: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("CONDORSIM_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    assert cli.main([name, word]) == 0
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "usage" in text.lower() or "use:" in text.lower()  # condor_wait says "Use:"
    shown = name.replace("_", "")
    assert shown in text.replace("_", "") or name == "classad_eval"
    assert not any(tmp_path.iterdir())  # no pool home, no run directory, no report
