"""condor_drain in the slot state machine: Drained/Idle once the claim is gone, no claim
taken while draining, graceful/quick/fast ends of a running job, and -cancel."""

from __future__ import annotations

import itertools

from condorsim.classad import ClassAd
from condorsim.config import Config
from daemons.startd.actions import StopJob
from daemons.startd.machines import read_machine
from daemons.startd.slot import Slot
from daemons.startd.states import Activity, State

T0 = 1_000_000


def _slot(config_text: str = "") -> Slot:
    counter = itertools.count(1)
    machine = read_machine(Config.from_text(config_text), "exec1")
    return Slot(machine, 1, T0, lambda slot: f"id{next(counter)}#{slot.name}", 1800)


def _job() -> ClassAd:
    return ClassAd.parse('[ ClusterId = 1; ProcId = 0; Owner = "alice"; User = "alice@x";'
                         ' Requirements = true; JobPrio = 0; Rank = 0 ]')


def _run(slot: Slot) -> str:
    claim_id = slot.offered_claim_id
    assert slot.request_claim(claim_id, _job(), "<127.0.0.1:1>", T0)[0]
    assert slot.activate(claim_id, _job(), T0) is None
    return claim_id


def test_an_unclaimed_slot_drains_at_once_takes_no_claim_and_cancel_frees_it() -> None:
    slot = _slot()
    assert slot.drain("graceful", "maintenance", T0 + 1) == []
    assert (slot.state, slot.activity) == (State.DRAINED, Activity.IDLE)
    ad = slot.ad(T0 + 1)
    assert ad.evaluate("Draining") is True and ad.evaluate("DrainReason") == "maintenance"
    assert ad.evaluate("Requirements") is False
    accepted, reason, _ = slot.request_claim(slot.offered_claim_id, _job(), "", T0 + 2)
    assert not accepted and reason == "the machine is draining"
    slot.tick(T0 + 3)  # stays drained
    assert slot.state == State.DRAINED
    slot.undrain(T0 + 4)
    assert (slot.state, slot.activity) == (State.UNCLAIMED, Activity.IDLE)
    assert "Draining" not in slot.ad(T0 + 4)


def test_graceful_drain_retires_the_job_then_the_slot_is_drained() -> None:
    slot = _slot("MAXJOBRETIREMENTTIME = 600")
    claim_id = _run(slot)
    assert slot.drain("graceful", "", T0 + 10) == []
    assert (slot.state, slot.activity) == (State.CLAIMED, Activity.RETIRING)
    assert slot.tick(T0 + 300) == []  # still within its retirement time
    stop = slot.tick(T0 + 600)  # MAXJOBRETIREMENTTIME from the job's start: vacated
    assert [type(a) for a in stop] == [StopJob]
    assert slot.state == State.PREEMPTING
    slot.starter_exited(claim_id, T0 + 601)
    assert (slot.state, slot.activity) == (State.DRAINED, Activity.IDLE)


def test_quick_and_fast_drains_vacate_or_kill_the_job() -> None:
    quick, fast = _slot(), _slot()
    _run(quick)
    _run(fast)
    assert [type(a) for a in quick.drain("quick", "", T0 + 5)] == [StopJob]
    assert (quick.state, quick.activity) == (State.PREEMPTING, Activity.VACATING)
    assert [type(a) for a in fast.drain("fast", "", T0 + 5)] == [StopJob]
    assert (fast.state, fast.activity) == (State.PREEMPTING, Activity.KILLING)
