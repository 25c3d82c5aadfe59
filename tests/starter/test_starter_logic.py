"""The starter's decisions without I/O: deferral (facts 1.3), runtime, the payload clock."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd, SealedAd, ad_to_wire
from condorsim.wire import encode
from condorsim.wire import messages as m
from daemons.starter.logic import (
    DeferralAction,
    PayloadClock,
    UpdateAd,
    deferral_decision,
    exit_ad,
    payload_exit_code,
    payload_runtime,
    provisioned_ad,
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


_SIZES = st.one_of(st.none(), st.integers(-5, 10**7), st.floats(-5, 1e7, allow_nan=False),
                   st.sampled_from(['"big"', "UNDEFINED", "1 + 2"]))
_RESOURCES = st.lists(st.sampled_from(["Cpus", "cpus", "Disk", "Memory", "GPUs", "JobState",
                                       "RemoteUserCpu", "Swap"]), max_size=5)


@st.composite
def _update_case(draw: st.DrawFn) -> tuple[ClassAd, ClassAd, PayloadClock, int, list[float]]:
    job_text = "".join(f"{attr} = {value}; " for attr in
                       ("SimImageSize", "ImageSize", "SimDiskUsage", "DiskUsage")
                       if (value := draw(_SIZES)) is not None)
    names = draw(_RESOURCES)
    slot_text = "".join(f"{name} = {draw(st.integers(0, 64))}; " for name in names)
    slot_text += "".join(f"Assigned{name} = \"{name}-0\"; " for name in names
                         if draw(st.booleans()))
    if draw(st.booleans()):
        slot_text += f'MachineResources = "{", ".join(draw(_RESOURCES))}"; '
    started = draw(st.integers(NOW, NOW + 10**6)) + draw(st.sampled_from([0.0, 0.25]))
    clock = PayloadClock(started, float(draw(st.integers(1, 10**5))))
    times = sorted(draw(st.lists(st.floats(0, 10**5, allow_nan=False), min_size=1, max_size=8)))
    return (job(job_text), ClassAd.parse(f"[ Name = \"slot1@x\"; {slot_text}]"), clock,
            draw(st.integers(1000, 10**6)), [started + t for t in times])


@given(_update_case(), st.lists(st.booleans(), min_size=8, max_size=8))
@settings(max_examples=300, deadline=None)
def test_the_made_update_ad_is_the_plain_one(
    case: tuple[ClassAd, ClassAd, PayloadClock, int, list[float]], suspends: list[bool],
) -> None:
    """UpdateAd.at gives, at every update, what usage_ad merged with provisioned_ad gives:
    the same names in the same order, the same trees, the same wire map and message bytes,
    while the clock is suspended and resumed between updates."""
    job_ad, slot_ad, clock, pid, times = case
    made: UpdateAd | None = None
    for now, suspend in zip(times, suspends, strict=False):
        (clock.suspend if suspend else clock.resume)(now)
        plain = usage_ad(job_ad, clock, now, pid)
        plain.update(provisioned_ad(slot_ad))
        if made is None:
            made = UpdateAd(job_ad, slot_ad, clock, pid, now)
        fast = made.at(now)
        assert fast.names() == plain.names()
        assert fast == plain
        assert list(ad_to_wire(fast).items()) == list(ad_to_wire(plain).items())
        for msg in (m.REGISTER_JOB_INFO(job="1.0", ad=fast),
                    m.STARTER_UPDATE(claim_id="<c>#1", ad=fast)):
            twin = dataclasses.replace(msg, ad=plain)
            assert encode(msg, (now, 3, "c1>")) == encode(twin, (now, 3, "c1>"))


def test_a_changed_update_ad_drops_its_made_wire_form() -> None:
    """The update ad keeps its wire form only while unchanged (a hook's copy may change)."""
    clock = PayloadClock(NOW, 600.0)
    ad = UpdateAd(job("SimImageSize = 2048"), ClassAd.parse("[ Cpus = 1 ]"), clock, 7,
                  NOW).at(NOW + 10)
    assert isinstance(ad, SealedAd)
    ad["RemoteSysCpu"] = 1.5
    assert ad_to_wire(ad)["RemoteSysCpu"] == 1.5
