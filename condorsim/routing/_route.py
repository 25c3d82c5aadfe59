"""One route of the job router: its transform and the special macros that steer routing.

How this works
--------------
:func:`make_route` takes a parsed route transform and reads, as HTCondor's
``JobRoute::ParseNext`` does after validating it, the macros the route declares
(:func:`condorsim.transform.declared_macros`; the pool's configuration answers names the
route does not set, as HTCondor's ``also_in_config`` lookup does):

========================  ==========================================================
MaxJobs                   integer; default JOB_ROUTER_DEFAULT_MAX_JOBS_PER_ROUTE (100)
MaxIdleJobs               integer; default JOB_ROUTER_DEFAULT_MAX_IDLE_JOBS_PER_ROUTE (50)
FailureRateThreshold      real, jobs/second; default 0.03
JobFailureTest            expression (of the original, at completion); none: success
JobShouldBeSandboxed      expression; none: false
EditJobInPlace            expression; none: false
UseSharedX509UserProxy    expression; none: false
SharedX509UserProxy       expression giving a file name
SendIDTokens              expression giving token names; unset: JOB_ROUTER_SEND_ROUTE_IDTOKENS
TargetUniverse            used when there is no UNIVERSE statement; default 9 (grid)
GridResource              for the grid universe; quotes removed
OverrideRoutingEntry      old syntax only: whether a same-named later entry replaces it
========================  ==========================================================

A number that does not read as one counts as unset (HTCondor's ``local_param_int``).
An expression macro that does not parse is dropped with a warning (HTCondor's
``ConstraintHolder`` then has no expression). A route without a name is named after
its GridResource.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from condorsim.classad import ClassAd, ClassAdError, EvalContext, ExprTree
from condorsim.config._typed import InvalidValue, parse_boolean, parse_double, parse_long
from condorsim.submit._macros import MacroError
from condorsim.transform import Transform, TransformError, TransformMacros, declared_macros
from condorsim.transform._parse import parse_expr_old

__all__ = ["GRID_UNIVERSE", "Route", "make_route"]

GRID_UNIVERSE = 9

_EXPRESSIONS = ("JobFailureTest", "JobShouldBeSandboxed", "EditJobInPlace",
                "UseSharedX509UserProxy", "SharedX509UserProxy")  # fmt: skip


@dataclass(frozen=True)
class Route:
    """A route: where and how jobs that match it are routed."""

    name: str
    transform: Transform
    max_jobs: int = 100
    max_idle_jobs: int = 50
    failure_rate_threshold: float = 0.03
    target_universe: int = GRID_UNIVERSE
    grid_resource: str = ""
    expressions: dict[str, ExprTree] = field(default_factory=dict)
    send_idtokens: ExprTree | None = None
    override_routing_entry: int = -1
    from_old_syntax: bool = False
    use_pre_route_transforms: bool = True
    source: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def requirements_text(self) -> str:
        """The route's REQUIREMENTS as written ("" when it has none)."""
        return self.transform.requirements_text

    def matches(self, job: ClassAd, now: int = 0) -> bool:
        """True when the route's REQUIREMENTS is true of the untransformed ``job``: the job
        is MY and there is no TARGET (``TARGET.x`` is undefined)."""
        return self.transform.matches(job, now)

    def test(self, name: str, job: ClassAd, now: int = 0) -> bool:
        """The boolean macro ``name`` (JobFailureTest, JobShouldBeSandboxed,
        EditJobInPlace, UseSharedX509UserProxy) for ``job``: false when it is unset,
        undefined or not a boolean (a non-zero number is true)."""
        tree = self.expressions.get(name)
        if tree is None:
            return False
        value = tree.evaluate(my=job, ctx=EvalContext(now=now))
        if type(value) is bool:
            return value
        return type(value) in (int, float) and value != 0

    def shared_proxy(self, job: ClassAd, now: int = 0) -> str | None:
        """SharedX509UserProxy for ``job`` when it gives a string."""
        tree = self.expressions.get("SharedX509UserProxy")
        value = tree.evaluate(my=job, ctx=EvalContext(now=now)) if tree is not None else None
        return value if type(value) is str else None

    def idtokens(self, job: ClassAd, default: str, now: int = 0) -> list[str] | None:
        """The names of the ID tokens to send with ``job``'s routed copy; ``default`` is
        JOB_ROUTER_SEND_ROUTE_IDTOKENS. None when SendIDTokens gives no string (HTCondor:
        "evaluated SendIDTokens value is invalid!")."""
        from condorsim.classad import UNDEFINED
        from condorsim.config import split_list

        if self.send_idtokens is None:
            return split_list(default)
        value = self.send_idtokens.evaluate(my=job, ctx=EvalContext(now=now))
        if type(value) is str:
            return split_list(value)
        if self.send_idtokens.is_literal and value is UNDEFINED:
            return []
        return None

    def description(self) -> str:
        """HTCondor's RouteDescription: ``[ Name = "x"; TargetUniverse = 9; GridResource = ".." ]``."""
        ad = ClassAd()
        ad["Name"] = self.name
        ad["TargetUniverse"] = self.target_universe
        if self.grid_resource:
            ad["GridResource"] = self.grid_resource
        return str(ad)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return max(-(2**31), min(2**31 - 1, parse_long(value)))
    except InvalidValue:
        return None


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) > 1 and value[0] == '"' and value[-1] == '"':
        return value[1:-1]
    return value


