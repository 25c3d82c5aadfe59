"""The matchmaker without sockets: candidates, sort order, preemption rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.config import Config
from daemons.negotiator.matchmaker import (
    Matchmaker,
    MatchPolicy,
    NegotiatorConfigError,
    Preemption,
    significant_attributes,
)

DEFAULTS = MatchPolicy.from_config(Config.from_text(""))
NOW = 1_000_000


def _slot(name: str, *, state: str = "Unclaimed", activity: str = "Idle", memory: int = 1024,
          cpus: int = 1, rank: str = "0", start: str = "true", user: str | None = None,
          current_rank: float = 0.0, slot_id: int = 1, kflops: int = 1000) -> ClassAd:
    ad = ClassAd.parse(
        f'[ MyType = "Machine"; Name = "{name}"; State = "{state}"; Activity = "{activity}";'
        f' Memory = {memory}; Cpus = {cpus}; SlotID = {slot_id}; KFlops = {kflops};'
        f' START = {start}; Requirements = START; Rank = {rank}; CurrentRank = {current_rank};'
        f' ClaimId = "claim-{name}" ]'
    )
    if user is not None:
        ad["RemoteOwner"] = user
        ad["RemoteUser"] = user
    return ad


def _job(requirements: str = "true", rank: str = "0", prio: int = 0,
         owner: str = "alice") -> ClassAd:
    return ClassAd.parse(
        f'[ MyType = "Job"; Owner = "{owner}"; JobPrio = {prio}; RequestMemory = 100;'
        f' Requirements = {requirements}; Rank = {rank} ]'
    )


def _names(mm: Matchmaker, job: ClassAd, submitter: str = "alice@x",
           eup: float = 500.0) -> list[str]:
    return [c.name for c in mm.candidates(job, submitter, eup)]


def _mm(slots: list[ClassAd], policy: MatchPolicy = DEFAULTS,
        prios: dict[str, float] | None = None) -> Matchmaker:
    table = prios or {}
    return Matchmaker(slots, policy, NOW, lambda user: table.get(user, 500.0))


def test_both_requirements_must_hold() -> None:
    mm = _mm([_slot("a", memory=50), _slot("b", start="TARGET.Owner == \"bob\""),
              _slot("c")])
    assert _names(mm, _job("TARGET.Memory >= RequestMemory")) == ["c"]
    assert _names(mm, _job(), "bob@x") == ["a", "c"]


def test_default_ranks_prefer_smaller_slots_then_the_job_rank_then_names() -> None:
    slots = [_slot("big", memory=4096), _slot("small", memory=512), _slot("mid", memory=1024)]
    assert _names(_mm(slots), _job()) == ["small", "mid", "big"]
    # equal pre-job rank: the job's Rank decides, then the post-job rank, then the name
    same = [_slot("z", kflops=10), _slot("y", kflops=10), _slot("x", kflops=20)]
    assert _names(_mm(same), _job()) == ["x", "y", "z"]
    assert _names(_mm(same), _job(rank='TARGET.Name == "z"')) == ["z", "x", "y"]


def test_slot_rank_dominates_the_pre_job_rank() -> None:
    slots = [_slot("plain", memory=100), _slot("fan", memory=9000, rank="TARGET.JobPrio")]
    assert _names(_mm(slots), _job(prio=1)) == ["fan", "plain"]


def test_busy_slots_need_rank_or_priority_preemption_and_claimed_idle_ones_are_skipped() -> None:
    slots = [
        _slot("idle-claim", state="Claimed", activity="Idle", user="bob@x"),
        _slot("busy", state="Claimed", activity="Busy", user="bob@x", rank="TARGET.JobPrio",
              current_rank=5.0),
        _slot("matched", state="Matched"),
        _slot("free", memory=9000),
    ]
    assert _names(_mm(slots), _job(prio=1)) == ["free"]
    found = _mm(slots).candidates(_job(prio=6), "alice@x", 500.0)
    # the default NEGOTIATOR_PRE_JOB_RANK puts the slot's own Rank first: the busy slot
    # that ranks the job 6 beats the free one that ranks it 0
    assert [(c.name, c.preemption) for c in found] == [
        ("busy", Preemption.RANK), ("free", Preemption.NONE)]
    # NEGOTIATOR_CONSIDER_PREEMPTION = false: busy slots are never candidates
    no_preempt = MatchPolicy.from_config(Config.from_text("NEGOTIATOR_CONSIDER_PREEMPTION = false"))
    assert _names(_mm(slots, no_preempt), _job(prio=6)) == ["free"]


def test_priority_preemption_needs_a_better_eup_and_preemption_requirements() -> None:
    busy = _slot("busy", state="Claimed", activity="Busy", user="bob@x")
    prios = {"bob@x": 5000.0}
    # PREEMPTION_REQUIREMENTS defaults to False
    assert _names(_mm([busy], prios=prios), _job(), "alice@x", 500.0) == []
    policy = MatchPolicy.from_config(Config.from_text(
        "PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2"))
    found = _mm([busy], policy, prios).candidates(_job(), "alice@x", 500.0)
    assert [(c.name, c.preemption) for c in found] == [("busy", Preemption.PRIORITY)]
    assert _names(_mm([busy], policy, prios), _job(), "alice@x", 4500.0) == []  # 1.2 rule
    assert _names(_mm([busy], policy, prios), _job(), "alice@x", 6000.0) == []  # worse EUP
    assert _names(_mm([busy], policy, prios), _job(), "bob@x", 1.0) == []  # its own slot


def test_a_matched_slot_leaves_the_cycle() -> None:
    mm = _mm([_slot("a"), _slot("b")])
    first = mm.find_match(_job(), "alice@x", 500.0)
    second = mm.find_match(_job(), "alice@x", 500.0)
    assert (first and first.name, second and second.name) == ("a", "b")
    assert first is not None and first.claim_id == "claim-a"
    assert mm.find_match(_job(), "alice@x", 500.0) is None and len(mm) == 0


def test_significant_attributes_are_the_job_attributes_slots_refer_to() -> None:
    slot = ClassAd.parse('[ Name = "s"; Memory = 10; START = TARGET.Owner != "x" && '
                         'RequestMemory <= Memory && KeyboardIdle > 5; KeyboardIdle = 10;'
                         ' Requirements = START; Rank = JobPrio ]')
    assert significant_attributes([slot], [DEFAULTS.pre_job_rank]) == [
        "JobPrio", "Owner", "RequestMemory"]


def test_a_bad_rank_expression_names_the_knob() -> None:
    with pytest.raises(NegotiatorConfigError, match="NEGOTIATOR_PRE_JOB_RANK"):
        MatchPolicy.from_config(Config.from_text("NEGOTIATOR_PRE_JOB_RANK = (1 +"))


@settings(deadline=None, max_examples=40)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(100, 4000), st.integers(0, 3)),
                min_size=1, max_size=8))
def test_the_order_does_not_depend_on_the_order_slots_arrive_in(
        specs: list[tuple[int, int, int]]) -> None:
    slots = [_slot(f"slot{i}@m", cpus=c, memory=mem, rank=str(r), slot_id=i)
             for i, (c, mem, r) in enumerate(specs)]
    job = _job("TARGET.Memory >= 200")
    forward = _names(_mm(slots), job)
    assert forward == _names(_mm(list(reversed(slots))), job)
    # every candidate really matches, and nothing that matches is missing
    assert sorted(forward) == sorted(
        s.evaluate("Name") for s in slots if s.evaluate("Memory") >= 200)
