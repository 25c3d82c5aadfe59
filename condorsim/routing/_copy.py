"""The routed copy of a job, made from the original (HTCondor's ``FinishSubmitJob``).

How this works
--------------
:func:`make_routed_copy` starts from the original job ad (cluster and proc attributes
together) and, as ``JobRouter::FinishSubmitJob`` does:

1. converts it for the target universe (:func:`vanilla_to_grid`, ``VanillaToGrid.cpp``):
   it deletes the attributes that belong to the original's place in its queue
   (:data:`DELETED`), resets the counters (:data:`RESET`), sets ``JobUniverse`` to the
   route's target universe and ``Remote_JobUniverse`` to the old one; for the grid
   universe it deletes ``CurrentHosts``, sets ``GridResource`` and, unless the job is
   sandboxed, undoes ``TransferOutputRemaps`` for ``Out`` and ``Err``;
2. applies the pre-route transforms whose REQUIREMENTS match, the route's transform,
   then the matching post-route transforms (:func:`condorsim.transform.apply_all`; one
   macro table for the three, the pool's configuration behind it);
3. sets ``RoutedFromJobId`` (``"cluster.proc"``), ``RoutedBy`` (JOB_ROUTER_NAME) and
   ``RouteName``, and deletes ``RoutedToJobId``.

The copy has no ClusterId, ProcId or QDate: submitting it assigns them. With
EditJobInPlace the route edits the original instead: no conversion, no routing
attributes, and :func:`edit_in_place` returns the edits as a diff (attributes to set,
attributes to delete) for the schedd.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from condorsim.classad import ClassAd, ExprTree
from condorsim.transform import Result, TransformMacros, apply

from ._config import RouterConfig
from ._route import GRID_UNIVERSE, Route

__all__ = ["DELETED", "RESET", "Routed", "ad_diff", "edit_in_place", "make_routed_copy",
           "vanilla_to_grid"]  # fmt: skip

DELETED = (
    "ClusterId", "ProcId", "BufferBlockSize", "BufferSize", "CondorPlatform", "CondorVersion",
    "CoreSize", "GlobalJobId", "User", "QDate", "RemoteWallClockTime", "LastRemoteWallClockTime",
    "ServerTime", "AutoClusterId", "AutoClusterAttrs", "TotalSubmitProcs", "StageInFinish",
    "StageInStart", "UserLog", "UserLogUseXML", "DAGManNodesLog", "DAGManNodesMask",
    "TimerRemove", "SUBMIT_Iwd",
)  # fmt: skip
"""Attributes the routed copy does not take from the original (``vanillaToGrid``)."""

RESET: tuple[tuple[str, object], ...] = (
    ("JobStatus", 1), ("RemoteUserCpu", 0.0), ("RemoteSysCpu", 0.0), ("ExitStatus", 0),
    ("CompletionDate", 0), ("NumCkpts", 0), ("NumRestarts", 0), ("NumSystemHolds", 0),
    ("CommittedTime", 0), ("CommittedSlotTime", 0), ("CumulativeSlotTime", 0),
    ("TotalSuspensions", 0), ("LastSuspensionTime", 0), ("CumulativeSuspensionTime", 0),
    ("CommittedSuspensionTime", 0), ("ExitBySignal", False),
)  # fmt: skip
"""Attributes the routed copy starts again from (``vanillaToGrid``)."""


def _remap(remaps: str, name: str) -> str | None:
    """``filename_remap_find``: the destination of ``name`` in ``a=b;c=d`` remaps."""
    for pair in remaps.split(";"):
        source, eq, dest = pair.partition("=")
        if eq and source.strip() == name:
            return dest.strip()
    return None


def vanilla_to_grid(
    ad: ClassAd, target_universe: int, grid_resource: str, sandboxed: bool
) -> ClassAd:
    """``ad`` converted for ``target_universe`` (a new ad; see the module comment)."""
    out = ad.copy()
    for name in DELETED:
        if name in out:
            del out[name]
    for name, value in RESET:
        out[name] = value
    old_universe = out.lookup("JobUniverse")
    out["JobUniverse"] = target_universe
    if old_universe is not None:
        out["Remote_JobUniverse"] = old_universe
    if target_universe == GRID_UNIVERSE:
        if "CurrentHosts" in out:
            del out["CurrentHosts"]
        if grid_resource:
            out["GridResource"] = grid_resource
        remaps = out.evaluate("TransferOutputRemaps")
        if not sandboxed and type(remaps) is str and remaps:
            del out["TransferOutputRemaps"]
            for attr in ("Out", "Err"):
                name = out.evaluate(attr)
                if type(name) is str:
                    dest = _remap(remaps, name)
                    if dest is not None:
                        out[attr] = dest
    return out


@dataclass
class Routed:
    """The outcome of routing one job: the copy (or the edited original), or why not."""

    ad: ClassAd
    ok: bool
    error: str = ""
    sandboxed: bool = False
    edit_in_place: bool = False
    messages: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)


def _edits(
    job: ClassAd, route: Route, router: RouterConfig, now: int,
    env: Mapping[str, str] | None, rng: random.Random | None,
) -> Result:  # fmt: skip
    """Pre-route transforms (those that match), the route's own (always: its REQUIREMENTS
    chose the job), post-route transforms (those that match); one macro table. The steps
    name each transform as it starts, as HTCondor's ``-log-steps`` does."""
    macros = TransformMacros.create(config=router.config, env=env, rng=rng)
    result = Result(ad=job, macros=macros)
    pre = router.pre_route if route.use_pre_route_transforms else []
    post = router.post_route if route.use_pre_route_transforms else []
    chain = [(t, "pre-route transform") for t in pre] + [(route.transform, "route")]
    chain += [(t, "post-route transform") for t in post]
    for transform, role in chain:
        if transform is not route.transform and not transform.matches(result.ad, now):
            continue
        result.steps.append(f"Applying {role}: {transform.name}")
        result.absorb(apply(transform, result.ad, macros=result.macros, now=now), transform.name)
        if not result.ok:
            break
    result.macros.ad = None
    return result


