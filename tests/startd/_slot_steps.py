"""A step of a random slot history that both random-history tests take (test_slot_fuzz,
test_slot_ad_fast): what the claim's holder, its starter or time does to a slot."""

from __future__ import annotations

from condorsim.classad import ClassAd
from daemons.startd.slot import Slot

POLICY = """
RANK = TARGET.JobPrio
PREEMPT = (time() - JobStart) > 400
MAXJOBRETIREMENTTIME = 100
WANT_SUSPEND = true
SUSPEND = ((time() / 100) % 3) == 1
CONTINUE = ((time() / 100) % 3) != 1
START = ((time() / 1000) % 4) != 3
MachineMaxVacateTime = 50
CLAIM_WORKLIFE = 500
"""
"""A startd policy that preempts, retires, suspends and refuses by turns as time goes."""

CLAIM_EVENTS = ("activate", "exit", "release", "deactivate", "alive", "update")


def claim_event(slot: Slot, op: str, job: ClassAd, prio: int, now: float) -> bool:
    """Do ``op`` (one of :data:`CLAIM_EVENTS`) to ``slot``'s current claim (or to a claim
    id it does not have, when it has none); False for any other ``op``."""
    current = slot.current_claim_id or "none"
    if op == "activate":
        slot.activate(current, job, now)
    elif op == "exit":
        slot.starter_exited(current, now)
    elif op == "release":
        slot.release(current, now)
    elif op == "deactivate":
        slot.deactivate(current, prio % 2 == 0, now)
    elif op == "alive":
        slot.alive(current, now)
    elif op == "update":
        slot.starter_update(current, ClassAd({"ImageSize": prio}))
    else:
        return False
    return True
