"""A live pool (condorsim up, loopback) under 50 concurrent clients looping q, submit,
status and qedit for 10 s: every request answered or refused with a reason, no daemon
died, no submitted job lost. ``make load`` runs the full minute (docs/reliability.md)."""

from __future__ import annotations

import pytest

from condorsim.reliability.load import LoadReport, run_load


@pytest.mark.pool
def test_fifty_clients_for_ten_seconds() -> None:
    report = run_load(clients=50, seconds=10)
    print(report.text())
    assert not report.errors, report.text()
    assert not report.deaths and not report.missing, report.text()
    assert all(report.answered[op] > 0 for op in ("q", "submit", "status", "qedit"))
    assert report.ok


def test_the_report_fails_on_an_error_a_death_or_a_lost_job() -> None:
    report = LoadReport(clients=1, seconds=1.0)
    report.answered["q"] = 1
    assert report.ok
    report.errors.append("client 0 q: no answer within 20 s")
    assert not report.ok
    report.errors.clear()
    report.missing.append(7)
    assert not report.ok and "lost 1" in report.text()
