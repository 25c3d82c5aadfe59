"""Checking a scenario's expectations against what the pool shows (pure: no daemons).

How this works
--------------
The replay runner implements :class:`PoolView` over the schedd's queue and history,
the user logs and the collector, and calls :func:`check_expectation` at each
expectation's moment. An expectation is about one job (``job``), the jobs matching a
constraint (``constraint``) or the collector ads of one type (``ads`` and ``where``);
it checks ``that`` (a ClassAd expression with the ad as MY, holding when it is
``true``), ``count`` and ``events`` (the job's user-log events, in this order, others
allowed between). An expectation about ``messages`` (our extension) is checked by
:mod:`.message_checks` against the run's trace. Every part is checked; the result's ``line`` says what was checked
and, on failure, what was found instead, showing the values of the attributes the
expression refers to. :func:`format_results` prints the PASS/FAIL lines and a summary;
:func:`results_json` is what ``--json`` writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from condorsim.classad import ClassAd, ClassAdSyntaxError, EvalContext, ExprTree, parse_expr

from ._model import ExpectSpec, Scenario, SubmitSpec
from .message_checks import check_messages

__all__ = [
    "ExpectResult",
    "PoolView",
    "check_expectation",
    "check_submit_error",
    "format_results",
    "results_json",
]

_SHOWN: Final = 10  # ids listed in a line before "... (N in all)"


class PoolView(Protocol):
    """What the pool shows at one moment (implemented by the replay runner)."""

    def job_ad(self, job_id: str) -> ClassAd | None:
        """The job ``"cluster.proc"``: from the queue, else from the history; None if neither."""

    def all_job_ads(self) -> list[ClassAd]:
        """Every job in the queue and in the history, each once."""

    def job_events(self, job_id: str) -> list[str]:
        """The names of the job's user-log events, in order (``"SUBMIT"``, ...)."""

    def collector_ads(self, adtype: str) -> list[ClassAd]:
        """The collector's ads of this MyType (``"Machine"``, ``"Scheduler"``, ...)."""

    def messages(self) -> Sequence[tuple[Mapping[str, Any], frozenset[str] | set[str]]]:
        """Every trace record so far, in order, with the jobs it belongs to (only asked
        for ``messages`` expectations)."""


@dataclass(frozen=True)
class ExpectResult:
    """The outcome of one expectation (or of one submit's ``expect_error``).

    ``line`` says what was checked and, when ``ok`` is false, what was found instead;
    ``found`` is what was found, also when ``ok``. ``entry``, ``at`` and
    ``description`` come from the scenario, for printing.
    """

    ok: bool
    line: str
    found: str
    entry: str = ""
    at: str = ""
    description: str = ""


def check_expectation(expect: ExpectSpec, view: PoolView, now: int,
                      tz: str = "UTC", start: int = 0) -> ExpectResult:
    """Check ``expect`` against ``view`` at simulated time ``now`` (``time()`` in
    expressions); ``tz`` is the scenario's time zone (for ``formatTime()``), ``start``
    its start (where a ``messages`` expectation's ``first`` counts from)."""
    ctx = EvalContext(now=now, tz=tz)
    try:
        if expect.messages is not None:
            jobs = view.all_job_ads() if expect.constraint is not None else []
            ok, line, found = check_messages(expect, view.messages(), jobs, ctx, start)
        elif expect.job is not None:
            ok, line, found = _check_job(expect, expect.job, view, ctx)
        elif expect.constraint is not None:
            ok, line, found = _check_jobs(expect, expect.constraint, view, ctx)
        else:
            ok, line, found = _check_ads(expect, view, ctx)
    except ClassAdSyntaxError as err:  # only for specs not made by parse_scenario
        ok, line, found = False, f"not a valid ClassAd expression ({err})", ""
    return ExpectResult(ok, line, found, entry=f"[[expect]] #{expect.index}",
                        at=expect.at_text, description=expect.description)


def check_submit_error(submit: SubmitSpec, error: str | None) -> ExpectResult:
    """Whether a submit was refused as its ``expect_error`` says (case-insensitively);
    ``error`` is condor_submit's message, None when the submit was accepted. A submit
    without ``expect_error`` must be accepted."""
    wanted = submit.expect_error
    if wanted is None:
        ok = error is None
        line = "accepted" if ok else f'refused: "{error}"'
    elif error is None:
        ok, line = False, f'expected it refused with "{wanted}"; it was accepted'
    else:
        ok = wanted.lower() in error.lower()
        line = f'refused with "{error}"' if ok else \
            f'expected it refused with "{wanted}"; it was refused with "{error}"'
    return ExpectResult(ok, f"submit: {line}", "accepted" if error is None else error,
                        entry=f"[[submit]] #{submit.index}", at=submit.at_text)


