"""Virtual time across real processes: random message storms never see a jump in flight.

Each storm process sets random timers; when one fires, it sends bursts of pings that hop
between random processes. Every ping carries the simulated time it was sent at, and its
receiver checks the clock has not moved; every timer checks it fired at exactly its
deadline. The pool must end exactly at the last timer of all.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from condorsim.runtime.storm import run_storm

pytestmark = pytest.mark.pool


@settings(max_examples=4, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    processes=st.integers(2, 5),
    timers=st.integers(1, 12),
    max_burst=st.integers(1, 4),
    max_hops=st.integers(0, 4),
)
# A storm big enough that messages often reach a process still frozen at an earlier time
# (derandomized examples alone start small).
@example(seed=5, processes=4, timers=10, max_burst=3, max_hops=3)
@example(seed=7, processes=5, timers=12, max_burst=4, max_hops=2)
def test_no_jump_while_a_message_is_in_flight_and_timers_fire_on_time(
    seed: int, processes: int, timers: int, max_burst: int, max_hops: int
) -> None:
    outcome = run_storm(
        processes, seed=seed, timers=timers, horizon=600, max_burst=max_burst,
        max_hops=max_hops,
    )
    violations = [v for t in outcome.tallies for v in t["violations"]]  # type: ignore[union-attr]
    assert violations == []
    assert [t["timers_fired"] for t in outcome.tallies] == [timers] * processes
    sent = sum(t["pings_sent"] for t in outcome.tallies)  # type: ignore[misc]
    received = sum(t["pings_received"] for t in outcome.tallies)  # type: ignore[misc]
    assert sent == received
    assert outcome.finish_reason == "no timer left"
    assert outcome.final_time == max(t["last_deadline"] for t in outcome.tallies)  # type: ignore[type-var]
