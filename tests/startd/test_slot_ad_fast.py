"""The slot ad built by setting the slot's own attributes straight into the template's
dicts (Slot.ad, StartdState.slot_ad) is the ad built the plain way, by ``ClassAd.update``:
the same attributes, spellings, order and values, and the same wire bytes, after any
sequence of slot events (claims, jobs, starter updates, preemption, drains, fetched work,
published and cron attributes, and changes to the startd-wide and ATTRS ads). The sealed
ad the collector gets carries a wire form made as it is built: the same bytes as
``ad_to_wire`` makes of the plain ad."""

from __future__ import annotations

import itertools
from typing import Any

import msgpack
from _slot_steps import POLICY as SLOT_POLICY
from _slot_steps import claim_event
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd, SealedAd, ad_to_wire
from condorsim.config import Config
from daemons.startd.logic import StartdState
from daemons.startd.machines import read_machine
from daemons.startd.slot import _FALSE, _REQUIREMENTS, _ZERO, Slot, _host, literal
from daemons.startd.states import State

POLICY = "NUM_CPUS = 4\n" + SLOT_POLICY


# -- the plain way: the slot ad as it was built before the fast path ---------------------

def plain_template(slot: Slot) -> ClassAd:
    # made afresh every time: the fast path keeps it and checks its inputs instead
    ad = slot.common.copy()
    ad.update(slot.machine.extra_attrs)
    ad.update(slot.fixed_attrs())
    return ad


def plain_ad(slot: Slot, now: float, with_claim: bool = True) -> ClassAd:
    load = literal(slot.load_avg())
    ad = plain_template(slot)
    policy = slot.machine.policy
    ad.update({
        "State": literal(slot.state.value), "Activity": literal(slot.activity.value),
        "EnteredCurrentState": literal(int(slot.entered_state)),
        "EnteredCurrentActivity": literal(int(slot.entered_activity)),
        "LoadAvg": load, "CondorLoadAvg": load,
        "ClaimId": literal(slot.offered_claim_id),
        "START": policy["START"], "Rank": policy["RANK"],
        "CLAIM_WORKLIFE": policy["CLAIM_WORKLIFE"],
        "Requirements": _FALSE if slot.state == State.PREEMPTING or slot.draining
        else _REQUIREMENTS,
    })
    if slot.draining is not None:
        ad["Draining"] = True
        ad["DrainReason"] = slot.drain_reason
    claim = slot.claim
    if with_claim and claim is not None and slot.state in (State.CLAIMED, State.PREEMPTING):
        ad.update({name: literal(v) for name, v in claim.times(now).items()})
        user = literal(claim.user)
        ad.update({"CurrentRank": literal(claim.rank), "RemoteOwner": user,
                   "RemoteUser": user})
        if not claim.fetched:
            ad["ClientMachine"] = literal(_host(claim.scheduler_addr))
        if claim.job_ad is not None:
            ad["JobId"] = literal(claim.job_id())
            ad["JobStart"] = literal(int(claim.job_started))
            gjid = claim.job_ad.evaluate("GlobalJobId")
            if type(gjid) is str:
                ad["GlobalJobId"] = literal(gjid)
    elif with_claim:
        ad["CurrentRank"] = _ZERO
    if len(slot.published):
        ad.update(slot.published)
    if slot.cron_merge is not None:
        ad.update(slot.cron_merge(ad, slot.slot_id))
    return ad


def plain_slot_ad(state: StartdState, slot: Slot, now: float) -> ClassAd:
    ad = plain_ad(slot, now)
    load = literal(sum(s.load_avg() for s in state.slots if s.machine is slot.machine))
    idle = literal(max(0, int(now) - state.start_time))
    ad.update({"MyCurrentTime": literal(int(now)), "TotalLoadAvg": load,
               "TotalCondorLoadAvg": load, "KeyboardIdle": idle, "ConsoleIdle": idle})
    return ad


def same(fast: ClassAd, plain: ClassAd) -> None:
    assert list(fast._names.items()) == list(plain._names.items())  # names, spelling, order
    assert list(fast._attrs) == list(plain._attrs)
    assert fast == plain
    assert msgpack.packb(ad_to_wire(fast)) == msgpack.packb(ad_to_wire(plain))


# -- random slot histories ----------------------------------------------------------------

