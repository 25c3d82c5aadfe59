"""SIM_EXECUTE_REAL_JOBS: the starter runs the real executable (on the real clock)."""

from __future__ import annotations

import os
from pathlib import Path

import trio
from _execution_fakes import open_harness

from condorsim.jobs.codes import ShadowExit

REAL = "SIM_EXECUTE_REAL_JOBS = true\n"


async def test_a_real_executable_runs_in_a_scratch_directory_and_its_files_come_back(
    tmp_path: Path,
) -> None:
    """It runs under EXECUTE (dir_<pid>_<cluster>_<proc>) with its input files; its
    output, error and the files it made come back to Iwd; the scratch directory goes."""
    async with open_harness(tmp_path, REAL) as h:
        (h.iwd / "in.txt").write_text("data\n")
        await h.start_job(
            "executable = /bin/sh\n"
            "arguments = \"-c 'pwd; cat in.txt; echo made > new.txt; echo oops >&2; exit 3'\"\n"
            "transfer_input_files = in.txt\noutput = out.txt\nerror = err.txt\n"
            "environment = \"COLOR=red\"\nlog = job.log\nqueue\n")
        with trio.fail_after(30):
            await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_EXITED
        assert final.evaluate("ExitCode") == 3
        cwd, data = (h.iwd / "out.txt").read_text().splitlines()
        assert Path(cwd).name.startswith("dir_") and Path(cwd).name.endswith("_1_0")
        assert data == "data" and not Path(cwd).exists()
        assert (h.iwd / "err.txt").read_text() == "oops\n"
        assert (h.iwd / "new.txt").read_text() == "made\n"
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
