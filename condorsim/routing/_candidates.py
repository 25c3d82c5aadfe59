"""Which jobs the router considers, and which route a job takes.

How this works
--------------
:func:`umbrella_constraint` builds HTCondor's candidate query (``GetCandidateJobs``):
``(JOB_ROUTER_SOURCE_JOB_CONSTRAINT) && ( (req1) || (req2) ... ) && (target.ProcId >= 0
&& target.JobStatus == 1 && ... && target.RoutedBy isnt "<JOB_ROUTER_NAME>")``, with the
REQUIREMENTS of the routes still accepting jobs, each text once (a route without
REQUIREMENTS counts as ``True``), in route-name order. :func:`is_candidate` evaluates it
as HTCondor's collection query does: in a match context where the job is TARGET, so an
unscoped name (``WantJobRouter``) finds the job's attribute, and ``MY.x`` does not.
(condorsim's router acts for every owner, as a router running as root does: the
``Owner == <me>`` clause of a non-root router is not added.)

:func:`choose_route` then tries the routes in order (JOB_ROUTER_ROUTE_NAMES): the first
route that is accepting jobs and whose REQUIREMENTS is true of the job (as MY, no
TARGET) wins; with round-robin selection every matching route is collected and the
caller's counter picks one in turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from condorsim.classad import ClassAd, ClassAdError, EvalContext, ExprTree
from condorsim.transform._parse import parse_expr_old

from ._route import Route

__all__ = ["Choice", "choose_route", "is_candidate", "umbrella_constraint"]

_BASIC = (
    "target.ProcId >= 0 && target.JobStatus == 1 && (target.StageInStart is undefined || "
    "target.StageInFinish isnt undefined) && target.Managed isnt \"ScheddDone\" && "
    'target.Managed isnt "External" && target.Owner isnt Undefined && target.RoutedBy isnt "{}"'
)


def umbrella_constraint(
    accepting: Sequence[Route], source_constraint: str, router_name: str
) -> str | None:
    """The candidate constraint for the routes that are ``accepting`` jobs; None when none is
    (HTCondor then looks for no candidates)."""
    texts: list[str] = []
    for route in sorted(accepting, key=lambda r: r.name.lower()):
        text = route.requirements_text or "True"
        if text not in texts:
            texts.append(text)
    if not texts:
        return None
    umbrella = f"({source_constraint}) && " if source_constraint else ""
    umbrella += "( " + " || ".join(f"({t})" for t in texts) + " )"
    escaped = router_name.replace("\\", "\\\\").replace('"', '\\"')
    return umbrella + " && (" + _BASIC.format(escaped) + ")"


def parse_constraint(text: str) -> ExprTree:
    """The umbrella constraint, parsed; ClassAdError when a part does not parse."""
    return parse_expr_old(text)


def is_candidate(job: ClassAd, constraint: ExprTree, now: int = 0) -> bool:
    """True when ``constraint`` holds for ``job`` seen as TARGET (see the module comment)."""
    query = ClassAd()
    query["Requirements"] = constraint
    try:
        value = query.evaluate("Requirements", target=job, ctx=EvalContext(now=now))
    except ClassAdError:
        return False
    if type(value) is bool:
        return value
    return type(value) in (int, float) and value != 0


@dataclass(frozen=True)
class Choice:
    """The route picked for a job (None: no route), and whether every route was full."""

    route: Route | None
    all_full: bool


def choose_route(
    job: ClassAd,
    routes: Sequence[Route],
    accepting: Callable[[Route], bool],
    *,
    round_robin: bool = False,
    turn: int = 0,
    now: int = 0,
) -> Choice:
    """The route ``job`` takes (HTCondor's ``ChooseRoute``). ``accepting`` says whether a
    route takes more jobs (its throttles, the daemon's); ``turn`` is the round-robin
    counter (the caller increments it after each pick)."""
    matches: list[Route] = []
    all_full = True
    for route in routes:
        if not accepting(route):
            continue
        all_full = False
        if route.matches(job, now):
            matches.append(route)
            if not round_robin:
                break
    if not matches:
        return Choice(None, all_full)
    return Choice(matches[turn % len(matches)], False)
