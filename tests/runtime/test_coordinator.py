"""The coordinator's decisions, fed by hand: when does simulated time jump, where, and who runs."""

from __future__ import annotations

from condorsim.runtime.coordinator import (
    Advance,
    Coordinator,
    EndOfInstant,
    Finished,
    Run,
)


def _pool(*names: str, now: float = 0.0, limit: float = float("inf")) -> Coordinator:
    c = Coordinator(now=now, limit=limit)
    for name in names:
        assert c.join(name) == [Run((name,), now)]
    return c


def test_a_lone_idle_process_jumps_to_its_timer_on_its_first_report():
    c = _pool("a")
    assert c.report("a", 0, 0, 0, 300.0, False) == [Advance(300.0), Run(("a",), 300.0)]
    assert c.now == 300.0 and c.jumps == 1


def test_only_the_processes_whose_timer_is_due_are_run_at_a_jump():
    c = _pool("a", "b", "c")
    c.report("a", 0, 0, 0, 50.0, False)
    c.report("b", 0, 0, 0, 90.0, False)
    assert c.report("c", 0, 0, 0, 50.0, False) == [Advance(50.0), Run(("a", "c"), 50.0)]
    # b stays frozen at its earlier time; its report still stands.
    c.report("a", 0, 0, 0, None, False)
    assert c.report("c", 0, 0, 0, None, False) == [Advance(90.0), Run(("b",), 90.0)]


def test_the_hosts_own_process_is_run_only_when_its_timer_is_due():
    c = _pool("master", "a")
    c.local = "master"
    c.report("master", 0, 0, 0, 20.0, False)
    assert c.report("a", 0, 0, 0, 10.0, False) == [Advance(10.0), Run(("a",), 10.0)]
    assert c.report("a", 0, 0, 0, 20.0, False) == [Advance(20.0), Run(("a", "master"), 20.0)]


def test_the_hosts_own_process_is_run_at_every_jump_while_a_task_of_it_waits_for_one():
    c = _pool("master", "a")
    c.local = "master"
    waiting = [True]
    c.local_waits_for_jumps = lambda: waiting[0]
    c.report("master", 0, 0, 0, 20.0, False)
    assert c.report("a", 0, 0, 0, 10.0, False) == [Advance(10.0), Run(("a", "master"), 10.0)]
    waiting[0] = False
    c.report("master", 0, 0, 0, 20.0, False)
    assert c.report("a", 0, 0, 0, 15.0, False) == [Advance(15.0), Run(("a",), 15.0)]


def test_no_jump_while_a_message_is_on_its_way_to_a_frozen_process():
    c = _pool("a", "b")
    # a sent one message that b has not handled: the sums do not balance.
    assert c.report("b", 0, 0, 0, 5.0, False) == []
    assert c.report("a", 0, 1, 0, 10.0, False) == []
    # b holds it: b alone is thawed at the current instant, handles it, reports again.
    assert c.hold("b") == [Run(("b",), 0.0)]
    assert c.report("b", 0, 0, 1, 5.0, False) == [Advance(5.0), Run(("b",), 5.0)]


def test_nothing_is_decided_while_a_process_is_still_running():
    c = _pool("a", "b")
    assert c.report("a", 0, 3, 3, 10.0, False) == []
    assert c.report("b", 0, 3, 3, 10.0, False) == [Advance(10.0), Run(("a", "b"), 10.0)]
    assert c.report("a", 0, 3, 3, 20.0, False) == []  # b was run too and has not reported


def test_a_hold_from_a_process_already_run_by_a_jump_is_answered_by_that_run():
    c = _pool("a", "b")
    c.report("a", 0, 0, 0, 10.0, False)
    c.report("b", 0, 0, 0, 10.0, False)
    assert c.hold("b") == []


def test_end_of_instant_work_runs_before_any_jump_in_the_processes_that_have_it():
    c = _pool("a", "b")
    c.report("a", 0, 0, 0, 60.0, True)
    assert c.report("b", 0, 0, 0, 60.0, False) == [EndOfInstant(1), Run(("a",), 0.0, True)]
    assert c.report("a", 0, 0, 0, 60.0, False) == [Advance(60.0), Run(("a", "b"), 60.0)]


def test_an_expected_process_holds_every_decision_until_it_joins():
    c = _pool("a")
    c.expect("b")
    assert c.report("a", 0, 0, 0, 1.0, False) == []
    assert c.join("b") == [Run(("b",), 0.0)]
    assert c.report("b", 0, 0, 0, None, False) == [Advance(1.0), Run(("a",), 1.0)]


def test_a_process_that_never_starts_is_forgotten():
    c = _pool("a")
    c.expect("b")
    c.report("a", 0, 0, 0, 1.0, False)
    assert c.forget("b") == [Advance(1.0), Run(("a",), 1.0)]


def test_messages_lost_with_a_dead_process_are_written_off_after_two_agreeing_looks():
    c = _pool("a", "b")
    c.report("b", 0, 0, 0, 40.0, False)
    c.report("a", 0, 1, 0, 50.0, False)
    # b dies before handling a's message: that message will never be handled.
    assert c.leave("b") == [Run(("a",), 0.0)]  # look at everyone again
    assert c.report("a", 0, 1, 0, 50.0, False) == [Advance(50.0), Run(("a",), 50.0)]


