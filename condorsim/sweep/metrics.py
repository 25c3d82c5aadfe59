"""The figures a sweep collects from each variant's kept run directory.

How this works
--------------
:func:`run_metrics` reads the run's ``result.json`` -- each job's final ad (the queue
and the history at the end of the run, as ``condorsim replay`` took them) and when the
run started and stopped -- or, without it, ``spool/history`` and ``spool/job_queue.log``.
Each job becomes a :class:`JobFacts`; the figures are then plain arithmetic over them
(:func:`metrics_of`), for every job and for each owner's.

The jobs counted are the users' jobs: a job router's routed copy (it has
``RoutedFromJobId``) is not one; its original is, with the times the router mirrored onto
it. Times are simulated seconds; a figure that has nothing to count is NaN.

======================  ================================================================
``makespan``            last job to leave the queue (``CompletionDate``, or
                        ``EnteredCurrentStatus`` of a removed job) minus the first
                        ``QDate``; NaN while any job is neither completed nor removed
``wait_mean``, ``_p95``  ``JobStartDate - QDate`` of each job that started
``turnaround_mean``,    ``CompletionDate - QDate`` of each completed job
``turnaround_p95``
``throughput``          completed jobs per simulated hour of the run (start to stop)
``utilization``         the pool's slot time the jobs used: each job's
                        ``RemoteWallClockTime`` (plus its current run when it runs at the
                        end), over slots x the run's length; jobs that use no slot
                        (grid, local and scheduler universe, routed originals) count 0
``routed_share``        the share of jobs the job router routed (``RoutedToJobId``)
``holds``               holds, summed (``NumHolds``)
======================  ================================================================

p95 is the 95th percentile with linear interpolation between the two nearest jobs
(numpy's and pandas' default).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["COUNTS", "METRICS", "METRIC_GROUPS", "RESERVED_COLUMNS", "JobFacts",
           "job_facts", "metrics_of", "percentile", "run_metrics"]

METRICS: Final = ("makespan", "wait_mean", "wait_p95", "turnaround_mean", "turnaround_p95",
                  "throughput", "utilization", "routed_share", "holds")
METRIC_GROUPS: Final = {"wait": ("wait_mean", "wait_p95"),
                        "turnaround": ("turnaround_mean", "turnaround_p95")}
COUNTS: Final = ("jobs", "completed", "unfinished")
RESERVED_COLUMNS: Final = ("variant", "status", "error", "passed", "failed", "wall_seconds",
                           "dir", "report", *COUNTS)
_NO_SLOT_UNIVERSES: Final = (7, 9, 12)  # scheduler, grid, local
_NAN: Final = float("nan")


@dataclass(frozen=True)
class JobFacts:
    """What the figures need of one user job (times in simulated epoch seconds)."""

    job: str
    owner: str
    qdate: float
    status: int
    started: float | None = None
    left: float | None = None
    slot_seconds: float = 0.0
    routed: bool = False
    holds: int = 0


def run_metrics(run_dir: Path, slots: int, metrics: Sequence[str] = METRICS,
                per_owner: bool = True) -> dict[str, Any]:
    """The counts and ``metrics`` of the run kept in ``run_dir`` of a pool of ``slots``
    slots; with ``per_owner`` also ``<metric>[<owner>]`` for each owner."""
    from condorsim.report.rundata import final_ads

    result = _result(run_dir)
    ads = final_ads(run_dir, result, [])
    run = (result or {}).get("run") or {}
    start, end = float(run.get("start", 0)), float(run.get("end", 0))
    jobs = job_facts(ads, end)
    return metrics_of(jobs, start, end, slots, metrics, per_owner)


def _result(run_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def job_facts(ads: dict[str, dict[str, str]], end: float) -> list[JobFacts]:
    """The users' jobs of a run's final ads (attribute -> expression text), in job order."""
    from condorsim.report.rundata import ad_value

    routed = {str(ad_value(ad, "RoutedFromJobId")) for ad in ads.values()
              if ad_value(ad, "RoutedFromJobId") is not None}
    facts = []
    for job, ad in sorted(ads.items(), key=lambda kv: _job_key(kv[0])):
        def num(attr: str, ad: dict[str, str] = ad) -> float | None:
            value = ad_value(ad, attr)
            return float(value) if isinstance(value, int | float) and \
                not isinstance(value, bool) else None

        if ad_value(ad, "RoutedFromJobId") is not None:
            continue  # a routed copy: its original is the user's job
        status = int(num("JobStatus") or 0)
        was_routed = job in routed or ad_value(ad, "RoutedToJobId") is not None
        left = num("CompletionDate") if status == 4 else \
            num("EnteredCurrentStatus") if status == 3 else None
        slot_seconds = 0.0
        universe = int(num("JobUniverse") or 5)
        if universe not in _NO_SLOT_UNIVERSES and not was_routed:
            slot_seconds = num("RemoteWallClockTime") or 0.0
            current = num("JobCurrentStartDate")
            if status in (2, 7) and current is not None:
                slot_seconds += max(0.0, end - current)
        started = num("JobStartDate")
        facts.append(JobFacts(
            job=job, owner=str(ad_value(ad, "Owner") or ""), qdate=num("QDate") or 0.0,
            status=status, started=started if started else None,
            left=left if left else None, slot_seconds=slot_seconds, routed=was_routed,
            holds=int(num("NumHolds") or 0)))
    return facts


def _job_key(job: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in job.split("."))
    except ValueError:
        return (1 << 62,)


def metrics_of(jobs: list[JobFacts], start: float, end: float, slots: int,
               metrics: Sequence[str] = METRICS, per_owner: bool = True) -> dict[str, Any]:
    """The counts, then each of ``metrics`` over all jobs, then per owner."""
    row: dict[str, Any] = {
        "jobs": len(jobs),
        "completed": sum(j.status == 4 for j in jobs),
        "unfinished": sum(j.status not in (3, 4) for j in jobs),
    }
    row.update(_figures(jobs, start, end, slots, metrics))
    if per_owner:
        for owner in sorted({j.owner for j in jobs}):
            mine = [j for j in jobs if j.owner == owner]
            for name, value in _figures(mine, start, end, slots, metrics).items():
                row[f"{name}[{owner}]"] = value
    return row


def _figures(jobs: list[JobFacts], start: float, end: float, slots: int,
             metrics: Sequence[str]) -> dict[str, float]:
    length = end - start
    waits = [j.started - j.qdate for j in jobs if j.started is not None]
    turnarounds = [j.left - j.qdate for j in jobs if j.status == 4 and j.left is not None]
    finished = jobs and all(j.status in (3, 4) and j.left is not None for j in jobs)
    every = {
        "makespan": max(j.left or 0 for j in jobs) - min(j.qdate for j in jobs)
        if finished else _NAN,
        "wait_mean": _mean(waits),
        "wait_p95": percentile(waits, 95),
        "turnaround_mean": _mean(turnarounds),
        "turnaround_p95": percentile(turnarounds, 95),
        "throughput": sum(j.status == 4 for j in jobs) * 3600 / length if length > 0 else _NAN,
        "utilization": sum(j.slot_seconds for j in jobs) / (slots * length)
        if slots > 0 and length > 0 else _NAN,
        "routed_share": sum(j.routed for j in jobs) / len(jobs) if jobs else _NAN,
        "holds": float(sum(j.holds for j in jobs)),
    }
    return {name: round(every[name], 6) for name in metrics}


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else _NAN


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile, interpolating linearly between the two nearest values; NaN
    for no values."""
    items = sorted(values)
    if not items:
        return _NAN
    position = (len(items) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(items) - 1)
    return items[low] + (items[high] - items[low]) * (position - low)
