"""What the pool shows at one moment, for checking expectations (a PoolView).

How this works
--------------
:func:`snapshot` asks the pool everything once -- the schedd's queue, then its history
(``condor_q`` and ``condor_history`` together), the collector's ads of the types the
expectations name -- and reads the user event logs the jobs name (``UserLog``) and, for
``messages`` expectations, the run's trace.
:class:`PoolSnapshot` then answers :class:`condorsim.scenario.checks.PoolView`'s questions
without I/O, so checking many expectations at one moment costs one round of queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorsim.classad import ClassAd
from condorsim.eventlog import EventLogError, read_events
from condorsim.runtime.trace import read_trace

from .client import PoolClient
from .explain import read_log_records
from .jobflow import attribute_jobs, job_id


@dataclass
class PoolSnapshot:
    """Jobs (queue first, then history), their user-log events, and collector ads."""

    jobs: dict[str, ClassAd] = field(default_factory=dict)
    events: dict[str, list[str]] = field(default_factory=dict)
    ads: dict[str, list[ClassAd]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    trace: list[tuple[Mapping[str, Any], set[str]]] = field(default_factory=list)

    def job_ad(self, job_id: str) -> ClassAd | None:
        return self.jobs.get(job_id)

    def all_job_ads(self) -> list[ClassAd]:
        return list(self.jobs.values())

    def job_events(self, job_id: str) -> list[str]:
        return list(self.events.get(job_id, []))

    def collector_ads(self, adtype: str) -> list[ClassAd]:
        return list(self.ads.get(adtype.lower(), []))

    def messages(self) -> list[tuple[Mapping[str, Any], set[str]]]:
        return list(self.trace)


def read_run_trace(run_dir: Path) -> tuple[list[tuple[Mapping[str, Any], set[str]]], list[str]]:
    """The run's ``trace.jsonl`` so far, each record with the jobs it belongs to
    (:mod:`.jobflow`, with the daemons' logs), and the problems met reading it."""
    try:
        records = read_trace(run_dir / "trace.jsonl")
    except FileNotFoundError:
        return [], []
    except (OSError, ValueError) as e:
        return [], [f"cannot read {run_dir / 'trace.jsonl'}: {e}"]
    records = [r for r in records if isinstance(r, dict) and {"t", "from", "to", "cmd"} <= set(r)]
    owners = attribute_jobs(records, read_log_records(run_dir / "log"))
    return list(zip(records, owners, strict=True)), []


def read_user_logs(jobs: Iterable[ClassAd], tz: str) -> tuple[dict[str, list[str]], list[str]]:
    """Each job's event names from the user logs its ``UserLog`` names (each log read once)."""
    by_job: dict[str, list[str]] = {}
    problems: list[str] = []
    seen: set[str] = set()
    for ad in jobs:
        path = ad.evaluate("UserLog")
        if not isinstance(path, str) or path in seen:
            continue
        seen.add(path)
        try:
            events = read_events(path, tz=tz)
        except FileNotFoundError:
            continue
        except EventLogError as e:
            problems.append(str(e))
            continue
        for event in events:
            by_job.setdefault(f"{event.cluster}.{event.proc}", []).append(event.type)
    return by_job, problems


async def snapshot(client: PoolClient, adtypes: Iterable[str], tz: str,
                   *, jobs: bool = True, trace_of: Path | None = None) -> PoolSnapshot:
    """Ask the pool for everything the expectations of one moment look at; with
    ``trace_of`` (a run directory), also read its trace (for ``messages``)."""
    snap = PoolSnapshot()
    if trace_of is not None:
        snap.trace, problems = read_run_trace(trace_of)
        snap.problems += problems
    if jobs:
        for ad in await client.job_ads(history=False):
            key = job_id(ad)
            if key is not None:
                snap.jobs.setdefault(key, ad)
        for ad in await client.job_ads(history=True):
            key = job_id(ad)
            if key is not None:
                snap.jobs.setdefault(key, ad)
        snap.events, problems = read_user_logs(snap.jobs.values(), tz)
        snap.problems += problems
    for adtype in sorted({a.lower() for a in adtypes}):
        snap.ads[adtype] = await client.collector_ads(adtype)
    return snap
