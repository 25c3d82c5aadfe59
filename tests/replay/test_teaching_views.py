"""The teaching views: ``condorsim trace`` (one job's messages) and ``replay --explain``
(the daemons' logs narrated), on hand-written run directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condorsim.replay.explain import narrate, narrate_records
from condorsim.tools.trace import main as trace_main

T0 = 1_767_225_600  # 2026-01-01 00:00:00 UTC = 2025-12-31 18:00:00 in Chicago

TRACE = [
    {"t": T0, "from": "replay", "to": "schedd", "cmd": "SUBMIT_JOBS", "job": None, "attrs": []},
    {"t": T0 + 20, "from": "schedd", "to": "startd@exec1", "cmd": "REQUEST_CLAIM", "job": "1.0",
     "attrs": ["ClusterId", "Owner", "ProcId", "Requirements"]},
    {"t": T0 + 20, "from": "schedd", "to": "shadow", "cmd": "SHADOW_START", "job": "1.0",
     "attrs": [f"A{i}" for i in range(10)]},
    {"t": T0 + 25, "from": "shadow", "to": "schedd", "cmd": "SHADOW_UPDATE", "job": "1.1",
     "attrs": ["JobStatus"]},
]


def _run_dir(tmp_path: Path, tz: str = "America/Chicago") -> Path:
    run = tmp_path / "run"
    (run / "log").mkdir(parents=True)
    (run / "condor_config").write_text(f"SIM_TIMEZONE = {tz}\n")
    (run / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TRACE))
    return run


def test_trace_table_shows_one_job_in_the_run_s_time_zone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_dir(tmp_path)
    assert trace_main(["1.0", "--run", str(run)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "TIME                 FROM -> TO              COMMAND        ATTRIBUTES",
        "2025-12-31 18:00:20  schedd -> startd@exec1  REQUEST_CLAIM  ClusterId, Owner, "
        "ProcId, Requirements",
        "2025-12-31 18:00:20  schedd -> shadow        SHADOW_START   A0, A1, A2, A3, A4, A5, "
        "A6, A7 (+2 more)",
    ]


def test_trace_of_a_cluster_and_as_mermaid(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_dir(tmp_path, tz="UTC")
    assert trace_main(["1", "--run", str(run), "--mermaid"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "sequenceDiagram",
        "    title job 1",
        "    participant schedd as schedd",
        "    participant startd_exec1 as startd@exec1",
        "    participant shadow as shadow",
        "    Note over schedd: 2026-01-01 00:00:20",
        "    schedd->>startd_exec1: REQUEST_CLAIM",
        "    schedd->>shadow: SHADOW_START",
        "    Note over schedd: 2026-01-01 00:00:25",
        "    shadow->>schedd: SHADOW_UPDATE",
    ]


def test_trace_errors_are_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_dir(tmp_path)
    assert trace_main(["7.0", "--run", str(run)]) == 1
    assert trace_main(["x.y", "--run", str(run)]) == 1
    assert trace_main(["1.0", "--run", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"condorsim trace: no message of job 7.0 in {run / 'trace.jsonl'}"
    assert err[1].startswith("condorsim trace: 'x.y' is not a job id")
    assert err[2].startswith(f"condorsim trace: no trace at {tmp_path / 'nowhere'}")


def _record(t: int, daemon: str, event: str, wall: float, **fields: object) -> dict[str, object]:
    return {"daemon": daemon, "event": event, "sim_time": float(T0 + t), "wall_time": wall,
            "level": "info", **fields}


def test_explain_narrates_in_simulated_then_real_time_order(tmp_path: Path) -> None:
    run = _run_dir(tmp_path, tz="UTC")
    logs = {
        "NegotiatorLog": [_record(20, "negotiator", "matched", 5.0, submitter="alice@x",
                                  slot="slot1@exec1", request="1.0", autocluster=1,
                                  request_count="1 of 2"),
                          _record(20, "negotiator", "matched", 5.1, submitter="alice@x",
                                  slot="slot1@exec2", request="1.0", autocluster=1,
                                  request_count="2 of 2"),
                          _record(20, "negotiator", "cycle_started", 4.0, cycle=1)],
        "SchedLog": [_record(20, "schedd", "match_received", 5.05, job="1.0",
                             slot="slot1@exec1", request="1.0"),
                     _record(20, "schedd", "match_received", 5.15, job="1.1",
                             slot="slot1@exec2", request="1.0"),
                     _record(20, "schedd", "claimed", 6.0, job="1.1", claim="c1"),
                     _record(0, "schedd", "submitted", 1.0, cluster=1, procs=1)],
        "StarterLog": [_record(25, "starter@exec1", "job_deferred", 7.0, job="1.0",
                               seconds=35),
                       _record(60, "starter@exec1", "job_odd_thing", 8.0, job="1.0",
                               detail="x")],
    }
    for name, records in logs.items():
        (run / "log" / f"{name}.json").write_text("".join(json.dumps(r) + "\n" for r in records)
                                        + "not json\n")
    assert narrate(run, "UTC").splitlines()[2:] == [
        "2026-01-01 00:00:00  schedd queued cluster 1 (1 jobs)",
        "2026-01-01 00:00:20  negotiator matched a request of alice@x (autocluster 1, request "
        "1 of 2, represented by 1.0) to slot1@exec1",
        "2026-01-01 00:00:20  schedd takes the match of slot1@exec1 for 1.0",
        "2026-01-01 00:00:20  negotiator matched a request of alice@x (autocluster 1, request "
        "2 of 2, represented by 1.0) to slot1@exec2",
        "2026-01-01 00:00:20  schedd takes the match of slot1@exec2 for 1.1",
        "2026-01-01 00:00:20  schedd claimed a slot for 1.1 (claim c1)",
        "2026-01-01 00:00:25  starter: 1.0 waits 35s for its deferral time",
        "2026-01-01 00:01:00  starter@exec1: job_odd_thing 1.0 detail=x",
    ]


def test_explain_sums_up_what_repeats(tmp_path: Path) -> None:
    records = [_record(20 * i, "schedd", "claim_refused", float(i), job="1.0", reason="no")
               for i in range(1, 7)]
    assert narrate_records(records, "UTC").splitlines() == [
        "2026-01-01 00:00:20  schedd: the startd refused the claim for 1.0: no",
        "2026-01-01 00:00:40  schedd: the startd refused the claim for 1.0: no",
        "2026-01-01 00:01:00  schedd: the startd refused the claim for 1.0: no",
        "(and 3 more times, the last at 2026-01-01 00:02:00: schedd: the startd refused "
        "the claim for 1.0: no)",
    ]


def test_trace_and_explain_show_why_the_router_did_or_did_not_route_a_job(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The job router's decisions (JobRouterLog) are rows of `condorsim trace` -- about the
    original or its routed copy -- and sentences of `--explain`: a route full, its idle cap,
    no route matching, then the route it took."""
    run = _run_dir(tmp_path, tz="UTC")
    full = "Site1: MaxIdleJobs reached (2 idle of 2); Site2: MaxJobs reached (1 of 1)"
    records = [
        _record(10, "job_router", "route_not_routed", 1.0, job="1.0", why=full),
        _record(10, "job_router", "route_not_routed", 1.1, job="1.1",
                why="no route's REQUIREMENTS matches it"),
        _record(15, "job_router", "route_throttle_changed", 1.2, route="Site1",
                change="adjusting throttle from none to 0.001 jobs/sec"),
        _record(640, "job_router", "route_candidate", 2.0, job="1.0", route="Site1",
                dest=None),
        _record(640, "job_router", "route_submitted", 2.1, job="1.0", route="Site1",
                dest="5.0"),
    ]
    (run / "log" / "JobRouterLog.json").write_text(
        "".join(json.dumps(r) + "\n" for r in records))
    assert trace_main(["1.0", "--run", str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[1:4] == [
        f"2026-01-01 00:00:10  job_router              route_not_routed  job router does not "
        f"route 1.0: {full}",
        "2026-01-01 00:00:20  schedd -> startd@exec1  REQUEST_CLAIM     ClusterId, Owner, "
        "ProcId, Requirements",
        "2026-01-01 00:00:20  schedd -> shadow        SHADOW_START      A0, A1, A2, A3, A4, "
        "A5, A6, A7 (+2 more)",
    ]
    # the routed copy's trace has the decision that made it; a job with no message but a
    # decision still shows it
    assert trace_main(["5.0", "--run", str(run)]) == 0
    out = capsys.readouterr().out
    assert "route_submitted  job router submitted 5.0, the routed copy of 1.0, on route " \
        "Site1" in out and "route_not_routed" not in out
    assert trace_main(["1.1", "--run", str(run), "--mermaid"]) == 0
    assert "    Note over job_router: job router does not route 1.1: no route's REQUIREMENTS " \
        "matches it" in capsys.readouterr().out.splitlines()
    assert narrate_records(records, "UTC").splitlines() == [
        f"2026-01-01 00:00:10  job router does not route 1.0: {full}",
        "2026-01-01 00:00:10  job router does not route 1.1: no route's REQUIREMENTS matches it",
        "2026-01-01 00:00:15  job router: route Site1: adjusting throttle from none to 0.001 "
        "jobs/sec",
        "2026-01-01 00:10:40  job router: 1.0 matches route Site1",
        "2026-01-01 00:10:40  job router submitted 5.0, the routed copy of 1.0, on route Site1",
    ]
