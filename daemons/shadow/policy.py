"""The job's own policy expressions, evaluated by the shadow while the job runs and at exit.

How this works
--------------
HTCondor's ``UserPolicy::AnalyzePolicy`` checks, first one to fire wins: TimerRemove,
PeriodicHold, PeriodicRemove, and at exit OnExitHold then OnExitRemove (PeriodicRelease
only matters to a held job, which has no shadow). An expression fires when it evaluates to
a non-zero number (or true); a missing or literally UNDEFINED one never fires; one that
evaluates to anything else (UNDEFINED, ERROR, a string) fires as "undefined", which holds
the job with HoldReasonCode 5 (JobPolicyUndefined). A missing OnExitRemove means remove.

The reason is ``<Attr>Reason`` when that evaluates to a string, else
``The job attribute <Attr> expression '<expr>' evaluated to TRUE|FALSE|UNDEFINED``; the
subcode is ``<Attr>SubCode``. :func:`periodic_policy` and :func:`exit_policy` return a
:class:`PolicyOutcome` (or None: nothing fired); they take ``now`` and never read a clock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from condorsim.classad import ClassAd, EvalContext
from condorsim.jobs.codes import HoldCode


class PolicyAction(enum.Enum):
    HOLD = "hold"
    REMOVE = "remove"
    STAY = "stay"  # OnExitRemove was false: requeue


@dataclass(frozen=True)
class PolicyOutcome:
    action: PolicyAction
    attr: str
    reason: str
    code: int = 0
    subcode: int = 0


def _fires(ad: ClassAd, attr: str, ctx: EvalContext) -> int | None:
    """1 fired, 0 did not, -1 undefined (fires as a hold), None for a missing attribute."""
    tree = ad.lookup(attr)
    if tree is None:
        return None
    if str(tree).strip().lower() == "undefined":  # literally UNDEFINED: never fires
        return 0
    value = ad.evaluate(attr, ctx=ctx)
    if type(value) in (bool, int, float):
        return 1 if value else 0
    return -1


def _outcome(
    ad: ClassAd, attr: str, fired: int, action: PolicyAction, ctx: EvalContext
) -> PolicyOutcome:
    tree = ad.lookup(attr)
    text = str(tree) if tree is not None else "true"
    word = {1: "TRUE", 0: "FALSE", -1: "UNDEFINED"}[fired]
    default = f"The job attribute {attr} expression '{text}' evaluated to {word}"
    if fired == -1:
        return PolicyOutcome(PolicyAction.HOLD, attr, default, int(HoldCode.JOB_POLICY_UNDEFINED))
    reason = ad.evaluate(f"{attr}Reason", ctx=ctx)
    subcode = ad.evaluate(f"{attr}SubCode", ctx=ctx)
    return PolicyOutcome(
        action, attr,
        reason if isinstance(reason, str) and reason else default,
        int(HoldCode.JOB_POLICY),
        int(subcode) if type(subcode) in (int, float) else 0,
    )


def _timer_remove(ad: ClassAd, ctx: EvalContext) -> PolicyOutcome | None:
    tree = ad.lookup("TimerRemove")
    if tree is None:
        return None
    value = ad.evaluate("TimerRemove", ctx=ctx)
    if type(value) is not int:
        return _outcome(ad, "TimerRemove", -1, PolicyAction.HOLD, ctx)
    if 0 <= value < ctx.now:
        return _outcome(ad, "TimerRemove", 1, PolicyAction.REMOVE, ctx)
    return None


def periodic_policy(ad: ClassAd, now: int) -> PolicyOutcome | None:
    """TimerRemove, PeriodicHold, PeriodicRemove of a job that is not held; None if none fires."""
    ctx = EvalContext(now=now)
    outcome = _timer_remove(ad, ctx)
    if outcome is not None:
        return outcome
    for attr, action in (("PeriodicHold", PolicyAction.HOLD),
                         ("PeriodicRemove", PolicyAction.REMOVE)):
        fired = _fires(ad, attr, ctx)
        if fired:
            return _outcome(ad, attr, fired, action, ctx)
    return None


def periodic_policy_is_constant(ad: ClassAd) -> bool:
    """True when the periodic policy of ``ad`` cannot fire however long the job runs.

    So it is when there is no TimerRemove (which compares with the time) and PeriodicHold
    and PeriodicRemove are each missing or a literal that does not fire (false, 0,
    UNDEFINED). Evaluating such a policy every PERIODIC_EXPR_INTERVAL changes nothing, so
    the shadow sets no timer for it (until a qedit changes the job's policy).
    """
    if ad.lookup("TimerRemove") is not None:
        return False
    ctx = EvalContext(now=0)
    for attr in ("PeriodicHold", "PeriodicRemove"):
        tree = ad.lookup(attr)
        if tree is not None and not (tree.is_literal and _fires(ad, attr, ctx) == 0):
            return False
    return True


def exit_policy(ad: ClassAd, now: int) -> PolicyOutcome:
    """The periodic checks, then OnExitHold and OnExitRemove, for a job that exited."""
    outcome = periodic_policy(ad, now)
    if outcome is not None:
        return outcome
    ctx = EvalContext(now=now)
    fired = _fires(ad, "OnExitHold", ctx)
    if fired:
        return _outcome(ad, "OnExitHold", fired, PolicyAction.HOLD, ctx)
    fired = _fires(ad, "OnExitRemove", ctx)
    if fired is None or fired == 1:
        return _outcome(ad, "OnExitRemove", 1, PolicyAction.REMOVE, ctx)
    if fired == -1:
        return _outcome(ad, "OnExitRemove", -1, PolicyAction.HOLD, ctx)
    return _outcome(ad, "OnExitRemove", 0, PolicyAction.STAY, ctx)

