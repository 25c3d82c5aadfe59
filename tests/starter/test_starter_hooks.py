"""The starter's reading of its prepare hooks (HookPrepareJobClient::hookExited)."""

from __future__ import annotations

import pytest

from condorsim.classad import ClassAd
from condorsim.hooks import HookCall, HookResult
from daemons.starter.hooks import exit_reason, hook_env, prepare_outcome, remote_error_ad

CALL = HookCall("K_HOOK_PREPARE_JOB", "/site/hooks/prepare.sh")


def _result(stdout: str = "", code: int | None = 0, sig: int | None = None) -> HookResult:
    return HookResult(CALL, exit_code=code, signal=sig, stdout=stdout)


@pytest.mark.parametrize(("stdout", "code", "sig", "action", "status", "msg"), [
    ('Cmd = "/usr/java/java5/bin/java"\n', 0, None, "continue", 0,
     "PREPARE_JOB (prepare.sh) succeeded (exited with status 0): <no message>"),
    ("", 1, None, "hold", 1, "PREPARE_JOB (prepare.sh) failed (exited with status 1): <no message>"),
    ('HookStatusCode = 190\nHookStatusMessage = "Really bad, going on hold"\n', 0, None, "hold",
     190, "PREPARE_JOB (prepare.sh) failed (reported status 190): Really bad, going on hold"),
    ('HookStatusCode = 390\nHookStatusMessage = "Kinda bad"\n', 0, None, "idle", 390,
     "PREPARE_JOB (prepare.sh) failed (reported status 390): Kinda bad"),
    ("HookStatusCode = 0\n", 5, None, "continue", 0,
     "PREPARE_JOB (prepare.sh) succeeded (reported status 000): <no message>"),
    ("HookStatusCode = -1\n", 5, None, "hold", 5,
     "PREPARE_JOB (prepare.sh) failed (exited with status 5): <no message>"),
    ("HookStatusCode = 0\n", None, 9, "idle", -9,
     "PREPARE_JOB (prepare.sh) failed (died with signal 9): <no message>"),
    ("", 300, None, "idle", 300,
     "PREPARE_JOB (prepare.sh) failed (exited with status 300): <no message>"),
])
def test_the_status_decides_and_htcondors_line_says_why(
        stdout: str, code: int | None, sig: int | None, action: str, status: int,
        msg: str) -> None:
    outcome = prepare_outcome("PREPARE_JOB", _result(stdout, code, sig))
    assert (outcome.action, outcome.status, outcome.log_msg) == (action, status, msg)
    assert outcome.hold_code == (19 if action == "hold" else 0)


def test_a_message_with_success_is_still_written_and_the_update_is_merged() -> None:
    outcome = prepare_outcome("PREPARE_JOB_BEFORE_TRANSFER", _result(
        'HookStatusMessage = "So far so good buddy"\nSimRuntime = 5\n'))
    assert outcome.action == "continue" and outcome.remote_error
    assert outcome.result.update.evaluate("SimRuntime") == 5
    assert not prepare_outcome("PREPARE_JOB", _result("A = 1\n")).remote_error


def test_a_hook_that_cannot_run_holds_the_job_with_subcode_0() -> None:
    outcome = prepare_outcome("PREPARE_JOB", HookResult(CALL, error="Permission denied"))
    assert (outcome.action, outcome.status) == ("hold", 0)
    assert outcome.log_msg == "failed to execute PREPARE_JOB (/site/hooks/prepare.sh)"


def test_remote_error_event_ad_and_exit_reasons_and_environment() -> None:
    ad = remote_error_ad("text", True, 19, 190)
    assert (ad.evaluate("MyType"), ad.evaluate("ErrorMsg"), ad.evaluate("CriticalError"),
            ad.evaluate("HoldReasonCode"), ad.evaluate("HoldReasonSubCode")) == (
        "RemoteErrorEvent", "text", True, 19, 190)
    assert [exit_reason(k) for k in (None, "hold", "remove", "evict", "startd_gone")] == [
        "exit", "hold", "remove", "evict", "evict"]
    from pathlib import Path
    env = hook_env(ClassAd({"Iwd": "work"}), ClassAd({"Name": "slot2@exec"}), Path("/run"), 1001)
    assert env == {"BATCH_SYSTEM": "HTCondor", "_CONDOR_JOB_IWD": "/run/work",
                   "_CONDOR_SCRATCH_DIR": "/run/work", "_CONDOR_SLOT": "slot2",
                   "_CONDOR_JOB_PIDS": "1001", "CONDOR_STARTER_PID": env["CONDOR_STARTER_PID"]}
