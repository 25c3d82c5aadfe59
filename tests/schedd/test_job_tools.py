"""The job tools' output formats and argument handling (no pool needed)."""

from __future__ import annotations

import pytest

from condorsim.classad import ClassAd
from condorsim.tools.jobs import (
    COMMANDS,
    UsageError,
    format_af,
    format_batch,
    format_hold,
    format_nobatch,
    format_totals,
    selection,
)

T0 = 1_767_225_600  # 2026-01-01 00:00 UTC


def _job(c: int, p: int, status: int = 1, owner: str = "alice", **extra: object) -> ClassAd:
    ad = ClassAd()
    ad.update({"ClusterId": c, "ProcId": p, "JobStatus": status, "Owner": owner, "QDate": T0,
               "Cmd": "/bin/sleep", "Args": "60", "EnteredCurrentStatus": T0 + 60, **extra})
    return ad


def test_batch_view_groups_a_cluster_and_shows_hold_only_when_needed() -> None:
    ads = [_job(1, 0), _job(1, 1, 2), _job(1, 2)]
    text = format_batch(ads, "UTC")
    assert text.splitlines()[0].split() == [
        "OWNER", "BATCH_NAME", "SUBMITTED", "DONE", "RUN", "IDLE", "TOTAL", "JOB_IDS"]
    assert text.splitlines()[1].split() == ["alice", "ID:", "1", "1/1", "00:00", "_", "1", "2",
                                            "3", "1.0-2"]
    held = format_batch([_job(1, 0, 5), _job(2, 0)], "UTC").splitlines()
    assert "HOLD" in held[0].split()
    assert held[1].split()[-3:] == ["1", "1", "1.0"]


def test_nobatch_hold_and_totals_lines() -> None:
    ads = [_job(1, 0), _job(2, 3, 5, HoldReason="via condor_hold (by user alice)")]
    rows = format_nobatch(ads, T0 + 100, "UTC").splitlines()
    assert rows[0].split() == ["ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "PRI", "SIZE",
                               "CMD"]
    assert rows[2].split() == ["2.3", "alice", "1/1", "00:00", "0+00:00:00", "H", "0", "0.0",
                               "sleep", "60"]
    hold = format_hold(ads[1:], "UTC").splitlines()
    assert hold[1].split()[:4] == ["2.3", "alice", "1/1", "00:01"]
    assert hold[1].endswith("via condor_hold (by user alice)")
    totals = format_totals(ads[1:], [*ads, _job(3, 0, owner="bob")], "alice").splitlines()
    assert totals[1:] == [
        "Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 0 running, 1 held, "
        "0 suspended ",
        "Total for alice: 2 jobs; 0 completed, 0 removed, 1 idle, 0 running, 1 held, "
        "0 suspended ",
        "Total for all users: 3 jobs; 0 completed, 0 removed, 2 idle, 0 running, 1 held, "
        "0 suspended "]


def test_autoformat_and_selection() -> None:
    assert format_af([_job(1, 0)], ["ClusterId", "Owner", "ProcId + 1"]) == "1 alice 1\n"
    assert selection(["1.0", "2", "bob"]) == (["1.0", "2"], '(Owner == "bob")')
    assert selection(["-constraint", "JobStatus == 5"]) == ([], "(JobStatus == 5)")
    with pytest.raises(UsageError):
        selection(["-constraint", "JobStatus =="])
    with pytest.raises(UsageError):
        selection(["-bogus"])


def test_the_commands_table_names_every_tool() -> None:
    assert set(COMMANDS) == {"submit", "q", "history", "hold", "release", "rm", "qedit",
                             "suspend", "continue", "vacate"}
    assert all(callable(fn) and summary for fn, summary in COMMANDS.values())
