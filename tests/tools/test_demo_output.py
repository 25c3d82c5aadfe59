"""``condorsim demo`` (``make demo``) ends with the path of the tour's report.

The replay is replaced by a stand-in that writes the report where it is asked to (the
tour itself is replayed by tests/report); what is checked is what the user reads last.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.tools import demo
from condorsim.tools import replay as replay_tool


def test_demo_ends_with_the_reports_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "tour.toml").write_text("")
    asked: list[str] = []

    def stand_in(argv: list[str]) -> int:
        asked.extend(argv)
        report = Path(argv[argv.index("--report") + 1])
        report.parent.mkdir(parents=True)
        report.write_text("<html></html>")
        return 0

    monkeypatch.setattr(demo, "REPO", tmp_path)
    monkeypatch.setattr(replay_tool, "main", stand_in)
    monkeypatch.chdir(tmp_path)
    assert demo.main([]) == 0
    report = tmp_path / "runs" / "tour" / "report.html"
    assert "--explain" in asked and str(report) in asked
    last = capsys.readouterr().out.rstrip("\n").split("\n")[-3:]
    assert last == ["The tour's report (Gantt chart, the pool over time, each job's ClassAd flow):",
                    "  runs/tour/report.html", f"  {report.as_uri()}"]
