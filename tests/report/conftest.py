"""A kept replay of the tour with its report, made once for the report's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.tools.replay import main as replay_main

TOUR = Path(__file__).resolve().parents[2] / "scenarios" / "tour.toml"


@pytest.fixture(scope="package")
def tour_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``condorsim replay scenarios/tour.toml --keep DIR --report DIR/report.html``."""
    run = tmp_path_factory.mktemp("report") / "tour"
    assert replay_main([str(TOUR), "--keep", str(run), "--report",
                        str(run / "report.html"), "--quiet"]) == 0
    return run
