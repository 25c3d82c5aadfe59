"""Matching one resource request against the slots of a cycle (sans-I/O, deterministic).

How this works
--------------
A :class:`Matchmaker` holds the slot ads of one negotiation cycle. For a resource request
(a representative job ad) :meth:`Matchmaker.find_match` keeps the *candidates*:

* the job and the slot match symmetrically (each one's Requirements true of the other);
* an Unclaimed slot needs no preemption; a Claimed/Idle slot is skipped (its claim is the
  schedd's to reuse); a busy Claimed slot (Busy, Suspended, Retiring) is a candidate only
  if NEGOTIATOR_CONSIDER_PREEMPTION and either the slot ranks the new job higher than the
  one it runs (``Rank > CurrentRank``: *rank* preemption) or the submitter's EUP is better
  than the running user's, PREEMPTION_REQUIREMENTS is true and the slot's Rank is not worse
  (*priority* preemption). Other states (Matched, Preempting, ...) are skipped.

Candidates are sorted by NEGOTIATOR_PRE_JOB_RANK desc, the job's Rank desc,
NEGOTIATOR_POST_JOB_RANK desc, preemption (none, rank, priority), PREEMPTION_RANK desc,
and finally the slot Name, so equal candidates always sort the same way. The best one is
the match and leaves the matchmaker for the rest of the cycle.

Pre/post job ranks and the preemption expressions are evaluated with the slot as MY and
the job as TARGET; for a busy slot the slot ad gets ``RemoteUserPrio`` and
``SubmitterUserPrio`` (EUPs) first, as HTCondor's negotiator adds them.

Slots alike are evaluated once per request: the names matching can read of a slot are
found from the Requirements and Rank of both sides, the policy knobs and what
classification reads, following every name their expressions refer to through the job's
and the slots' expressions for it; slots that hold equal expressions (trees compare by
structure, a literal by its exact value) for all of those names are bound to give the same
match, classification and ranks, so one of them is evaluated and the result holds for
each (their order still comes from the slot Name). When an expression on the way uses
``eval()`` or ``random()`` (names made at evaluation time, or a value per evaluation) the
request is matched slot by slot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import IntEnum

from condorsim.classad import (
    ClassAd,
    ClassAdError,
    EvalContext,
    ExprTree,
    parse_expr,
    rank,
    symmetric_match,
)
from condorsim.config import Config, ConfigError

NO_RANK = -3.4028234663852886e38  # -FLT_MAX: an expression that gives no number


class NegotiatorConfigError(Exception):
    """A negotiator knob is unusable; the message names it."""


class Preemption(IntEnum):
    NONE = 0
    RANK = 1
    PRIORITY = 2


@dataclass(frozen=True)
class MatchPolicy:
    """The negotiator's matchmaking knobs, parsed once."""

    pre_job_rank: ExprTree | None = None
    post_job_rank: ExprTree | None = None
    preemption_requirements: ExprTree | None = None
    preemption_rank: ExprTree | None = None
    consider_preemption: bool = True
    use_slot_weights: bool = True

    @classmethod
    def from_config(cls, config: Config) -> MatchPolicy:
        def expr(knob: str) -> ExprTree | None:
            text = config.get(knob)
            if text is None:
                return None
            try:
                return parse_expr(text)
            except ClassAdError as e:
                raise NegotiatorConfigError(
                    f"{knob} = {text!r} is not a ClassAd expression: {e}") from None

        try:
            consider = config.get_bool("NEGOTIATOR_CONSIDER_PREEMPTION", True)
            weights = config.get_bool("NEGOTIATOR_USE_SLOT_WEIGHTS", True)
        except ConfigError as e:
            raise NegotiatorConfigError(str(e)) from None
        return cls(pre_job_rank=expr("NEGOTIATOR_PRE_JOB_RANK"),
                   post_job_rank=expr("NEGOTIATOR_POST_JOB_RANK"),
                   preemption_requirements=expr("PREEMPTION_REQUIREMENTS"),
                   preemption_rank=expr("PREEMPTION_RANK"),
                   consider_preemption=consider, use_slot_weights=weights)


