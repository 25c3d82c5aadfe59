"""Fetched work in the slot state machine and the fetch throttle (no sockets, no clocks)."""

from __future__ import annotations

import itertools

from condorsim.classad import ClassAd, parse_expr
from condorsim.config import Config
from daemons.startd.actions import ClaimGranted, FetchClaimEvicted, StartFetchedJob, StopJob
from daemons.startd.fetch import FetchState, fetch_delay
from daemons.startd.machines import read_machine
from daemons.startd.slot import Slot
from daemons.startd.states import Activity, State

T0 = 1_000_000


def _slot(config_text: str = "", keyword: str | None = "SITE") -> Slot:
    counter = itertools.count(1)
    machine = read_machine(Config.from_text(config_text), "exec1")
    slot = Slot(machine, 1, T0, lambda s: f"id{next(counter)}#{s.name}", 1800)
    slot.fetch_keyword = keyword
    return slot


def _fetched(cluster: int, **attrs: object) -> ClassAd:
    ad = ClassAd({"ClusterId": cluster, "ProcId": 0, "Owner": "site", "Cmd": "/bin/sleep"})
    ad.update(attrs)
    return ad


def _where(slot: Slot) -> tuple[State, Activity]:
    return slot.state, slot.activity


def test_an_unclaimed_slot_claims_fetched_work_and_starts_it() -> None:
    slot = _slot()
    offered = slot.offered_claim_id
    decision = slot.fetched_work(_fetched(7), T0)
    assert decision.accepted and decision.claim_id == offered
    assert _where(slot) == (State.CLAIMED, Activity.BUSY)
    assert decision.actions == [StartFetchedJob(offered, decision.job_ad)]  # type: ignore[arg-type]
    job = decision.job_ad
    assert job is not None and job.evaluate("HookKeyword") == "SITE"
    assert [job.evaluate(a) for a in ("RequestCpus", "RequestMemory", "RequestDisk")] == [1, 1, 1]
    assert slot.claim is not None and slot.claim.fetched
    assert slot.claim.starter_job() == "7.0@slot1@exec1" and slot.offered_claim_id != offered
    assert slot.ad(T0).evaluate("RemoteOwner") == "site"


def test_the_jobs_own_keyword_is_kept() -> None:
    decision = _slot().fetched_work(_fetched(7, HookKeyword="OTHER"), T0)
    assert decision.job_ad is not None and decision.job_ad.evaluate("HookKeyword") == "OTHER"


def test_start_decides_and_a_refused_job_leaves_an_unclaimed_slot_alone() -> None:
    slot = _slot('START = TARGET.Owner =!= "site"')
    decision = slot.fetched_work(_fetched(7), T0)
    assert not decision.accepted and "START" in decision.reason and decision.actions == []
    assert _where(slot) == (State.UNCLAIMED, Activity.IDLE)


def test_the_idle_fetched_claim_is_reused_then_evicted_when_the_work_runs_out() -> None:
    slot = _slot()
    first = slot.fetched_work(_fetched(7), T0)
    claim_id = first.claim_id
    slot.starter_exited(claim_id, T0 + 60)
    assert slot.idle_fetch_claim()
    again = slot.fetched_work(_fetched(8), T0 + 60)
    assert again.accepted and again.claim_id == claim_id
    assert again.actions == [StartFetchedJob(claim_id, again.job_ad)]  # type: ignore[arg-type]
    slot.starter_exited(claim_id, T0 + 120)
    out = slot.fetched_work(None, T0 + 120)
    assert not out.accepted and out.job_ad is None
    assert [type(a) for a in out.actions] == [FetchClaimEvicted]
    assert out.actions[0].job_ad.evaluate("ClusterId") == 8  # type: ignore[union-attr]
    # Preempting, Owner, then Unclaimed at once: the slot is free again
    states = [(s.value, a.value) for _, s, a, _ in slot.transitions]
    assert ("Preempting", "Vacating") in states and ("Owner", "Idle") in states
    assert _where(slot) == (State.UNCLAIMED, Activity.IDLE) and slot.claim is None


def test_a_refused_job_ends_an_idle_fetched_claim_too() -> None:
    slot = _slot("START = TARGET.Bad =!= true")
    claim_id = slot.fetched_work(_fetched(7), T0).claim_id
    slot.starter_exited(claim_id, T0 + 60)
    out = slot.fetched_work(_fetched(8, Bad=True), T0 + 60)
    assert not out.accepted and [type(a) for a in out.actions] == [FetchClaimEvicted]
    assert _where(slot) == (State.UNCLAIMED, Activity.IDLE)


