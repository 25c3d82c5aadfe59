"""The slot state machine without sockets or clocks: claims, jobs, policy, preemption."""

from __future__ import annotations

import itertools

import pytest

from condorsim.classad import ClassAd
from condorsim.config import Config
from daemons.startd.actions import ClaimGranted, StopJob, SuspendJob, WriteHistory
from daemons.startd.machines import MachineConfigError, read_machine, read_machines
from daemons.startd.slot import Slot
from daemons.startd.states import (
    TRANSITIONS,
    Activity,
    Event,
    IllegalTransition,
    State,
    next_state,
)

T0 = 1_000_000


def _slot(config_text: str = "", lease: float = 1800) -> Slot:
    counter = itertools.count(1)
    machine = read_machine(Config.from_text(config_text), "exec1")
    return Slot(machine, 1, T0, lambda slot: f"id{next(counter)}#{slot.name}", lease)


def _job(owner: str = "alice", prio: int = 0, cluster: int = 1) -> ClassAd:
    return ClassAd.parse(
        f'[ ClusterId = {cluster}; ProcId = 0; Owner = "{owner}"; User = "{owner}@x";'
        f' Requirements = true; JobPrio = {prio}; Rank = 0 ]'
    )


def _where(slot: Slot) -> tuple[State, Activity]:
    return slot.state, slot.activity


def _claim_and_run(slot: Slot, job: ClassAd, now: float = T0) -> str:
    claim_id = slot.offered_claim_id
    accepted, reason, actions = slot.request_claim(claim_id, job, "<127.0.0.1:1>", now)
    assert (accepted, reason, actions) == (True, "", [])
    assert slot.activate(claim_id, job, now) is None
    return claim_id


def test_a_new_slot_is_unclaimed_and_owner_when_start_is_false() -> None:
    assert (_slot().state, _slot().activity) == (State.UNCLAIMED, Activity.IDLE)
    assert _slot("START = False").state == State.OWNER
    owner = _slot("START = False")
    accepted, reason, _ = owner.request_claim(owner.offered_claim_id, _job(), "", T0)
    assert not accepted and "START" in reason


def test_claim_activate_exit_release_walks_the_table() -> None:
    slot = _slot()
    claim_id = _claim_and_run(slot, _job())
    assert _where(slot) == (State.CLAIMED, Activity.BUSY)
    ad = slot.ad(T0)
    assert (ad.evaluate("JobId"), ad.evaluate("RemoteUser")) == ("1.0", "alice@x")
    assert slot.offered_claim_id != claim_id
    assert slot.starter_update(claim_id, ClassAd({"ImageSize": 10}))
    actions = slot.starter_exited(claim_id, T0 + 50)
    assert len(actions) == 1 and isinstance(actions[0], WriteHistory)
    assert actions[0].job_ad.evaluate("ImageSize") == 10
    assert _where(slot) == (State.CLAIMED, Activity.IDLE)
    assert slot.release(claim_id, T0 + 60) == []
    assert (slot.state, slot.activity, slot.claim) == (State.UNCLAIMED, Activity.IDLE, None)
    assert slot.release(claim_id, T0 + 60) is None  # unknown now
    assert [e for _, _, _, e in slot.transitions] == [
        Event.START_TRUE, Event.CLAIMED, Event.ACTIVATED, Event.JOB_DONE, Event.RELEASED,
        Event.PREEMPTED_DONE, Event.START_TRUE]  # Preempting -> Owner -> Unclaimed


def test_releasing_a_busy_claim_vacates_the_job_first() -> None:
    slot = _slot()
    claim_id = _claim_and_run(slot, _job())
    assert slot.release(claim_id, T0 + 5) == [StopJob(claim_id, "1.0")]
    assert _where(slot) == (State.PREEMPTING, Activity.VACATING)
    slot.starter_exited(claim_id, T0 + 6)
    assert _where(slot) == (State.UNCLAIMED, Activity.IDLE)


def test_rank_preemption_waits_for_the_running_job_then_hands_over() -> None:
    slot = _slot("RANK = TARGET.JobPrio")
    old = _claim_and_run(slot, _job("alice", prio=1))
    assert slot.ad(T0).evaluate("CurrentRank") == 1.0
    # a lower-ranked job cannot take the slot
    low = slot.offered_claim_id
    accepted, _, _ = slot.request_claim(low, _job("bob", prio=0), "", T0)
    assert not accepted
    new = slot.offered_claim_id
    accepted, _, actions = slot.request_claim(new, _job("bob", prio=5, cluster=2), "", T0 + 1)
    assert accepted and actions == [StopJob(old, "1.0")]
    assert _where(slot) == (State.PREEMPTING, Activity.VACATING)
    actions = slot.starter_exited(old, T0 + 3)
    assert ClaimGranted(new) in actions
    assert (slot.state, slot.activity, slot.current_claim_id) == (
        State.CLAIMED, Activity.IDLE, new)


