"""Sweep files: TOML text -> a checked :class:`Sweep` with every variant's scenario.

How this works
--------------
A sweep file is checked like a scenario file, with the same readers
(:class:`condorsim.scenario.Entry`): the top level (``[sweep]``, ``[[axis]]``,
``[[point]]``), ``[sweep]`` (the base scenario is loaded and checked here, its errors
named in its own file), each axis (its one target, its field, its values), each point.
Then every variant is built and checked *as a scenario file* (:mod:`._variants`): the
base document with the variant's values written in (:mod:`._targets`), written out as
TOML and parsed by :func:`condorsim.scenario.parse_scenario`. A variant that is not a
valid scenario is refused, with the axis (or point) that made it so.

The first problem is raised as a :class:`SweepError` naming the file, line, entry and
field, before anything runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from condorsim.scenario import (
    BadValue,
    Entry,
    FileContext,
    Locator,
    ScenarioError,
    did_you_mean,
    load_scenario,
    load_toml,
    read_text,
    type_name,
)

from ._model import TARGETS, Axis, Sweep
from ._targets import FIELDS, check_entry, check_field, check_value, prepare_base
from ._variants import MAX_VARIANTS, SLUG, build_variants
from .metrics import METRIC_GROUPS, METRICS, RESERVED_COLUMNS

__all__ = ["MAX_VARIANTS", "SweepError", "load_sweep", "parse_sweep"]

_SECTIONS: Final = ("sweep", "axis", "point")
_SWEEP_KEYS: Final = ("name", "description", "scenario", "metrics", "per_owner")
_AXIS_KEYS: Final = ("name", *TARGETS, "field", "values")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class SweepError(ScenarioError):
    """A sweep file that cannot be run: found before any variant runs."""


def load_sweep(path: str | Path) -> Sweep:
    """Read and check the sweep file at ``path``; raises SweepError."""
    path = Path(path)
    try:
        text = read_text(path, "sweep")
    except ScenarioError as err:
        raise SweepError(err.message, source=err.source) from None
    return parse_sweep(text, source=str(path), base_dir=path.parent)


def parse_sweep(text: str, source: str = "<string>", base_dir: Path = Path(".")) -> Sweep:
    """Check the sweep ``text``; its ``scenario`` is relative to ``base_dir``."""
    try:
        data = load_toml(text, source)
    except ScenarioError as err:
        raise SweepError(err.message, source=source, line=err.line) from None
    ctx = FileContext(source, Locator(text))
    try:
        return _read(ctx, data, base_dir)
    except SweepError:
        raise
    except ScenarioError as err:  # from the readers of Entry: same fields, our class
        raise SweepError(err.message, source=err.source, line=err.line, where=err.where,
                         field=err.field) from None


def _read(ctx: FileContext, data: dict[str, Any], base_dir: Path) -> Sweep:
    _check_top_level(ctx, data)
    head = Entry(ctx, "sweep", 0, data["sweep"], "[sweep]")
    head.check_keys(_SWEEP_KEYS)
    head.require("scenario", "the base scenario file, relative to the sweep file")
    scenario_name = head.string("scenario")
    assert scenario_name is not None
    scenario_path = (base_dir / scenario_name).resolve()
    try:
        base = load_scenario(scenario_path)
    except ScenarioError as err:
        head.fail("scenario", f"the base scenario is invalid: {err}" if scenario_path.is_file()
                  else f"no such file: {scenario_path}")
    raw = prepare_base(load_toml(scenario_path.read_text(encoding="utf-8"), str(scenario_path)),
                       read=lambda name: (scenario_path.parent / name).read_text(
                           encoding="utf-8"),
                       resolve=lambda name: str((scenario_path.parent / name).resolve()))
    axes = [_axis(Entry(ctx, "axis", i, d, _axis_label(i, d)), raw)
            for i, d in enumerate(data["axis"], start=1)]
    _check_axis_names(ctx, axes)
    _check_points_needed(ctx, axes, len(data.get("point", [])))
    points = [_point(Entry(ctx, "point", i, d, f"[[point]] #{i}"), axes)
              for i, d in enumerate(data.get("point", []), start=1)]
    metrics = _metrics(head)
    name = head.string("name", Path(ctx.source).stem)
    assert name is not None
    return Sweep(
        name=name, description=head.string("description", "", empty=True) or "",
        source=ctx.source, scenario_path=scenario_path, base=base, axes=tuple(axes),
        variants=build_variants(ctx, raw, axes, points, scenario_path), metrics=metrics,
        per_owner=_boolean(head, "per_owner", True))


def _axis_label(index: int, data: dict[str, Any]) -> str:
    name = data.get("name")
    return f'[[axis]] #{index} (name "{name}")' if isinstance(name, str) else \
        f"[[axis]] #{index}"


def _check_top_level(ctx: FileContext, data: dict[str, Any]) -> None:
    for key, value in data.items():
        if key not in _SECTIONS:
            hint = did_you_mean(key, _SECTIONS) or f" (expected {', '.join(_SECTIONS)})"
            raise ctx.error(f"unknown section '{key}'{hint}", section=key,
                            index=int(isinstance(value, list)), key=key)
    if "sweep" not in data:
        raise ctx.error('missing the [sweep] section (it needs at least scenario = "...")')
    if not isinstance(data["sweep"], dict):
        raise ctx.error("[sweep] must be a table: write [sweep], not [[sweep]]", key="sweep",
                        section="sweep", index=1)
    for key in ("axis", "point"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise ctx.error(f"[[{key}]] must be an array of tables: write [[{key}]]",
                            section=key, key=key)
    if not data.get("axis"):
        raise ctx.error("no [[axis]]: a sweep varies at least one thing", section="sweep")


def _axis(entry: Entry, raw: dict[str, Any]) -> Axis:
    entry.check_keys(_AXIS_KEYS)
    targets = [t for t in TARGETS if entry.has(t)]
    if len(targets) != 1:
        found = f" (found {' and '.join(targets)})" if targets else ""
        entry.fail(targets[1] if targets else "", f"give exactly one of {', '.join(TARGETS)}: "
                   f"what the axis varies{found}", field="")
    target = targets[0]
    item: str | int | None
    if target == "submit":
        item = entry.integer("submit", 1, minimum=1)
    else:
        item = entry.string(target)
    if target in ("knob", "scenario"):
        if entry.has("field"):
            entry.fail("field", f"not used with {target} (the {target} names the field)")
        field = str(item)
        item = None if target == "scenario" else item
    else:
        entry.require("field", f"which field of the {target} it varies")
        field = entry.string("field") or ""
    try:
        if target == "scenario" and field not in (FIELDS["scenario"] or {}):
            raise BadValue(f"an axis varies one of {', '.join(FIELDS['scenario'] or {})} of "
                           f"[scenario], not '{field}'")
        check_field(target, field)
    except BadValue as bad:
        entry.fail(target if target in ("knob", "scenario") else "field", bad.message)
    try:
        check_entry(raw, target, item)
    except BadValue as bad:
        entry.fail(target, bad.message)
    name = entry.string("name", _default_name(target, item, field))
    assert name is not None
    if not _NAME.fullmatch(name):
        entry.fail("name", f"'{name}' is not an axis name (a letter or '_', then letters, "
                           "digits, '_', '.' and '-'): give one with name = \"...\"")
    values: tuple[Any, ...] | None = None
    if entry.has("values"):
        listed = entry.raw("values")
        if not isinstance(listed, list) or not listed:
            found = "an empty array" if isinstance(listed, list) else type_name(listed)
            entry.fail("values", f"expected an array of values, found {found}")
        for i, value in enumerate(listed, start=1):
            _value(entry, "values", f"item {i}", target, field, value)
            if value in listed[:i - 1] and type(value) in {type(v) for v in listed[:i - 1]}:
                entry.fail("values", f"item {i}: {value!r} is given twice")
        values = tuple(listed)
    return Axis(index=entry.index, name=name, target=target, entry=item, field=field,
                values=values)


def _default_name(target: str, item: str | int | None, field: str) -> str:
    if target in ("knob", "scenario"):
        return field
    if target == "submit":
        return f"submit{item}.queue"
    return f"{SLUG.sub('_', str(item))}.{field}"


def _value(entry: Entry, key: str, what: str, target: str, field: str, value: Any) -> None:
    try:
        check_value(target, field, value)
    except BadValue as bad:
        entry.fail(key, f"{what}: {bad.message}")


def _check_axis_names(ctx: FileContext, axes: list[Axis]) -> None:
    seen: dict[str, int] = {}
    for axis in axes:
        reserved = axis.name in RESERVED_COLUMNS or axis.name.split("[")[0] in METRICS
        first = seen.setdefault(axis.name, axis.index)
        if reserved or first != axis.index:
            why = "is a column of the results already" if reserved else \
                f"is also the name of [[axis]] #{first}"
            raise ctx.error(f"'{axis.name}' {why}: give the axis another name = \"...\"",
                            section="axis", index=axis.index, key="name", where=axis.label,
                            field="name")


def _point(entry: Entry, axes: list[Axis]) -> dict[str, Any]:
    free = [a for a in axes if a.values is None]
    by_name = {a.name: a for a in axes}
    for key in entry.data:
        axis = by_name.get(key)
        if axis is None:
            hint = did_you_mean(key, by_name) or f" (axes: {', '.join(by_name)})"
            entry.fail(key, f"no axis is named '{key}'{hint}", field="")
        if axis.values is not None:
            entry.fail(key, f"axis '{key}' has values of its own (a grid axis); a point gives "
                            "the axes without values")
        _value(entry, key, "", axis.target, axis.field, entry.raw(key))
    missing = [a.name for a in free if a.name not in entry.data]
    if missing:
        entry.fail("", f"no value for the axis {', '.join(missing)} (a point gives every "
                       "axis that has no values)", field="")
    return dict(entry.data)


def _check_points_needed(ctx: FileContext, axes: list[Axis], points: int) -> None:
    if points and all(a.values is not None for a in axes):
        raise ctx.error("every axis has values, so a point has nothing to set: remove the "
                        "[[point]]s or the values of the axes they give", section="point",
                        index=1, where="[[point]] #1")
    if not points:
        for axis in axes:
            if axis.values is None:
                raise ctx.error("missing (give values = [...], or [[point]]s that give "
                                "this axis)", section="axis", index=axis.index,
                                where=axis.label, field="values")


def _metrics(entry: Entry) -> tuple[str, ...]:
    if not entry.has("metrics"):
        return METRICS
    listed = entry.raw("metrics")
    if not isinstance(listed, list) or not listed:
        found = "an empty array" if isinstance(listed, list) else type_name(listed)
        entry.fail("metrics", f"expected an array of metric names, found {found}")
    chosen: list[str] = []
    for item in listed:
        if not isinstance(item, str):
            entry.fail("metrics", f"expected metric names (strings), found {type_name(item)}")
        names = METRIC_GROUPS.get(item) or ((item,) if item in METRICS else None)
        if names is None:
            known = [*METRICS, *METRIC_GROUPS]
            hint = did_you_mean(item, known) or f" (expected one of {', '.join(known)})"
            entry.fail("metrics", f"unknown metric '{item}'{hint}")
        chosen += [n for n in names if n not in chosen]
    return tuple(n for n in METRICS if n in chosen)


def _boolean(entry: Entry, key: str, default: bool) -> bool:
    if not entry.has(key):
        return default
    value = entry.raw(key)
    if not isinstance(value, bool):
        entry.fail(key, f"expected true or false, found {type_name(value)}")
    return value
