"""The job router's routes, pre-route and post-route transforms, read from the configuration.

How this works
--------------
:func:`load_router_config` does what HTCondor 24.0's ``JobRouter::config`` does:

1. ``JOB_ROUTER_DEFAULTS`` and ``JOB_ROUTER_ENTRIES_CMD`` / ``_FILE`` / ``JOB_ROUTER_ENTRIES``
   (in that order; a later route of the same name replaces an earlier one unless it says
   ``OverrideRoutingEntry = false``) are read only when
   ``JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES`` is true; each entry is merged over the
   defaults ad and converted (:mod:`condorsim.transform._convert`). Such routes skip the
   pre- and post-route transforms (24.0). An entry without ``Name`` is named
   ``entries:N`` (``file:N``, ``cmd:N``), as the 24.0 code does.
2. ``JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES`` / ``JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES``
   name ``JOB_ROUTER_TRANSFORM_<name>`` knobs, read unexpanded; one that is missing or does
   not parse disables routing.
3. Each name of ``JOB_ROUTER_ROUTE_NAMES`` (``NAMES`` skipped) names a
   ``JOB_ROUTER_ROUTE_<name>`` knob, read unexpanded (a value that starts with ``[`` or
   ``/*`` is the old syntax: it is expanded, then converted); the route takes the knob's
   name. A route that does not parse, or has no REQUIREMENTS while
   ``JOB_ROUTER_SOURCE_JOB_CONSTRAINT`` is unset, is left out.
4. Routes are tried in ``JOB_ROUTER_ROUTE_NAMES`` order; with that knob set, routes it
   does not name are disabled. Without it (old syntax only) they are tried in the order
   they were defined (HTCondor: its hash table's order).

Every problem is a :class:`~condorsim.transform.TransformError` naming the knob, the line
and what is wrong, collected in ``RouterConfig.errors`` (the daemon logs them, the tools
print them, ``condorsim replay`` refuses a scenario that has any: :meth:`check`).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field

from condorsim.classad import ClassAd
from condorsim.config import Config, ConfigError
from condorsim.transform import (
    ConvertedRoute,
    Transform,
    TransformError,
    convert_route_ad,
    defaults_ad,
    parse_transform,
    split_route_ads,
)

from ._route import Route, make_route

__all__ = ["MISSING_REQUIREMENTS", "RouterConfig", "load_router_config"]

MISSING_REQUIREMENTS = "JobRouter CONFIGURATION ERROR: Missing Requirements in job route."


@dataclass
class RouterConfig:
    """Everything the router reads from the configuration (see the module comment)."""

    routes: list[Route] = field(default_factory=list)
    pre_route: list[Transform] = field(default_factory=list)
    post_route: list[Transform] = field(default_factory=list)
    source_constraint: str = ""
    router_name: str = "jobrouter"
    round_robin: bool = False
    max_jobs: int = -1
    release_on_hold: bool = True
    polling_period: int = 10
    send_idtokens: str = ""
    enabled: bool = True
    errors: list[TransformError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What HTCondor's router logs at start-up besides errors (ignored knobs, route order)."""
    config: Callable[[str], str | None] = field(default=lambda name: None, repr=False)
    """Raw configuration lookups, for the ``$(...)`` of the transforms when they run."""

    def route(self, name: str) -> Route | None:
        return next((r for r in self.routes if r.name.lower() == name.lower()), None)

    def check(self) -> None:
        """Raise the first error, if there is one (for an up-front check of a scenario)."""
        if self.errors:
            raise self.errors[0]


def _knob_error(knob: str, exc: ConfigError) -> TransformError:
    return TransformError(str(exc), knob)


def load_router_config(config: Config) -> RouterConfig:
    """The router's configuration; never raises (problems are in ``errors``)."""
    out = RouterConfig(config=config.get_raw)
    try:
        _load(config, out)
    except ConfigError as exc:  # a list knob whose $(...) cannot be expanded
        out.errors.append(TransformError(str(exc)))
        out.enabled = False
    return out