OPS = st.sampled_from(["claim", "activate", "exit", "release", "deactivate", "alive", "tick",
                       "update", "drain", "undrain", "fetch", "nowork", "publish", "cron",
                       "common", "extra"])


def _job(prio: int, cluster: int, gjid: bool) -> ClassAd:
    extra = f'GlobalJobId = "s#{cluster}.0#1"; ' if gjid else ""
    return ClassAd.parse(f'[ ClusterId = {cluster}; ProcId = 0; Owner = "u{prio}"; '
                         f'User = "u{prio}@x"; JobPrio = {prio}; Requirements = true; '
                         f'{extra}]')


def _cron(ad: ClassAd, slot_id: int) -> ClassAd:
    # a daemon cron's output: new attributes, and some the slot ad has, spelled otherwise
    return ClassAd({"CronValue": slot_id, "state": "Cron", "MYCURRENTTIME": 7,
                    "Seen": len(ad)})


@settings(deadline=None, max_examples=200)
@given(st.lists(st.tuples(OPS, st.integers(0, 3), st.integers(0, 9), st.integers(0, 300)),
                max_size=50))
def test_the_fast_slot_ad_is_the_plain_one(steps: list[tuple[str, int, int, int]]) -> None:
    machine = read_machine(Config.from_text(POLICY), "m")
    now = 1_000_000.0
    state = StartdState([machine], now=now, address="<1.2.3.4:5>", lease_duration=600,
                        uid_domain="u", filesystem_domain="f")
    slots = state.slots
    counter = itertools.count(1)
    for n, (op, which, prio, dt) in enumerate(steps):
        now += dt
        slot = slots[which % len(slots)]
        job = _job(prio, n, prio % 2 == 0)
        if op == "claim":
            slot.request_claim(slot.offered_claim_id, job, "<1.2.3.4:5>", now)
        elif claim_event(slot, op, job, prio, now):
            pass
        elif op == "drain":
            slot.drain(("graceful", "quick", "fast")[prio % 3], f"r{prio}", now)
        elif op == "undrain":
            slot.undrain(now)
        elif op == "fetch" and slot.draining is None and slot.state != State.DRAINED:
            # (a drained slot's START is false: its hook fetches nothing)
            slot.fetch_keyword = "K"
            slot.fetched_work(job, now)
        elif op == "nowork":
            slot.fetched_work(None, now)
        elif op == "publish":
            slot.published[("FetchWorkDelay", "LastBenchmark", "requirements")[prio % 3]] = prio
        elif op == "cron":
            slot.cron_merge = _cron if slot.cron_merge is None else None
        elif op == "common":
            state.common[f"Common{prio % 3}"] = next(counter)
        elif op == "extra":
            machine.extra_attrs[("Extra", "rank", "Start")[prio % 3]] = prio
        else:
            slot.tick(now)
        for s in slots:
            same(s.ad(now), plain_ad(s, now))
            same(s.ad(now, with_claim=False), plain_ad(s, now, with_claim=False))
            same(state.slot_ad(s, now), plain_slot_ad(state, s, now))
            sealed = state.slot_ad(s, now, sealed=True)
            assert isinstance(sealed, SealedAd) and sealed._wire is not None  # made as built
            same(sealed, plain_slot_ad(state, s, now))


def test_an_ads_changes_leave_the_next_ad_alone() -> None:
    """The template is copied: changing one ad does not show in the next."""
    machine = read_machine(Config.from_text(POLICY), "m")
    state = StartdState([machine], now=0.0, address="<1.2.3.4:5>", lease_duration=600,
                        uid_domain="u", filesystem_domain="f")
    slot = state.slots[0]
    first: Any = state.slot_ad(slot, 10.0)
    first["Extra"] = 1
    del first["State"]
    same(state.slot_ad(slot, 10.0), plain_slot_ad(state, slot, 10.0))
    sealed: Any = state.slot_ad(slot, 10.0, sealed=True)
    sealed["Extra"] = 2  # a sealed ad changed drops the wire form made with it
    plain = plain_slot_ad(state, slot, 10.0)
    plain["Extra"] = 2
    same(sealed, plain)
    same(state.slot_ad(slot, 10.0, sealed=True), plain_slot_ad(state, slot, 10.0))
