"""The attributes the main submit commands produce, spelled out (facts 1.1, 2.1, 5.2)."""

from __future__ import annotations

import pytest

from condorsim.classad import ClassAd
from condorsim.submit import Submit, SubmitError

EXE = "executable = /bin/sleep\n"
DEFERRAL_CLAUSE = (
    "(((time() + ScheddInterval) >= (DeferralTime - DeferralPrepTime)) && "
    "(time() < (DeferralTime + DeferralWindow)))"
)
BASE_REQUIREMENTS = (
    '(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) '
    "&& (TARGET.Memory >= RequestMemory)"
)
FS_CLAUSE = "((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))"


def job(text: str, **kwargs: object) -> ClassAd:
    kwargs.setdefault("iwd", "/tmp")
    (ad,) = Submit(EXE + text + "queue\n").jobs(**kwargs)  # type: ignore[arg-type]
    return ad


def error(text: str) -> SubmitError:
    with pytest.raises(SubmitError) as caught:
        job(text)
    return caught.value


def test_a_minimal_job_has_the_default_attributes() -> None:
    ad = job("", clusterid=3, qdate=1700000000, owner="alice", config={"UID_DOMAIN": "ex.org"})
    expected = {
        "ClusterId": 3, "ProcId": 0, "QDate": 1700000000, "EnteredCurrentStatus": 1700000000,
        "JobStatus": 1, "JobUniverse": 5, "JobPrio": 0, "Owner": "alice", "User": "alice@ex.org",
        "NumJobStarts": 0, "NumJobCompletions": 0, "NumRestarts": 0, "NumSystemHolds": 0,
        "NumCkpts": 0, "RemoteWallClockTime": 0.0, "CumulativeSlotTime": 0,
        "CommittedTime": 0, "LastSuspensionTime": 0, "TotalSuspensions": 0, "CurrentHosts": 0,
        "ExitBySignal": False, "ExitStatus": 0, "JobLeaseDuration": 2400, "RequestCpus": 1,
        "In": "/dev/null", "Out": "/dev/null", "Err": "/dev/null", "Cmd": "/bin/sleep",
        "Arguments": "", "Environment": "", "Rank": 0.0, "LeaveJobInQueue": False,
        "ShouldTransferFiles": "IF_NEEDED", "WhenToTransferOutput": "ON_EXIT",
        "JobNotification": 0, "JobSubmitMethod": 2, "MyType": "Job", "TargetType": "Machine",
    }  # fmt: skip
    assert {name: ad.evaluate(name) for name in expected} == expected
    assert str(ad["Requirements"]) == f"{BASE_REQUIREMENTS} && {FS_CLAUSE}"
    assert str(ad["RequestDisk"]) == "DiskUsage"


@pytest.mark.parametrize(
    ("name", "number"), [("vanilla", 5), ("scheduler", 7), ("LOCAL", 12), ("5", 5)]
)
def test_universes(name: str, number: int) -> None:
    assert job(f"universe = {name}\n").evaluate("JobUniverse") == number


def test_local_and_scheduler_jobs_have_no_lease_and_no_file_system_clause() -> None:
    ad = job("universe = local\n")
    assert "JobLeaseDuration" not in ad
    assert ad.evaluate("KillSig") == "SIGTERM"
    assert str(ad["Requirements"]) == BASE_REQUIREMENTS


def test_grid_jobs_are_not_matched_against_slots() -> None:
    ad = job("universe = grid\ngrid_resource = batch slurm\n")
    assert ad.evaluate("GridResource") == "batch slurm"
    assert str(ad["Requirements"]) == "true"
    assert "RequestMemory" not in ad


def test_hold_puts_the_job_on_hold_at_submit() -> None:
    ad = job("hold = true\n")
    assert ad.evaluate("JobStatus") == 5
    assert ad.evaluate("HoldReasonCode") == 15
    assert ad.evaluate("HoldReason") == "submitted on hold at user's request"


def test_deferral_time_adds_window_prep_interval_and_the_clause() -> None:
    ad = job("deferral_time = time() + 60\n", config={"SCHEDD_INTERVAL": "60"})
    assert str(ad["DeferralTime"]) == "time() + 60"
    assert (ad.evaluate("DeferralWindow"), ad.evaluate("DeferralPrepTime")) == (0, 300)
    assert ad.evaluate("ScheddInterval") == 60
    assert str(ad["Requirements"]) == (
        f"{BASE_REQUIREMENTS} && {FS_CLAUSE} && TARGET.HasJobDeferral && {DEFERRAL_CLAUSE}"
    )


def test_local_universe_deferral_leaves_out_has_job_deferral() -> None:
    ad = job("universe = local\ndeferral_time = 100\n")
    assert str(ad["Requirements"]) == f"{BASE_REQUIREMENTS} && {DEFERRAL_CLAUSE}"


def test_window_and_prep_time_alone_add_nothing() -> None:
    ad = job("deferral_window = 60\ndeferral_prep_time = 30\n")
    assert "DeferralWindow" not in ad and "DeferralPrepTime" not in ad


