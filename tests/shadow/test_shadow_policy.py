"""The job policy the shadow evaluates (UserPolicy::AnalyzePolicy), without I/O."""

from __future__ import annotations

import classad2
import pytest

from condorsim.classad import ClassAd
from daemons.shadow.policy import (
    PolicyAction,
    exit_policy,
    periodic_policy,
    periodic_policy_is_constant,
)

NOW = 1_767_225_600


def ad(text: str) -> ClassAd:
    return ClassAd.parse(f"[ JobStatus = 2; ExitCode = 0; ExitBySignal = false; {text} ]")


def test_nothing_fires_by_default_and_a_finished_job_leaves() -> None:
    assert periodic_policy(ad(""), NOW) is None
    outcome = exit_policy(ad(""), NOW)
    assert outcome.action is PolicyAction.REMOVE and outcome.attr == "OnExitRemove"
    assert outcome.reason == "The job attribute OnExitRemove expression 'true' evaluated to TRUE"


def test_periodic_hold_wins_over_periodic_remove_and_takes_reason_and_subcode() -> None:
    outcome = periodic_policy(ad(
        'PeriodicHold = true; PeriodicRemove = true; PeriodicHoldReason = "too big";'
        " PeriodicHoldSubCode = 7"), NOW)
    assert outcome is not None
    assert (outcome.action, outcome.reason, outcome.code, outcome.subcode) == (
        PolicyAction.HOLD, "too big", 3, 7)


def test_a_literal_undefined_never_fires_an_undefined_result_holds_with_code_5() -> None:
    assert periodic_policy(ad("PeriodicHold = undefined"), NOW) is None
    outcome = periodic_policy(ad("PeriodicRemove = Nope > 1"), NOW)
    assert outcome is not None and outcome.action is PolicyAction.HOLD and outcome.code == 5
    assert outcome.reason.endswith("evaluated to UNDEFINED")


def test_timer_remove_removes_once_its_time_has_passed() -> None:
    assert periodic_policy(ad(f"TimerRemove = {NOW}"), NOW) is None
    outcome = periodic_policy(ad(f"TimerRemove = {NOW - 1}"), NOW)
    assert outcome is not None and outcome.action is PolicyAction.REMOVE


def test_exit_policy_order_periodic_then_on_exit_hold_then_on_exit_remove() -> None:
    assert exit_policy(ad("PeriodicRemove = true; OnExitHold = true"), NOW).attr == "PeriodicRemove"
    held = exit_policy(ad("OnExitHold = true; OnExitRemove = false"), NOW)
    assert held.action is PolicyAction.HOLD and held.attr == "OnExitHold" and held.code == 3
    stay = exit_policy(ad("OnExitRemove = ExitCode != 0"), NOW)
    assert stay.action is PolicyAction.STAY
    assert stay.reason == (
        "The job attribute OnExitRemove expression 'ExitCode != 0' evaluated to FALSE")
    undefined = exit_policy(ad("OnExitRemove = Nope"), NOW)
    assert undefined.action is PolicyAction.HOLD and undefined.code == 5


def test_the_policy_reads_simulated_time() -> None:
    job = ad("PeriodicHold = time() > 1000")
    assert periodic_policy(job, 1000) is None
    assert periodic_policy(job, 1001) is not None


@pytest.mark.parametrize("text", [
    "ExitCode == 0 && (NumJobCompletions > 3)",
    "time()-JobCurrentStartExecutingDate>100",
    "a=?=undefined||b",
    "NumJobCompletions>=2 ? true : false",
    'strcat("a","b") == "ab"',
    "x =!= 1.5e3",
    "(ExitBySignal == false) && (ExitCode == 0)",
])
def test_the_expression_in_a_reason_is_unparsed_as_htcondor_does(text: str) -> None:
    outcome = exit_policy(ad(f"OnExitRemove = {text}; OnExitHold = false"), NOW)
    expected = str(classad2.ExprTree(text))
    assert f"expression '{expected}' evaluated to" in outcome.reason


@pytest.mark.parametrize(("text", "constant"), [
    ("", True),
    ("PeriodicHold = false; PeriodicRemove = false", True),  # condor_submit's defaults
    ("PeriodicHold = 0; PeriodicRemove = undefined", True),
    ("PeriodicHold = true", False),  # fires at the first evaluation
    ('PeriodicRemove = "yes"', False),  # fires as undefined (a hold)
    ("PeriodicHold = RemoteWallClockTime > 3600", False),
    ("PeriodicRemove = time() > 5", False),
    (f"TimerRemove = {NOW + 600}", False),
])
def test_only_a_policy_that_cannot_fire_however_long_the_job_runs_is_constant(
        text: str, constant: bool) -> None:
    assert periodic_policy_is_constant(ad(text)) is constant
