"""The negotiator's accountant: user priorities and fair-share limits (sans-I/O).

How this works
--------------
As HTCondor's ``Accountant`` (facts section 9):

* every submitter has a *real user priority* (RUP). At each cycle
  :meth:`Accountant.update_priorities` decays it towards the submitter's current usage:
  ``RUP = RUP * beta + usage * (1 - beta)`` with ``beta = 0.5 ** (dt / PRIORITY_HALFLIFE)``,
  never below the floor 0.5 (MinPriority). A submitter seen for the first time starts
  at the floor.
* the *effective user priority* is ``EUP = RUP * PriorityFactor`` (DEFAULT_PRIO_FACTOR,
  1000). Lower is better.
* :func:`submitter_limits` shares the pool: ``share_i = max/(EUP_i * sum_j max/EUP_j)``
  where ``max`` is the largest EUP, and ``limit_i = share_i * total_weight - usage_i``,
  at least 0.

Usage is counted per match, as HTCondor's accountant counts it (Accountant.cpp): a match
adds the slot's weight (SlotWeight, else Cpus, or 1 without slot weights) to its
submitter's ResourcesUsed the moment the negotiator makes it (:meth:`Accountant.add_match`,
with negative *uncharged time* for the part of the interval before it), and at each cycle
:meth:`Accountant.update_priorities` charges ``ResourcesUsed x time passed + uncharged
time`` before :meth:`Accountant.check_matches` compares the recorded matches with the slot
ads: a slot no longer claimed by its user ends its match (the time since the last update
becomes uncharged time, 0 right after an update), a claimed slot the accountant does not
know starts one. So a job that starts and ends between two cycles is charged from its match
to the next cycle, never lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

MIN_PRIORITY = 0.5


@dataclass
class UserRecord:
    """What the accountant knows of one submitter."""

    priority: float = MIN_PRIORITY  # real user priority
    factor: float = 1000.0
    usage: float = 0.0  # the weight of its matches (WeightedResourcesUsed)
    matches: int = 0  # how many slots it holds (ResourcesUsed)
    uncharged: float = 0.0  # weighted slot-seconds not yet charged (WeightedUnchargedTime)
    accumulated: float = 0.0  # weighted slot-seconds used (AccumulatedUsage)
    begin_usage: int = 0  # when the user first used a slot (BeginUsageTime)
    last_usage: int = 0  # when the user last used a slot (LastUsageTime)


@dataclass
class Accountant:
    """User priorities, decayed at each update by PRIORITY_HALFLIFE."""

    halflife: float = 86400.0
    default_factor: float = 1000.0
    users: dict[str, UserRecord] = field(default_factory=dict)
    last_update: float | None = None
    # slot name -> (user, weight, when its match started)
    resources: dict[str, tuple[str, float, float]] = field(default_factory=dict)

    def record(self, user: str) -> UserRecord:
        """The record of ``user``, made (at the floor, default factor) when new."""
        rec = self.users.get(user)
        if rec is None:
            rec = self.users[user] = UserRecord(factor=self.default_factor)
        return rec

    def set_factor(self, user: str, factor: float) -> None:
        """condor_userprio -setfactor."""
        self.record(user).factor = factor

    def update_priorities(self, now: float) -> None:
        """Charge every user for the time since the last update and decay its RUP towards
        that usage (HTCondor's UpdatePriorities: RecentUsage = WeightedResourcesUsed +
        WeightedUnchargedTime / time passed)."""
        if self.last_update is None:
            self.last_update = now
            return
        passed = now - self.last_update
        if passed <= 0:
            if passed < 0:  # the clock went back: start again from now
                self.last_update = now
            return
        beta = 0.5 ** (passed / self.halflife) if self.halflife > 0 else 0.0
        for user in sorted(self.users):
            rec = self.users[user]
            recent = rec.usage + rec.uncharged / passed
            rec.priority = max(MIN_PRIORITY, rec.priority * beta + recent * (1 - beta))
            rec.accumulated += rec.usage * passed + rec.uncharged
            if rec.accumulated > 0 and not rec.begin_usage:
                rec.begin_usage = int(now)
            if recent > 0:
                rec.last_usage = int(now)
            rec.uncharged = 0.0
        self.last_update = now

    def add_match(self, user: str, resource: str, weight: float, now: float) -> None:
        """A match of ``resource`` (a slot's name) for ``user`` starts at ``now``."""
        held = self.resources.get(resource)
        if held is not None:
            if held[0] == user:
                return
            self.remove_match(resource, now)
        rec = self.record(user)
        rec.matches += 1
        rec.usage += weight
        # the part of the interval before the match is not the user's
        rec.uncharged -= (now - (self.last_update if self.last_update is not None else now)) \
            * weight
        self.resources[resource] = (user, weight, now)

    def remove_match(self, resource: str, now: float) -> None:
        """The match of ``resource`` ended by ``now``: what it held since the last update
        becomes uncharged time."""
        held = self.resources.pop(resource, None)
        if held is None:
            return
        user, weight, start = held
        rec = self.record(user)
        rec.matches = max(0, rec.matches - 1)
        rec.usage = max(0.0, rec.usage - weight)
        if self.last_update is not None:
            start = max(start, self.last_update)
        rec.uncharged += (now - start) * weight

    def check_matches(self, now: float, claimed: Mapping[str, tuple[str, float]]) -> None:
        """Bring the recorded matches in line with the slot ads: ``claimed`` maps each
        claimed slot's name to (its RemoteUser, its weight)."""
        for resource, (user, _weight, _start) in list(self.resources.items()):
            holder = claimed.get(resource)
            if holder is None or holder[0] != user:
                self.remove_match(resource, now)
        for resource, (user, weight) in claimed.items():
            self.add_match(user, resource, weight, now)

    def usage(self) -> dict[str, float]:
        """Each user's weight in use (WeightedResourcesUsed)."""
        return {user: rec.usage for user, rec in self.users.items() if rec.usage > 0}

    def accounting_ads(self, now: float) -> list[dict[str, object]]:
        """The submitters' Accounting ads (what condor_userprio shows), one per user:
        Priority is the effective priority, as the negotiator reports it."""
        ads = []
        for user in sorted(self.users):
            rec = self.users[user]
            ads.append({
                "MyType": "Accounting", "Name": user, "AccountingGroup": "<none>",
                "IsAccountingGroup": False, "Priority": rec.priority * rec.factor,
                "PriorityFactor": rec.factor, "ResourcesUsed": rec.matches,
                "WeightedResourcesUsed": float(rec.usage),
                "AccumulatedUsage": rec.accumulated, "WeightedAccumulatedUsage": rec.accumulated,
                "BeginUsageTime": rec.begin_usage, "LastUsageTime": rec.last_usage,
                "LastUpdate": int(self.last_update if self.last_update is not None else now),
            })
        return ads

    def real_priority(self, user: str) -> float:
        rec = self.users.get(user)
        return rec.priority if rec is not None else MIN_PRIORITY

    def effective_priority(self, user: str) -> float:
        """EUP = RUP x PriorityFactor (a new user: the floor x the default factor)."""
        rec = self.users.get(user)
        if rec is None:
            return MIN_PRIORITY * self.default_factor
        return rec.priority * rec.factor


def submitter_limits(eups: Mapping[str, float], usage: Mapping[str, float],
                     total_weight: float) -> dict[str, float]:
    """Each submitter's fair-share limit: share of ``total_weight`` minus what it uses."""
    if not eups:
        return {}
    top = max(eups.values())
    normal = sum(top / eup for eup in eups.values())
    limits = {}
    for name, eup in eups.items():
        share = top / (eup * normal)
        limits[name] = max(0.0, share * total_weight - usage.get(name, 0.0))
    return limits


def order_submitters(eups: Mapping[str, float]) -> list[str]:
    """Submitters best first: lowest EUP, ties by name."""
    return sorted(eups, key=lambda name: (eups[name], name))
