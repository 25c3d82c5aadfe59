"""The figures of one run, from its result.json (or its history), worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from condorsim.sweep.metrics import percentile, run_metrics

T0 = 1767603600  # the run's start


def ad(**attrs: object) -> dict[str, str]:
    """An ad as result.json keeps it: attribute -> ClassAd expression text."""
    return {k: json.dumps(v) if isinstance(v, str) else str(v) for k, v in attrs.items()}


JOBS = {
    # alice: submitted at 0, ran 100..400 on a slot, completed
    "1.0": ad(Owner="alice", QDate=T0, JobStatus=4, JobStartDate=T0 + 100,
              JobCurrentStartDate=T0 + 100, CompletionDate=T0 + 400, RemoteWallClockTime=300.0,
              JobUniverse=5, NumHolds=1),
    # alice: held once, then ran 600..1200 (two runs: 200 s evicted, then 600 s)
    "1.1": ad(Owner="alice", QDate=T0, JobStatus=4, JobStartDate=T0 + 300,
              CompletionDate=T0 + 1200, RemoteWallClockTime=800.0, JobUniverse=5, NumHolds=2),
    # bob: routed; the copy (3.0) ran at a site, its times mirrored onto the original
    "2.0": ad(Owner="bob", QDate=T0 + 60, JobStatus=4, JobStartDate=T0 + 160,
              CompletionDate=T0 + 760, RemoteWallClockTime=600.0, JobUniverse=5,
              RoutedToJobId="3.0"),
    "3.0": ad(Owner="bob", QDate=T0 + 70, JobStatus=4, JobStartDate=T0 + 160,
              CompletionDate=T0 + 760, RemoteWallClockTime=600.0, JobUniverse=9,
              RoutedFromJobId="2.0", GridResource="batch slurm"),
    # bob: still running at the end (1800), started at 1500 after a 100 s run
    "4.0": ad(Owner="bob", QDate=T0 + 1000, JobStatus=2, JobStartDate=T0 + 1200,
              JobCurrentStartDate=T0 + 1500, RemoteWallClockTime=100.0, JobUniverse=5),
}


def kept_run(tmp_path: Path, jobs: dict[str, dict[str, str]], end: float = T0 + 1800) -> Path:
    (tmp_path / "result.json").write_text(json.dumps(
        {"jobs": jobs, "run": {"start": T0, "end": end}}))
    return tmp_path


def test_figures_of_a_run(tmp_path: Path) -> None:
    row = run_metrics(kept_run(tmp_path, JOBS), slots=2)
    # the routed copy 3.0 is not a user's job: 1.0, 1.1, 2.0, 4.0
    assert (row["jobs"], row["completed"], row["unfinished"]) == (4, 3, 1)
    waits = [100, 300, 100, 200]
    assert row["wait_mean"] == sum(waits) / 4
    assert row["wait_p95"] == pytest.approx(300 - 0.15 * (300 - 200))  # 0.95 x 3 = 2.85
    turnarounds = [400, 1200, 700]
    assert row["turnaround_mean"] == pytest.approx(sum(turnarounds) / 3, abs=1e-6)
    assert row["turnaround_p95"] == pytest.approx(700 + 0.9 * (1200 - 700))
    assert math.isnan(row["makespan"])  # 4.0 has not finished
    assert row["throughput"] == 3 * 3600 / 1800
    # slot time: 300 + 800 (alice), 100 + the current run 1500..1800 (bob); 2.0 used none
    assert row["utilization"] == pytest.approx((300 + 800 + 100 + 300) / (2 * 1800))
    assert row["routed_share"] == 1 / 4
    assert row["holds"] == 3
    assert row["makespan[alice]"] == 1200
    assert row["wait_mean[bob]"] == 150 and row["routed_share[bob]"] == 0.5
    assert row["utilization[alice]"] + row["utilization[bob]"] == \
        pytest.approx(row["utilization"])
    assert row["holds[bob]"] == 0


def test_only_the_chosen_metrics_and_no_owners(tmp_path: Path) -> None:
    done = {k: v for k, v in JOBS.items() if k != "4.0"}
    row = run_metrics(kept_run(tmp_path, done), slots=2, metrics=("makespan", "holds"),
                      per_owner=False)
    assert row == {"jobs": 3, "completed": 3, "unfinished": 0, "makespan": 1200, "holds": 3}


def test_a_run_without_jobs_has_no_figures(tmp_path: Path) -> None:
    row = run_metrics(kept_run(tmp_path, {}), slots=0)
    assert row["jobs"] == 0
    assert all(math.isnan(row[m]) for m in ("makespan", "wait_mean", "utilization",
                                             "routed_share"))
    assert row["throughput"] == 0 and row["holds"] == 0


def test_percentile_interpolates_between_neighbours() -> None:
    assert percentile([], 95) != percentile([], 95)  # NaN
    assert percentile([5.0], 95) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert percentile([0.0, 10.0], 95) == 9.5