def test_a_message_that_arrives_during_the_look_after_a_death_is_not_written_off():
    c2 = _pool("a", "b", "c")
    c2.report("c", 0, 0, 0, 40.0, False)
    c2.report("b", 0, 0, 0, 40.0, False)
    c2.report("a", 0, 1, 0, 40.0, False)  # a message to b is still on its way
    assert c2.leave("c") == [Run(("a", "b"), 0.0)]
    c2.report("a", 0, 1, 0, 40.0, False)
    # b handled the message meanwhile: counts moved, balanced, no write-off needed.
    assert c2.report("b", 0, 0, 1, 40.0, False) == [Advance(40.0), Run(("a", "b"), 40.0)]


def test_the_simulation_finishes_when_no_timer_is_left_before_the_limit():
    c = _pool("a", limit=100.0)
    assert c.report("a", 0, 0, 0, 200.0, False) == [Finished("limit reached", 0.0)]
    assert c.hold("a") == []
    c2 = _pool("a")
    assert c2.report("a", 0, 0, 0, None, False) == [Finished("no timer left", 0.0)]


def test_a_process_being_killed_holds_every_decision_until_it_has_left():
    c = _pool("a", "b")
    c.report("b", 0, 0, 0, 40.0, False)
    c.will_leave("b")
    assert c.report("a", 0, 0, 0, 50.0, False) == []
    assert c.report("b", 0, 0, 0, 40.0, False) == []  # a last word from it changes nothing
    # Nothing was lost with it; the others run once more at the instant of the death (news
    # of it may be waiting for them), and then time moves.
    assert c.leave("b") == [Run(("a",), 0.0)]
    assert c.report("a", 0, 0, 0, 50.0, False) == [Advance(50.0), Run(("a",), 50.0)]


def test_a_stall_without_a_hold_is_written_off_after_two_looks():
    c = _pool("a", "b")
    c.report("a", 0, 2, 0, 30.0, False)  # sent twice on a connection whose far end closed
    assert c.report("b", 0, 0, 1, 30.0, False) == []
    assert c.stalled()
    assert c.suspect_loss() == [Run(("a", "b"), 0.0)]
    c.report("a", 0, 2, 0, 30.0, False)
    assert c.report("b", 0, 0, 1, 30.0, False) == [Advance(30.0), Run(("a", "b"), 30.0)]
    assert not c.stalled() and c.suspect_loss() == []


# -- channels and self-thawing (messages stamped with their sender's time) --------------------


def _report(c: Coordinator, name: str, deadline: float | None, channels: dict[str, int],
            runs: int = 1, eoi: bool = False) -> list[object]:
    return list(c.report(name, c.round, 0, 0, deadline, eoi, channels=channels, runs=runs))


def test_a_process_a_message_thawed_reports_again_and_time_waits_for_it():
    c = _pool("a", "b")
    assert _report(c, "b", 50.0, {}) == []
    # a sent one message down channel x> and froze; b is frozen at the pool's time.
    assert _report(c, "a", 90.0, {"x>": 1}) == []  # x> unbalanced: no jump
    # b thawed itself at the message's stamp (no HOLD, no RUN), handled it, reports again.
    assert _report(c, "b", 50.0, {"x>": -1}) == [Advance(50.0), Run(("b",), 50.0)]
    assert c.holds == 0 and c.self_thaws == 1


def test_a_message_counted_on_one_side_only_is_not_made_up_by_another_channel():
    c = _pool("s", "p", "r")
    _report(c, "p", 40.0, {})
    _report(c, "r", 40.0, {})
    # s sent m to p (channel sp>) and reported. p thawed on it and, before reporting, sent
    # m2 to r (channel pr>), which r handled and reported. Summed over the pool the counts
    # balance (one sent, one handled), yet p is still running.
    assert _report(c, "s", 60.0, {"sp>": 1}) == []
    assert _report(c, "r", 40.0, {"pr>": -1}) == []
    assert c.now == 0.0 and c.stalled()  # every report in, channels unbalanced
    # p's report squares both channels: now the pool may jump.
    assert _report(c, "p", 40.0, {"sp>": -1, "pr>": 1}) == [Advance(40.0), Run(("p", "r"), 40.0)]


def test_a_report_made_before_a_run_arrived_does_not_answer_it():
    c = _pool("a", "b")
    _report(c, "a", 10.0, {})
    assert _report(c, "b", 10.0, {}) == [Advance(10.0), Run(("a", "b"), 10.0)]
    _report(c, "a", 20.0, {"ab>": 1}, runs=2)
    # b was thawed by a's message before its RUN reached it: that report (1 RUN seen, 2
    # sent) squares the channel but b is still to run its timers at 10.
    assert _report(c, "b", 10.0, {"ab>": -1}, runs=1) == []
    assert _report(c, "b", 30.0, {}, runs=2) == [Advance(20.0), Run(("a",), 20.0)]


def test_counts_lost_with_a_dead_process_per_channel_are_written_off_after_two_looks():
    c = _pool("a", "b")
    _report(c, "b", 40.0, {})
    _report(c, "a", 50.0, {"ab>": 1})  # sent to b, which dies before handling it
    c.will_leave("b")
    assert c.leave("b") == [Run(("a",), 0.0)]  # everyone looks once more at this instant
    # The look agrees with what was known when b left: a's message is lost; time moves.
    assert _report(c, "a", 50.0, {}, runs=2) == [Advance(50.0), Run(("a",), 50.0)]


def test_a_run_carries_the_decision_it_belongs_to():
    c = _pool("a")
    (_advance, run) = _report(c, "a", 300.0, {})
    assert isinstance(run, Run) and run.round == c.round == 1
