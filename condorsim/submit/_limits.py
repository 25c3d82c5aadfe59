"""How many jobs one submission may queue: the schedd's limits, checked before the jobs
are built.

How this works
--------------
HTCondor's schedd refuses a proc (``NewProc``) once the queue and the transaction
together hold ``MAX_JOBS_SUBMITTED`` jobs (default INT_MAX), once the submitting owner's
jobs in the queue and the transaction's hold ``MAX_JOBS_PER_OWNER`` (default 100000), or
once the transaction holds ``MAX_JOBS_PER_SUBMISSION`` (default 20000; defaults from
``param_info.in``), checked in that order; the whole submission then fails and
condor_submit prints ``Failed to create proc`` and which limit. The limit named is the
one the first refused proc reached (:func:`first_exceeded`).
condorsim's schedd builds the jobs of a description itself, so it checks the same limits
on the count a ``queue`` statement asks for before building any job of it: a
``queue 100000000`` is refused at once instead of filling the memory. The outcome is
HTCondor's (nothing queued, the cluster id used up); only the moment differs.

``MAX_SIM_JOBS`` is the simulator's own limit, which HTCondor does not have: at most a
million jobs in one schedd's queue (a queued job costs the schedd tens of KiB; a million
of them is what a laptop holds), whatever ``MAX_JOBS_SUBMITTED`` says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_SIM_JOBS", "JobLimit", "first_exceeded", "submission_limits"]

MAX_SIM_JOBS: Final = 1_000_000
"""The most jobs one schedd's queue holds at once (and a scenario queues in all)."""

_INT_MAX: Final = 2**31 - 1
_PER_SUBMISSION_DEFAULT: Final = 20000
_PER_OWNER_DEFAULT: Final = 100000


@dataclass(frozen=True)
class JobLimit:
    """At most ``jobs`` jobs from one ``Submit.jobs()`` call; ``message`` is the refusal;
    ``knob`` the configuration knob that sets it ("" for the simulator's own)."""

    jobs: int
    message: str
    knob: str = ""


def first_exceeded(limits: Sequence[JobLimit], jobs: int) -> JobLimit | None:
    """The limit that ``jobs`` jobs of one submission pass first: the lowest, and of equal
    ones the first in ``limits`` (HTCondor's NewProc checks MAX_JOBS_SUBMITTED, then
    MAX_JOBS_PER_OWNER, then MAX_JOBS_PER_SUBMISSION for each proc); None if none."""
    passed = [limit for limit in limits if jobs > limit.jobs]
    return min(passed, key=lambda limit: limit.jobs) if passed else None


def _knob(config: Mapping[str, str] | None, name: str, default: int) -> int:
    if not config:
        return default
    text = next((v for k, v in config.items() if k.upper() == name), None)
    try:
        return int(text.strip(), 0) if text is not None and text.strip() else default
    except ValueError:
        return default  # the daemon refuses an unreadable knob when it starts


def submission_limits(config: Mapping[str, str] | None, queued: int = 0, *,
                      schedd: bool = True, owned: int = 0) -> list[JobLimit]:
    """The limits of one submission to a schedd configured by ``config`` whose queue
    holds ``queued`` jobs already, ``owned`` of them the submitting owner's, in the order
    HTCondor's NewProc checks them; without ``schedd`` (condor_submit -dry-run, which asks
    no schedd) only MAX_SIM_JOBS."""
    failed = "Failed to create proc\nNumber of submitted jobs would exceed"
    sim = JobLimit(max(0, MAX_SIM_JOBS - queued),
                   f"{failed} MAX_SIM_JOBS ({MAX_SIM_JOBS:,} jobs in the queue: the "
                   "simulator's own limit)")
    if not schedd:
        return [sim]
    per_submission = _knob(config, "MAX_JOBS_PER_SUBMISSION", _PER_SUBMISSION_DEFAULT)
    submitted = _knob(config, "MAX_JOBS_SUBMITTED", _INT_MAX)
    per_owner = _knob(config, "MAX_JOBS_PER_OWNER", _PER_OWNER_DEFAULT)
    return [
        JobLimit(max(0, submitted - queued), f"{failed} MAX_JOBS_SUBMITTED ({submitted})",
                 "MAX_JOBS_SUBMITTED"),
        JobLimit(max(0, per_owner - owned), f"{failed} MAX_JOBS_PER_OWNER ({per_owner})",
                 "MAX_JOBS_PER_OWNER"),
        JobLimit(max(0, per_submission), f"{failed} MAX_JOBS_PER_SUBMISSION ({per_submission})",
                 "MAX_JOBS_PER_SUBMISSION"),
        sim,
    ]
