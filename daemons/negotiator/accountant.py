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

Usage is the weight (SlotWeight, else Cpus, or 1 without slot weights) of the claimed
slots whose RemoteUser is the submitter, read from the slot ads at each cycle.
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
    usage: float = 0.0
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

    def record(self, user: str) -> UserRecord:
        """The record of ``user``, made (at the floor, default factor) when new."""
        rec = self.users.get(user)
        if rec is None:
            rec = self.users[user] = UserRecord(factor=self.default_factor)
        return rec

    def set_factor(self, user: str, factor: float) -> None:
        """condor_userprio -setfactor."""
        self.record(user).factor = factor

    def update_priorities(self, now: float, usage: Mapping[str, float]) -> None:
        """Decay every known user's RUP towards its current ``usage`` (weights in use)."""
        for user in usage:
            self.record(user)
        dt = 0.0 if self.last_update is None else max(0.0, now - self.last_update)
        beta = 0.5 ** (dt / self.halflife) if self.halflife > 0 else 0.0
        for user in sorted(self.users):
            rec = self.users[user]
            rec.accumulated += rec.usage * dt  # what it used since the last update
            rec.usage = usage.get(user, 0.0)
            if rec.usage > 0:
                rec.last_usage = int(now)
                rec.begin_usage = rec.begin_usage or int(now)
            rec.priority = max(MIN_PRIORITY, rec.priority * beta + rec.usage * (1 - beta))
        self.last_update = now

    def accounting_ads(self, now: float) -> list[dict[str, object]]:
        """The submitters' Accounting ads (what condor_userprio shows), one per user:
        Priority is the effective priority, as the negotiator reports it."""
        ads = []
        for user in sorted(self.users):
            rec = self.users[user]
            ads.append({
                "MyType": "Accounting", "Name": user, "AccountingGroup": "<none>",
                "IsAccountingGroup": False, "Priority": rec.priority * rec.factor,
                "PriorityFactor": rec.factor, "ResourcesUsed": int(rec.usage),
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
