"""The ClassAd flows the report draws: which jobs, and their messages from the trace.

How this works
--------------
The trace can hold hundreds of thousands of messages, each with the names of the
attributes it carried. :func:`read_light_trace` keeps only what attributing a message
to its jobs needs (time, sender, receiver, command, job, line number);
:func:`condorsim.replay.jobflow.job_flows` attributes the whole trace once, exactly as
``condorsim trace`` does, and :func:`attach_attributes` reads the attribute names back
for the few messages drawn. :func:`choose_jobs` picks the jobs whose flow the report
carries: those asked for, then one job of each kind of story (a deferred job, a held
one, a requeued one ...), then the first jobs, up to :data:`FLOW_JOBS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from condorsim.replay.jobflow import job_flows

from .rundata import ReportError
from .timeline import JobStory

FLOW_JOBS = 12  # flows carried by the report (more with --job)
FLOW_ROWS_MAX = 300  # messages drawn per flow; the rest are counted


def read_light_trace(path: Path) -> list[dict[str, Any]]:
    """The trace's records without their attribute names (``line``: where each is)."""
    records: list[dict[str, Any]] = []
    bad = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f):
                try:
                    r = json.loads(line)
                except ValueError:
                    bad += 1
                    continue
                if isinstance(r, dict) and {"t", "from", "to", "cmd"} <= r.keys():
                    records.append({"t": r["t"], "from": str(r["from"]), "to": str(r["to"]),
                                    "cmd": str(r["cmd"]), "job": r.get("job"), "line": i})
                else:
                    bad += 1
    except OSError as e:
        raise ReportError(f"cannot read {path}: {e.strerror}") from None
    if bad and not records:
        raise ReportError(f"{path} is not a trace (no line of it is a message record)")
    return records


def attach_attributes(path: Path, flows: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
    """Give each drawn message its ``attrs`` (the attribute names it carried)."""
    wanted: dict[int, list[Any]] = {}
    for flow in flows.values():
        for r in flow:
            if "line" in r and "attrs" not in r:
                wanted.setdefault(int(r["line"]), []).append(r)
    if not wanted:
        return
    last = max(wanted)
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f):
            if i in wanted:
                try:
                    attrs = json.loads(line).get("attrs") or []
                except (ValueError, AttributeError):
                    attrs = []
                for r in wanted[i]:
                    r["attrs"] = [str(a) for a in attrs]
            if i >= last:
                break


def _kind(story: JobStory) -> tuple[str, ...]:
    return tuple(sorted({s.state for s in story.spans} | {m.kind for m in story.marks}
                        | ({"grid"} if any(r.grid for r in story.runs) else set())))


def choose_jobs(stories: Sequence[JobStory], asked: Iterable[str] = (),
                limit: int = FLOW_JOBS) -> list[str]:
    """The jobs whose flow the report carries (see the module's docstring)."""
    known = {s.job for s in stories}
    first = [j for j in dict.fromkeys(asked) if j in known]
    cap = max(limit, len(first))
    more: list[str] = []
    kinds: set[tuple[str, ...]] = set()
    for story in stories:
        kind = _kind(story)
        if kind not in kinds and len(first) + len(more) < cap:
            kinds.add(kind)
            if story.job not in first:
                more.append(story.job)
    for story in stories:
        if len(first) + len(more) >= cap:
            break
        if story.job not in first and story.job not in more:
            more.append(story.job)
    order = {s.job: i for i, s in enumerate(stories)}
    return first + sorted(more, key=order.__getitem__)


def read_flows(run_dir: Path, jobs: Sequence[str], logs: Iterable[Mapping[str, Any]],
               records: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each job's messages, from submit to history, with their attribute names
    (``records``: :func:`read_light_trace` of the run's trace)."""
    if not jobs:
        return {}
    flows = job_flows(records, jobs, run_dir, list(logs))
    attach_attributes(run_dir / "trace.jsonl", flows)
    return {job: [dict(r) for r in flow] for job, flow in flows.items()}
