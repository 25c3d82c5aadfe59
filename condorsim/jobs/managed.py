"""Who manages a job: the schedd, or an external manager such as the gridmanager.

How this works
--------------
HTCondor marks a job that something other than the schedd drives with ``Managed``
(``condor_attributes.h``): ``"External"`` while a gridmanager (or the job router, for a
routed job's original) has it, ``"Schedd"`` when it was handed back, ``"ScheddDone"`` when
its manager is done with it for good. A grid-universe job (JobUniverse 9) is the
gridmanager's while it is ``External``, and also while it is removed but still has a
``GridJobId`` (a remote job is left to cancel) and its manager has not said ``ScheddDone``
(``schedd.cpp: abort_job_myself``, ``count_jobs``).
"""

from __future__ import annotations

from condorsim.classad import ClassAd

from .codes import Universe

MANAGED_EXTERNAL = "External"
MANAGED_SCHEDD = "Schedd"
MANAGED_DONE = "ScheddDone"

NOT_IN_QUEUE = "no such job in the queue"
"""The reason of the schedd's FAILED to a manager's update of a job that has left the queue."""


def is_grid(ad: ClassAd) -> bool:
    """A grid-universe job."""
    return bool(ad.evaluate("JobUniverse") == Universe.GRID)


def managed_externally(ad: ClassAd) -> bool:
    """jobExternallyManaged: another manager than the schedd holds the job."""
    return bool(ad.evaluate("Managed") == MANAGED_EXTERNAL)


def gridmanager_owns(ad: ClassAd) -> bool:
    """A grid job the gridmanager must act on: managed by it, or with a remote job left."""
    if not is_grid(ad):
        return False
    if managed_externally(ad):
        return True
    return ad.evaluate("Managed") != MANAGED_DONE and isinstance(ad.evaluate("GridJobId"), str)


SCHEDD_RUNS_ITSELF = frozenset({int(Universe.LOCAL), int(Universe.SCHEDULER)})

NEEDS_A_SLOT_READS = ("JobUniverse", "Managed")
"""The attributes :func:`needs_a_slot` reads: jobs with the same constant values of these
get the same answer."""


def needs_a_slot(ad: ClassAd) -> bool:
    """service_this_universe: a job the schedd negotiates and claims slots for -- not a grid
    job (the gridmanager's), not a local or scheduler universe job (the schedd runs those
    itself), not one another manager holds (a routed original)."""
    universe = ad.evaluate("JobUniverse")
    if universe == Universe.GRID or universe in SCHEDD_RUNS_ITSELF:
        return False
    return not managed_externally(ad)