@dataclass(frozen=True)
class Match:
    """A slot matched to a request: its ad, its claim id and the preemption it needs."""

    slot: ClassAd
    name: str
    claim_id: str
    preemption: Preemption


def _number(value: object) -> float | None:
    t = type(value)
    if t is int or t is float or t is bool:
        return float(value)  # type: ignore[arg-type]
    return None


def _string(ad: ClassAd, attr: str) -> str:
    value = ad.evaluate(attr)
    return value if type(value) is str else ""


def _true(value: object) -> bool:
    if type(value) is bool:
        return value
    return _number(value) not in (None, 0.0)


def slot_weight(slot: ClassAd, use_slot_weights: bool = True) -> float:
    """The slot's weight in fair share: SlotWeight, else Cpus, else 1 (1 without weights)."""
    if not use_slot_weights:
        return 1.0
    for attr in ("SlotWeight", "Cpus"):
        value = _number(slot.evaluate(attr))
        if value is not None:
            return value
    return 1.0


def remote_user(slot: ClassAd) -> str:
    """The user a claimed slot works for (RemoteUser, else RemoteOwner), or ""."""
    return _string(slot, "RemoteUser") or _string(slot, "RemoteOwner")


_DYNAMIC = ("eval(", "random(")
"""Functions whose result is not fixed by the attributes an expression names."""

_CLASSIFY_ATTRS = ("Requirements", "Rank", "State", "Activity", "CurrentRank", "RemoteUser",
                   "RemoteOwner")
"""What matching reads of a slot by name, besides what its expressions refer to."""


_NO_NAMES: frozenset[str] = frozenset()


class _Refs:
    """The names each expression refers to (any scope, lower-cased), by tree identity;
    None for an expression whose names are made at evaluation time."""

    def __init__(self) -> None:
        self._by_tree: dict[int, tuple[ExprTree, frozenset[str] | None]] = {}

    def of(self, tree: ExprTree) -> frozenset[str] | None:
        known = self._by_tree.get(id(tree))
        if known is not None and known[0] is tree:
            return known[1]
        if tree.is_literal:  # the most of them (a slot's Name, SlotID ...): no names
            return _NO_NAMES
        text = str(tree).lower()
        names: frozenset[str] | None = None
        if not any(word in text for word in _DYNAMIC):
            names = frozenset(name.lower() for _, name in tree.references())
        self._by_tree[id(tree)] = (tree, names)
        return names


