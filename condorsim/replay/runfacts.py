"""What a replay says about how its run went: the ``run`` part of ``result.json``, and the
line printed when an ``until = "quiet"`` run stopped at its ``max`` with jobs left."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .jobflow import job_id
from .progress import sim_datetime

if TYPE_CHECKING:
    from .runner import ReplayOutcome

_STATUS = {1: "Idle", 2: "Running", 3: "Removed", 4: "Completed", 5: "Held",
           6: "Transferring Output", 7: "Suspended"}


def jobs_left(job_ads: list[Any]) -> list[str]:
    """``"1.0 (Idle)"`` for each job that had not completed nor been removed."""
    left = []
    for ad in job_ads:
        status = ad.evaluate("JobStatus")
        if status not in (3, 4):
            left.append(f"{job_id(ad)} ({_STATUS.get(status, status)})")
    return left


def run_facts(outcome: ReplayOutcome) -> dict[str, Any]:
    """The ``run`` part of the result file: when it ran, until when, and why it stopped."""
    scenario = outcome.scenario
    return {
        "start": scenario.start, "end": outcome.final_time, "timezone": scenario.timezone,
        "description": scenario.description, "until": scenario.until, "max": scenario.max,
        "finish_reason": outcome.finish_reason, "stopped_at_max": outcome.stopped_at_max,
        "jobs_left": jobs_left(outcome.job_ads),
    }


def stopped_line(outcome: ReplayOutcome) -> str:
    """What the replay prints when the run stopped at its max with jobs left."""
    left = jobs_left(outcome.job_ads)
    scenario = outcome.scenario
    shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
    return (f"the run stopped at its max ({_span(scenario.max)}, "
            f"{sim_datetime(scenario.deadline, scenario.timezone)} {scenario.timezone}) "
            f"with {len(left)} job{'' if len(left) == 1 else 's'} not finished"
            + (f": {shown}" if shown else "") + "; the queue never emptied. "
            "Set `max` in [scenario] to stop sooner.")


def _span(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    text = "".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m"),
                                           (secs, "s")) if n)
    return text or "0s"