# ------------------------------------------------------------------------ helpers
def value_text(value: Any) -> str:
    """A value as ``condor_q -l`` writes it (strings quoted, ``undefined``, ``2.0``)."""
    holder = ClassAd()
    holder["v"] = value
    return holder.to_long()[len("v = "):-1]


def _job_id(ad: ClassAd) -> str:
    return f"{value_text(ad.evaluate('ClusterId'))}.{value_text(ad.evaluate('ProcId'))}"


def _id_key(ad: ClassAd) -> tuple[int, int, str]:
    cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
    if type(cluster) is int and type(proc) is int:
        return (cluster, proc, "")
    return (2**63, 2**63, _job_id(ad))


def _ad_name(ad: ClassAd) -> str:
    name = ad.evaluate("Name")
    return name if type(name) is str else "(no Name)"


def _listing(names: Sequence[str]) -> str:
    if not names:
        return "none"
    shown = ", ".join(names[:_SHOWN])
    return shown if len(names) <= _SHOWN else f"{shown}, ... ({len(names)} in all)"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _referenced(expr: ExprTree) -> list[str]:
    """The MY (and unscoped) attributes ``expr`` refers to, in order of appearance."""
    text = str(expr).lower()
    names = {name for scope, name in expr.references() if scope in (None, "MY")}

    def first(name: str) -> tuple[int, str]:
        found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name.lower())}(?![A-Za-z0-9_])", text)
        return (found.start() if found else len(text), name.lower())

    return sorted(names, key=first)


def _values(expr: ExprTree, ad: ClassAd, ctx: EvalContext) -> str:
    shown = [f"{name} = {value_text(ad.evaluate(name, None, ctx))}" for name in
             _referenced(expr)]
    return ", ".join(shown)


def _holds(expr: ExprTree, ad: ClassAd, ctx: EvalContext) -> tuple[bool, Any]:
    value = expr.evaluate(my=ad, target=None, ctx=ctx)
    return value is True, value


def _in_order(wanted: Sequence[str], events: Sequence[str]) -> bool:
    remaining = iter(events)
    return all(any(event == name for event in remaining) for name in wanted)


# ------------------------------------------------------------------------- kinds
def _check_job(expect: ExpectSpec, job: str, view: PoolView,
               ctx: EvalContext) -> tuple[bool, str, str]:
    ad = view.job_ad(job)
    events = view.job_events(job) if expect.events else []
    if ad is None and not events:
        return False, f"job {job}: no such job (neither in the queue nor in the history)", \
            "no such job"
    ok, clauses, found = True, [], []
    if expect.that is not None:
        if ad is None:
            ok = False
            clauses.append(f"{expect.that}: no job ad (neither in the queue nor in the "
                           "history)")
            found.append("no job ad")
        else:
            expr = parse_expr(expect.that)
            holds, value = _holds(expr, ad, ctx)
            values = _values(expr, ad, ctx)
            ok = ok and holds
            clauses.append(expect.that if holds else
                           f"{expect.that} is {value_text(value)} ({values})")
            found.append(values)
    if expect.events:
        in_order = _in_order(expect.events, events)
        ok = ok and in_order
        wanted = ", ".join(expect.events)
        clauses.append(f"events {wanted} in order" if in_order else
                       f"events: expected {wanted} in order; found {_listing(events)}")
        found.append(f"events {_listing(events)}")
    return ok, f"job {job}: " + "; ".join(clauses), "; ".join(found)


