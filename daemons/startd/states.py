"""The startd's slot states, activities and the table of legal transitions.

How this works
--------------
HTCondor's startd gives every slot a *state* (Owner, Unclaimed, Matched, Claimed,
Preempting, ...) and an *activity* within it (Idle, Busy, Suspended, Retiring, Vacating,
Killing) -- docs admin-manual ep-policy-configuration.rst, "condor_startd Policy
Configuration". :data:`TRANSITIONS` maps (state, activity, event) to the next
(state, activity); :func:`next_state` looks one up and raises
:class:`IllegalTransition` for a pair the table does not have. The slot state machine
(slot.py) decides *which* event happened; this table alone says where it leads.

condorsim never enters Matched (there is no MATCH_INFO message from the negotiator: the
schedd's REQUEST_CLAIM takes an Unclaimed slot straight to Claimed), nor Backfill.
Drained/Idle is where condor_drain takes a slot once its claim is gone (docs/startd.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class State(StrEnum):
    OWNER = "Owner"
    UNCLAIMED = "Unclaimed"
    MATCHED = "Matched"
    CLAIMED = "Claimed"
    PREEMPTING = "Preempting"
    DRAINED = "Drained"


class Activity(StrEnum):
    IDLE = "Idle"
    BUSY = "Busy"
    SUSPENDED = "Suspended"
    RETIRING = "Retiring"
    VACATING = "Vacating"
    KILLING = "Killing"


class Event(StrEnum):
    START_TRUE = "start_true"  # START is no longer False: the owner lets jobs in
    START_FALSE = "start_false"  # START became False: the owner takes the machine
    CLAIMED = "claimed"  # REQUEST_CLAIM accepted
    ACTIVATED = "activated"  # ACTIVATE_CLAIM: a starter runs a job
    JOB_DONE = "job_done"  # STARTER_EXITED
    SUSPEND = "suspend"  # WANT_SUSPEND && SUSPEND
    CONTINUE = "continue"  # CONTINUE while suspended
    RETIRE = "retire"  # PREEMPT true with retirement time left
    VACATE = "vacate"  # preemption: retirement over, WANT_VACATE true
    KILL = "kill"  # KILL true, vacate time over, WANT_VACATE false, forcible
    RELEASED = "released"  # RELEASE_CLAIM, or the claim lease lapsed
    WORKLIFE = "claim_worklife"  # an idle claim older than CLAIM_WORKLIFE shuts down
    PREEMPTED_DONE = "preempted_done"  # the starter is gone while preempting
    DRAIN = "drain"  # condor_drain: a slot with no claim left
    UNDRAIN = "undrain"  # condor_drain -cancel (or the draining is complete and resumes)


class IllegalTransition(Exception):
    """An event that the slot's current state and activity do not allow."""


S, A, E = State, Activity, Event
_BUSY_LIKE = (A.BUSY, A.SUSPENDED, A.RETIRING)

TRANSITIONS: Final[dict[tuple[State, Activity, Event], tuple[State, Activity]]] = {
    (S.OWNER, A.IDLE, E.START_TRUE): (S.UNCLAIMED, A.IDLE),
    (S.UNCLAIMED, A.IDLE, E.START_FALSE): (S.OWNER, A.IDLE),
    (S.UNCLAIMED, A.IDLE, E.CLAIMED): (S.CLAIMED, A.IDLE),
    (S.CLAIMED, A.IDLE, E.ACTIVATED): (S.CLAIMED, A.BUSY),
    (S.CLAIMED, A.IDLE, E.RELEASED): (S.PREEMPTING, A.VACATING),
    (S.CLAIMED, A.IDLE, E.VACATE): (S.PREEMPTING, A.VACATING),
    (S.CLAIMED, A.IDLE, E.WORKLIFE): (S.PREEMPTING, A.VACATING),
    (S.CLAIMED, A.BUSY, E.SUSPEND): (S.CLAIMED, A.SUSPENDED),
    (S.CLAIMED, A.SUSPENDED, E.CONTINUE): (S.CLAIMED, A.BUSY),
    (S.CLAIMED, A.BUSY, E.RETIRE): (S.CLAIMED, A.RETIRING),
    (S.CLAIMED, A.SUSPENDED, E.RETIRE): (S.CLAIMED, A.RETIRING),
    (S.CLAIMED, A.RETIRING, E.RETIRE): (S.CLAIMED, A.RETIRING),
    (S.PREEMPTING, A.VACATING, E.KILL): (S.PREEMPTING, A.KILLING),
    # the job is gone and no better match waits: Owner (START then decides Unclaimed)
    (S.PREEMPTING, A.VACATING, E.PREEMPTED_DONE): (S.OWNER, A.IDLE),
    (S.PREEMPTING, A.KILLING, E.PREEMPTED_DONE): (S.OWNER, A.IDLE),
    # a preempting claim (rank or priority preemption) takes the slot over
    (S.PREEMPTING, A.VACATING, E.CLAIMED): (S.CLAIMED, A.IDLE),
    (S.PREEMPTING, A.KILLING, E.CLAIMED): (S.CLAIMED, A.IDLE),
    (S.OWNER, A.IDLE, E.DRAIN): (S.DRAINED, A.IDLE),
    (S.UNCLAIMED, A.IDLE, E.DRAIN): (S.DRAINED, A.IDLE),
    (S.DRAINED, A.IDLE, E.UNDRAIN): (S.OWNER, A.IDLE),
}
for _act in _BUSY_LIKE:
    TRANSITIONS[(S.CLAIMED, _act, E.JOB_DONE)] = (S.CLAIMED, A.IDLE)
    TRANSITIONS[(S.CLAIMED, _act, E.VACATE)] = (S.PREEMPTING, A.VACATING)
    TRANSITIONS[(S.CLAIMED, _act, E.KILL)] = (S.PREEMPTING, A.KILLING)
    TRANSITIONS[(S.CLAIMED, _act, E.RELEASED)] = (S.PREEMPTING, A.VACATING)
# A job that ends while retiring ends the claim too (the slot was being preempted).
TRANSITIONS[(S.CLAIMED, A.RETIRING, E.JOB_DONE)] = (S.PREEMPTING, A.VACATING)
for _act in (A.VACATING, A.KILLING):
    TRANSITIONS[(S.PREEMPTING, _act, E.JOB_DONE)] = (S.PREEMPTING, _act)
    TRANSITIONS[(S.PREEMPTING, _act, E.RELEASED)] = (S.PREEMPTING, _act)


def next_state(state: State, activity: Activity, event: Event) -> tuple[State, Activity]:
    """Where ``event`` leads from (state, activity); IllegalTransition if nowhere."""
    try:
        return TRANSITIONS[(state, activity, event)]
    except KeyError:
        raise IllegalTransition(
            f"{event.value} is not allowed in state {state.value}/{activity.value}"
        ) from None