def make_routed_copy(
    job: ClassAd,
    job_id: str,
    route: Route,
    router: RouterConfig,
    *,
    now: int = 0,
    env: Mapping[str, str] | None = None,
    rng: random.Random | None = None,
    translated: ClassAd | None = None,
) -> Routed:
    """The routed copy of ``job`` (``job_id`` is ``"cluster.proc"``) along ``route``, or,
    when the route's EditJobInPlace is true for the job, the edited original.

    ``translated`` is what a TRANSLATE_JOB hook printed: it replaces the job as the starting
    point of the conversion and the transforms (HTCondor's ``FinishSubmitJob``), while the
    route's tests (JobShouldBeSandboxed, EditJobInPlace) still look at the original."""
    sandboxed = route.test("JobShouldBeSandboxed", job, now)
    in_place = route.test("EditJobInPlace", job, now)
    base = translated if translated is not None else job
    start = base if in_place else vanilla_to_grid(
        base, route.target_universe, route.grid_resource, sandboxed)  # fmt: skip
    result = _edits(start, route, router, now, env, rng)
    out = Routed(result.ad, result.ok, result.error, sandboxed, in_place, result.messages,
                 result.steps, result.applied)  # fmt: skip
    if not result.ok or in_place:
        return out
    out.ad["RoutedFromJobId"] = job_id
    out.ad["RoutedBy"] = router.router_name
    out.ad["RouteName"] = route.name
    if "RoutedToJobId" in out.ad:
        del out.ad["RoutedToJobId"]
    return out


def ad_diff(old: ClassAd, new: ClassAd) -> tuple[dict[str, ExprTree], list[str]]:
    """What turns ``old`` into ``new``: attributes to set (new or changed expressions) and
    attributes to delete (``push_classad_diff``)."""
    sets = {name: tree for name, tree in new.pairs() if old.lookup(name) != tree}
    deletes = [name for name in old if name not in new]
    return sets, deletes


def edit_in_place(
    job: ClassAd, route: Route, router: RouterConfig, *, now: int = 0,
    env: Mapping[str, str] | None = None, rng: random.Random | None = None,
) -> tuple[Routed, dict[str, ExprTree], list[str]]:  # fmt: skip
    """An EditJobInPlace route applied to the original: (outcome, attributes to set,
    attributes to delete). The job is not claimed and no copy is made."""
    result = _edits(job, route, router, now, env, rng)
    routed = Routed(result.ad, result.ok, result.error, False, True, result.messages,
                    result.steps, result.applied)  # fmt: skip
    if not result.ok:
        return routed, {}, []
    sets, deletes = ad_diff(job, result.ad)
    return routed, sets, deletes
