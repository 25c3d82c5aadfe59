"""condorsim router_q -S and router_history print what HTCondor's condor_router_q (its awk
pipeline) and condor_router_history (its Python script) print, byte for byte (facts 3.4)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.tools.router import (
    format_router_history,
    format_router_summary,
    read_history_records,
    router_history_main,
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


def test_router_history_orders_equal_hours_by_route_name() -> None:
    """The script's sort fails on equal hours (it compares its own objects) and on a route
    with no completed job (None against a number): condorsim orders them by name."""
    ads = {f"{n}.0": {"clusterid": str(n), "procid": "0", "routename": f'"{route}"',
                      "jobstatus": str(status), "completiondate": str(T0 + 60),
                      "remotewallclocktime": "3600.0"}
           for n, route, status in ((1, "B", 4), (2, "A", 4), (3, "C", 3), (4, "D", 4))}
    ads["4.0"]["remotewallclocktime"] = "7200.0"
    rows = format_router_history(ads, T0, T0 + 86400, "UTC").splitlines()[5:9]
    assert [row.split()[0] for row in rows] == ["D", "A", "B", "C"]


def test_router_history_reads_its_options_as_the_scripts_getopt_and_every_history_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "pool"
    (home / "spool").mkdir(parents=True)
    (home / "condor_config").write_text(f"SPOOL = {home / 'spool'}\n")
    monkeypatch.setenv("CONDORSIM_HOME", str(home))
    monkeypatch.setenv("TZ", "UTC")
    now = int(time.time())
    hist = _history(home / "spool" / "history",
                    {"ClusterId": 7, "ProcId": 0, "RouteName": "Site1", "JobStatus": 4,
                     "CompletionDate": now - 3 * 86400, "RemoteWallClockTime": 7200.0})
    # the file was last changed (on the host's clock) long before the report's start: a
    # simulated pool's clock is not the host's, so the file is read all the same
    os.utime(hist, (0, 0))
    assert router_history_main(["--age", "2", "--days=2"]) == 0  # getopt: both spellings
    out = capsys.readouterr().out
    assert "Site1               2       1     0\n" in out, out
    assert router_history_main(["--show_r", "--age=2", "--d=2"]) == 0  # unambiguous prefixes
    assert capsys.readouterr().out.splitlines()[2:] == ["JobID Status Site Runtime ",
                                                        "7.0 C Site1 7200 "]
    assert router_history_main(["--show", "--age=x"]) == 1
    assert capsys.readouterr().err.startswith(
        "Command line argument error: option --show not a unique prefix\n\nUSAGE: "
        "condor_router_history [OPTIONS]\n")
    assert router_history_main(["--age=x"]) == 1
    assert capsys.readouterr().err.startswith(
        "Command line argument error: could not convert string to float: 'x'\n")