class Matchmaker:
    """The slot ads of one cycle; each match removes its slot."""

    def __init__(self, slots: Iterable[ClassAd], policy: MatchPolicy, now: float,
                 user_priority: Callable[[str], float]) -> None:
        self.policy = policy
        self.ctx = EvalContext(now=int(now))
        self.user_priority = user_priority
        self.slots: dict[str, ClassAd] = {}
        for ad in slots:
            name = _string(ad, "Name")
            if name:
                self.slots[name] = ad
        self._refs = _Refs()
        self._trees: dict[str, list[ExprTree]] = {}
        self._groups: dict[frozenset[str], list[list[str]]] = {}

    def _load_slot_trees(self, names: Iterable[str]) -> None:
        """Find the distinct expressions (by identity) the slots of the cycle hold for each
        of ``names`` (lower-cased) not known yet, in one pass over the slots: the slots of a
        pool share their trees, so the distinct rows of them are few."""
        missing = tuple(name for name in names if name not in self._trees)
        if not missing:
            return
        rows: dict[tuple[int, ...], tuple[ExprTree | None, ...]] = {}
        for slot in self.slots.values():
            trees = slot.trees(missing)
            rows.setdefault(tuple(map(id, trees)), trees)  # the slots hold the trees
        for i, name in enumerate(missing):
            by_id: dict[int, ExprTree] = {}
            for trees in rows.values():
                tree = trees[i]
                if tree is not None:
                    by_id[id(tree)] = tree
            self._trees[name] = list(by_id.values())

    def _significant(self, job: ClassAd) -> frozenset[str] | None:
        """The names matching ``job`` can read of a slot: from the job's and the slots'
        Requirements and Rank, the policy knobs and what classification reads, every name
        their expressions refer to, followed through the job's and the slots' expressions
        for those names. None when some expression on the way makes names at evaluation
        time. The names are followed a round at a time (the set reached is the same in any
        order), the slots' trees for a round's new names found in one pass."""
        todo = {a.lower() for a in _CLASSIFY_ATTRS}
        for expr in (self.policy.pre_job_rank, self.policy.post_job_rank,
                     self.policy.preemption_requirements, self.policy.preemption_rank):
            if expr is not None:
                refs = self._refs.of(expr)
                if refs is None:
                    return None
                todo |= refs
        seen: set[str] = set()
        while todo:
            batch = todo - seen
            seen |= batch
            self._load_slot_trees(batch)
            todo = set()
            for name in batch:
                trees = list(self._trees[name])
                mine = job.lookup(name)
                if mine is not None:
                    trees.append(mine)
                for tree in trees:
                    refs = self._refs.of(tree)
                    if refs is None:
                        return None
                    todo |= refs - seen
        return frozenset(seen)

    def _alike(self, job: ClassAd) -> list[list[str]] | None:
        """The slots (names) in groups that every expression sees alike for ``job``; None
        when that cannot be known."""
        names = self._significant(job)
        if names is None:
            return None
        groups = self._groups.get(names)
        if groups is None:
            order = tuple(sorted(names))  # lower-cased
            # first by the trees' identities (the slots of a pool share their trees: a few
            # rows), then the rows whose trees are equal (trees hash and compare by
            # structure, a literal by its exact value) make one group, in slot order
            rows: dict[tuple[int, ...], tuple[tuple[ExprTree | None, ...], list[str]]] = {}
            for slot_name, slot in self.slots.items():
                trees = slot.trees(order)
                ids = tuple(map(id, trees))
                row = rows.get(ids)
                if row is None:
                    row = rows[ids] = (trees, [])
                row[1].append(slot_name)
            by_key: dict[tuple[ExprTree | None, ...], list[list[str]]] = {}
            for trees, members in rows.values():
                by_key.setdefault(trees, []).append(members)
            groups = []
            position: dict[str, int] | None = None
            for parts in by_key.values():
                if len(parts) == 1:
                    groups.append(parts[0])
                    continue
                if position is None:
                    position = {name: i for i, name in enumerate(self.slots)}
                groups.append(sorted((n for part in parts for n in part),
                                     key=position.__getitem__))
            self._groups[names] = groups
        return groups

    def __len__(self) -> int:
        return len(self.slots)

    def _eval(self, expr: ExprTree | None, slot: ClassAd, job: ClassAd) -> float:
        if expr is None:
            return 0.0
        value = _number(expr.evaluate(my=slot, target=job, ctx=self.ctx))
        return NO_RANK if value is None else value

    def classify(self, slot: ClassAd, job: ClassAd, submitter: str,
                 submitter_eup: float) -> tuple[Preemption, ClassAd] | None:
        """Whether ``slot`` may take ``job`` and with what preemption (None: it may not).

        Returns the slot ad to evaluate the ranks with (a busy slot's gets the priorities).
        """
        state = _string(slot, "State")
        if state in ("Unclaimed", "Owner"):
            return Preemption.NONE, slot
        if state != "Claimed" or not self.policy.consider_preemption:
            return None
        if _string(slot, "Activity") not in ("Busy", "Suspended", "Retiring"):
            return None
        new_rank = rank(slot, job, self.ctx)
        current = _number(slot.evaluate("CurrentRank")) or 0.0
        if new_rank > current:
            return Preemption.RANK, slot
        user = remote_user(slot)
        if not user or user == submitter or new_rank < current:
            return None
        remote_prio = self.user_priority(user)
        if not submitter_eup < remote_prio:
            return None
        augmented = slot.copy()
        augmented["RemoteUserPrio"] = remote_prio
        augmented["SubmitterUserPrio"] = submitter_eup
        req = self.policy.preemption_requirements
        if req is None or not _true(req.evaluate(my=augmented, target=job, ctx=self.ctx)):
            return None
        return Preemption.PRIORITY, augmented

    def _judge(self, slot: ClassAd, job: ClassAd, submitter: str, submitter_eup: float,
               ) -> tuple[tuple[float, float, float, int, float], Preemption, ClassAd] | None:
        """Whether ``slot`` may take ``job``: its sort key (but the name), the preemption
        and the slot ad as evaluated; None if it may not.

        The slot's state is asked before the two Requirements: both must allow the match,
        neither changes anything, and in a busy pool most slots are claimed by jobs that
        no idle one may preempt, which :meth:`classify` tells from a few attributes (the
        symmetric match evaluates both ads' Requirements)."""
        found = self.classify(slot, job, submitter, submitter_eup)
        if found is None or not symmetric_match(job, slot, self.ctx):
            return None
        preemption, evaluated = found
        pre = self._eval(self.policy.pre_job_rank, evaluated, job)
        job_rank = rank(job, slot, self.ctx)
        post = self._eval(self.policy.post_job_rank, evaluated, job)
        prank = (self._eval(self.policy.preemption_rank, evaluated, job)
                 if preemption is not Preemption.NONE else 0.0)
        return (-pre, -job_rank, -post, int(preemption), -prank), preemption, evaluated

    def candidates(self, job: ClassAd, submitter: str,
                   submitter_eup: float) -> list[Match]:
        """Every slot that may take ``job``, best first."""
        keyed = []
        groups = self._alike(job)
        if groups is None:
            groups = [[name] for name in self.slots]
        slots = self.slots
        for group in groups:
            members = [name for name in group if name in slots]
            if not members:
                continue
            judged = self._judge(slots[members[0]], job, submitter, submitter_eup)
            if judged is None:
                continue
            key, preemption, _ = judged
            for name in members:
                slot = slots[name]
                keyed.append(((*key, name), Match(slot, name, _string(slot, "ClaimId"),
                                                  preemption)))
        keyed.sort(key=lambda pair: pair[0])
        return [match for _, match in keyed]

    def take(self, match: Match) -> None:
        """Remove a matched slot for the rest of the cycle."""
        self.slots.pop(match.name, None)

    def find_match(self, job: ClassAd, submitter: str, submitter_eup: float) -> Match | None:
        """The best slot for ``job``, removed from this cycle; None if no slot may take it."""
        found = self.candidates(job, submitter, submitter_eup)
        if not found:
            return None
        self.take(found[0])
        return found[0]


