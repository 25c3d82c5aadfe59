"""Slots alike are evaluated once per request: the candidates (which slots, their order,
their preemption) are the same as when every slot is evaluated on its own."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd, parse_expr
from condorsim.config import Config
from daemons.negotiator.matchmaker import Matchmaker, MatchPolicy

NOW = 1_000_000
POLICY = MatchPolicy.from_config(Config.from_text(
    "PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n"
    "NEGOTIATOR_POST_JOB_RANK = KFlops\n"))
# values shared between slot ads, as the wire shares the trees of equal values
MEMORY = [parse_expr(v) for v in ("512", "1024", "2048")]
STATE = [parse_expr(v) for v in ('"Unclaimed"', '"Claimed"')]
ACTIVITY = [parse_expr(v) for v in ('"Idle"', '"Busy"')]
USER = [parse_expr(v) for v in ('"bob@x"', '"carol@x"')]
KFLOPS = [parse_expr(v) for v in ("100", "900")]
START = [parse_expr(v) for v in ("true", 'TARGET.Owner =!= "dave"', "eval(\"true\")")]


def _slots(choices: list[tuple[int, int, int, int, int, int]]) -> list[ClassAd]:
    base = ClassAd.parse('[ MyType = "Machine"; Cpus = 1; Requirements = START; '
                         'Rank = TARGET.JobPrio; CurrentRank = 0 ]')
    out = []
    for i, (mem, state, act, user, kf, start) in enumerate(choices):
        ad = base.copy()
        ad.update({"Name": f"slot{i}@m{i % 3}", "ClaimId": f"claim{i}", "Memory": MEMORY[mem],
                   "State": STATE[state], "Activity": ACTIVITY[act], "RemoteUser": USER[user],
                   "KFlops": KFLOPS[kf], "START": START[start]})
        out.append(ad)
    return out


def _candidates(slots: list[ClassAd], job: ClassAd, grouped: bool) -> list[tuple[str, str]]:
    prios = {"bob@x": 900.0, "carol@x": 100.0}
    mm = Matchmaker(slots, POLICY, NOW, lambda user: prios.get(user, 500.0))
    if not grouped:
        mm._alike = lambda job: None  # type: ignore[method-assign]
    return [(c.name, c.preemption.name) for c in mm.candidates(job, "alice@x", 500.0)]


slot_choices = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1),
                                  st.integers(0, 1), st.integers(0, 1), st.integers(0, 2)),
                        min_size=1, max_size=25)


def _job(requirements: str, rank: str, prio: int) -> ClassAd:
    return ClassAd.parse(f'[ MyType = "Job"; Owner = "alice"; JobPrio = {prio}; '
                         f'Requirements = {requirements}; Rank = {rank} ]')


@settings(max_examples=60, deadline=None)
@given(slot_choices, st.sampled_from(["TARGET.Memory >= 1024", "true", "Memory > 600"]),
       st.sampled_from(["TARGET.KFlops", "0", "-TARGET.Memory"]), st.integers(0, 5))
def test_grouped_candidates_are_those_of_each_slot_alone(
        choices: list[tuple[int, int, int, int, int, int]], requirements: str, rank: str,
        prio: int) -> None:
    job = _job(requirements, rank, prio)
    slots = _slots(choices)
    assert _candidates(slots, job, grouped=True) == _candidates(slots, job, grouped=False)


def test_slots_that_differ_only_in_name_are_judged_once() -> None:
    slots = _slots([(1, 0, 0, 0, 0, 0)] * 6 + [(0, 0, 0, 0, 0, 0)] * 4)
    job = ClassAd.parse('[ MyType = "Job"; Owner = "alice"; JobPrio = 0; '
                        'Requirements = TARGET.Memory >= 1024; Rank = 0 ]')
    mm = Matchmaker(slots, POLICY, NOW, lambda user: 500.0)
    judged = []
    judge = mm._judge
    mm._judge = lambda slot, *a: judged.append(slot) or judge(slot, *a)  # type: ignore[method-assign]
    names = [c.name for c in mm.candidates(job, "alice@x", 500.0)]
    assert names == sorted(f"slot{i}@m{i % 3}" for i in range(6))
    assert len(judged) == 2  # one per kind of slot, not one per slot


def _reference_groups(mm: Matchmaker, job: ClassAd) -> list[list[str]] | None:
    """The groups as made slot by slot, a name at a time: every name reached from what
    matching reads, through the job's and every slot's trees; then the slots keyed by
    their trees for those names (equal by structure)."""
    todo = {"requirements", "rank", "state", "activity", "currentrank", "remoteuser",
            "remoteowner"}
    for expr in (POLICY.pre_job_rank, POLICY.post_job_rank, POLICY.preemption_requirements,
                 POLICY.preemption_rank):  # the knobs set and HTCondor's defaults
        if expr is not None:
            todo |= {n.lower() for _, n in expr.references()}
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        trees = [t for t in (s.lookup(name) for s in mm.slots.values()) if t is not None]
        if job.lookup(name) is not None:
            trees.append(job.lookup(name))
        for tree in trees:
            if "eval(" in str(tree).lower():
                return None
            todo |= {n.lower() for _, n in tree.references()} - seen
    order = tuple(sorted(seen))
    by_key: dict[tuple[object, ...], list[str]] = {}
    for name, slot in mm.slots.items():
        by_key.setdefault(slot.trees(order), []).append(name)
    return list(by_key.values())


@settings(max_examples=100, deadline=None)
@given(slot_choices, st.lists(st.booleans(), min_size=25, max_size=25),
       st.sampled_from(["TARGET.Memory >= 1024", "true", "Memory > 600"]))
def test_slots_are_grouped_as_by_their_trees_one_by_one(
        choices: list[tuple[int, int, int, int, int, int]], fresh: list[bool],
        requirements: str) -> None:
    """The slots are grouped first by their trees' identities, then the rows of equal trees
    merged: the groups (and their slots' order) are those of keying each slot by its trees,
    also when equal trees are not the same objects (an ad parsed anew)."""
    job = ClassAd.parse(f'[ MyType = "Job"; Owner = "alice"; JobPrio = 1; '
                        f'Requirements = {requirements}; Rank = 0 ]')
    slots = _slots(choices)
    for slot, anew in zip(slots, fresh, strict=False):
        if anew:  # the same values, trees of its own
            for name in ("Memory", "KFlops", "START"):
                slot[name] = parse_expr(str(slot[name]))
    mm = Matchmaker(slots, POLICY, NOW, lambda user: 500.0)
    assert mm._alike(job) == _reference_groups(mm, job)


def test_equal_trees_of_other_objects_join_their_group_in_slot_order() -> None:
    job = ClassAd.parse('[ MyType = "Job"; Owner = "alice"; JobPrio = 1; Requirements = true; '
                        'Rank = 0 ]')
    slots = _slots([(1, 0, 0, 0, 0, 1)] * 3)
    slots[1]["START"] = parse_expr(str(slots[1]["START"]))  # equal, not the same object
    mm = Matchmaker(slots, POLICY, NOW, lambda user: 500.0)
    assert mm._alike(job) == [["slot0@m0", "slot1@m1", "slot2@m2"]]


def _plain_judge(mm: Matchmaker, slot: ClassAd, job: ClassAd) -> object:
    """The judgement in HTCondor's order: the symmetric match, then the slot's state."""
    from condorsim.classad import symmetric_match
    if not symmetric_match(job, slot, mm.ctx):
        return None
    found = mm.classify(slot, job, "alice@x", 500.0)
    if found is None:
        return None
    preemption, evaluated = found
    return preemption, evaluated


@settings(max_examples=60, deadline=None)
@given(slot_choices, st.sampled_from(["TARGET.Memory >= 1024", "true", "Memory > 600",
                                      "TARGET.State == \"Claimed\"", "undefined", "error"]),
       st.sampled_from(["TARGET.KFlops", "0", "-TARGET.Memory"]), st.integers(0, 5))
def test_the_state_asked_first_judges_as_the_match_first(
        choices: list[tuple[int, int, int, int, int, int]], requirements: str, rank: str,
        prio: int) -> None:
    job = _job(requirements, rank, prio)
    prios = {"bob@x": 900.0, "carol@x": 100.0}
    mm = Matchmaker(_slots(choices), POLICY, NOW, lambda user: prios.get(user, 500.0))
    for slot in mm.slots.values():
        judged = mm._judge(slot, job, "alice@x", 500.0)
        plain = _plain_judge(mm, slot, job)
        if plain is None:
            assert judged is None
        else:
            assert judged is not None
            assert (judged[1], judged[2]) == plain