def _check_jobs(expect: ExpectSpec, constraint: str, view: PoolView,
                ctx: EvalContext) -> tuple[bool, str, str]:
    where = parse_expr(constraint)
    jobs = sorted((ad for ad in view.all_job_ads() if _holds(where, ad, ctx)[0]), key=_id_key)
    ids = [_job_id(ad) for ad in jobs]
    ok, clauses = True, []
    if expect.count is not None:
        if len(jobs) == expect.count:
            clauses.append(f"{_plural(len(jobs), 'job')} matching {constraint} "
                           f"({_listing(ids)})")
        else:
            ok = False
            clauses.append(f"expected {_plural(expect.count, 'job')} matching {constraint}, "
                           f"found {len(jobs)} ({_listing(ids)})")
    elif not jobs:
        ok = False
        clauses.append(f"no job matches {constraint}")
    subject = f"jobs matching {constraint}"
    if expect.that is not None and jobs:
        that_ok, clause = _each(expect.that, list(zip(ids, jobs, strict=True)), ctx)
        ok = ok and that_ok
        clauses.append(f"{subject}: {clause}")
    if expect.events and jobs:
        missing = []
        for job_id in ids:
            events = view.job_events(job_id)
            if not _in_order(expect.events, events):
                missing.append(f"{job_id} (found {_listing(events)})")
        wanted = ", ".join(expect.events)
        ok = ok and not missing
        clauses.append(f"{subject}: events {wanted} in order" if not missing else
                       f"{subject}: events: expected {wanted} in order; not in "
                       f"{_listing(missing)}")
    return ok, "; ".join(clauses), f"jobs {_listing(ids)}"


def _check_ads(expect: ExpectSpec, view: PoolView, ctx: EvalContext) -> tuple[bool, str, str]:
    adtype = expect.ads or ""
    ads = view.collector_ads(adtype)
    subject = f"{adtype} ads"
    if expect.where is not None:
        where = parse_expr(expect.where)
        ads = [ad for ad in ads if _holds(where, ad, ctx)[0]]
        subject += f" where {expect.where}"
    ads = sorted(ads, key=_ad_name)
    names = [_ad_name(ad) for ad in ads]
    ok, clauses = True, []
    if expect.count is not None:
        if len(ads) == expect.count:
            clauses.append(f"{len(ads)} {subject} ({_listing(names)})")
        else:
            ok = False
            clauses.append(f"expected {expect.count} {subject}, found {len(ads)} "
                           f"({_listing(names)})")
    elif not ads:
        ok = False
        clauses.append(f"no {subject}")
    if expect.that is not None and ads:
        that_ok, clause = _each(expect.that, list(zip(names, ads, strict=True)), ctx)
        ok = ok and that_ok
        clauses.append(f"{subject}: {clause}")
    return ok, "; ".join(clauses), f"{adtype} ads {_listing(names)}"


def _each(that: str, items: list[tuple[str, ClassAd]], ctx: EvalContext) -> tuple[bool, str]:
    """``that`` for every (name, ad); the clause says for which it is not true."""
    expr = parse_expr(that)
    failing = []
    for name, ad in items:
        holds, value = _holds(expr, ad, ctx)
        if not holds:
            failing.append(f"{name} ({_values(expr, ad, ctx)})" if value is False else
                           f"{name} (is {value_text(value)}; {_values(expr, ad, ctx)})")
    if not failing:
        return True, f"{that} (all {len(items)})"
    return False, f"{that} is not true for {_listing(failing)}"


# ------------------------------------------------------------------------ output
def format_results(results: Iterable[ExpectResult]) -> str:
    """One ``PASS``/``FAIL`` line per result, then ``N passed, M failed``."""
    lines = []
    passed = failed = 0
    for result in results:
        if result.ok:
            passed += 1
        else:
            failed += 1
        at = f"at {result.at}: " if result.at else ""
        why = f"{result.description}: " if result.description and not result.ok else ""
        lines.append(f"{'PASS' if result.ok else 'FAIL'} {at}{why}{result.line}")
    lines.append(f"{passed} passed, {failed} failed")
    return "\n".join(lines) + "\n"


def results_json(scenario: Scenario, results: Iterable[ExpectResult],
                 job_ads: Iterable[ClassAd]) -> dict[str, Any]:
    """What ``condorsim replay --json`` writes: each result, each job's final ad
    (attribute -> ClassAd expression text), and the totals."""
    items = [
        {"entry": r.entry, "at": r.at, "description": r.description, "ok": r.ok,
         "line": r.line, "found": r.found}
        for r in results
    ]
    jobs = {_job_id(ad): {name: str(tree) for name, tree in ad.pairs()}
            for ad in sorted(job_ads, key=_id_key)}
    passed = sum(1 for item in items if item["ok"])
    return {
        "scenario": scenario.name,
        "file": scenario.source,
        "ok": passed == len(items),
        "passed": passed,
        "failed": len(items) - passed,
        "results": items,
        "jobs": jobs,
    }

