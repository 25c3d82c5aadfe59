"""One slot of a simulated machine: its claim, its job and its policy (sans-I/O).

How this works
--------------
A :class:`Slot` is fed what happened -- a REQUEST_CLAIM, an ACTIVATE_CLAIM, the
starter's updates and exit, a DEACTIVATE or RELEASE, an ALIVE, a policy tick -- with the
simulated time ``now``, and returns what the runner must do as a list of
:class:`Action` values (tell the starter to stop a job, answer a waiting claim request,
write the job to the startd history). Every state change goes through the table in
states.py; the slot remembers whether its ad changed so the runner can send it at once.

Claims. The slot always offers a claim id (published as ``ClaimId``; condorsim has no
private ads). REQUEST_CLAIM with that id claims it; a fresh id is then offered, which a
*preempting* claim uses: if the slot is Claimed and the new job ranks at least as high
(rank preemption needs strictly higher; the negotiator decides priority preemption),
the running job is vacated and the new claim takes over once the starter is gone -- the
CLAIM_RESPONSE waits until then. A claim lives while ALIVEs arrive: its lease is
MAX_CLAIM_ALIVES_MISSED x the alive interval, renewed by each ALIVE.

CLAIM_WORKLIFE (HTCondor's ``Resource::claimWorklifeExpired``): once a claim has run a job
and is older than CLAIM_WORKLIFE seconds (strictly; a negative or non-integer value means
no limit), it takes no further job: ACTIVATE_CLAIM is refused, and an idle claim shuts
down (Preempting, then Owner/Unclaimed with a fresh ClaimId) -- at once when its job exits,
or when it turns that old while idle. The slot ad publishes CLAIM_WORKLIFE, so the
claim's holder can tell whether the claim is closing, and the claim's clocks
(TotalClaimRunTime, TotalJobRunTime, ...).

Policy, evaluated with the slot ad as MY and the job as TARGET: START (and the job's
Requirements) on REQUEST_CLAIM; RANK gives CurrentRank; on each tick, START moves an idle
slot between Owner and Unclaimed, WANT_SUSPEND && SUSPEND suspends and CONTINUE
resumes, PREEMPT retires (for MAXJOBRETIREMENTTIME) then vacates (or kills when
WANT_VACATE is false), KILL or MachineMaxVacateTime turns vacating into killing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import (
    ClassAd,
    EvalContext,
    ExprTree,
    SealedAd,
    ad_to_wire,
    parse_expr,
    rank,
    symmetric_match,
)
from condorsim.classad._classad import to_tree
from condorsim.classad._wire import tree_to_wire

from .actions import (
    Action,
    Claim,
    ClaimGranted,
    ClaimRefused,
    FetchClaimEvicted,
    StartFetchedJob,
    StopJob,
    SuspendJob,
    WriteHistory,
)
from .machines import MachineSpec
from .states import Activity, Event, State, next_state

_REQUIREMENTS = parse_expr("START")
_FALSE = to_tree(False)
_ZERO = to_tree(0.0)
_TIME_KEYS = {name: name.lower() for name in (
    "TotalJobRunTime", "TotalJobSuspendTime", "TotalClaimRunTime", "TotalClaimSuspendTime")}

_LITERALS: dict[tuple[type, object], ExprTree] = {}
_LITERALS_MAX = 4096


def _pairs_of(ad: ClassAd) -> list[tuple[str, str, ExprTree]]:
    """(lower-cased name, name as spelled, tree) of each attribute of ``ad``, in its order."""
    return list(zip(ad._attrs, ad._names.values(), ad._attrs.values(), strict=True))


def literal(value: str | int | float) -> ExprTree:
    """The literal tree of ``value``, made once and shared: a slot ad sets the same few
    values (states, activities, times, claim ids) over and over, and trees are immutable.
    Floats are keyed by their exact bits (0.0 and -0.0 differ)."""
    t = type(value)
    key = (t, value.hex() if t is float else value)  # type: ignore[union-attr]
    tree = _LITERALS.get(key)
    if tree is None:
        if len(_LITERALS) >= _LITERALS_MAX:
            _LITERALS.clear()
        tree = _LITERALS[key] = to_tree(value)
    return tree


@dataclass(frozen=True)
class FetchDecision:
    """What the slot made of a fetch hook's answer (HTCondor's ``handleHookFetchWork``).

    ``job_ad`` is the fetched ad as the slot will run it (HookKeyword and Request*
    filled in), ``reason`` says why it was refused, ``claim_id`` is the claim REPLY_FETCH is
    told about (the slot's current claim, else the id it offers).
    """

    accepted: bool
    job_ad: ClassAd | None
    claim_id: str = ""
    reason: str = ""
    actions: list[Action] = field(default_factory=list)


def _true(value: object) -> bool:
    if type(value) is bool:
        return value
    if type(value) is int or type(value) is float:
        return value != 0
    return False


class Slot:
    """A slot's state machine. ``make_claim_id`` gives a fresh, unique claim id."""

    def __init__(self, machine: MachineSpec, slot_id: int, now: float,
                 make_claim_id: Callable[[Slot], str], lease_duration: float,
                 common: ClassAd | None = None) -> None:
        self.machine = machine
        self.common = common if common is not None else ClassAd()
        self._kept: tuple[tuple[object, ...], ClassAd] | None = None  # (inputs, _template)
        self._kept_wire: tuple[ClassAd, dict[str, Any]] | None = None  # (template, its wire)
        self.slot_id = slot_id
        self.name = f"slot{slot_id}@{machine.name}"
        self.cpus, self.memory, self.disk = machine.slot_share()
        self._new_id = make_claim_id
        self.lease_duration = lease_duration
        self.state = State.OWNER
        self.activity = Activity.IDLE
        self.entered_state = now
        self.entered_activity = now
        self.retire_deadline = 0.0
        self.offered_claim_id = self._fresh_id()
        self.claim: Claim | None = None
        self.preempting: Claim | None = None  # waits for the running job to leave
        self.ad_changed = True
        self.transitions: list[tuple[float, State, Activity, Event]] = []
        # set by the runner: the keyword of this slot's fetch-work hooks (None: it fetches
        # no work), attributes it publishes (fetch figures, LastBenchmark), and where the
        # machine's daemon cron output is merged from
        self.fetch_keyword: str | None = None
        self.published = ClassAd()
        self.cron_merge: Callable[[ClassAd, int], ClassAd] | None = None
        # condor_drain: how the slot drains ("graceful", "quick", "fast"), None when it
        # does not, and the reason it advertises (DrainReason)
        self.draining: str | None = None
        self.drain_reason = ""
        self.tick(now)

    # -- helpers -------------------------------------------------------------------------

    def _fresh_id(self) -> str:
        return self._new_id(self)

    def _go(self, event: Event, now: float) -> None:
        state, activity = next_state(self.state, self.activity, event)
        if state != self.state:
            self.entered_state = now
        if state != self.state or activity != self.activity:
            self.entered_activity = now
            self.ad_changed = True
        self.state, self.activity = state, activity
        self.transitions.append((now, state, activity, event))

    def _eval(self, knob: str, job: ClassAd | None, now: float) -> object:
        tree: ExprTree = self.machine.policy[knob]
        return tree.evaluate(my=self.ad(now), target=job, ctx=EvalContext(now=int(now)))

    def _job(self) -> ClassAd | None:
        if self.claim is None:
            return None
        if self.claim.job_ad is None:
            return self.claim.request_ad
        job = self.claim.job_ad.copy()
        job.update(self.claim.starter_ad)
        return job

    def owns(self, claim_id: str) -> bool:
        """True when ``claim_id`` is this slot's claim (current, preempting or offered)."""
        return claim_id in (self.offered_claim_id, self.current_claim_id,
                            self.preempting.claim_id if self.preempting else None)

    @property
    def current_claim_id(self) -> str | None:
        return self.claim.claim_id if self.claim is not None else None

    @property
    def job_running(self) -> bool:
        return self.claim is not None and self.claim.job_ad is not None

    # -- the slot ad ---------------------------------------------------------------------

    def load_avg(self) -> float:
        """The slot's load: its cpus while its job runs (or retires, or is being vacated)."""
        busy = self.activity in (Activity.BUSY, Activity.RETIRING) or (
            self.state == State.PREEMPTING and self.job_running)
        return float(self.cpus) if busy else 0.0

    def fixed_attrs(self) -> dict[str, Any]:
        """The slot's own attributes of :meth:`_template`, after the startd-wide and ATTRS
        ads, in their order; the changing ones (State ... ClaimId) hold their place with a
        value :meth:`ad` replaces."""
        m = self.machine
        return {
            "MyType": "Machine", "TargetType": "Job", "Name": self.name,
            "Machine": m.name, "SlotID": self.slot_id, "SlotType": "Static",
            "Cpus": self.cpus, "Memory": self.memory, "Disk": self.disk,
            "MachineResources": "Cpus Memory Disk Swap", "SlotWeight": self.cpus,
            "TotalSlotCpus": self.cpus, "TotalSlotMemory": self.memory,
            "TotalSlotDisk": self.disk,
            "TotalCpus": m.cpus, "TotalMemory": m.memory,
            "TotalDisk": m.disk, "TotalSlots": m.slots,
            "State": "", "Activity": "", "EnteredCurrentState": 0,
            "EnteredCurrentActivity": 0, "LoadAvg": 0.0, "CondorLoadAvg": 0.0,
            "ClaimId": "",
            "SimClockOffset": m.clock_offset,
        }

    def _template(self) -> ClassAd:
        """The start of every slot ad: the startd-wide attributes, the machine's ATTRS and
        the slot's fixed ones, in the order :meth:`ad` sets them (the changing ones hold
        their place with a value :meth:`ad` replaces). Made again when an input changed:
        the common and ATTRS ads are compared by their names and trees in order (what
        their ``pairs()`` hold), without making the pairs."""
        m = self.machine
        common, extra = self.common, m.extra_attrs
        kept = self._kept
        if kept is not None:
            inputs = kept[0]
            if (inputs[2] == (self.name, m.name, self.slot_id, self.cpus, self.memory,
                              self.disk, m.cpus, m.memory, m.disk, m.slots, m.clock_offset)
                    and inputs[0] == tuple(common._names.values())
                    and inputs[1] == tuple(common._attrs.values())
                    and inputs[3] == tuple(extra._names.values())
                    and inputs[4] == tuple(extra._attrs.values())):
                return kept[1]
        ad = common.copy()
        ad.update(extra)
        ad.update(self.fixed_attrs())
        self._kept = ((tuple(common._names.values()), tuple(common._attrs.values()),
                       (self.name, m.name, self.slot_id, self.cpus, self.memory, self.disk,
                        m.cpus, m.memory, m.disk, m.slots, m.clock_offset),
                       tuple(extra._names.values()), tuple(extra._attrs.values())), ad)
        return ad

    def ad(self, now: float, *, with_claim: bool = True) -> ClassAd:
        """The slot ad: the startd-wide attributes, the machine's ATTRS, then the slot's own.

        ``with_claim=False`` leaves out what the claim adds (for CLAIM_WORKLIFE, which
        HTCondor evaluates in the slot's configuration ad)."""
        return self.build_ad(now, with_claim=with_claim)

    def build_ad(self, now: float, *, with_claim: bool = True,
                 tail: tuple[tuple[str, str, ExprTree], ...] = (),
                 sealed: bool = False) -> ClassAd:
        """:meth:`ad`, then ``tail``'s (lower-cased name, name, tree) set last; ``sealed``:
        a :class:`SealedAd` whose wire form is made as it is built (for the collector).

        The slot's own attributes are set straight into the copied template's dicts, the
        names being plain ASCII and the values trees (what ``ClassAd.update`` does for
        them, without its checks and lower-casing per name): an attribute the template
        (or an earlier step) holds keeps its place and spelling, a new one goes last. The
        wire form of a sealed ad is the template's, kept with it, with the values of the
        attributes set here put in (a new attribute last, as in the ad's own order).
        tests/startd/test_slot_ad_fast.py compares both with the ad built by updates."""
        template = self._template()
        ad: ClassAd = SealedAd.of(template) if sealed else template.copy()
        attrs, names = ad._attrs, ad._names
        wire: dict[str, Any] | None = None
        if sealed:
            kept = self._kept_wire
            if kept is None or kept[0] is not template:
                kept = self._kept_wire = (template, ad_to_wire(template))
            wire = dict(kept[1])
        state = self.state
        load = literal(self.load_avg())
        policy = self.machine.policy
        # the first seven the template holds: each keeps its place and spelling
        own: list[tuple[str, str, ExprTree]] = [
            ("state", "State", literal(state.value)),
            ("activity", "Activity", literal(self.activity.value)),
            ("enteredcurrentstate", "EnteredCurrentState", literal(int(self.entered_state))),
            ("enteredcurrentactivity", "EnteredCurrentActivity",
             literal(int(self.entered_activity))),
            ("loadavg", "LoadAvg", load), ("condorloadavg", "CondorLoadAvg", load),
            ("claimid", "ClaimId", literal(self.offered_claim_id)),
            ("start", "START", policy["START"]), ("rank", "Rank", policy["RANK"]),
            ("claim_worklife", "CLAIM_WORKLIFE", policy["CLAIM_WORKLIFE"]),
            # a preempting slot takes no further match (the docs: Requirements is False),
            # nor does a draining one (its START is the draining START, false by default)
            ("requirements", "Requirements",
             _FALSE if state == State.PREEMPTING or self.draining else _REQUIREMENTS)]
        if self.draining is not None:
            own.append(("draining", "Draining", to_tree(True)))
            own.append(("drainreason", "DrainReason", to_tree(self.drain_reason)))
        claim = self.claim
        if with_claim and claim is not None and state in (State.CLAIMED, State.PREEMPTING):
            own += [(_TIME_KEYS[name], name, literal(v)) for name, v in claim.times(now).items()]
            user = literal(claim.user)
            own += (("currentrank", "CurrentRank", literal(claim.rank)),
                    ("remoteowner", "RemoteOwner", user), ("remoteuser", "RemoteUser", user))
            if not claim.fetched:
                own.append(("clientmachine", "ClientMachine",
                            literal(_host(claim.scheduler_addr))))
            if claim.job_ad is not None:
                own.append(("jobid", "JobId", literal(claim.job_id())))
                own.append(("jobstart", "JobStart", literal(int(claim.job_started))))
                gjid = claim.job_ad.evaluate("GlobalJobId")
                if type(gjid) is str:
                    own.append(("globaljobid", "GlobalJobId", literal(gjid)))
        elif with_claim:
            own.append(("currentrank", "CurrentRank", _ZERO))
        if len(self.published):
            own += _pairs_of(self.published)
        if self.cron_merge is None:
            own += tail
        def put(pairs: Iterable[tuple[str, str, ExprTree]]) -> None:
            for key, name, tree in pairs:
                if key not in names:
                    names[key] = name
                attrs[key] = tree
                if wire is not None:
                    wire[names[key]] = tree_to_wire(tree)

        put(own)
        if self.cron_merge is not None:  # it reads the ad as it is so far
            put(_pairs_of(self.cron_merge(ad, self.slot_id)) + list(tail))
        if isinstance(ad, SealedAd):
            ad._wire = wire
        return ad

    # -- events --------------------------------------------------------------------------

    def request_claim(self, claim_id: str, job_ad: ClassAd, scheduler_addr: str,
                      now: float) -> tuple[bool, str, list[Action]]:
        """REQUEST_CLAIM: (accepted, reason, actions).

        Accepted with no actions means Claimed/Idle now; accepted with a StopJob means a
        preempting claim waits (answer it on the ClaimGranted action).
        """
        if claim_id != self.offered_claim_id:
            return False, "claim id is not valid", []
        if self.state == State.OWNER:
            return False, "the machine's START expression is false (Owner state)", []
        if self.preempting is not None or self.state == State.PREEMPTING:
            return False, "the slot is already being preempted", []
        if self.draining is not None:
            return False, "the machine is draining", []
        slot_ad = self.ad(now)
        if not symmetric_match(job_ad, slot_ad, EvalContext(now=int(now))):
            return False, "the job does not match the machine's requirements", []
        new_rank = rank(slot_ad, job_ad, EvalContext(now=int(now)))
        claim = Claim(claim_id=claim_id, request_ad=job_ad, scheduler_addr=scheduler_addr,
                      lease_deadline=now + self.lease_duration, rank=new_rank, claimed_at=now)
        self.offered_claim_id = self._fresh_id()
        self.ad_changed = True
        if self.state == State.UNCLAIMED:
            self.claim = claim
            self._go(Event.CLAIMED, now)
            return True, "", []
        assert self.claim is not None and self.state == State.CLAIMED
        if new_rank < self.claim.rank:
            return False, "the job ranks lower than the job the slot runs", []
        self.preempting = claim
        if self.claim.job_ad is not None:
            return True, "", self._retire(now)  # the running job may retire first
        return True, "", self._vacate(now, Event.VACATE)

    def activate(self, claim_id: str, job_ad: ClassAd, now: float) -> str | None:
        """ACTIVATE_CLAIM: None when the claim now runs the job, else why not."""
        if self.claim is None or claim_id != self.claim.claim_id:
            return "claim id is not valid"
        if (self.state, self.activity) != (State.CLAIMED, Activity.IDLE):
            return f"the claim is {self.state.value}/{self.activity.value}, not Claimed/Idle"
        if self.worklife_expired(now):
            return (f"the claim's CLAIM_WORKLIFE ({self.worklife(now)} s) has expired: "
                    "it takes no more jobs")
        self.claim.job_ad = job_ad
        self.claim.job_started = now
        self.claim.starter_ad = ClassAd()
        self.claim.begin_job(now)
        self.claim.rank = rank(self.ad(now), job_ad, EvalContext(now=int(now)))
        self._go(Event.ACTIVATED, now)
        return None

    def activation_failed(self, now: float) -> None:
        """The starter could not be told: back to Claimed/Idle."""
        if self.claim is not None and self.activity == Activity.BUSY:
            self.claim.set_clock("", now)
            self.claim.job_ad = None
            self._go(Event.JOB_DONE, now)

    def starter_update(self, claim_id: str, ad: ClassAd) -> bool:
        if self.claim is None or claim_id != self.claim.claim_id or self.claim.job_ad is None:
            return False
        self.claim.starter_ad.update(ad)
        return True

    def starter_exited(self, claim_id: str, now: float) -> list[Action]:
        """STARTER_EXITED: the job is gone; the history gets it; the claim goes on or ends."""
        claim = self.claim
        if claim is None or claim_id != claim.claim_id or claim.job_ad is None:
            return []
        job = self._job()
        assert job is not None
        actions: list[Action] = [WriteHistory(job)]
        claim.set_clock("", now)
        claim.job_ad = None
        claim.starter_ad = ClassAd()
        self._go(Event.JOB_DONE, now)
        if self.state == State.PREEMPTING:
            actions += self._preemption_over(now)
        elif self.worklife_expired(now):
            actions += self._end_worklife(now)
        return actions

    def deactivate(self, claim_id: str, forcibly: bool, now: float) -> list[Action] | None:
        """DEACTIVATE_CLAIM(_FORCIBLY): stop the job, keep the claim. None: unknown claim."""
        if self.claim is None or claim_id != self.claim.claim_id:
            return None
        if self.claim.job_ad is None:
            return []
        self.claim.set_clock("", now)  # HTCondor's claim is Vacating: its clocks stop
        return [StopJob(claim_id, self.claim.starter_job())]

    def release(self, claim_id: str, now: float) -> list[Action] | None:
        """RELEASE_CLAIM (or a lapsed lease): the claim ends. None: unknown claim."""
        if self.preempting is not None and claim_id == self.preempting.claim_id:
            self.preempting = None
            return [ClaimRefused(claim_id, "the claim was released")]
        if self.claim is None or claim_id != self.claim.claim_id:
            return None
        if self.state == State.PREEMPTING:
            return []
        return self._vacate(now, Event.RELEASED)

    def alive(self, claim_id: str, now: float) -> bool:
        """ALIVE: renew the claim's lease; False when the claim is unknown."""
        for claim in (self.claim, self.preempting):
            if claim is not None and claim.claim_id == claim_id:
                claim.lease_deadline = now + self.lease_duration
                return True
        return False

    def next_deadline(self) -> float | None:
        """When the claim lease lapses or an idle claim outlives CLAIM_WORKLIFE (the
        runner calls :meth:`tick` then)."""
        times = [self.preempting.lease_deadline] if self.preempting is not None else []
        if self.claim is not None and self.state == State.CLAIMED:
            times.append(self.claim.lease_deadline)  # a claim being preempted is ending
            if self.activity == Activity.IDLE and self.claim.activations > 0 and \
                    not self.claim.fetched:
                worklife = self.worklife(self.claim.claimed_at)
                if worklife >= 0:
                    times.append(self.claim.claimed_at + worklife + 1)
        times = [t for t in times if math.isfinite(t)]  # a fetched claim has no lease
        return min(times) if times else None

    # -- fetched work ----------------------------------------------------------------------

    def idle_fetch_claim(self) -> bool:
        """Claimed/Idle on a fetched claim: the starter of its last job has exited."""
        return (self.claim is not None and self.claim.fetched
                and (self.state, self.activity) == (State.CLAIMED, Activity.IDLE))

    def fetched_work(self, job_ad: ClassAd | None, now: float) -> FetchDecision:
        """The fetch hook's answer: a job ad, or None for no work (see FetchDecision)."""
        idle_fetch = self.idle_fetch_claim()
        if job_ad is None:
            # out of work: an idle fetched claim is evicted, the slot goes back to Owner
            return FetchDecision(False, None, reason="no work",
                                 actions=self._vacate(now, Event.VACATE) if idle_fetch else [])
        job = job_ad.copy()
        for attr in ("RequestCpus", "RequestMemory", "RequestDisk"):
            if job.lookup(attr) is None:
                job[attr] = 1
        if not isinstance(job.evaluate("HookKeyword"), str) and self.fetch_keyword:
            job["HookKeyword"] = self.fetch_keyword
        claim_id = self.claim.claim_id if self.claim is not None else self.offered_claim_id
        new_rank = 0.0
        reason = ""
        if self.state == State.PREEMPTING:
            reason = "still preempting the previous job"
        elif self.draining is not None or self.state == State.DRAINED:
            # no new work while draining, as REQUEST_CLAIM is refused (the fetch hook may
            # have run before the drain began)
            reason = "the machine is draining"
        elif not _true(self.machine.policy["START"].evaluate(
                my=self.ad(now), target=job, ctx=EvalContext(now=int(now)))):
            reason = "the slot's Requirements (START) are not met by the fetched job"
        else:
            new_rank = rank(self.ad(now), job, EvalContext(now=int(now)))
            if self.state == State.CLAIMED and not idle_fetch and self.claim is not None \
                    and new_rank <= self.claim.rank:
                reason = "the fetched job does not rank higher than the claim's job"
        if reason:
            actions = self._vacate(now, Event.VACATE) if idle_fetch else []
            return FetchDecision(False, job, claim_id, reason, actions)
        if idle_fetch:
            assert self.claim is not None
            self.claim.request_ad = job
            return FetchDecision(True, job, claim_id, actions=self._start_fetched(job, now))
        claim = self._fetch_claim(job, new_rank, now)
        if self.state == State.CLAIMED:
            assert self.claim is not None
            self.preempting = claim  # rank preemption: the current job retires first
            if self.claim.job_ad is not None:
                return FetchDecision(True, job, claim_id, actions=self._retire(now))
            return FetchDecision(True, job, claim_id, actions=self._vacate(now, Event.VACATE))
        if self.state == State.OWNER:
            self._go(Event.START_TRUE, now)
        self.claim = claim
        self._go(Event.CLAIMED, now)
        return FetchDecision(True, job, claim_id, actions=self._start_fetched(job, now))

    def _fetch_claim(self, job: ClassAd, job_rank: float, now: float) -> Claim:
        claim_id = self.offered_claim_id
        self.offered_claim_id = self._fresh_id()
        self.ad_changed = True
        cluster, proc = job.evaluate("ClusterId"), job.evaluate("ProcId")
        key = (f"{cluster if type(cluster) is int else 1}.{proc if type(proc) is int else 0}"
               f"@{self.name}")
        return Claim(claim_id=claim_id, request_ad=job, scheduler_addr="",
                     lease_deadline=math.inf, rank=job_rank, claimed_at=now, fetched=True,
                     keyword=self.fetch_keyword or "", fetch_key=key)

    def _start_fetched(self, job: ClassAd, now: float) -> list[Action]:
        """Claimed/Idle on a fetched claim: its job starts at once (spawnFetchedWork)."""
        claim = self.claim
        assert claim is not None and claim.fetched
        claim.job_ad = job
        claim.job_started = now
        claim.starter_ad = ClassAd()
        claim.begin_job(now)
        self._go(Event.ACTIVATED, now)
        return [StartFetchedJob(claim.claim_id, job)]

    def fetched_start_failed(self, now: float) -> list[Action]:
        """The starter would not run the fetched job: the claim is given up (Owner)."""
        if self.claim is None or not self.claim.fetched or self.activity != Activity.BUSY:
            return []
        self.activation_failed(now)
        return self._vacate(now, Event.VACATE)

    # -- CLAIM_WORKLIFE --------------------------------------------------------------------

    def worklife(self, now: float) -> int:
        """CLAIM_WORKLIFE in seconds (evaluated in the slot ad alone); -1 means no limit."""
        value = self.machine.policy["CLAIM_WORKLIFE"].evaluate(
            my=self.ad(now, with_claim=False), target=None, ctx=EvalContext(now=int(now)))
        if type(value) is int:
            return value
        if type(value) is float and math.isfinite(value):
            return int(value)
        return -1

    def worklife_expired(self, now: float) -> bool:
        """True when the claim has run a job and is older than CLAIM_WORKLIFE."""
        claim = self.claim
        if claim is None or claim.activations == 0 or claim.fetched:
            return False
        worklife = self.worklife(now)
        return worklife >= 0 and int(now - claim.claimed_at) > worklife

    def _end_worklife(self, now: float) -> list[Action]:
        """An idle claim outlived CLAIM_WORKLIFE: it shuts down as a released claim does."""
        self._go(Event.WORKLIFE, now)
        return self._preemption_over(now)

    # -- preemption ------------------------------------------------------------------------

    def _vacate(self, now: float, event: Event) -> list[Action]:
        claim = self.claim
        assert claim is not None
        evicted: list[Action] = [FetchClaimEvicted(claim.claim_id, claim.keyword,
                                                   claim.request_ad)] if claim.fetched else []
        job = claim.starter_job() if claim.job_ad is not None else ""
        if event == Event.VACATE and claim.job_ad is not None and not _true(
                self._eval("WANT_VACATE", self._job(), now)):
            event = Event.KILL
        self._go(event, now)
        if claim.job_ad is None:
            return evicted + self._preemption_over(now)
        claim.set_clock("", now)  # Vacating/Killing: the claim's clocks stop
        return [*evicted, StopJob(claim.claim_id, job)]

    def _retire(self, now: float) -> list[Action]:
        """Claimed/Retiring: the job may run to MAXJOBRETIREMENTTIME, then it is vacated."""
        assert self.claim is not None
        retire = self._eval("MAXJOBRETIREMENTTIME", self._job(), now)
        seconds = float(retire) if type(retire) in (int, float) else 0.0  # type: ignore[arg-type]
        self.retire_deadline = self.claim.job_started + seconds
        self._go(Event.RETIRE, now)
        if now >= self.retire_deadline:
            return self._vacate(now, Event.VACATE)
        return []

    def _preemption_over(self, now: float) -> list[Action]:
        """The preempted job is gone: hand over to the preempting claim or end the claim."""
        if self.preempting is not None:
            self.claim, self.preempting = self.preempting, None
            self.claim.claimed_at = now  # the claim starts its life when it takes over
            self._go(Event.CLAIMED, now)
            if self.claim.fetched:  # Claimed/Idle on a fetched claim: spawn its job
                return self._start_fetched(self.claim.request_ad, now)
            return [ClaimGranted(self.claim.claim_id)]
        self.claim = None
        self._go(Event.PREEMPTED_DONE, now)
        self.tick(now)
        return []

    def tick(self, now: float) -> list[Action]:
        """Evaluate the policy and the claim lease at ``now``; what the runner must do."""
        actions: list[Action] = []
        if self.preempting is not None and self.preempting.lease_deadline <= now:
            actions += self.release(self.preempting.claim_id, now) or []
        if (self.claim is not None and self.claim.lease_deadline <= now
                and self.state == State.CLAIMED):
            actions += self.release(self.claim.claim_id, now) or []
        if (self.draining is not None or self.state == State.DRAINED) \
                and self.state != State.PREEMPTING:  # a preempted claim ends as usual first
            return actions + self._drain_step(now)
        if self.state in (State.OWNER, State.UNCLAIMED):
            start = self._eval("START", None, now)
            if self.state == State.OWNER and start is not False:
                self._go(Event.START_TRUE, now)
            elif self.state == State.UNCLAIMED and start is False:
                self._go(Event.START_FALSE, now)
            return actions
        claim, job = self.claim, self._job()
        if (claim is not None and (self.state, self.activity) == (State.CLAIMED, Activity.IDLE)
                and self.worklife_expired(now)):
            return actions + self._end_worklife(now)
        if claim is None or claim.job_ad is None:
            return actions
        if self.state == State.CLAIMED:
            # WANT_SUSPEND decides whether SUSPEND or PREEMPT is looked at while Busy
            if self.activity == Activity.BUSY:
                if _true(self._eval("WANT_SUSPEND", job, now)):
                    if _true(self._eval("SUSPEND", job, now)):
                        self._go(Event.SUSPEND, now)
                        claim.set_clock("suspend", now)
                        actions.append(SuspendJob(claim.claim_id, claim.starter_job(), True))
                elif _true(self._eval("PREEMPT", job, now)):
                    actions += self._retire(now)
            elif self.activity == Activity.SUSPENDED:
                if _true(self._eval("CONTINUE", job, now)):
                    self._go(Event.CONTINUE, now)
                    claim.set_clock("run", now)
                    actions.append(SuspendJob(claim.claim_id, claim.starter_job(), False))
                elif _true(self._eval("PREEMPT", job, now)):
                    actions += self._retire(now)
            elif self.activity == Activity.RETIRING and now >= self.retire_deadline:
                actions += self._vacate(now, Event.VACATE)
        elif self.state == State.PREEMPTING and self.activity == Activity.KILLING:
            if now - self.entered_activity >= self.machine.killing_timeout:
                # the starter never reported the job gone: give it up (HTCondor kills
                # the starter when KILLING_TIMEOUT expires)
                if job is not None:
                    actions.append(WriteHistory(job))
                claim.set_clock("", now)
                claim.job_ad = None
                claim.starter_ad = ClassAd()
                self._go(Event.JOB_DONE, now)
                actions += self._preemption_over(now)
        elif self.state == State.PREEMPTING and self.activity == Activity.VACATING:
            vacate_time = self._eval("MachineMaxVacateTime", job, now)
            limit = vacate_time if type(vacate_time) in (int, float) else 600
            assert isinstance(limit, (int, float))
            if _true(self._eval("KILL", job, now)) or now - self.entered_activity >= limit:
                self._go(Event.KILL, now)
        return actions


    # -- draining (condor_drain) -------------------------------------------------------------

    def drain(self, how: str, reason: str, now: float) -> list[Action]:
        """Start draining: no new claim; the claim's job retires (graceful: up to
        MAXJOBRETIREMENTTIME), is vacated (quick) or killed (fast); then Drained/Idle."""
        self.draining, self.drain_reason = how, reason
        self.ad_changed = True
        return self._drain_step(now)

    def undrain(self, now: float) -> list[Action]:
        """Stop draining: a Drained slot goes back to Owner, then to Unclaimed by START."""
        self.draining, self.drain_reason = None, ""
        self.ad_changed = True
        if self.state == State.DRAINED:
            self._go(Event.UNDRAIN, now)
        return self.tick(now)

    def drained(self) -> bool:
        return self.state == State.DRAINED

    def _drain_step(self, now: float) -> list[Action]:
        if self.draining is None:
            return []
        if self.state in (State.OWNER, State.UNCLAIMED):
            self._go(Event.DRAIN, now)
            return []
        claim = self.claim
        if self.state != State.CLAIMED or claim is None:
            return []  # Drained, or preempting: the claim ends first
        if claim.job_ad is None and self.activity == Activity.IDLE:
            return self.release(claim.claim_id, now) or []
        if self.activity == Activity.RETIRING:
            return self._vacate(now, Event.VACATE) if now >= self.retire_deadline else []
        if self.draining == "graceful":
            return self._retire(now)
        return self._vacate(now, Event.VACATE if self.draining == "quick" else Event.KILL)


def _host(address: str) -> str:
    text = address.strip().lstrip("<")
    return text.split(":", 1)[0].split(">", 1)[0]
