"""User priorities, fair-share limits and the cycle schedule."""

from __future__ import annotations

import pytest

from daemons.negotiator.accountant import (
    MIN_PRIORITY,
    Accountant,
    order_submitters,
    submitter_limits,
)
from daemons.negotiator.schedule import CycleSchedule


def test_a_new_user_starts_at_the_floor_times_the_factor() -> None:
    acct = Accountant()
    assert acct.effective_priority("alice@x") == MIN_PRIORITY * 1000
    acct.update_priorities(0)
    acct.set_factor("bob@x", 10)
    assert acct.effective_priority("bob@x") == 5.0


def _cycle(acct: Accountant, now: float, claimed: dict[str, tuple[str, float]]) -> None:
    # the negotiator's order at the start of a cycle, as HTCondor's
    acct.update_priorities(now)
    acct.check_matches(now, claimed)


def test_priority_moves_halfway_to_usage_in_one_halflife() -> None:
    acct = Accountant(halflife=86400, default_factor=1)
    ten = {f"slot{i}@m": ("alice@x", 1.0) for i in range(10)}
    _cycle(acct, 0, ten)
    assert acct.real_priority("alice@x") == MIN_PRIORITY  # no time has passed
    _cycle(acct, 86400, ten)
    assert acct.real_priority("alice@x") == pytest.approx(0.5 * 0.5 + 10 * 0.5)
    _cycle(acct, 2 * 86400, {})
    # the ten slots were held the whole day: charged, then released at this cycle
    assert acct.real_priority("alice@x") == pytest.approx(5.25 * 0.5 + 10 * 0.5)
    _cycle(acct, 3 * 86400, {})
    assert acct.real_priority("alice@x") == pytest.approx(7.625 * 0.5)
    _cycle(acct, 100 * 86400, {})
    assert acct.real_priority("alice@x") == MIN_PRIORITY  # never below the floor


def test_a_job_between_two_cycles_is_charged_from_its_match_to_the_next_cycle() -> None:
    # HTCondor's AddMatch/RemoveMatch: a match made at t=20 whose job ended before the
    # cycle at t=60 is charged 40 slot-seconds, and its user shows usage (condor_userprio)
    acct = Accountant(halflife=86400, default_factor=1)
    _cycle(acct, 0, {})
    acct.add_match("alice@x", "slot1@m", 2.0, 20)
    assert acct.usage() == {"alice@x": 2.0}
    _cycle(acct, 60, {})  # the slot is no longer claimed
    rec = acct.users["alice@x"]
    assert rec.accumulated == pytest.approx(80.0)  # 40 s x weight 2
    assert rec.last_usage == 60 and rec.begin_usage == 60
    assert acct.real_priority("alice@x") > MIN_PRIORITY
    assert acct.usage() == {}
    ad = acct.accounting_ads(60)[0]
    assert ad["AccumulatedUsage"] == pytest.approx(80.0) and ad["ResourcesUsed"] == 0
    _cycle(acct, 120, {})
    assert acct.users["alice@x"].accumulated == pytest.approx(80.0)  # nothing more


def test_a_slot_taken_over_by_another_user_moves_its_match() -> None:
    acct = Accountant(halflife=86400, default_factor=1)
    _cycle(acct, 0, {"slot1@m": ("alice@x", 1.0)})
    _cycle(acct, 100, {"slot1@m": ("bob@x", 1.0)})  # preempted between the cycles
    assert acct.usage() == {"bob@x": 1.0}
    assert acct.users["alice@x"].accumulated == pytest.approx(100.0)
    assert acct.accounting_ads(100)[1]["ResourcesUsed"] == 1


def test_fair_share_limits_are_inverse_to_eup_minus_usage() -> None:
    limits = submitter_limits({"a": 1.0, "b": 3.0}, {"a": 1.0}, 8.0)
    # shares 3/4 and 1/4 of 8 slots; a already uses one
    assert limits == {"a": pytest.approx(5.0), "b": pytest.approx(2.0)}
    assert submitter_limits({"a": 1.0}, {"a": 20.0}, 8.0) == {"a": 0.0}
    assert submitter_limits({}, {}, 8.0) == {}


def test_submitters_are_served_best_priority_first_ties_by_name() -> None:
    assert order_submitters({"c": 500.0, "a": 900.0, "b": 500.0}) == ["b", "c", "a"]


def test_cycles_every_interval_reschedule_waits_for_the_delays() -> None:
    sched = CycleSchedule(interval=60, min_interval=5, cycle_delay=20)
    assert sched.next_cycle(100) == 100
    sched.cycle_started(100)
    sched.cycle_ended(100)
    assert sched.next_cycle(101) == 160
    sched.reschedule()
    assert sched.next_cycle(101) == 120  # cycle delay after the end
    sched.cycle_started(120)
    sched.cycle_ended(150)  # a long cycle: 30 s
    assert sched.next_cycle(150) == 180  # start + interval
    sched.cycle_started(180)
    sched.cycle_ended(235)  # 55 s: the next waits 20 s after the end
    assert sched.next_cycle(235) == 255
    sched.reschedule()
    assert sched.next_cycle(236) == 255


def test_a_reschedule_during_a_cycle_asks_for_the_next_one() -> None:
    sched = CycleSchedule(interval=60, min_interval=5, cycle_delay=20)
    sched.cycle_started(60)
    sched.reschedule()  # arrives while the cycle runs
    sched.cycle_ended(61)
    assert sched.next_cycle(61) == 81  # the cycle delay after its end, not 120
    sched.cycle_started(81)
    sched.cycle_ended(81)
    assert sched.next_cycle(82) == 141  # consumed by the cycle it started