def _load(config: Config, out: RouterConfig) -> None:
    try:
        out.source_constraint = config.get("JOB_ROUTER_SOURCE_JOB_CONSTRAINT") or ""
        out.router_name = config.get("JOB_ROUTER_NAME") or ""
        out.round_robin = config.get_bool("JOB_ROUTER_ROUND_ROBIN_SELECTION", False)
        out.max_jobs = config.get_int("JOB_ROUTER_MAX_JOBS", -1)
        out.release_on_hold = config.get_bool("JOB_ROUTER_RELEASE_ON_HOLD", True)
        out.polling_period = config.get_int("JOB_ROUTER_POLLING_PERIOD", 10)
        out.send_idtokens = config.get("JOB_ROUTER_SEND_ROUTE_IDTOKENS") or ""
        defaults = (config.get_int("JOB_ROUTER_DEFAULT_MAX_JOBS_PER_ROUTE", 100),
                    config.get_int("JOB_ROUTER_DEFAULT_MAX_IDLE_JOBS_PER_ROUTE", 50))  # fmt: skip
        use_entries = config.get_bool("JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES", False)
    except ConfigError as exc:
        out.errors.append(TransformError(str(exc)))
        out.enabled = False
        return
    if not out.router_name:
        out.errors.append(TransformError("JOB_ROUTER_NAME must not be empty", "JOB_ROUTER_NAME"))
        out.enabled = False
    loader = _Loader(config, out, defaults)
    table: dict[str, Route] = {}
    declared: list[str] = []
    if use_entries:
        loader.entries(table, declared)
    else:
        ignored = [k for k in ("JOB_ROUTER_DEFAULTS", "JOB_ROUTER_ENTRIES", "JOB_ROUTER_ENTRIES_FILE",
                               "JOB_ROUTER_ENTRIES_CMD") if config.get(k)]  # fmt: skip
        if ignored:
            out.notes.append(f"{', '.join(ignored)} ignored: "
                             "JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES is false")
    out.pre_route = loader.transforms("JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES")
    out.post_route = loader.transforms("JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES")
    names = [n for n in config.get_list("JOB_ROUTER_ROUTE_NAMES") if n.upper() != "NAMES"]
    for name in names:
        loader.route_knob(name, table)
    if not names and not table:
        out.notes.append("none of JOB_ROUTER_ROUTE_NAMES, JOB_ROUTER_ENTRIES, "
                         "JOB_ROUTER_ENTRIES_FILE, or JOB_ROUTER_ENTRIES_CMD are defined, "
                         "so job routing will not take place.")
        out.enabled = False
    if config.get("JOB_ROUTER_ROUTE_NAMES") is None:
        out.routes = [table[k] for k in declared if k in table]
    else:
        order = [table.pop(n.lower()) for n in names if n.lower() in table]
        if table:
            out.notes.append("Routes not in JOB_ROUTER_ROUTE_NAMES will be disabled: "
                             + ", ".join(r.name for r in table.values()))
        out.routes = order
    if out.routes:
        out.notes.append("Routes will be matched in this order: "
                         + ", ".join(r.name for r in out.routes))


