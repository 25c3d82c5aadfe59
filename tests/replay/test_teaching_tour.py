"""The teaching views on a real run of the tour: --explain tells the deferred job's wait,
and `condorsim trace` shows when its starter began executing it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from condorsim.tools.replay import main as replay_main
from condorsim.tools.trace import main as trace_main

pytestmark = pytest.mark.pool

TOUR = Path(__file__).resolve().parents[2] / "scenarios" / "tour.toml"


def test_the_tour_explained_and_traced(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "tour"
    assert replay_main([str(TOUR), "--keep", str(run), "--explain"]) == 0
    out = capsys.readouterr().out.splitlines()
    story = out[out.index("What happened (from the daemons' logs):") + 1:]
    # Job 2.0 is matched to the claim job 1.0 leaves at 09:05:20, and its DeferralTime is
    # 09:15:00: the starter waits the difference.
    assert "2026-01-05 09:05:20  starter: 2.0 waits 580s for its deferral time" in story
    assert "2026-01-05 09:15:00  starter started 2.0 (runs 60.0s)" in story
    assert trace_main(["2.0", "--run", str(run)]) == 0
    rows = [re.split(r"\s{2,}", line) for line in capsys.readouterr().out.splitlines()[1:]]
    begin = [row for row in rows if "BEGIN_EXECUTION" in row]
    assert begin and begin[0][0] == "2026-01-05 09:15:00"
    # its flow starts at its submit and ends with its history
    assert rows[0][2] == "SUBMIT_JOBS" and rows[-1][1:3] == ["schedd -> history", "HISTORY"]
