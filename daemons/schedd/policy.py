"""The schedd's periodic job policy: PeriodicHold, PeriodicRemove, PeriodicRelease.

How this works
--------------
Every PERIODIC_EXPR_INTERVAL the runner calls :func:`evaluate_periodic` for the jobs with
no shadow (the shadow evaluates a running job's policy). As HTCondor's UserPolicy does:
PeriodicHold is looked at for jobs not held, then PeriodicRemove, then PeriodicRelease
for held jobs; the first that is True fires. The reason texts are HTCondor's
("The job attribute PeriodicHold expression '<expr>' evaluated to TRUE").
"""

from __future__ import annotations

from dataclasses import dataclass

from condorsim.classad import ClassAd, EvalContext
from condorsim.jobs.codes import HoldCode, JobStatus


@dataclass(frozen=True)
class PolicyAction:
    action: str  # "hold", "remove" or "release"
    reason: str
    code: int = 0
    subcode: int = 0


def _fires(ad: ClassAd, attr: str, ctx: EvalContext) -> bool:
    return ad.lookup(attr) is not None and ad.evaluate(attr, None, ctx) is True


def _reason(ad: ClassAd, attr: str) -> str:
    tree = ad.lookup(attr)
    return f"The job attribute {attr} expression '{tree}' evaluated to TRUE"


POLICY_ATTRS = ("PeriodicHold", "PeriodicRemove", "PeriodicRelease")


def may_fire(ad: ClassAd) -> bool:
    """False when :func:`evaluate_periodic` can never act on this ad: each policy
    expression is absent or the literal ``false``."""
    for attr in POLICY_ATTRS:
        tree = ad.lookup(attr)
        if tree is not None and str(tree) != "false":
            return True
    return False


def evaluate_periodic(ad: ClassAd, now: int, tz: str = "UTC") -> PolicyAction | None:
    """What the periodic policy does to this (shadow-less) job now, if anything."""
    ctx = EvalContext(now=now, tz=tz)
    status = ad.evaluate("JobStatus")
    if status in (JobStatus.REMOVED, JobStatus.COMPLETED):
        return None
    if status != JobStatus.HELD and _fires(ad, "PeriodicHold", ctx):
        reason = ad.evaluate("PeriodicHoldReason", None, ctx)
        sub = ad.evaluate("PeriodicHoldSubCode", None, ctx)
        return PolicyAction(
            "hold",
            reason if isinstance(reason, str) and reason else _reason(ad, "PeriodicHold"),
            int(HoldCode.JOB_POLICY),
            sub if isinstance(sub, int) and not isinstance(sub, bool) else 0,
        )
    if _fires(ad, "PeriodicRemove", ctx):
        return PolicyAction("remove", _reason(ad, "PeriodicRemove"))
    if status == JobStatus.HELD and _fires(ad, "PeriodicRelease", ctx):
        return PolicyAction("release", _reason(ad, "PeriodicRelease"))
    return None