def test_preempt_retires_then_vacates_and_kill_follows_the_vacate_time() -> None:
    slot = _slot("PREEMPT = (time() - JobStart) > 100\nMAXJOBRETIREMENTTIME = 300\n"
                 "MachineMaxVacateTime = 20")
    claim_id = _claim_and_run(slot, _job())
    assert slot.tick(T0 + 100) == []
    assert _where(slot)[1] == Activity.BUSY
    assert slot.tick(T0 + 101) == []
    assert _where(slot) == (State.CLAIMED, Activity.RETIRING)
    assert slot.tick(T0 + 300) == [StopJob(claim_id, "1.0")]
    assert _where(slot) == (State.PREEMPTING, Activity.VACATING)
    slot.tick(T0 + 319)
    assert _where(slot)[1] == Activity.VACATING
    slot.tick(T0 + 320)
    assert _where(slot) == (State.PREEMPTING, Activity.KILLING)
    slot.starter_exited(claim_id, T0 + 321)
    assert _where(slot) == (State.UNCLAIMED, Activity.IDLE)


def test_want_vacate_false_kills_at_once() -> None:
    slot = _slot("PREEMPT = true\nWANT_VACATE = false")
    claim_id = _claim_and_run(slot, _job())
    assert slot.tick(T0 + 1) == [StopJob(claim_id, "1.0")]
    assert _where(slot) == (State.PREEMPTING, Activity.KILLING)


def test_suspend_and_continue() -> None:
    slot = _slot("WANT_SUSPEND = true\nSUSPEND = (time() - JobStart) >= 10\n"
                 "CONTINUE = (time() - JobStart) >= 30")
    claim_id = _claim_and_run(slot, _job())
    assert slot.tick(T0 + 10) == [SuspendJob(claim_id, "1.0", True)]
    assert _where(slot)[1] == Activity.SUSPENDED
    assert slot.tick(T0 + 30) == [SuspendJob(claim_id, "1.0", False)]
    assert _where(slot)[1] == Activity.BUSY


def test_start_moves_an_idle_slot_between_owner_and_unclaimed() -> None:
    slot = _slot(f"START = time() < {T0 + 100} || time() >= {T0 + 200}")
    assert _where(slot)[0] == State.UNCLAIMED
    slot.tick(T0 + 100)
    assert _where(slot)[0] == State.OWNER
    slot.tick(T0 + 200)
    assert _where(slot)[0] == State.UNCLAIMED


def test_the_lease_lapses_without_alive() -> None:
    slot = _slot(lease=600)
    claim_id = slot.offered_claim_id
    slot.request_claim(claim_id, _job(), "", T0)
    assert slot.next_deadline() == T0 + 600
    assert slot.alive(claim_id, T0 + 500)
    assert not slot.alive("nope", T0 + 500)
    slot.tick(T0 + 1099)
    assert _where(slot)[0] == State.CLAIMED
    slot.tick(T0 + 1100)
    assert _where(slot)[0] == State.UNCLAIMED and not slot.alive(claim_id, T0 + 1100)


def test_activate_needs_the_current_claim_while_idle() -> None:
    slot = _slot()
    assert slot.activate("nope", _job(), T0) == "claim id is not valid"
    claim_id = _claim_and_run(slot, _job())
    assert "not Claimed/Idle" in (slot.activate(claim_id, _job(), T0) or "")


def test_the_table_refuses_an_illegal_event() -> None:
    with pytest.raises(IllegalTransition, match="activated is not allowed in state Owner/Idle"):
        next_state(State.OWNER, Activity.IDLE, Event.ACTIVATED)
    # every transition leads to a (state, activity) pair that some event leaves or rests in
    sources = {(s, a) for s, a, _ in TRANSITIONS}
    assert all(target in sources for target in TRANSITIONS.values())


