"""The shadow's copy of a job (ShadowJob), without I/O: dirty attributes, events, exit codes."""

from __future__ import annotations

from condorsim.classad import ClassAd
from condorsim.eventlog.usage import format_resources
from condorsim.jobs.codes import ShadowExit
from daemons.shadow.logic import Request, ShadowJob
from daemons.starter.logic import provisioned_ad

T = 1_767_225_600.0


def shadow_job(extra: str = "") -> ShadowJob:
    job = ClassAd.parse(
        "[ ClusterId = 4; ProcId = 2; JobStatus = 2; NumJobStarts = 0; NumJobCompletions = 0;"
        f" TotalSuspensions = 0; CumulativeSuspensionTime = 0; ImageSize = 10; {extra} ]")
    return ShadowJob(job, ClassAd({"Name": "slot1@exec1"}), "claim", "<127.0.0.1:5>")


def test_execution_marks_start_attributes_dirty_and_logs_execute() -> None:
    job = shadow_job()
    (event,) = job.begin_execution(T)
    assert (event.kind, event.fields["host"], event.fields["slot_name"]) == (
        "execute", "<127.0.0.1:5>", "slot1@exec1")
    pushed = job.take_dirty()
    assert pushed.evaluate("NumJobStarts") == 1
    assert pushed.evaluate("JobCurrentStartExecutingDate") == int(T)
    assert len(job.take_dirty()) == 0


def test_qedit_attributes_are_taken_without_being_pushed_back() -> None:
    job = shadow_job()
    job.set("Foo", 1)
    job.take_qedit(ClassAd({"Foo": 2, "Bar": "x"}))
    assert job.ad.evaluate("Foo") == 2 and len(job.take_dirty()) == 0


def test_an_image_size_event_only_when_the_image_grows() -> None:
    job = shadow_job()
    assert [e.kind for e in job.register_job_info(ClassAd({"ImageSize": 100}), T)] == [
        "image_size"]
    assert job.register_job_info(ClassAd({"ImageSize": 100}), T + 300) == []
    assert job.register_job_info(ClassAd({"ImageSize": 50}), T + 600) == []
    assert len(job.register_job_info(ClassAd({"ImageSize": 101}), T + 900)) == 1


def test_suspension_accounting() -> None:
    job = shadow_job()
    assert [e.kind for e in job.suspend(T)] == ["suspended"]
    assert job.suspend(T + 1) == []
    assert job.ad.evaluate("JobStatus") == 7
    assert [e.kind for e in job.unsuspend(T + 40)] == ["unsuspended"]
    assert job.ad.evaluate("JobStatus") == 2
    assert job.ad.evaluate("CumulativeSuspensionTime") == 40
    assert job.ad.evaluate("TotalSuspensions") == 1
    assert job.ad.evaluate("LastSuspensionTime") == 0


def test_a_normal_exit_terminates_the_job() -> None:
    job = shadow_job()
    decision = job.job_exit(100, ClassAd({"ExitCode": 0, "ExitBySignal": False}), T)
    assert decision.exit_code == ShadowExit.JOB_EXITED
    assert [e.kind for e in decision.events] == ["terminated"]
    assert job.ad.evaluate("NumJobCompletions") == 1


def test_a_missed_deferral_time_is_passed_on_without_an_event() -> None:
    decision = shadow_job().job_exit(114, ClassAd(), T)
    assert (decision.exit_code, decision.events) == (114, [])


def test_a_killed_job_ends_as_was_asked() -> None:
    job = shadow_job()
    job.request = Request("remove", "via condor_rm")
    assert job.job_exit(102, ClassAd(), T).exit_code == ShadowExit.JOB_SHOULD_REMOVE
    assert job.ad.evaluate("RemoveReason") == "via condor_rm"
    unasked = shadow_job().job_exit(102, ClassAd(), T)
    assert unasked.exit_code == ShadowExit.JOB_SHOULD_REQUEUE
    assert [e.kind for e in unasked.events] == ["evicted"]


