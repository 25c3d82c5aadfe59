"""The shadow and the starter in an in-process pool with a fake startd and a fake schedd."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing
from _execution_fakes import EPOCH, open_harness

from condorsim.classad import ClassAd
from condorsim.jobs.codes import ShadowExit
from condorsim.wire import messages as m

SLEEP = "executable = /bin/sleep\narguments = {secs}\nlog = job.log\n{extra}\nqueue\n"


def sleep_job(secs: int, extra: str = "") -> str:
    return SLEEP.format(secs=secs, extra=extra)


async def test_a_sleep_job_runs_its_argument_and_completes(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(sleep_job(600))
        await h.schedd.exited.wait()
        (begin,) = h.trace("BEGIN_EXECUTION")
        start = begin["t"]
        assert start == t0
        (exit_msg,) = h.trace("JOB_EXIT")
        assert exit_msg["t"] == start + 600
        # The starter's updates: 8 s after the start, then every 300 s, to shadow and startd.
        assert [r["t"] - start for r in h.trace("REGISTER_JOB_INFO")] == [8, 308]
        assert [r.t - start for r in h.startd.of(m.STARTER_UPDATE)] == [8, 308]
        assert [r.t - start for r in h.startd.of(m.STARTER_EXITED)] == [600]
        final = h.schedd.exit
        assert final.exit_code == ShadowExit.JOB_EXITED
        assert final.ad.evaluate("ExitCode") == 0
        assert final.ad.evaluate("NumJobCompletions") == 1
        assert final.ad.evaluate("NumJobStarts") == 1
        assert final.ad.evaluate("JobCurrentStartExecutingDate") == int(start)
        assert final.ad.evaluate("RemoteUserCpu") == 600.0
        events = h.events()
        assert [e.type for e in events] == ["EXECUTE", "IMAGE_SIZE", "JOB_TERMINATED"]
        assert [e.timestamp - start for e in events] == [0, 8, 600]
        assert events[0].fields["SlotName"] == "slot1@exec1"
        assert events[2].fields["ReturnValue"] == 0
        # HTCondor's own reader takes the termination with its resources table.
        import htcondor

        (terminated,) = [e for e in htcondor.JobEventLog(str(h.iwd / "job.log")).events(0)
                         if e.type == htcondor.JobEventType.JOB_TERMINATED]
        assert terminated["ReturnValue"] == 0
        assert terminated["RequestCpus"] == 1 and terminated["MemoryUsage"] == 1
        assert terminated["RequestMemory"] == 1 and terminated["DiskUsage"] == 43


async def test_the_shadow_pushes_dirty_attributes_every_900_seconds(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        h.schedd.qedits.append(ClassAd.parse('[ Foo = "edited" ]'))
        await h.start_job(sleep_job(2000, "+SimExitCode = 3"))
        await h.schedd.exited.wait()
        pushes = h.schedd.of(m.SHADOW_UPDATE)
        assert [r.t - t0 for r in pushes] == [900, 1800]
        # committed without a sync, as HTCondor's U_PERIODIC (NONDURABLE)
        assert [r.msg.durable for r in pushes] == [False, False]
        # Lazy by default: NumJobStarts waits for the first periodic push.
        assert pushes[0].msg.ad.evaluate("NumJobStarts") == 1
        assert pushes[0].msg.ad.evaluate("RemoteUserCpu") == 608.0
        assert "NumJobStarts" not in pushes[1].msg.ad
        assert h.schedd.exit.ad.evaluate("ExitCode") == 3
        # The first reply's qedit attribute reached the shadow's copy, not its pushes.
        assert all("Foo" not in r.msg.ad for r in pushes)


async def test_without_lazy_updates_execution_is_pushed_at_once(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path, "SHADOW_LAZY_QUEUE_UPDATE = false\n") as h:
        t0 = trio.current_time()
        await h.start_job(sleep_job(100))
        await h.schedd.exited.wait()
        (push,) = h.schedd.of(m.SHADOW_UPDATE)
        assert push.t == t0 and push.msg.ad.evaluate("NumJobStarts") == 1
        assert push.msg.durable  # an immediate push is synced before the schedd answers