def test_machines_split_resources_and_bad_knobs_name_themselves() -> None:
    cfg = Config.from_text("SIM_MACHINES = a b\nSIM_MACHINE_a_SLOTS = 2\nSIM_MACHINE_a_CPUS = 4\n"
                           "SIM_MACHINE_a_MEMORY = 1000\nNUM_CPUS = 3\n")
    a, b = read_machines(cfg)
    assert (a.slots, a.slot_share()[:2], b.slots, b.cpus) == (2, (2, 500), 3, 3)
    assert [m.name for m in read_machines(Config.from_text(""))] == ["localhost"]
    with pytest.raises(MachineConfigError, match="SIM_MACHINE_a_START"):
        read_machine(Config.from_text("SIM_MACHINE_a_START = (("), "a")
    with pytest.raises(MachineConfigError, match="SIM_MACHINE_a_SLOTS"):
        read_machine(Config.from_text("SIM_MACHINE_a_SLOTS = 0"), "a")
    with pytest.raises(MachineConfigError, match="SIM_MACHINE_a_ATTRS"):
        read_machine(Config.from_text("SIM_MACHINE_a_ATTRS = [ x = ]"), "a")


def test_a_claim_being_preempted_has_no_lease_deadline_left() -> None:
    slot = _slot(lease=600)
    claim_id = _claim_and_run(slot, _job())
    assert slot.next_deadline() == T0 + 600
    slot.release(claim_id, T0 + 10)
    assert _where(slot) == (State.PREEMPTING, Activity.VACATING)
    assert slot.next_deadline() is None  # the job's exit, not a lease, ends it
    assert slot.tick(T0 + 610) == []
    assert _where(slot) == (State.PREEMPTING, Activity.KILLING)  # MachineMaxVacateTime 600
    # a starter that never reports the job gone is given up after KILLING_TIMEOUT (30 s)
    slot.tick(T0 + 639)
    assert _where(slot) == (State.PREEMPTING, Activity.KILLING)
    actions = slot.tick(T0 + 640)
    assert [type(a).__name__ for a in actions] == ["WriteHistory"]
    assert _where(slot) == (State.UNCLAIMED, Activity.IDLE)


def test_a_preempting_claim_lets_the_job_retire_first_and_the_slot_refuses_matches() -> None:
    slot = _slot("RANK = TARGET.JobPrio\nMAXJOBRETIREMENTTIME = 100")
    old = _claim_and_run(slot, _job("alice", prio=1))
    new = slot.offered_claim_id
    accepted, _, actions = slot.request_claim(new, _job("bob", prio=5, cluster=2), "", T0 + 10)
    assert accepted and actions == []
    assert _where(slot) == (State.CLAIMED, Activity.RETIRING)
    assert slot.tick(T0 + 99) == []
    assert slot.tick(T0 + 100) == [StopJob(old, "1.0")]
    assert _where(slot) == (State.PREEMPTING, Activity.VACATING)
    assert slot.ad(T0 + 100).evaluate("Requirements") is False
    assert ClaimGranted(new) in slot.starter_exited(old, T0 + 101)
    assert slot.ad(T0 + 101).evaluate("Requirements", _job()) is True


def test_with_want_suspend_preempt_is_not_looked_at_while_busy() -> None:
    slot = _slot("WANT_SUSPEND = true\nSUSPEND = false\nPREEMPT = true")
    _claim_and_run(slot, _job())
    assert slot.tick(T0 + 1) == []
    assert _where(slot) == (State.CLAIMED, Activity.BUSY)
    slot2 = _slot("WANT_SUSPEND = true\nSUSPEND = true\nCONTINUE = false\nPREEMPT = true")
    claim2 = _claim_and_run(slot2, _job())
    assert slot2.tick(T0 + 1) == [SuspendJob(claim2, "1.0", True)]
    # suspended: CONTINUE is false, PREEMPT is true -> retire (no retirement time) -> vacate
    assert slot2.tick(T0 + 2) == [StopJob(claim2, "1.0")]


def test_slot_ads_advertise_keyboard_and_console_idle_since_the_startd_started() -> None:
    # condor_status -state shows KbdIdle, and desktop policies (START = KeyboardIdle > ...)
    # read it: a simulated machine has had no console user since its startd started.
    from condorsim.config import Config
    from daemons.startd.logic import StartdState
    from daemons.startd.machines import read_machine

    config = Config.from_text("SIM_MACHINE_m1_CPUS = 2\n")
    state = StartdState([read_machine(config, "m1")], now=1000.0, address="<127.0.0.1:1>",
                        lease_duration=2400, uid_domain="d", filesystem_domain="d")
    ad = state.slot_ad(state.slots[0], 1900.5)
    assert ad.evaluate("KeyboardIdle") == 900
    assert ad.evaluate("ConsoleIdle") == 900
