"""How a running job ends, seen from the pool: policy, requeue, hold, remove, vacate."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing
from _execution_fakes import EPOCH, open_harness

from condorsim.classad import ClassAd
from condorsim.jobs.codes import HoldCode, ShadowExit
from condorsim.wire import messages as m

JOB = "executable = /bin/sleep\narguments = {secs}\nlog = job.log\n{extra}\nqueue\n"


def job(secs: int = 100, extra: str = "") -> str:
    return JOB.format(secs=secs, extra=extra)


async def test_on_exit_remove_false_requeues_with_an_evicted_event(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        await h.start_job(job(100, "on_exit_remove = false\n+SimExitCode = 2"))
        await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == 107  # JOB_SHOULD_REQUEUE
        reason = "The job attribute OnExitRemove expression 'false' evaluated to FALSE"
        assert final.evaluate("RequeueReason") == reason
        assert final.evaluate("NumJobCompletions") == 1
        assert final.evaluate("ExitCode") == 2
        evicted = h.events()[-1]
        assert evicted.type == "JOB_EVICTED"
        assert evicted.fields["TerminatedAndRequeued"] is True
        assert evicted.fields["ReturnValue"] == 2
        assert evicted.fields["Reason"] == reason


async def test_on_exit_hold_holds_with_the_job_policy_code(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        await h.start_job(job(100, "on_exit_hold = ExitCode != 0\n+SimExitCode = 1\n"
                                   "on_exit_hold_subcode = 42"))
        await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_HOLD
        assert final.evaluate("HoldReasonCode") == 3  # HoldCode.JOB_POLICY
        assert final.evaluate("HoldReasonSubCode") == 42
        assert final.evaluate("HoldReason") == (
            "The job attribute OnExitHold expression 'ExitCode != 0' evaluated to TRUE")
        assert [e.type for e in h.events()] == ["EXECUTE", "IMAGE_SIZE"]


async def test_periodic_hold_fires_at_a_policy_evaluation_and_stops_the_job(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(1000, "periodic_hold = time() - JobCurrentStartExecutingDate > 100\n"
                                    'periodic_hold_reason = "ran too long"'))
        await h.schedd.exited.wait()
        assert h.trace("STARTER_HOLD")[0]["t"] == t0 + 120  # evaluated every 60 s
        assert h.trace("JOB_EXIT")[0]["t"] == t0 + 120
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_HOLD
        assert final.evaluate("HoldReason") == "ran too long"
        assert final.evaluate("HoldReasonCode") == 3
        assert "NumJobCompletions" not in final  # not incremented


async def test_an_undefined_periodic_remove_holds_with_code_5(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        await h.start_job(job(1000, "periodic_remove = NoSuchAttribute > 3"))
        await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_HOLD
        assert final.evaluate("HoldReasonCode") == HoldCode.JOB_POLICY_UNDEFINED
        assert final.evaluate("HoldReason") == (
            "The job attribute PeriodicRemove expression 'NoSuchAttribute > 3' "
            "evaluated to UNDEFINED")


async def test_periodic_remove_removes(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        await h.start_job(job(1000, "periodic_remove = true"))
        await h.schedd.exited.wait()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_REMOVE
        assert h.schedd.job_ad().evaluate("RemoveReason") == (
            "The job attribute PeriodicRemove expression 'true' evaluated to TRUE")


async def test_a_hold_from_the_schedd_stops_the_job_through_the_starter(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(1000))
        await trio.sleep_until(t0 + 50)
        await h.tell_shadow(m.SHADOW_HOLD(job="1.0", reason="via condor_hold (by user alice)",
                                          code=1, subcode=0))
        await h.schedd.exited.wait()
        (job_exit,) = [r for r in h.pool.trace if r["cmd"] == "JOB_EXIT"]
        assert job_exit["t"] == t0 + 50
        final = h.schedd.job_ad()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_HOLD
        assert final.evaluate("HoldReason") == "via condor_hold (by user alice)"
        assert final.evaluate("HoldReasonCode") == 1
        assert "NumJobCompletions" not in final  # not incremented
        assert h.startd.of(m.STARTER_EXITED)[0].t == t0 + 50


async def test_a_remove_while_waiting_for_the_deferral_time_cancels_the_wait(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(100, f"deferral_time = {EPOCH + 1000}"))
        await trio.sleep_until(t0 + 10)
        await h.tell_shadow(m.SHADOW_REMOVE(job="1.0", reason="via condor_rm (by user alice)"))
        await h.schedd.exited.wait()
        assert trio.current_time() == t0 + 10
        assert h.trace("BEGIN_EXECUTION") == [] and h.events() == []
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_REMOVE
        assert h.schedd.job_ad().evaluate("RemoveReason") == "via condor_rm (by user alice)"


async def test_a_vacate_evicts_and_requeues(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(1000))
        await trio.sleep_until(t0 + 400)
        await h.tell_shadow(m.SHADOW_VACATE(job="1.0"))
        await h.schedd.exited.wait()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_REQUEUE
        evicted = h.events()[-1]
        assert evicted.type == "JOB_EVICTED" and evicted.timestamp == t0 + 400
        assert evicted.fields.get("TerminatedAndRequeued") is not True
        assert "NumJobCompletions" not in h.schedd.job_ad()


async def test_suspension_stops_the_payload_clock_and_is_pushed_at_once(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(600))
        await trio.sleep_until(t0 + 100)
        await h.tell_shadow(m.SHADOW_SUSPEND(job="1.0"))
        await trio.sleep_until(t0 + 150)
        await h.tell_shadow(m.SHADOW_CONTINUE(job="1.0"))
        await h.schedd.exited.wait()
        assert h.trace("JOB_EXIT")[0]["t"] == t0 + 650
        assert [r["t"] - t0 for r in h.trace("REGISTER_JOB_INFO")] == [8, 100, 150, 308, 608]
        pushes = [(r.t - t0, r.msg.ad.evaluate("JobStatus")) for r in h.schedd.of(m.SHADOW_UPDATE)]
        assert pushes == [(100, 7), (150, 2)]
        final = h.schedd.job_ad()
        assert final.evaluate("RemoteUserCpu") == 600.0
        assert final.evaluate("CumulativeSuspensionTime") == 50
        assert final.evaluate("LastSuspensionTime") == 0
        types = [e.type for e in h.events()]
        assert types == ["EXECUTE", "IMAGE_SIZE", "JOB_SUSPENDED", "JOB_UNSUSPENDED",
                         "JOB_TERMINATED"]
        assert h.events()[2].fields["NumberOfPIDs"] == 1


async def test_a_refused_activation_ends_the_shadow_with_job_not_started(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        h.startd.refuse = True
        await h.start_job(job(100))
        await h.schedd.exited.wait()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_NOT_STARTED
        assert h.events() == []


async def test_shadow_exit_is_retried_then_given_up(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        h.schedd.refuse_exits = 100
        await h.start_job(job(100))
        await trio.sleep_until(t0 + 1000)
        tries = [r.t - t0 for r in h.schedd.of(m.SHADOW_EXIT)]
        assert tries == [100, 130, 160, 190, 220, 250]  # SHADOW_MAX_JOB_CLEANUP_RETRIES = 5


async def test_shadow_exit_is_retried_until_the_schedd_takes_it(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path, "SHADOW_JOB_CLEANUP_RETRY_DELAY = 10\n") as h:
        t0 = trio.current_time()
        h.schedd.refuse_exits = 2
        await h.start_job(job(100))
        await h.schedd.exited.wait()
        assert [r.t - t0 for r in h.schedd.of(m.SHADOW_EXIT)] == [100, 110, 120]


async def test_both_daemons_advertise_themselves(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        await trio.sleep(1)
        async with await h.pool.connect("collector") as conn:
            reply = await conn.request(m.QUERY_ANY_ADS(constraint="", projection=[]))
            assert isinstance(reply, m.QUERY_RESULT)
            ads = {ad.evaluate("MyType"): ad for ad in reply.ads}
            assert ads["Starter"].evaluate("Name") == "starter@localhost"
            assert ads["Starter"].evaluate("StartdDaemon") == "startd"
            assert ads["Starter"].evaluate("MyAddress") == h.pool.addresses["starter"]
            assert ads["Shadow"].evaluate("ScheddDaemon") == "schedd"
            assert ads["Shadow"].evaluate("MyAddress") == h.pool.addresses["shadow"]


async def test_htcondor_reads_the_user_log_the_shadow_writes(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    import htcondor

    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(600, "on_exit_remove = false\n+SimExitCode = 4"))
        await trio.sleep_until(t0 + 100)
        await h.tell_shadow(m.SHADOW_SUSPEND(job="1.0"))
        await trio.sleep_until(t0 + 150)
        await h.tell_shadow(m.SHADOW_CONTINUE(job="1.0"))
        await h.schedd.exited.wait()
    events = list(htcondor.JobEventLog(str(h.iwd / "job.log")).events(stop_after=0))
    types = [e.type for e in events]
    assert types == [
        htcondor.JobEventType.EXECUTE, htcondor.JobEventType.IMAGE_SIZE,
        htcondor.JobEventType.JOB_SUSPENDED, htcondor.JobEventType.JOB_UNSUSPENDED,
        htcondor.JobEventType.JOB_EVICTED,
    ]
    assert [(e.cluster, e.proc) for e in events] == [(1, 0)] * 5
    # (differences only: the reader reads the dates in the host's time zone)
    assert [e.timestamp - events[0].timestamp for e in events] == [0, 8, 100, 150, 650]
    assert events[0]["SlotName"] == "slot1@exec1"
    assert events[0]["ExecuteHost"] == h.startd.address
    assert events[1]["Size"] == 43
    assert events[2]["NumberOfPIDs"] == 1
    evicted = events[4]
    assert evicted["TerminatedAndRequeued"] is True
    assert evicted["ReturnValue"] == 4
    assert evicted["Reason"] == (
        "The job attribute OnExitRemove expression 'false' evaluated to FALSE")


async def test_a_qedit_reaches_the_shadow_and_its_policy_at_once(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        t0 = trio.current_time()
        await h.start_job(job(1000, "periodic_remove = StopNow =?= true"))
        await trio.sleep_until(t0 + 30)
        await h.tell_shadow(m.SHADOW_QEDIT(job="1.0", ad=ClassAd({"StopNow": True})))
        await h.schedd.exited.wait()
        assert trio.current_time() == t0 + 30
        assert h.schedd.exit.exit_code == ShadowExit.JOB_SHOULD_REMOVE
        assert "StopNow" not in h.schedd.job_ad()  # taken from the schedd, not pushed back


async def test_bad_requests_are_refused_and_the_daemons_carry_on(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        slot = ClassAd({"Name": "slot1@exec1", "MyAddress": h.startd.address})
        async with await h.pool.connect("shadow", me="schedd") as conn:
            reply = await conn.request(m.SHADOW_START(
                job_ad=ClassAd({"Owner": "alice"}), claim_id="c", startd_addr="<1.2.3.4:5>",
                slot_ad=slot, schedd_addr=""))
            assert isinstance(reply, m.FAILED) and "ClusterId" in reply.reason
            reply = await conn.request(m.SHADOW_HOLD(job="9.9", reason="x", code=1, subcode=0))
            assert isinstance(reply, m.FAILED) and "9.9" in reply.reason
            reply = await conn.request(m.ALIVE(claim_id="c"))
            assert isinstance(reply, m.FAILED)
        async with await h.pool.connect("starter", me="startd") as conn:
            reply = await conn.request(m.STARTER_START(
                claim_id="c", job_ad=ClassAd({"ClusterId": "one", "ProcId": 0}),
                shadow_addr="<1.2.3.4:5>", slot_ad=slot))
            assert isinstance(reply, m.FAILED)
            reply = await conn.request(m.STARTER_SUSPEND(job="9.9"))
            assert isinstance(reply, m.FAILED)
        await h.start_job(job(100))  # both still serve
        await h.schedd.exited.wait()
        assert h.schedd.exit.exit_code == ShadowExit.JOB_EXITED


async def test_execute_and_terminate_events_carry_htcondor_24s_lines(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """The execute event lists the starter's scratch directory and the slot's resources;
    the terminate event ends with "Job terminated of its own accord at <UTC> with
    exit-code N." (the job's ToE tag, which the schedd's ad keeps too) -- both as
    HTCondor 24's shadow writes them, read back by HTCondor's JobEventLog."""
    import htcondor

    autojump_clock.jump(EPOCH)
    async with open_harness(tmp_path) as h:
        await h.start_job(job(100, "+SimExitCode = 3"))
        await h.schedd.exited.wait()
        final = h.schedd.job_ad()
        toe = final.evaluate("ToE")
        assert isinstance(toe, ClassAd) and toe.evaluate("How") == "OF_ITS_OWN_ACCORD"
        ended = int(trio.current_time())
        theirs = list(htcondor.JobEventLog(str(h.iwd / "job.log")).events(0))
        execute = next(e for e in theirs if e.type == htcondor.JobEventType.EXECUTE)
        props = dict(execute["ExecuteProps"])
        assert sorted(props) == ["CondorScratchDir", "Cpus", "Disk", "Memory"]
        assert props["CondorScratchDir"].endswith("/dir_1000")
        terminated = theirs[-1]
        assert terminated.type == htcondor.JobEventType.JOB_TERMINATED
        assert dict(terminated["ToE"]) == {
            "Who": "itself", "How": "OF_ITS_OWN_ACCORD", "HowCode": 0, "When": ended,
            "ExitBySignal": False, "ExitCode": 3}
        text = (h.iwd / "job.log").read_text()
        stamp = trio.current_time()
        from datetime import UTC, datetime
        when = datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert f"\n\n\tJob terminated of its own accord at {when} with exit-code 3.\n...\n" in text
