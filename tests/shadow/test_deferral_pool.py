"""Job deferral at the starter, seen from the pool: wait, window, missed, suspend while waiting."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing
from _execution_fakes import EPOCH, open_harness

from condorsim.jobs.codes import ShadowExit
from condorsim.wire import messages as m

JOB = "executable = /bin/sleep\narguments = 100\nlog = job.log\n{extra}\nqueue\n"


async def test_a_deferred_job_waits_running_without_an_execute_event(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(JOB.format(extra=f"deferral_time = {EPOCH + 500}"))
        await trio.sleep_until(t0 + 499)
        assert h.events() == [] and h.trace("BEGIN_EXECUTION") == []
        assert h.trace("REGISTER_JOB_INFO") == []
        await h.schedd.exited.wait()
        (begin,) = h.trace("BEGIN_EXECUTION")
        assert begin["t"] == t0 + 500
        assert [e.type for e in h.events()] == ["EXECUTE", "IMAGE_SIZE", "JOB_TERMINATED"]
        assert h.schedd.exit.exit_code == ShadowExit.JOB_EXITED
        assert h.trace("JOB_EXIT")[0]["t"] == t0 + 600


async def test_late_but_within_the_window_starts_at_once(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(JOB.format(
            extra=f"deferral_time = {EPOCH - 30}\ndeferral_window = 30"))
        await h.schedd.exited.wait()
        assert h.trace("BEGIN_EXECUTION")[0]["t"] == t0
        assert h.schedd.exit.exit_code == ShadowExit.JOB_EXITED


async def test_too_late_the_starter_reports_a_missed_deferral_time(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(JOB.format(
            extra=f"deferral_time = {EPOCH - 31}\ndeferral_window = 30"))
        await h.schedd.exited.wait()
        assert h.trace("BEGIN_EXECUTION") == []
        (job_exit,) = h.trace("JOB_EXIT")
        assert job_exit["t"] == t0
        assert h.schedd.exit.exit_code == 114  # JOB_MISSED_DEFERRAL_TIME
        assert h.events() == []  # the schedd writes the hold; the shadow logs no eviction
        assert isinstance(h.startd.got[-1].msg, m.STARTER_EXITED)


async def test_a_slow_input_transfer_makes_the_job_miss_its_time(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(JOB.format(
            extra=f"deferral_time = {EPOCH + 60}\ndeferral_window = 30\n"
            "+SimInputTransferTime = 120"))
        await h.schedd.exited.wait()
        assert h.trace("JOB_EXIT")[0]["t"] == t0 + 120
        assert h.schedd.exit.exit_code == ShadowExit.JOB_MISSED_DEFERRAL_TIME


async def test_the_execute_machines_clock_decides(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    # The execute machine's clock is 300 s ahead: a job due in 100 s is already late there.
    async with open_harness(tmp_path, clock_offset=300) as h:
        await h.start_job(JOB.format(extra=f"deferral_time = {EPOCH + 100}"))
        await h.schedd.exited.wait()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_MISSED_DEFERRAL_TIME


async def test_an_invalid_deferral_time_aborts(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        # submit checks only literals: a reference that evaluates to a string gets through.
        await h.start_job(JOB.format(extra='deferral_time = When\n+When = "soon"'))
        await h.schedd.exited.wait()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_MISSED_DEFERRAL_TIME


async def test_suspended_while_waiting_it_is_suspended_as_soon_as_it_starts(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(JOB.format(extra=f"deferral_time = {EPOCH + 500}"))
        await trio.sleep_until(t0 + 100)
        await h.tell_shadow(m.SHADOW_SUSPEND(job="1.0"))
        await trio.sleep_until(t0 + 700)
        await h.tell_shadow(m.SHADOW_CONTINUE(job="1.0"))
        await h.schedd.exited.wait()
        events = [(e.type, e.timestamp - t0) for e in h.events()]
        assert events == [
            ("EXECUTE", 500), ("IMAGE_SIZE", 500), ("JOB_SUSPENDED", 500),
            ("JOB_UNSUSPENDED", 700), ("JOB_TERMINATED", 800),
        ]
        final = h.schedd.job_ad()
        assert final.evaluate("CumulativeSuspensionTime") == 200
        assert final.evaluate("TotalSuspensions") == 1
        assert final.evaluate("RemoteUserCpu") == 100.0


async def test_policy_and_queue_updates_start_with_execution_not_while_waiting(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(
            "executable = /bin/sleep\narguments = 2000\nlog = job.log\n"
            f"deferral_time = {EPOCH + 1000}\n"
            "periodic_hold = NumJobStarts > 0 && time() - JobCurrentStartExecutingDate >= 950\n"
            "queue\n")
        await h.schedd.exited.wait()
        # Execution begins at +1000: pushes at +1900, the policy fires at +1000 + 16 * 60.
        assert [r.t - t0 for r in h.schedd.of(m.SHADOW_UPDATE)] == [1900]
        assert h.trace("STARTER_HOLD")[0]["t"] == t0 + 1960
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_HOLD