def significant_attributes(slots: Iterable[ClassAd], exprs: Iterable[ExprTree | None]) -> list[str]:
    """Job attributes the slots' Requirements and Rank (and ``exprs``) refer to.

    An unscoped name the slot ad does not define, or a ``TARGET.`` one, is the job's; a
    name the slot defines is followed into its expression. This is the negotiator's
    AutoClusterAttrs (HTCondor's ``compute_significant_attrs``).
    """
    found: set[str] = set()
    # the slots of a pool share their trees: each one's references are listed once (by
    # identity; the slots hold the trees for the whole call)
    listed: dict[int, list[tuple[str | None, str, str]]] = {}

    def references(tree: ExprTree) -> list[tuple[str | None, str, str]]:
        refs = listed.get(id(tree))
        if refs is None:
            refs = listed[id(tree)] = [(scope, name, name.lower())
                                       for scope, name in tree.references()]
        return refs

    def walk(tree: ExprTree, slot: ClassAd | None, seen: set[str]) -> None:
        for scope, name, key in references(tree):
            if scope == "TARGET":
                found.add(name)
            elif slot is not None and key in slot and key not in seen:
                seen.add(key)
                inner = slot.lookup(key)
                if inner is not None:
                    walk(inner, slot, seen)
            elif scope is None and (slot is None or key not in slot):
                found.add(name)

    for slot in slots:
        for attr in ("Requirements", "Rank"):
            tree = slot.lookup(attr)
            if tree is not None:
                walk(tree, slot, {attr.lower()})
    for expr in exprs:
        if expr is not None:
            for scope, name in expr.references():
                if scope == "TARGET":
                    found.add(name)
    by_key: dict[str, str] = {}
    for name in sorted(found):
        by_key.setdefault(name.lower(), name)
    return sorted(by_key.values(), key=str.lower)