def test_cron_commands_are_strings_and_cron_window_wins() -> None:
    text = (
        "cron_minute = */5\ncron_hour = 61\ncron_day_of_month = 1\ncron_month = 2\n"
        "cron_day_of_week = 7\ncron_window = 60\ndeferral_window = 5\n"
        "deferral_prep_time = 7\ncron_prep_time = 10\n"
    )
    ad = job(text)
    crons = ("CronMinute", "CronHour", "CronDayOfMonth", "CronMonth", "CronDayOfWeek")
    assert [ad.evaluate(a) for a in crons] == ["*/5", "61", "1", "2", "7"]
    assert (ad.evaluate("DeferralWindow"), ad.evaluate("DeferralPrepTime")) == (60, 10)
    assert "DeferralTime" not in ad
    assert str(ad["Requirements"]).endswith(f"TARGET.HasJobDeferral && {DEFERRAL_CLAUSE}")


def test_cron_in_the_scheduler_universe_is_accepted() -> None:
    ad = job("universe = scheduler\ncron_minute = 0\n")
    assert str(ad["Requirements"]).endswith(f"TARGET.HasJobDeferral && {DEFERRAL_CLAUSE}")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "universe = scheduler\ndeferral_time = 100\n",
            "DeferralTime does not work for scheduler universe jobs.\n"
            "Consider submitting this job using the local universe, instead",
        ),
        ("deferral_time = -5\n", "deferral_time = -5 is invalid, must eval to a non-negative integer."),
        ("deferral_time = (-5)\n", "deferral_time = (-5) is invalid, must eval to a non-negative integer."),
        ("deferral_time = 1\ndeferral_window = 2.5\n", "deferral_window = 2.5 is invalid, must eval to a non-negative integer."),
        ("cron_minute = 1\ncron_prep_time = -1\n", "deferral_prep_time = -1 is invalid, must eval to a non-negative integer."),
    ],
)  # fmt: skip
def test_deferral_errors(text: str, message: str) -> None:
    err = error(text)
    assert err.message == message
    assert err.line > 1


def test_non_literal_deferral_values_are_kept_as_expressions() -> None:
    ad = job("deferral_time = -(5)\ndeferral_window = abc\n")
    assert str(ad["DeferralTime"]) == " -(5)"
    assert str(ad["DeferralWindow"]) == "abc"


def test_max_retries_builds_on_exit_remove() -> None:
    ad = job("max_retries = 3\non_exit_remove = a ? b : c\n")
    assert ad.evaluate("JobMaxRetries") == 3
    assert str(ad["OnExitRemove"]) == (
        "NumJobCompletions > JobMaxRetries || ExitCode is 0 || (a ? b : c)"
    )
    assert ad.evaluate("OnExitHold") is False


def test_success_exit_code_and_retry_until() -> None:
    ad = job("success_exit_code = 2\nretry_until = 7\n")
    assert (ad.evaluate("JobMaxRetries"), ad.evaluate("JobSuccessExitCode")) == (2, 2)
    assert str(ad["OnExitRemove"]) == (
        "NumJobCompletions > JobMaxRetries || ExitCode is JobSuccessExitCode || ExitCode is 7"
    )


def test_policy_expressions() -> None:
    text = (
        'on_exit_hold = ExitCode == 3\non_exit_hold_reason = "bad"\non_exit_hold_subcode = 4\n'
        'periodic_hold = x > 1\nperiodic_hold_reason = "r"\nperiodic_hold_subcode = 9\n'
        "periodic_release = true\nperiodic_remove = JobStatus == 5\n"
    )
    ad = job(text)
    got = {
        name: str(ad[name])
        for name in ("OnExitHold", "OnExitHoldReason", "OnExitHoldSubCode", "PeriodicHold",
                     "PeriodicHoldReason", "PeriodicHoldSubCode", "PeriodicRelease", "PeriodicRemove")
    }  # fmt: skip
    assert got == {
        "OnExitHold": "ExitCode == 3", "OnExitHoldReason": '"bad"', "OnExitHoldSubCode": "4",
        "PeriodicHold": "x > 1", "PeriodicHoldReason": '"r"', "PeriodicHoldSubCode": "9",
        "PeriodicRelease": "true", "PeriodicRemove": "JobStatus == 5",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("command", "attr"),
    [("requirements", "Requirements"), ("rank", "Rank"), ("+Custom", "Custom"),
     ("periodic_hold", "PeriodicHold"), ("on_exit_remove", "OnExitRemove")],
)  # fmt: skip
def test_unparseable_expressions_are_refused(command: str, attr: str) -> None:
    err = error(f"{command} = (a ==\n")
    assert err.message.startswith(f"Parse error in expression: \n\t{attr} = ")
    assert err.line == 2


def test_requests_with_units_and_their_clauses() -> None:
    ad = job("request_cpus = 4\nrequest_memory = 1.5G\nrequest_disk = 2M\nrequest_gpus = 1\n")
    assert [
        ad.evaluate(a) for a in ("RequestCpus", "RequestMemory", "RequestDisk", "RequestGPUs")
    ] == [4, 1536, 2048, 1]
    assert str(ad["Requirements"]) == (
        f"{BASE_REQUIREMENTS} && (TARGET.Cpus >= RequestCpus) && (TARGET.GPUs >= RequestGPUs) && {FS_CLAUSE}"
    )  # fmt: skip