def test_an_exit_after_a_hold_was_asked_is_still_a_hold() -> None:
    job = shadow_job()
    job.request = Request("hold", "via condor_hold", 1, 0)
    decision = job.job_exit(100, ClassAd({"ExitCode": 0}), T)
    assert decision.exit_code == ShadowExit.JOB_SHOULD_HOLD
    assert job.ad.evaluate("NumJobCompletions") == 0


def test_a_completed_run_commits_its_time() -> None:
    job = shadow_job(f"JobCurrentStartDate = {int(T) - 500}; CommittedTime = 7;"
                     " JobMachineAttrSlotWeight0 = 2")
    job.suspend(T - 100)
    job.unsuspend(T - 60)
    job.job_exit(100, ClassAd({"ExitCode": 0}), T)
    assert job.ad.evaluate("CommittedTime") == 507
    assert job.ad.evaluate("CommittedSlotTime") == 1000.0
    assert job.ad.evaluate("CommittedSuspensionTime") == 40
    assert job.ad.evaluate("UncommittedSuspensionTime") == 0
    assert job.ad.evaluate("TerminationPending") is True


def test_a_requeued_run_commits_nothing() -> None:
    job = shadow_job(f"JobCurrentStartDate = {int(T) - 500}; OnExitRemove = false")
    job.job_exit(100, ClassAd({"ExitCode": 0}), T)
    assert "CommittedTime" not in job.ad and "TerminationPending" not in job.ad


def test_hearing_from_the_starter_renews_the_job_lease() -> None:
    job = shadow_job()
    job.begin_execution(T)
    job.take_dirty()
    job.register_job_info(ClassAd({"ImageSize": 10}), T + 300)
    assert job.take_dirty().evaluate("LastJobLeaseRenewal") == int(T) + 300


def test_a_reconnect_counts_and_logs_where_the_job_runs() -> None:
    job = shadow_job("NumJobReconnects = 2")
    (event,) = job.reconnected(T, "<127.0.0.1:6>")
    assert (event.kind, event.fields) == ("reconnected", {
        "startd_name": "slot1@exec1", "startd_addr": "<127.0.0.1:5>",
        "starter_addr": "<127.0.0.1:6>"})
    assert job.take_dirty().evaluate("NumJobReconnects") == 3


def test_the_terminate_event_table_is_htcondor_24s() -> None:
    """setEventUsageAd: Allocated from the <Res>Provisioned the starter sends, TimeExecute and
    TimeSlotBusy from the activation's durations (the claim activated at T, the job began
    executing 5 s later, and exited at T + 125)."""
    job = shadow_job("RequestCpus = 1; RequestMemory = 128; RequestDisk = 1000")
    job.activated(T)
    job.begin_execution(T + 5)
    assert job.ad.evaluate("ActivationSetupDuration") == 5
    slot = ClassAd({"Cpus": 2, "Memory": 2048, "Disk": 500000,
                    "MachineResources": "Cpus Memory Disk Swap"})
    exit_ad = provisioned_ad(slot)
    exit_ad.update({"ExitCode": 0, "ExitBySignal": False, "MemoryUsage": 3, "DiskUsage": 42})
    decision = job.job_exit(100, exit_ad, T + 125)
    (terminated,) = decision.events
    assert job.ad.evaluate("CpusProvisioned") == 2
    assert job.ad.evaluate("ProvisionedResources") == "Cpus Memory Disk Swap"
    assert (job.ad.evaluate("ActivationExecutionDuration"), job.ad.evaluate(
        "ActivationDuration")) == (120, 125)
    assert format_resources(terminated.fields["resources"]) == (
        "\tPartitionable Resources :    Usage  Request Allocated\n"
        "\t   Cpus                 :                 1         2\n"
        "\t   Disk (KB)            :       42     1000    500000\n"
        "\t   Memory (MB)          :        3      128      2048\n"
        "\t   TimeExecute (s)      :      120\n"
        "\t   TimeSlotBusy (s)     :      125\n")
