"""SIM_EXECUTE_REAL_JOBS: the starter runs the real executable (on the real clock)."""

from __future__ import annotations

import os
from pathlib import Path

import trio
from _execution_fakes import open_harness

from condorsim.jobs.codes import ShadowExit

REAL = "SIM_EXECUTE_REAL_JOBS = true\n"


async def test_a_real_executable_runs_in_its_iwd_and_its_exit_code_is_reported(
    tmp_path: Path,
) -> None:
    async with open_harness(tmp_path, REAL) as h:
        await h.start_job(
            "executable = /bin/sh\narguments = \"-c 'pwd; echo hi; exit 3'\"\n"
            "output = out.txt\nlog = job.log\nqueue\n")
        with trio.fail_after(30):
            await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_EXITED
        assert final.evaluate("ExitCode") == 3
        assert (h.iwd / "out.txt").read_text() == f"{h.iwd}\nhi\n"
        assert [e.type for e in h.events()][-1] == "JOB_TERMINATED"
        assert h.events()[-1].fields["ReturnValue"] == 3


async def test_an_executable_that_cannot_start_holds_the_job(tmp_path: Path) -> None:
    async with open_harness(tmp_path, REAL) as h:
        script = h.iwd / "not_executable.sh"
        script.write_text("#!/bin/sh\nexit 0\n")
        os.chmod(script, 0o644)
        await h.start_job(f"executable = {script}\nlog = job.log\nqueue\n")
        with trio.fail_after(30):
            await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_HOLD
        assert final.evaluate("HoldReasonCode") == 6  # FailedToCreateProcess
        assert "Failed to execute" in final.evaluate("HoldReason")


async def test_a_job_killed_by_a_signal_terminates_abnormally(tmp_path: Path) -> None:
    async with open_harness(tmp_path, REAL) as h:
        await h.start_job(
            "executable = /bin/sh\narguments = \"-c 'kill -TERM $$'\"\nlog = job.log\nqueue\n")
        with trio.fail_after(30):
            await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_EXITED
        assert final.evaluate("ExitBySignal") is True and final.evaluate("ExitSignal") == 15
        terminated = h.events()[-1]
        assert terminated.type == "JOB_TERMINATED"
        assert terminated.fields["TerminatedNormally"] is False
