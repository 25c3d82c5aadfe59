"""Random sequences of claim messages and policy ticks never break the slot's invariants."""

from __future__ import annotations

import itertools

from _slot_steps import POLICY, claim_event
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.config import Config
from daemons.startd.machines import read_machine
from daemons.startd.slot import Slot
from daemons.startd.states import Activity, State

OPS = st.sampled_from(["claim", "claim_old", "activate", "exit", "release", "deactivate",
                       "alive", "tick", "update"])


def _job(prio: int, cluster: int) -> ClassAd:
    return ClassAd.parse(f'[ ClusterId = {cluster}; ProcId = 0; Owner = "u{prio}"; '
                         f'User = "u{prio}@x"; JobPrio = {prio}; Requirements = true ]')


@settings(deadline=None, max_examples=150)
@given(st.lists(st.tuples(OPS, st.integers(0, 9), st.integers(0, 300)), max_size=60))
def test_random_sequences_keep_the_slot_consistent(
        steps: list[tuple[str, int, int]]) -> None:
    counter = itertools.count(1)
    machine = read_machine(Config.from_text(POLICY), "m")
    now = 1_000_000.0
    slot = Slot(machine, 1, now, lambda s: f"c{next(counter)}#{s.name}", 600)
    old_ids: list[str] = []
    for n, (op, prio, dt) in enumerate(steps):
        now += dt
        if op == "claim":
            offered = slot.offered_claim_id
            accepted, _, _ = slot.request_claim(offered, _job(prio, n), "<1.2.3.4:5>", now)
            if accepted:  # a refused id is still on offer
                old_ids.append(offered)
        elif op == "claim_old" and old_ids:
            accepted, _, _ = slot.request_claim(old_ids[prio % len(old_ids)], _job(prio, n),
                                                "", now)
            assert not accepted  # an id is good for one claim only
        elif claim_event(slot, op, _job(prio, n), prio, now):
            pass
        else:
            slot.tick(now)
        # invariants
        assert slot.offered_claim_id != slot.current_claim_id
        if slot.state in (State.OWNER, State.UNCLAIMED):
            assert slot.claim is None and slot.preempting is None
            assert slot.activity == Activity.IDLE
        if slot.state == State.CLAIMED:
            # a preempting claim waits only while the running job retires
            assert slot.claim is not None
            assert slot.preempting is None or slot.activity == Activity.RETIRING
            busy = slot.activity in (Activity.BUSY, Activity.SUSPENDED, Activity.RETIRING)
            assert busy == (slot.claim.job_ad is not None)
        if slot.state == State.PREEMPTING:
            assert slot.claim is not None and slot.claim.job_ad is not None
            assert slot.activity in (Activity.VACATING, Activity.KILLING)
        ad = slot.ad(now)
        assert ad.evaluate("State") == slot.state.value
        assert ("RemoteUser" in ad) == (slot.claim is not None)
        assert ("JobId" in ad) == (slot.claim is not None and slot.claim.job_ad is not None)
