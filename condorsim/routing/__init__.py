"""The job router's rules that need no daemon: routes from the configuration, candidate
jobs, route choice and the routed copy. All pure: the daemon calls them with the jobs it
sees and the time.

Public API::

    router = load_router_config(config)          # RouterConfig: routes, pre/post transforms,
    router.errors, router.enabled, router.check()  # knobs; problems as TransformError
    text = umbrella_constraint(accepting_routes, router.source_constraint, router.router_name)
    is_candidate(job, parse_constraint(text))
    choice = choose_route(job, router.routes, accepting=..., round_robin=router.round_robin)
    routed = make_routed_copy(job, "12.0", choice.route, router, now=now)
    routed, sets, deletes = edit_in_place(job, route, router, now=now)

See docs/router.md.
"""

from __future__ import annotations

from ._candidates import Choice, choose_route, is_candidate, parse_constraint, umbrella_constraint
from ._config import MISSING_REQUIREMENTS, RouterConfig, load_router_config
from ._copy import DELETED, RESET, Routed, ad_diff, edit_in_place, make_routed_copy, vanilla_to_grid
from ._route import GRID_UNIVERSE, Route, make_route

__all__ = [
    "DELETED",
    "GRID_UNIVERSE",
    "MISSING_REQUIREMENTS",
    "RESET",
    "Choice",
    "Route",
    "Routed",
    "RouterConfig",
    "ad_diff",
    "choose_route",
    "edit_in_place",
    "is_candidate",
    "load_router_config",
    "make_route",
    "make_routed_copy",
    "parse_constraint",
    "umbrella_constraint",
    "vanilla_to_grid",
]
