"""The coordinator's decisions, fed by hand: when does simulated time jump, and where to."""

from __future__ import annotations

from condorsim.runtime.coordinator import (
    Advance,
    Coordinator,
    EndOfInstant,
    Finished,
    Poll,
    Prepare,
)


def _both_rounds(c: Coordinator, reports: dict[str, tuple[int, int, float | None, bool]]) -> list:
    """Answer the current poll with ``reports``; return the actions after the last answer."""
    actions: list = []
    for name, (sent, received, deadline, eoi) in reports.items():
        actions = c.report(name, c.round, sent, received, deadline, eoi)
    return actions


def test_a_lone_idle_process_jumps_to_its_timer_after_two_agreeing_rounds():
    c = Coordinator(now=0.0)
    assert c.join("a") == [Poll(1)]
    assert _both_rounds(c, {"a": (0, 0, 300.0, False)}) == [Poll(2)]
    assert _both_rounds(c, {"a": (0, 0, 300.0, False)}) == [Prepare(300.0)]
    assert c.prepared("a") == [Advance(300.0), Poll(3)]
    assert c.now == 300.0 and c.jumps == 1


def test_no_jump_while_a_message_is_in_flight():
    c = Coordinator(now=0.0)
    c.join("a")
    c.join("b")
    # a sent one message that b has not received yet: the sums do not balance.
    for _ in range(5):
        actions = _both_rounds(c, {"a": (1, 0, 10.0, False), "b": (0, 0, 5.0, False)})
        assert actions == [Poll(c.round)]
    # b takes it; two agreeing rounds later the pool jumps to the earliest timer.
    assert _both_rounds(c, {"a": (1, 0, 10.0, False), "b": (0, 1, 5.0, False)}) == [Poll(c.round)]
    assert _both_rounds(c, {"a": (1, 0, 10.0, False), "b": (0, 1, 5.0, False)}) == [Prepare(5.0)]


def test_counts_that_moved_between_rounds_block_the_jump():
    c = Coordinator(now=0.0)
    c.join("a")
    c.join("b")
    _both_rounds(c, {"a": (2, 2, 10.0, False), "b": (2, 2, 10.0, False)})
    # Balanced, but not what the previous round saw: something happened in between.
    assert _both_rounds(c, {"a": (3, 3, 10.0, False), "b": (3, 3, 10.0, False)}) == [Poll(c.round)]


def test_end_of_instant_work_runs_before_any_jump():
    c = Coordinator(now=0.0)
    c.join("a")
    _both_rounds(c, {"a": (0, 0, 60.0, True)})
    actions = _both_rounds(c, {"a": (0, 0, 60.0, True)})
    assert actions == [EndOfInstant(3), Poll(3)]
    _both_rounds(c, {"a": (0, 0, 60.0, False)})
    assert _both_rounds(c, {"a": (0, 0, 60.0, False)}) == [Prepare(60.0)]


def test_an_expected_process_holds_every_jump_until_it_joins():
    c = Coordinator(now=0.0)
    c.join("a")
    c.expect("b")
    _both_rounds(c, {"a": (0, 0, 1.0, False)})
    assert _both_rounds(c, {"a": (0, 0, 1.0, False)}) == []
    assert c.join("b") == [Poll(c.round)]


def test_stale_answers_to_an_old_poll_are_ignored():
    c = Coordinator(now=0.0)
    c.join("a")
    old = c.round
    c.join("b")
    assert c.report("a", old, 0, 0, 1.0, False) == []


def test_messages_lost_with_a_dead_process_are_written_off():
    c = Coordinator(now=0.0)
    c.join("a")
    c.join("b")
    _both_rounds(c, {"a": (1, 0, 50.0, False), "b": (0, 0, 40.0, False)})
    # b dies before taking a's message: that message will never be received.
    assert c.leave("b") == []
    # One round to see the new membership, one that agrees with it: then the unbalanced
    # message is accepted as lost and time moves on.
    assert c.report("a", c.round, 1, 0, 50.0, False) == [Poll(c.round)]
    assert c.report("a", c.round, 1, 0, 50.0, False) == [Prepare(50.0)]


def test_the_simulation_finishes_when_no_timer_is_left_before_the_limit():
    c = Coordinator(now=0.0, limit=100.0)
    c.join("a")
    _both_rounds(c, {"a": (0, 0, 200.0, False)})
    assert _both_rounds(c, {"a": (0, 0, 200.0, False)}) == [Finished("limit reached", 0.0)]
    c2 = Coordinator(now=0.0)
    c2.join("a")
    _both_rounds(c2, {"a": (0, 0, None, False)})
    assert _both_rounds(c2, {"a": (0, 0, None, False)}) == [Finished("no timer left", 0.0)]
