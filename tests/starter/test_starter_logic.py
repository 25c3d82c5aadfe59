"""The starter's decisions without I/O: deferral (facts 1.3), runtime, the payload clock."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from daemons.starter.logic import (
    DeferralAction,
    PayloadClock,
    deferral_decision,
    exit_ad,
    payload_exit_code,
    payload_runtime,
    usage_ad,
)

NOW = 1_767_225_600


def job(text: str = "") -> ClassAd:
    return ClassAd.parse(f"[ ClusterId = 1; ProcId = 0; {text} ]")


@pytest.mark.parametrize(
    ("attrs", "action", "delay", "message"),
    [
        ("", DeferralAction.RUN, 0, ""),
        (f"DeferralTime = {NOW + 60}", DeferralAction.WAIT, 60, "Job 1.0 deferred for 60 seconds"),
        ("DeferralTime = time() + 90", DeferralAction.WAIT, 90, "Job 1.0 deferred for 90 seconds"),
        (f"DeferralTime = {NOW}", DeferralAction.RUN, 0,
         "Job 1.0 missed its execution time but is within the 0 seconds window"),
        (f"DeferralTime = {NOW - 20}; DeferralWindow = 20", DeferralAction.RUN, 0,
         "Job 1.0 missed its execution time but is within the 20 seconds window"),
        (f"DeferralTime = {NOW - 21}; DeferralWindow = 20", DeferralAction.ABORT, 0,
         "Job 1.0 missed its execution time."),
        (f"DeferralTime = {NOW - 1}", DeferralAction.ABORT, 0, "Job 1.0 missed its execution time."),
        ('DeferralTime = "noon"', DeferralAction.ABORT, 0,
         "Invalid deferred execution time for Job 1.0."),
        ("DeferralTime = 1.5e9", DeferralAction.ABORT, 0,
         "Invalid deferred execution time for Job 1.0."),
        ("DeferralTime = Missing", DeferralAction.ABORT, 0,
         "Invalid deferred execution time for Job 1.0."),
        ("DeferralTime = 0", DeferralAction.ABORT, 0, "Invalid execution time '0' for Job 1.0."),
        ("DeferralTime = -5", DeferralAction.ABORT, 0, "Invalid execution time '-5' for Job 1.0."),
    ],
)
def test_deferral_decision(attrs: str, action: DeferralAction, delay: int, message: str) -> None:
    decision = deferral_decision(job(attrs), NOW, "1.0")
    assert (decision.action, decision.delay, decision.message) == (action, delay, message)


@settings(deadline=None, max_examples=200)
@given(
    when=st.integers(1, 2**40), window=st.integers(0, 10_000), now=st.integers(0, 2**40)
)
def test_deferral_decision_follows_the_rule(when: int, window: int, now: int) -> None:
    decision = deferral_decision(job(f"DeferralTime = {when}; DeferralWindow = {window}"), now, "1.0")
    delta = when - now
    if delta > 0:
        assert decision.action is DeferralAction.WAIT and decision.delay == delta
    elif -delta <= window:
        assert decision.action is DeferralAction.RUN
    else:
        assert decision.action is DeferralAction.ABORT


@pytest.mark.parametrize(
    ("attrs", "runtime"),
    [
        ('Cmd = "/bin/sleep"; Args = "600"', 600),
        ('Cmd = "/usr/bin/sleep"; Arguments = "\'45\' extra"', 45),
        ('Cmd = "/bin/sleep"; Args = "2m"', 120),
        ('Cmd = "/bin/sleep"; Args = "forever"', 777),
        ('Cmd = "/bin/sleep"', 777),
        ('Cmd = "/bin/true"; Args = "600"', 777),
        ('Cmd = "/bin/sleep"; Args = "600"; SimRuntime = 2 * 30', 60),
        ('Cmd = "/bin/sleep"; Args = "600"; SimRuntime = -1', 600),
        ('Cmd = "/bin/sleep"; Args = "600"; SimRuntime = "long"', 600),
        ("SimRuntime = 12.5", 12.5),
    ],
)
def test_payload_runtime(attrs: str, runtime: float) -> None:
    assert payload_runtime(job(attrs), 777, NOW) == runtime


def test_payload_exit_code() -> None:
    assert payload_exit_code(job(), NOW) == 0
    assert payload_exit_code(job("SimExitCode = 3"), NOW) == 3
    assert payload_exit_code(job("SimExitCode = ProcId + 7"), NOW) == 7


@settings(deadline=None, max_examples=200)
@given(
    runtime=st.integers(1, 10_000),
    gaps=st.lists(st.integers(0, 5_000), max_size=8),
)
def test_suspension_delays_the_finish_by_exactly_the_time_suspended(
    runtime: int, gaps: list[int]
) -> None:
    clock = PayloadClock(100.0, float(runtime))
    now, suspended_for = 100.0, 0.0
    for i, gap in enumerate(gaps):
        finish = clock.finish_time()
        if finish is not None and now + gap >= finish:
            break
        now += gap
        if i % 2 == 0:
            assert clock.suspend(now) and not clock.suspend(now)
            assert clock.finish_time() is None
        else:
            suspended_for += gap
            assert clock.resume(now) and not clock.resume(now)
    if clock.suspended:
        clock.resume(now)
    assert clock.finish_time() == 100.0 + runtime + suspended_for
    assert clock.running_seconds(now) == now - 100.0 - suspended_for


def test_updates_report_state_and_cpu_without_suspension() -> None:
    ad = job("ImageSize = 2048; DiskUsage = 10")
    clock = PayloadClock(0.0, 100.0)
    clock.suspend(30.0)
    update = usage_ad(ad, clock, 50.0, 1234)
    assert update.evaluate("JobState") == "Suspended"
    assert update.evaluate("RemoteUserCpu") == 30.0
    assert update.evaluate("MemoryUsage") == 2
    assert update.evaluate("JobPid") == 1234
    clock.resume(50.0)
    assert usage_ad(ad, clock, 60.0, 1).evaluate("JobState") == "Running"


def test_the_exit_ad_says_how_the_job_ended() -> None:
    clock = PayloadClock(0.0, 100.0)
    normal = exit_ad(job(), clock, 100.0, 1, 3)
    assert normal.evaluate("ExitCode") == 3 and normal.evaluate("ExitBySignal") is False
    assert normal.evaluate("JobDuration") == 100.0
    killed = exit_ad(job(), clock, 40.0, 1, None)
    assert killed.evaluate("ExitBySignal") is True and "ExitCode" not in killed
