"""Checking a ``messages`` expectation against the run's trace (pure: no daemons).

How this works
--------------
The pool view hands over every trace record so far with the jobs it belongs to
(``condorsim.replay.jobflow``: a submit, a negotiation and a reply belong to their job
too). ``job`` or ``constraint`` keep the records of those jobs; ``after`` finds the
origin (the first record it selects) and keeps only what came later; ``messages``
selects the records whose times are checked: ``count`` (how many), ``first`` (the first
one's distance from the origin, or from the scenario's start), ``every`` (each gap
between consecutive ones, at least one gap) and ``intervals`` (the gaps exactly, the
first from the origin when there is one). The line says what was found: how many, when
the first came and the intervals, runs of equal ones summed up (``300s (x23)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from condorsim.classad import ClassAd, EvalContext, parse_expr

from ._model import ExpectSpec
from ._times import format_duration

__all__ = ["check_messages", "format_intervals"]

TraceItem = tuple[Mapping[str, Any], frozenset[str] | set[str]]


def _seconds(value: float) -> str:
    return f"{int(value)}s" if value == int(value) else f"{value:g}s"


def format_intervals(gaps: Sequence[float]) -> str:
    """``8s, 300s (x23), 292s``: each gap, runs of equal ones summed up."""
    parts: list[str] = []
    i = 0
    while i < len(gaps):
        j = i
        while j + 1 < len(gaps) and gaps[j + 1] == gaps[i]:
            j += 1
        run = j - i + 1
        parts.append(_seconds(gaps[i]) + (f" (x{run})" if run > 1 else ""))
        i = j + 1
    return ", ".join(parts) if parts else "none"


def _jobs_wanted(expect: ExpectSpec, job_ads: Sequence[ClassAd],
                 ctx: EvalContext) -> set[str] | None:
    if expect.job is not None:
        return {expect.job}
    if expect.constraint is None:
        return None
    where = parse_expr(expect.constraint)
    wanted = set()
    for ad in job_ads:
        if where.evaluate(my=ad, target=None, ctx=ctx) is True:
            cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
            wanted.add(f"{cluster}.{proc}")
    return wanted


def check_messages(expect: ExpectSpec, trace: Sequence[TraceItem], job_ads: Sequence[ClassAd],
                   ctx: EvalContext, start: int) -> tuple[bool, str, str]:
    """(ok, line, found) of a ``messages`` expectation over ``trace`` (every record so far
    with its jobs); ``job_ads`` are the jobs a ``constraint`` is evaluated over; ``start``
    is the scenario's start (the origin of ``first`` without ``after``)."""
    assert expect.messages is not None
    wanted = _jobs_wanted(expect, job_ads, ctx)
    records = [r for r, jobs in trace if wanted is None or wanted & set(jobs)]
    subject = expect.messages.describe()
    if expect.job is not None:
        subject = f"job {expect.job}: {subject}"
    elif expect.constraint is not None:
        subject = f"jobs matching {expect.constraint}: {subject}"
    origin: float = start
    if expect.after is not None:
        subject += f" after {expect.after.describe()}"
        anchor = next((i for i, r in enumerate(records) if expect.after.matches(r)), None)
        if anchor is None:
            return False, f"{subject}: no {expect.after.describe()} (the origin)", "no origin"
        origin = records[anchor]["t"]
        records = records[anchor + 1:]
    times = [r["t"] for r in records if expect.messages.matches(r)]
    gaps = [b - a for a, b in pairwise(times)]
    found = _found(times, gaps, origin, start, expect.after is not None)
    if not times and expect.messages.cmds:
        found += _elsewhere(expect.messages.cmds, records)
    clauses: list[tuple[bool, str]] = []  # (holds, what was checked)
    if expect.count is not None:
        clauses.append((len(times) == expect.count,
                        f"{expect.count} message" + ("" if expect.count == 1 else "s")))
    elif not times:
        clauses.append((False, "at least one message"))
    if expect.first is not None:
        since = "after it" if expect.after is not None else "after the start"
        clauses.append((bool(times) and times[0] - origin == expect.first,
                        f"the first {_seconds(expect.first)} {since}"))
    if expect.every is not None:
        clauses.append((bool(gaps) and all(g == expect.every for g in gaps),
                        f"every {_seconds(expect.every)}"))
    if expect.intervals is not None:
        actual = ([times[0] - origin] if times and expect.after is not None else []) + gaps
        clauses.append((actual == list(expect.intervals),
                        f"intervals {format_intervals(expect.intervals)}"))
    ok = all(holds for holds, _ in clauses)
    if ok:
        line = f"{subject}: {', '.join(text for _, text in clauses) if clauses else found}"
    else:
        wrong = ", ".join(text for holds, text in clauses if not holds)
        line = f"{subject}: expected {wrong}; found {found}"
    return ok, line, found


def _elsewhere(cmds: Sequence[str], records: Sequence[Mapping[str, Any]]) -> str:
    """Where messages of these commands did go, for a selector that found none: a
    ``from``/``to`` written the wrong way round shows at once."""
    ways = Counter(f"{r['cmd']} {str(r['from']).split('@')[0]} -> {str(r['to']).split('@')[0]}"
                   for r in records if r.get("cmd") in cmds)
    if not ways:
        return ""
    return " (sent instead: " + ", ".join(f"{way} x{n}" for way, n in sorted(ways.items())) + ")"


def _found(times: Sequence[float], gaps: Sequence[float], origin: float, start: int,
           anchored: bool) -> str:
    if not times:
        return "no message"
    count = f"{len(times)} message" + ("" if len(times) == 1 else "s")
    first = times[0] - origin
    when = f"the first {_seconds(first)} after it" if anchored else \
        f"the first at {format_duration(int(times[0] - start))}"
    rest = f", then intervals {format_intervals(gaps)}" if gaps else ""
    return f"{count}, {when}{rest}"
