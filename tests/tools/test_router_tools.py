"""condorsim router_q -S and router_history print what HTCondor's condor_router_q (its awk
pipeline) and condor_router_history (its Python script) print, byte for byte (facts 3.4)."""

from __future__ import annotations

from pathlib import Path

from condorsim.classad import ClassAd
from condorsim.tools.router import (
    format_router_history,
    format_router_summary,
    read_history_records,
)

T0 = 1_767_225_600  # 2026-01-01 00:00 UTC


def _copy(status: int, route: str, grid: str) -> ClassAd:
    return ClassAd({"JobStatus": status, "RouteName": route, "GridResource": grid})


def test_router_q_summary_is_the_awk_pipelines_text() -> None:
    ads = [_copy(1, "Site1", "batch slurm"), _copy(5, "Site1", "batch slurm"),
           _copy(2, "Site2", "arc site2.edu"), _copy(1, "Site1", "batch slurm")]
    assert format_router_summary(ads) == (
        "   JOBS ST Route                GridResource\n"
        "      1  H Site1                batch slurm\n"
        "      2  I Site1                batch slurm\n"
        "      1  R Site2                arc site2.edu\n")


def test_router_q_summary_of_no_jobs_is_the_header_alone() -> None:
    assert format_router_summary([]) == "   JOBS ST Route                GridResource\n"


def _history(path: Path, *records: dict[str, object]) -> Path:
    lines = []
    for offset, rec in enumerate(records):
        for name, value in rec.items():
            text = f'"{value}"' if isinstance(value, str) else str(value)
            lines.append(f"{name} = {text}\n")
        lines.append(f"*** Offset = {offset} ClusterId = {rec['ClusterId']} ProcId = 0\n")
    path.write_text("".join(lines))
    return path


def test_router_history_summary_and_records_are_the_scripts_text(tmp_path: Path) -> None:
    hist = _history(
        tmp_path / "history",
        {"ClusterId": 10, "ProcId": 0, "RouteName": "Site1", "JobStatus": 4,
         "CompletionDate": T0 + 3600, "RemoteWallClockTime": 7200.0, "SUBMIT_Iwd": "/home/a"},
        {"ClusterId": 11, "ProcId": 0, "RouteName": "Site2", "JobStatus": 4,
         "CompletionDate": T0 + 3600, "RemoteWallClockTime": 36000.0},
        {"ClusterId": 12, "ProcId": 0, "RouteName": "Site2", "JobStatus": 3,
         "CompletionDate": T0 + 3600, "RemoteWallClockTime": 60.0},
        {"ClusterId": 13, "ProcId": 0, "JobStatus": 4, "CompletionDate": T0 + 60},  # not routed
        {"ClusterId": 14, "ProcId": 0, "RouteName": "Site1", "JobStatus": 4,
         "CompletionDate": T0 - 100000, "RemoteWallClockTime": 10.0})  # too old
    ads = read_history_records(hist)
    assert set(ads) == {"10.0", "11.0", "12.0", "13.0", "14.0"}
    report = format_router_history(ads, T0, T0 + 86400, "UTC")
    assert report == (
        "Routed job history from 2026-01-01 00:00 to 2026-01-02 00:00\n"
        "\n"
        "Site            Hours    Jobs    Runs\n"
        "                      Completed Aborted\n"
        "-------------------------------------------------------\n"
        "Site2              10       1     1\n"
        "Site1               2       1     0\n"
        "-------------------------------------------------------\n"
        "TOTAL              12       2     1\n")
    records = format_router_history(ads, T0, T0 + 86400, "UTC", show_records=True,
                                    show_iwd=True)
    assert records.splitlines()[2:] == [
        "JobID Status Site Runtime IWD ",
        "10.0 C Site1 7200 /home/a ",
        "11.0 C Site2 36000  ",
        "12.0 X Site2 60  ",
    ]
