"""A job's ClassAd flow from a trace: the submit, the negotiation, replies, the starter's
updates to the startd and the history rows belong to the job (hand-written run dirs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from condorsim.replay.jobflow import attribute_jobs, job_flow, with_untraced_requests
from condorsim.tools.trace import main as trace_main

T0 = 1_767_225_600


def r(t: int, sender: str, receiver: str, cmd: str, job: str | None = None) -> dict[str, Any]:
    return {"t": T0 + t, "from": sender, "to": receiver, "cmd": cmd, "job": job,
            "attrs": ["ClusterId"] if job else []}


def log(t: int, daemon: str, event: str, **fields: object) -> dict[str, Any]:
    return {"daemon": daemon, "event": event, "sim_time": float(T0 + t), "wall_time": 0.0,
            **fields}


TRACE = [
    r(0, "replay", "schedd", "SUBMIT_JOBS"),
    r(0, "schedd", "replay", "SUBMIT_RESULT"),          # cluster 1, 2 procs
    r(0, "schedd", "negotiator", "RESCHEDULE"),
    r(5, "replay", "schedd", "SUBMIT_JOBS"),
    r(5, "schedd", "replay", "FAILED"),                 # refused: no job
    r(20, "negotiator", "collector", "QUERY_STARTD_ADS"),
    r(20, "collector", "negotiator", "QUERY_RESULT"),
    r(20, "negotiator", "schedd", "NEGOTIATE"),
    r(20, "negotiator", "schedd", "SEND_RESOURCE_REQUEST_LIST"),
    r(20, "schedd", "negotiator", "RESOURCE_REQUEST_LIST"),
    r(20, "negotiator", "schedd", "PERMISSION_AND_AD"),  # 1.0 (the schedd claims for it)
    r(20, "negotiator", "schedd", "PERMISSION_AND_AD"),  # 1.1
    r(20, "negotiator", "schedd", "END_NEGOTIATE"),
    r(20, "schedd", "startd@exec1", "REQUEST_CLAIM", "1.0"),
    r(20, "schedd", "startd@exec2", "REQUEST_CLAIM", "1.1"),
    r(20, "startd@exec2", "schedd", "CLAIM_RESPONSE"),
    r(20, "startd@exec1", "schedd", "CLAIM_RESPONSE"),
    r(28, "starter@exec1", "shadow", "REGISTER_JOB_INFO", "1.0"),
    r(28, "starter@exec1", "startd@exec1", "STARTER_UPDATE"),
    r(90, "starter@exec1", "shadow", "JOB_EXIT", "1.0"),
    r(90, "shadow", "starter@exec1", "OK"),
    r(90, "starter@exec1", "startd@exec1", "STARTER_EXITED"),
    r(90, "shadow", "schedd", "SHADOW_EXIT", "1.0"),
    r(90, "schedd", "shadow", "OK"),
    r(90, "schedd", "startd@exec1", "RELEASE_CLAIM"),
]
LOGS = [log(0, "schedd", "submitted", cluster=1, procs=2, owner="alice")]


def _cmds_of(job: str, records: list[dict[str, Any]] = TRACE) -> list[str]:
    owners = attribute_jobs(records, LOGS)
    return [f"{rec['cmd']} {rec['from']}" for rec, jobs in zip(records, owners, strict=True)
            if job in jobs]


def test_a_job_s_flow_starts_at_its_submit_and_goes_through_its_match() -> None:
    assert _cmds_of("1.0") == [
        "SUBMIT_JOBS replay", "SUBMIT_RESULT schedd", "RESCHEDULE schedd",
        "NEGOTIATE negotiator", "SEND_RESOURCE_REQUEST_LIST negotiator",
        "RESOURCE_REQUEST_LIST schedd", "PERMISSION_AND_AD negotiator",
        "END_NEGOTIATE negotiator", "REQUEST_CLAIM schedd", "CLAIM_RESPONSE startd@exec1",
        "REGISTER_JOB_INFO starter@exec1", "STARTER_UPDATE starter@exec1",
        "JOB_EXIT starter@exec1", "OK shadow", "STARTER_EXITED starter@exec1",
        "SHADOW_EXIT shadow", "OK schedd"]
    # 1.1 shares the submit and the negotiation, not 1.0's match or claim reply
    assert _cmds_of("1.1") == [
        "SUBMIT_JOBS replay", "SUBMIT_RESULT schedd", "RESCHEDULE schedd",
        "NEGOTIATE negotiator", "SEND_RESOURCE_REQUEST_LIST negotiator",
        "RESOURCE_REQUEST_LIST schedd", "PERMISSION_AND_AD negotiator",
        "END_NEGOTIATE negotiator", "REQUEST_CLAIM schedd", "CLAIM_RESPONSE startd@exec2"]


def test_without_logs_or_with_logs_that_disagree_the_submit_is_not_guessed() -> None:
    owners = attribute_jobs(TRACE)
    assert not owners[0] and not owners[1] and owners[10] == {"1.0"}
    late = [log(1, "schedd", "submitted", cluster=1, procs=2)]
    assert not attribute_jobs(TRACE, late)[1]


def test_a_match_the_schedd_has_no_job_for_is_nobody_s() -> None:
    records = [r(20, "negotiator", "schedd", "PERMISSION_AND_AD"),  # unused
               r(80, "negotiator", "schedd", "PERMISSION_AND_AD"),
               r(80, "schedd", "startd", "REQUEST_CLAIM", "2.0")]
    assert attribute_jobs(records) == [set(), {"2.0"}, {"2.0"}]


def test_a_tool_s_request_is_put_back_before_its_reply() -> None:
    records = [r(0, "schedd", "tool", "SUBMIT_RESULT"), r(1, "replay", "schedd", "SUBMIT_JOBS"),
               r(1, "schedd", "replay", "SUBMIT_RESULT")]
    out = with_untraced_requests(records)
    assert [(x["from"], x["cmd"], x.get("inferred", False)) for x in out] == [
        ("tool", "SUBMIT_JOBS", True), ("schedd", "SUBMIT_RESULT", False),
        ("replay", "SUBMIT_JOBS", False), ("schedd", "SUBMIT_RESULT", False)]


def _run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "log").mkdir(parents=True)
    (run / "spool").mkdir()
    (run / "condor_config").write_text("SIM_TIMEZONE = UTC\n")
    (run / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in TRACE))
    for name in ("SchedLog", "NegotiatorLog"):
        daemon = "schedd" if name == "SchedLog" else "negotiator"
        (run / "log" / f"{name}.json").write_text(
            "".join(json.dumps(x) + "\n" for x in LOGS if x["daemon"] == daemon) + "junk\n")
    ad = f'ClusterId = 1\nProcId = 0\nJobStatus = 4\nCompletionDate = {T0 + 90}\n'
    (run / "spool" / "history").write_text(
        ad + f'*** Offset = 0 ClusterId = 1 ProcId = 0 Owner = "alice" '
             f'CompletionDate = {T0 + 90}\n')
    (run / "spool" / "startd_history").write_text(
        'ClusterId = 1\nProcId = 0\nClaimId = "c"\n'
        f'*** Offset = 0 ClusterId = 1 ProcId = 0 Owner = "alice" CompletionDate = {T0 + 90}\n')
    return run


def test_the_history_rows_end_the_flow(tmp_path: Path) -> None:
    flow = job_flow(TRACE, "1.0", _run_dir(tmp_path))
    assert [f"{x['from']} -> {x['to']} {x['cmd']}" for x in flow][-6:] == [
        "shadow -> starter@exec1 OK", "starter@exec1 -> startd@exec1 STARTER_EXITED",
        "startd@exec1 -> history HISTORY", "shadow -> schedd SHADOW_EXIT",
        "schedd -> shadow OK", "schedd -> history HISTORY"]
    assert flow[-1]["attrs"] == ["ClusterId", "CompletionDate", "JobStatus", "ProcId"]


def test_condorsim_trace_prints_the_flow_from_submit_to_history(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert trace_main(["1.0", "--run", str(_run_dir(tmp_path))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[2:] == ["replay", "->", "schedd", "SUBMIT_JOBS"]
    assert lines[-1].split()[2:6] == ["schedd", "->", "history", "HISTORY"]
    assert len(lines) == 1 + 17 + 2


def test_trace_rows_are_in_time_order_and_each_startd_instance_keeps_its_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two startd instances (startd@exec1, startd@exec2) stay apart in the table and the
    diagram; rows a wall-clock pool appended out of order are shown in time order."""
    run = tmp_path / "run"
    (run / "log").mkdir(parents=True)
    (run / "condor_config").write_text("SIM_TIMEZONE = UTC\n")
    trace = [r(30, "shadow", "startd@exec2", "ACTIVATE_CLAIM", "2.0"),
             r(10, "schedd", "startd@exec1", "REQUEST_CLAIM", "2.0"),
             r(20, "schedd", "startd@exec2", "REQUEST_CLAIM", "2.0")]
    (run / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in trace))
    assert trace_main(["2.0", "--run", str(run)]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [(row[:19], row.split()[2:5]) for row in rows] == [
        ("2026-01-01 00:00:10", ["schedd", "->", "startd@exec1"]),
        ("2026-01-01 00:00:20", ["schedd", "->", "startd@exec2"]),
        ("2026-01-01 00:00:30", ["shadow", "->", "startd@exec2"])]
    assert trace_main(["2.0", "--run", str(run), "--mermaid"]) == 0
    mermaid = capsys.readouterr().out
    assert "participant startd_exec1 as startd@exec1" in mermaid
    assert "participant startd_exec2 as startd@exec2" in mermaid