def make_route(
    transform: Transform,
    *,
    config: Callable[[str], str | None],
    default_max_jobs: int = 100,
    default_max_idle_jobs: int = 50,
    from_old_syntax: bool = False,
    use_pre_route_transforms: bool = True,
) -> Route:
    """The route of ``transform`` (see the module comment); TransformError when its
    declarations cannot be read or it has no name. ``config`` looks up raw
    configuration values; the two defaults are JOB_ROUTER_DEFAULT_MAX_JOBS_PER_ROUTE and
    JOB_ROUTER_DEFAULT_MAX_IDLE_JOBS_PER_ROUTE."""
    macros = declared_macros(transform, TransformMacros.create(config=config))
    warnings: list[str] = []

    def param(name: str) -> str | None:
        raw = macros.raw(name)
        if raw is None:
            return None
        try:
            return macros.expand(raw)
        except MacroError as exc:
            raise TransformError(f"{name}: {exc}", transform.source) from None

    max_jobs = _int(param("MaxJobs"))
    max_idle = _int(param("MaxIdleJobs"))
    threshold = 0.03
    text = param("FailureRateThreshold")
    if text is not None:
        try:
            threshold = parse_double(text)
        except InvalidValue:
            pass
    universe = transform.universe or _int(param("TargetUniverse")) or GRID_UNIVERSE
    grid_resource = ""
    if universe == GRID_UNIVERSE:
        grid_resource = _unquoted(param("GridResource") or "")
    expressions: dict[str, ExprTree] = {}
    for name in _EXPRESSIONS:
        text = param(name)
        if text:
            try:
                expressions[name] = parse_expr_old(text)
            except ClassAdError:
                warnings.append(f"{name} = {text} is not a valid expression; it is ignored")
    send_idtokens: ExprTree | None = None
    if macros.raw("SendIDTokens") is not None:
        text = param("SendIDTokens") or '""'
        try:
            send_idtokens = parse_expr_old(text)
        except ClassAdError:
            warnings.append(f"SendIDTokens = {text} is not a valid expression; it is ignored")
    override = -1
    text = param("OverrideRoutingEntry")
    if text is not None:
        try:
            override = int(parse_boolean(text))
        except InvalidValue:
            pass
    name = transform.name or grid_resource
    if not name:
        raise TransformError("Missing or invalid Name in job route", transform.source)
    return Route(
        name=name,
        transform=transform,
        max_jobs=default_max_jobs if max_jobs is None else max_jobs,
        max_idle_jobs=default_max_idle_jobs if max_idle is None else max_idle,
        failure_rate_threshold=threshold,
        target_universe=universe,
        grid_resource=grid_resource,
        expressions=expressions,
        send_idtokens=send_idtokens,
        override_routing_entry=override,
        from_old_syntax=from_old_syntax,
        use_pre_route_transforms=use_pre_route_transforms,
        source=transform.source,
        warnings=tuple(warnings),
    )
