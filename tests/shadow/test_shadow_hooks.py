"""The shadow's side of hooks: the starter's prepare-hook errors, and SHADOW_PREPARE_JOB."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.hooks import HookLane
from condorsim.jobs.codes import ShadowExit
from daemons.shadow.hooks import shadow_prepare
from daemons.shadow.logic import ShadowJob
from daemons.starter.hooks import remote_error_ad

T = 1_767_225_600.0


def _job() -> ShadowJob:
    job = ClassAd.parse("[ ClusterId = 4; ProcId = 0; JobStatus = 2; NumJobStarts = 0 ]")
    return ShadowJob(job, ClassAd({"Name": "slot1@exec1"}), "claim", "<127.0.0.1:5>")


def test_a_starter_error_is_a_remote_error_then_an_eviction_then_a_hold() -> None:
    job = _job()
    (error,) = job.remote_error(remote_error_ad("PREPARE_JOB (p.sh) failed (exited with status "
                                                "1): <no message>", True, 19, 1), T)
    assert (error.kind, error.fields["host"], error.fields["critical"], error.fields["code"]) == (
        "remote_error", "slot1@exec1", True, 19)
    reason = "Error from slot1@exec1: PREPARE_JOB (p.sh) failed (exited with status 1): <no message>"
    decision = job.job_exit(int(ShadowExit.JOB_SHOULD_HOLD), ClassAd({
        "HoldReason": reason, "HoldReasonCode": 19, "HoldReasonSubCode": 1,
        "VacateReason": reason, "VacateReasonCode": 19, "VacateReasonSubCode": 1}), T)
    assert decision.exit_code == ShadowExit.JOB_SHOULD_HOLD
    assert [(e.kind, e.fields["reason"], e.fields["reason_code"]) for e in decision.events] == [
        ("evicted", reason, 19)]
    pushed = job.take_dirty()
    assert (pushed.evaluate("HoldReasonCode"), pushed.evaluate("HoldReasonSubCode"),
            pushed.evaluate("VacateReason")) == (19, 1, reason)


def test_a_starter_error_without_a_hold_code_sends_the_job_back_to_idle() -> None:
    decision = _job().job_exit(int(ShadowExit.JOB_NOT_STARTED), ClassAd({
        "VacateReason": "Error from slot1@exec1: x", "VacateReasonCode": 1007,
        "VacateReasonSubCode": 390}), T)
    assert decision.exit_code == ShadowExit.JOB_NOT_STARTED
    assert [e.kind for e in decision.events] == ["evicted"]


class _Log:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        return lambda event, **fields: self.records.append((event, fields))


def _prepare(tmp_path: Path, body: str, keyword: str | None = "CRED",
             extra: str = "") -> tuple[Any, _Log]:
    hook = tmp_path / "prepare.sh"
    hook.write_text("#!/bin/sh\ncat > /dev/null\n" + body)
    hook.chmod(0o755)
    log = _Log()
    ctx = SimpleNamespace(config=Config.from_text(f"CRED_HOOK_SHADOW_PREPARE_JOB = {hook}\n"
                                                  + extra),
                          log=log, run_dir=tmp_path, busy=None)
    ad = ClassAd({"ClusterId": 1, "ProcId": 0, **({"HookKeyword": keyword} if keyword else {})})

    async def main() -> Any:
        lane = HookLane(log)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lane.serve)
            out = await shadow_prepare(ctx, lane, ad, "1.0")  # type: ignore[arg-type]
            nursery.cancel_scope.cancel()
        return out

    return trio.run(main), log


@pytest.mark.parametrize(("body", "exit_code", "subcode", "exception"), [
    ('echo "SimRuntime = 30"\n', None, None, ""),
    ("exit 7\n", ShadowExit.JOB_SHOULD_HOLD, 7, ""),
    ('echo "HookStatusCode = -3"\n', ShadowExit.JOB_SHOULD_HOLD, -3, ""),
    ('echo "HookStatusCode = 300"\necho \'HookStatusMessage = "busy"\'\n',
     ShadowExit.JOB_NOT_STARTED, None,
     "SHADOW_PREPARE_JOB (prepare.sh) failed (reported status 300): busy"),
    ("sleep 30\n", ShadowExit.JOB_NOT_STARTED, None, "Submit-side job hook execution timed out"),
])
def test_shadow_prepare_outcomes(tmp_path: Path, body: str, exit_code: int | None,
                                 subcode: int | None, exception: str) -> None:
    out, _ = _prepare(tmp_path, body, extra="CRED_HOOK_SHADOW_PREPARE_JOB_TIMEOUT = 0.5\n")
    assert out is not None and out.exit_code == exit_code and out.exception == exception
    if exit_code is None:
        assert out.update.evaluate("SimRuntime") == 30
    if subcode is not None:
        assert out.hold is not None
        assert (out.hold.evaluate("HoldReasonCode"), out.hold.evaluate("HoldReasonSubCode")) == (
            48, subcode)


def test_no_keyword_no_hook_and_a_bad_path_runs_without_hooks(tmp_path: Path) -> None:
    assert _prepare(tmp_path, "exit 0\n", keyword=None)[0] is None
    bad = f"CRED_HOOK_SHADOW_PREPARE_JOB = {tmp_path}/missing.sh\n"
    out, log = _prepare(tmp_path, "exit 0\n", extra=bad)
    assert out is None  # the job's keyword names no usable hook: it is ignored
    assert [e for e, _ in log.records] == ["hook_keyword_ignored"]
    out, log = _prepare(tmp_path, "exit 0\n", extra=bad + "SHADOW_JOB_HOOK_KEYWORD = CRED\n")
    assert out is None  # the daemon's own keyword: HTCondor's hook manager fails, no hooks
    assert "job_hooks_unusable" in [e for e, _ in log.records]


def test_garbage_from_the_shadow_hook_is_logged_and_the_lines_before_it_count(
        tmp_path: Path) -> None:
    out, log = _prepare(tmp_path, 'echo "SimRuntime = 30"\necho "garbage ] ["\n'
                                  'echo "NeverMerged = true"\n')
    assert out is not None and out.exit_code is None
    assert out.update.evaluate("SimRuntime") == 30 and "NeverMerged" not in out.update
    (bad,) = [f for e, f in log.records if e == "prepare_hook_bad_output"]
    assert (bad["hook"], bad["line"]) == ("CRED_HOOK_SHADOW_PREPARE_JOB", "garbage ] [")
