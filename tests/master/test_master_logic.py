"""condor_master's decisions: what it starts, in what order, and how long it waits to restart."""

from __future__ import annotations

import pytest

from daemons.master.logic import DaemonListError, RestartPolicy, daemon_plan, start_after


def test_the_collector_starts_first_and_each_parent_brings_its_companion() -> None:
    plan = daemon_plan(["MASTER", "SCHEDD", "STARTD", "NEGOTIATOR", "COLLECTOR"])
    assert [p.name for p in plan] == [
        "collector", "schedd", "shadow", "gridmanager", "startd", "starter", "negotiator"]
    assert plan[0].module == "daemons.collector"


def test_only_companions_wait_for_their_parent_the_rest_start_at_once() -> None:
    plan = daemon_plan(["COLLECTOR", "NEGOTIATOR", "SCHEDD", "STARTD"])
    assert start_after(plan) == {"shadow": "schedd", "gridmanager": "schedd",
                                 "starter": "startd"}
    assert start_after(daemon_plan(["COLLECTOR", "SHADOW"])) == {}


def test_an_unknown_daemon_is_refused_by_name() -> None:
    with pytest.raises(DaemonListError, match="'CREDD'"):
        daemon_plan(["COLLECTOR", "CREDD"])


def test_restart_back_off_grows_and_resets_after_a_long_enough_run() -> None:
    policy = RestartPolicy()  # HTCondor's defaults: 9 + ceil(2 ** n), at most 3600
    assert [policy.delay_after_exit("schedd", 0, 10) for _ in range(4)] == [10, 11, 13, 17]
    assert policy.delay_after_exit("schedd", 0, 300) == 10  # it stayed up 300 s
    assert policy.delay_after_exit("startd", 0, 1) == 10  # counted per daemon
    capped = RestartPolicy(ceiling=20)
    assert [capped.delay_after_exit("x", 0, 1) for _ in range(6)][-1] == 20