class _Loader:
    def __init__(self, config: Config, out: RouterConfig, defaults: tuple[int, int]) -> None:
        self.config = config
        self.out = out
        self.defaults = defaults

    def fail(self, error: TransformError, disable: bool = False) -> None:
        self.out.errors.append(error)
        if disable:
            self.out.enabled = False

    def make(self, transform: Transform, **kwargs: bool) -> Route | None:
        try:
            route = make_route(transform, config=self.config.get_raw,
                               default_max_jobs=self.defaults[0],
                               default_max_idle_jobs=self.defaults[1], **kwargs)  # fmt: skip
        except TransformError as exc:
            self.fail(exc)
            return None
        if not route.requirements_text and not self.out.source_constraint:
            self.fail(TransformError(MISSING_REQUIREMENTS, transform.source))
            return None
        for warning in route.warnings:
            self.out.notes.append(f"{transform.source}: {warning}")
        return route

    def transforms(self, knob: str) -> list[Transform]:
        loaded: list[Transform] = []
        seen: set[str] = set()
        for tag in self.config.get_list(knob):
            if tag.lower() in seen:
                continue
            seen.add(tag.lower())
            name = f"JOB_ROUTER_TRANSFORM_{tag}"
            text = self.config.get_raw(name)
            if text is None:
                self.fail(TransformError(f"{name} not found (named by {knob})", name), True)
                continue
            try:
                loaded.append(parse_transform(text, source=name, name=tag))
            except TransformError as exc:
                self.fail(exc, True)
        return loaded

    def route_knob(self, name: str, table: dict[str, Route]) -> None:
        knob = f"JOB_ROUTER_ROUTE_{name}"
        text = self.config.get_raw(knob)
        if text is None:
            return  # perhaps a route of JOB_ROUTER_ENTRIES
        stripped = text.lstrip()
        if not stripped:
            self.out.notes.append(f"{knob} definition is empty, ignoring.")
            return
        try:
            if stripped.startswith(("[", "/*")):
                expanded = self.config.expand(stripped)
                converted = self._convert(expanded, ClassAd(), name, knob)
                transform = parse_transform(converted.text, source=knob, name=name)
                route = self.make(transform, from_old_syntax=True)
            else:
                transform = parse_transform(text, source=knob, name=name)
                if transform.name.lower() != name.lower():
                    self.out.notes.append(f"WARNING: The Name specified in {knob} was "
                                          f'"{transform.name}". using {name} instead.')
                route = self.make(transform)
        except (TransformError, ConfigError) as exc:
            self.fail(exc if isinstance(exc, TransformError) else _knob_error(knob, exc))
            return
        if route is not None:
            table[route.name.lower()] = route

    def _convert(self, text: str, defaults: ClassAd, name: str, source: str) -> ConvertedRoute:
        ads = split_route_ads(text, source)
        if not ads:
            raise TransformError("no route ClassAd found", source)
        merged = defaults.copy()
        merged.update(ads[0])
        return convert_route_ad(merged, name)

    def entries(self, table: dict[str, Route], declared: list[str]) -> None:
        config = self.config
        try:
            text = config.get("JOB_ROUTER_DEFAULTS") or ""
            merge = config.get_bool("MERGE_JOB_ROUTER_DEFAULT_ADS", False)
            base = defaults_ad(text, "JOB_ROUTER_DEFAULTS", merge)
        except (TransformError, ConfigError) as exc:
            self.fail(exc if isinstance(exc, TransformError)
                      else _knob_error("JOB_ROUTER_DEFAULTS", exc), True)  # fmt: skip
            return
        for knob, label in (("JOB_ROUTER_ENTRIES_CMD", "cmd"), ("JOB_ROUTER_ENTRIES_FILE", "file"),
                            ("JOB_ROUTER_ENTRIES", "entries")):  # fmt: skip
            try:
                entries = self._entries_text(knob)
            except TransformError as exc:
                self.fail(exc)
                continue
            if entries is None:
                continue
            try:
                ads = split_route_ads(entries, knob)
            except TransformError as exc:
                self.fail(exc)
                continue
            for index, ad in enumerate(ads):
                self._entry(base, ad, f"{label}:{index}", knob, table, declared)

    def _entries_text(self, knob: str) -> str | None:
        value = self.config.get(knob)
        if value is None:
            return None
        if knob.endswith("_FILE"):
            try:
                with open(value, encoding="utf-8") as fh:
                    return fh.read()
            except OSError as exc:
                raise TransformError(f"Failed to open '{value}' file specified for {knob}: "
                                     f"{exc.strerror}", knob) from None  # fmt: skip
        if knob.endswith("_CMD"):
            try:
                done = subprocess.run(shlex.split(value), capture_output=True, text=True,
                                      check=False, env=dict(os.environ))  # fmt: skip
            except OSError as exc:
                raise TransformError(f"Failed to run command '{value}' specified for {knob}: "
                                     f"{exc.strerror}", knob) from None  # fmt: skip
            if done.returncode:
                raise TransformError(f"Command '{value}' specified for {knob} returned "
                                     f"non-zero status {done.returncode}", knob)  # fmt: skip
            return done.stdout
        return value

    def _entry(self, base: ClassAd, ad: ClassAd, label: str, knob: str,
               table: dict[str, Route], declared: list[str]) -> None:  # fmt: skip
        merged = base.copy()
        merged.update(ad)
        converted = convert_route_ad(merged, label)
        try:
            transform = parse_transform(converted.text, source=f"{knob} [{label}]", name=converted.name)
        except TransformError as exc:
            self.fail(exc)
            return
        route = self.make(transform, from_old_syntax=True, use_pre_route_transforms=False)
        if route is None:
            return
        key = route.name.lower()
        if key in table:
            if route.override_routing_entry == 0:
                return
            if route.override_routing_entry < 0:
                self.out.notes.append(
                    f"while parsing {knob} two route entries have the same name "
                    f"'{route.name}' so the second one will override the first one")
        else:
            declared.append(key)
        table[key] = route

