"""The tour's kept run with its report, made once for the report's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _library_runs import LibraryRuns

from condorsim.tools.report import main as report_main


@pytest.fixture(scope="package")
def tour_run(tmp_path_factory: pytest.TempPathFactory, library_runs: LibraryRuns) -> Path:
    """A copy of the run ``condorsim replay scenarios/tour.toml --keep DIR`` kept (once per
    test run: tests/replay/test_scenarios.py replays the tour too), with ``condorsim report
    DIR`` written into it -- what ``replay --report DIR/report.html`` writes
    (tests/report/test_report_cli.py runs that command itself)."""
    run = tmp_path_factory.mktemp("report") / "tour"
    shutil.copytree(library_runs.kept("tour.toml"), run)
    assert report_main([str(run)]) == 0  # RUN_DIR/report.html
    return run
