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
    acct.update_priorities(0, {})
    acct.set_factor("bob@x", 10)
    assert acct.effective_priority("bob@x") == 5.0


def test_priority_moves_halfway_to_usage_in_one_halflife() -> None:
    acct = Accountant(halflife=86400, default_factor=1)
    acct.update_priorities(0, {"alice@x": 10})
    assert acct.real_priority("alice@x") == MIN_PRIORITY  # no time has passed
    acct.update_priorities(86400, {"alice@x": 10})
    assert acct.real_priority("alice@x") == pytest.approx(0.5 * 0.5 + 10 * 0.5)
    acct.update_priorities(2 * 86400, {})
    assert acct.real_priority("alice@x") == pytest.approx(5.25 * 0.5)
    acct.update_priorities(100 * 86400, {})
    assert acct.real_priority("alice@x") == MIN_PRIORITY  # never below the floor


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