def test_tiny_requests_drop_their_clauses() -> None:
    ad = job("request_memory = 100K\nrequest_disk = 0\n")
    assert ad.evaluate("RequestMemory") == 1
    assert str(ad["Requirements"]) == (
        f'(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && {FS_CLAUSE}'
    )


def test_user_requirements_come_first_and_replace_the_clauses_they_mention() -> None:
    ad = job('requirements = Arch == "INTEL" && HasFileTransfer\nshould_transfer_files = YES\n')
    assert str(ad["Requirements"]) == (
        '(Arch == "INTEL" && HasFileTransfer) && (TARGET.OpSys == "LINUX") && '
        "(TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)"
    )
    assert "FileSystemDomain" not in ad


def test_arguments_old_and_new_syntax() -> None:
    assert job('arguments = a  b\\"c\n').evaluate("Args") == 'a b"c'
    assert job("arguments = \"a 'b c' it''s\"\n").evaluate("Arguments") == "a b' 'c its"


def test_environment_old_and_new_syntax() -> None:
    assert job("environment = B=1;A=x y\n").evaluate("Environment") == "A=x' 'y B=1"
    ad = job("env = B=1;A=2\n")
    assert (ad.evaluate("Env"), ad.evaluate("EnvDelim")) == ("A=2;B=1", ";")
    ad = job("environment = A=1\ngetenv = true\n", env={"A": "env", "HOME": "/h"})
    assert ad.evaluate("Environment") == "A=1 HOME=/h"


def test_io_log_and_initialdir() -> None:
    ad = job(
        "input = in\noutput = out\nerror = err\nstream_error = true\nlog = j.log\ninitialdir = /tmp\n"
    )
    assert [ad.evaluate(a) for a in ("In", "Out", "Err", "UserLog", "Iwd")] == [
        "in",
        "out",
        "err",
        "/tmp/j.log",
        "/tmp",
    ]
    assert [ad.evaluate(a) for a in ("StreamIn", "StreamOut", "StreamErr")] == [False, False, True]


def test_accounting_groups() -> None:
    ad = job("accounting_group = physics\n", owner="bob")
    assert [ad.evaluate(a) for a in ("AcctGroup", "AcctGroupUser", "AccountingGroup")] == [
        "physics",
        "bob",
        "physics.bob",
    ]
    ad = job("accounting_group_user = carol\n", owner="bob")
    assert "AcctGroup" not in ad and ad.evaluate("AccountingGroup") == "carol"


def test_small_job_lease_is_raised_for_the_first_job_only() -> None:
    ads = list(Submit(EXE + "job_lease_duration = 10\nqueue 2\n").jobs(iwd="/tmp"))
    assert [ad.evaluate("JobLeaseDuration") for ad in ads] == [20, 10]  # HTCondor 24.0 quirk


def test_simple_commands() -> None:
    text = (
        "priority = 1 + 1\nnotification = Complete\nleave_in_queue = JobStatus == 4\n"
        'concurrency_limits = B, a:2\nnotify_user = me@x\nbatch_name = "nightly"\n'
        "job_lease_duration = x\nmax_job_retirement_time = 60\nkill_sig = 9\n"
    )
    ad = job(text)
    assert [ad.evaluate(a) for a in ("JobPrio", "JobNotification", "ConcurrencyLimits",
                                     "NotifyUser", "JobBatchName", "MaxJobRetirementTime", "KillSig")] == [
        2, 2, "a:2,b", "me@x", "nightly", 60, "SIGKILL"
    ]  # fmt: skip
    assert str(ad["LeaveJobInQueue"]) == "JobStatus == 4"
    assert str(ad["JobLeaseDuration"]) == "x"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("universe = sched\n", "I don't know about the 'sched' universe."),
        ("universe = standard\n", "'Standard' is not a supported universe."),
        ("universe = java\n", "In Java universe, you must specify the class name to run.\n"
                               "Example:\n\narguments = MyClass"),
        ("universe = pvm\n", "'PVM' is not a supported universe."),
        ("hold = yes\n", "hold=yes is invalid, must eval to a boolean."),
        ("priority = high\n", "priority=high is invalid, must eval to an integer."),
        (
            "notification = sometimes\n",
            "Notification must be 'Never', 'Always', 'Complete', or 'Error'",
        ),
        ("universe = grid\n", "grid_resource attribute not defined for grid universe job"),
        ("initialdir = /no/such/dir\n", "No such directory: /no/such/dir"),
        ("kill_sig = TERM\n", "invalid signal TERM"),
    ],
)
def test_command_errors(text: str, message: str) -> None:
    err = error(text)
    assert err.message == message
    assert err.line == 2


def test_a_missing_executable_is_reported_at_the_queue_statement() -> None:
    with pytest.raises(SubmitError) as caught:
        list(Submit("arguments = 1\n\nqueue\n", source="j.sub").jobs())
    assert (caught.value.message, caught.value.line) == (
        "No 'executable' parameter was provided",
        3,
    )
