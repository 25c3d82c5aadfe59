"""CLAIM_WORKLIFE on the slot: a claim that ran a job and is older than the knob takes no
more jobs, and the claim's clocks (TotalClaimRunTime, ...) in the slot ad."""

from __future__ import annotations

import itertools

import pytest

from condorsim.classad import ClassAd
from condorsim.config import Config
from daemons.startd.actions import WriteHistory
from daemons.startd.machines import read_machine
from daemons.startd.slot import Slot
from daemons.startd.states import Activity, Event, State

T0 = 1_000_000


def _slot(config_text: str = "") -> Slot:
    counter = itertools.count(1)
    machine = read_machine(Config.from_text(config_text), "exec1")
    return Slot(machine, 1, T0, lambda slot: f"id{next(counter)}#{slot.name}", 1800)


def _job(proc: int = 0) -> ClassAd:
    return ClassAd.parse(f'[ ClusterId = 1; ProcId = {proc}; Owner = "alice"; User = "alice@x";'
                         ' Requirements = true; Rank = 0 ]')


def _claim(slot: Slot, now: float = T0) -> str:
    claim_id = slot.offered_claim_id
    assert slot.request_claim(claim_id, _job(), "<127.0.0.1:1>", now)[0]
    return claim_id


def _run(slot: Slot, claim_id: str, start: float, end: float, proc: int = 0) -> list[object]:
    assert slot.activate(claim_id, _job(proc), start) is None
    return list(slot.starter_exited(claim_id, end))


def test_the_default_is_1200_seconds_and_is_published() -> None:
    slot = _slot()
    assert slot.worklife(T0) == 1200
    assert slot.ad(T0).evaluate("CLAIM_WORKLIFE") == 1200
    assert _slot("CLAIM_WORKLIFE = 300").ad(T0).evaluate("CLAIM_WORKLIFE") == 300
    assert _slot("SIM_MACHINE_exec1_CLAIM_WORKLIFE = -1\nCLAIM_WORKLIFE = 5").worklife(T0) == -1


def test_a_claim_is_reused_up_to_its_worklife_then_shuts_down_when_its_job_exits() -> None:
    slot = _slot("CLAIM_WORKLIFE = 300")
    claim_id = _claim(slot)
    _run(slot, claim_id, T0, T0 + 120)
    _run(slot, claim_id, T0 + 120, T0 + 240, proc=1)
    # age 300 is not more than 300: a job may still start
    _run(slot, claim_id, T0 + 240, T0 + 300, proc=2)
    assert (slot.state, slot.activity) == (State.CLAIMED, Activity.IDLE)
    actions = _run(slot, claim_id, T0 + 300, T0 + 301, proc=3)
    assert [type(a) for a in actions] == [WriteHistory]
    # 301 > 300: the idle claim shut down; the slot offers a fresh claim
    assert (slot.state, slot.activity, slot.claim) == (State.UNCLAIMED, Activity.IDLE, None)
    events = [e for _, _, _, e in slot.transitions]
    assert events[-3:] == [Event.WORKLIFE, Event.PREEMPTED_DONE, Event.START_TRUE]
    assert slot.activate(claim_id, _job(4), T0 + 302) == "claim id is not valid"


def test_activation_is_refused_once_the_worklife_is_over() -> None:
    slot = _slot("CLAIM_WORKLIFE = 100")
    claim_id = _claim(slot)
    # a claim that never ran a job does not expire (HTCondor counts activations)
    assert not slot.worklife_expired(T0 + 5000)
    _run(slot, claim_id, T0, T0 + 50)
    assert slot.state == State.CLAIMED and not slot.worklife_expired(T0 + 100)
    assert slot.worklife_expired(T0 + 101)
    reason = slot.activate(claim_id, _job(1), T0 + 101)
    assert reason == "the claim's CLAIM_WORKLIFE (100 s) has expired: it takes no more jobs"
    assert (slot.state, slot.activity) == (State.CLAIMED, Activity.IDLE)


def test_an_idle_claim_shuts_down_when_it_turns_too_old() -> None:
    slot = _slot("CLAIM_WORKLIFE = 100")
    claim_id = _claim(slot)
    assert slot.next_deadline() == T0 + 1800  # only the lease before the first job
    _run(slot, claim_id, T0, T0 + 50)
    assert slot.next_deadline() == T0 + 101
    assert slot.tick(T0 + 100) == [] and slot.state == State.CLAIMED
    slot.tick(T0 + 101)
    assert (slot.state, slot.claim) == (State.UNCLAIMED, None)


@pytest.mark.parametrize("value", ["-1", "undefined", '"soon"'])
def test_a_negative_or_non_integer_worklife_means_no_limit(value: str) -> None:
    slot = _slot(f"CLAIM_WORKLIFE = {value}")
    claim_id = _claim(slot)
    for n in range(10):
        _run(slot, claim_id, T0 + 1000 * n, T0 + 1000 * n + 900, proc=n)
    assert slot.state == State.CLAIMED and slot.current_claim_id == claim_id
    assert slot.next_deadline() == slot.claim.lease_deadline  # type: ignore[union-attr]


def test_a_zero_worklife_takes_one_job_per_claim() -> None:
    slot = _slot("CLAIM_WORKLIFE = 0")
    claim_id = _claim(slot)
    _run(slot, claim_id, T0, T0 + 10)
    assert slot.claim is None and slot.offered_claim_id != claim_id


def test_the_slot_ad_carries_the_claims_clocks() -> None:
    slot = _slot("WANT_SUSPEND = True\nSUSPEND = SimSuspend =?= true\nCONTINUE = true")
    claim_id = _claim(slot)
    assert slot.ad(T0).lookup("TotalClaimRunTime") is None  # published only when > 0
    _run(slot, claim_id, T0, T0 + 100)
    ad = slot.ad(T0 + 150)
    assert ad.evaluate("TotalClaimRunTime") == 100
    assert ad.lookup("TotalJobRunTime") is None  # no job now
    assert slot.activate(claim_id, _job(1), T0 + 200) is None
    assert slot.ad(T0 + 230).evaluate("TotalJobRunTime") == 30
    assert slot.ad(T0 + 230).evaluate("TotalClaimRunTime") == 130
    # a suspension: the run clocks stop, the suspend clocks go
    slot.machine.extra_attrs["SimSuspend"] = True
    slot.tick(T0 + 240)
    assert slot.activity == Activity.SUSPENDED
    ad = slot.ad(T0 + 300)
    assert (ad.evaluate("TotalJobRunTime"), ad.evaluate("TotalJobSuspendTime"),
            ad.evaluate("TotalClaimRunTime"), ad.evaluate("TotalClaimSuspendTime")) == (
        40, 60, 140, 60)
    slot.machine.extra_attrs["SimSuspend"] = False
    slot.tick(T0 + 300)
    slot.starter_exited(claim_id, T0 + 310)
    ad = slot.ad(T0 + 400)
    assert (ad.evaluate("TotalClaimRunTime"), ad.evaluate("TotalClaimSuspendTime")) == (150, 60)
    slot.release(claim_id, T0 + 400)
    assert slot.ad(T0 + 400).lookup("TotalClaimRunTime") is None  # a new claim starts at 0