def test_fetched_work_preempts_only_with_a_strictly_higher_rank() -> None:
    slot = _slot("RANK = TARGET.FetchRank")
    first = slot.fetched_work(_fetched(7, FetchRank=1), T0)
    equal = slot.fetched_work(_fetched(8, FetchRank=1), T0 + 300)
    assert not equal.accepted and "rank" in equal.reason and equal.actions == []
    assert equal.claim_id == first.claim_id  # REPLY_FETCH is told the current claim
    higher = slot.fetched_work(_fetched(9, FetchRank=5), T0 + 600)
    assert higher.accepted
    kinds = [type(a) for a in higher.actions]
    assert kinds == [FetchClaimEvicted, StopJob]  # job 7 is vacated, its claim evicted
    assert higher.actions[1] == StopJob(first.claim_id, "7.0@slot1@exec1")
    actions = slot.starter_exited(first.claim_id, T0 + 600)
    assert any(isinstance(a, StartFetchedJob) for a in actions)
    assert slot.claim is not None and slot.claim.request_ad.evaluate("ClusterId") == 9
    assert _where(slot) == (State.CLAIMED, Activity.BUSY)


def test_a_schedd_job_of_higher_rank_preempts_fetched_work() -> None:
    slot = _slot('RANK = ifThenElse(TARGET.Owner == "vip", 10, 0)')
    fetched = slot.fetched_work(_fetched(7), T0)
    vip = ClassAd.parse('[ ClusterId = 1; ProcId = 0; Owner = "vip"; Requirements = true ]')
    accepted, _, actions = slot.request_claim(slot.offered_claim_id, vip, "<schedd>", T0 + 10)
    assert accepted and [type(a) for a in actions] == [FetchClaimEvicted, StopJob]
    done = slot.starter_exited(fetched.claim_id, T0 + 11)
    assert any(isinstance(a, ClaimGranted) for a in done)
    assert slot.claim is not None and not slot.claim.fetched


def test_a_fetched_claim_has_no_lease_and_no_worklife() -> None:
    slot = _slot("CLAIM_WORKLIFE = 0")
    claim_id = slot.fetched_work(_fetched(7), T0).claim_id
    slot.starter_exited(claim_id, T0 + 10_000)
    assert slot.idle_fetch_claim() and slot.tick(T0 + 100_000) == []
    assert slot.next_deadline() is None


def test_fetch_delay_is_an_expression_with_300_by_default() -> None:
    slot_ad = ClassAd({"State": "Claimed", "Activity": "Idle"})
    example = parse_expr('ifThenElse(State == "Claimed" && Activity == "Idle", 0, 300)')
    assert fetch_delay(example, slot_ad, None, T0) == 0
    assert fetch_delay(None, slot_ad, None, T0) == 300
    assert fetch_delay(parse_expr("TARGET.Wait"), slot_ad, ClassAd({"Wait": 42}), T0) == 42
    assert fetch_delay(parse_expr('"soon"'), slot_ad, None, T0) == 300


def test_the_throttle_waits_for_the_delay_since_the_last_completed_fetch() -> None:
    slot = _slot()
    fs = FetchState("SITE", "/hook", start=T0, poll=5)
    assert fs.next_try(slot, 300, T0) == T0 + 5  # the first evaluation
    fs.spawned(T0 + 5)
    assert fs.next_try(slot, 300, T0 + 5) is None  # one fetch at a time
    fs.completed(300, T0 + 5)
    assert fs.next_try(slot, 300, T0 + 5) == T0 + 305  # the timer, a whole delay on
    # the delay drops to 0 (Claimed/Idle): the next evaluation fetches
    assert fs.next_try(slot, 0, T0 + 62) == T0 + 65
    # the starter's exit tries at once, or sets the timer for when the delay is spent
    assert fs.trigger(0, T0 + 62)
    assert not fs.trigger(300, T0 + 62) and fs.timer == T0 + 305
    assert fs.publish() == {"LastFetchWorkSpawned": T0 + 5, "LastFetchWorkCompleted": T0 + 5,
                            "NextFetchWorkDelay": 300}
    fs.not_willing(300, T0 + 305)
    assert fs.timer == T0 + 605


def test_a_draining_or_drained_slot_refuses_fetched_work() -> None:
    """A slot takes no new work while it drains, fetched or matched (its Requirements are
    false, as REQUEST_CLAIM is refused): the fetch hook may have been run before the drain
    began, and its job is then refused, not a crash of the startd."""
    drained = _slot()
    drained.drain("graceful", "test", T0)
    assert _where(drained) == (State.DRAINED, Activity.IDLE)
    decision = drained.fetched_work(_fetched(7), T0 + 1)
    assert not decision.accepted and "draining" in decision.reason and decision.actions == []
    assert _where(drained) == (State.DRAINED, Activity.IDLE)

    busy = _slot()
    assert busy.fetched_work(_fetched(7), T0).accepted
    busy.drain("graceful", "test", T0 + 5)  # the job retires; the slot drains meanwhile
    decision = busy.fetched_work(_fetched(8), T0 + 6)
    assert not decision.accepted and decision.reason  # retiring, then draining: refused
    assert busy.claim is not None and busy.claim.starter_job().startswith("7.0")
