"""The variants of a sweep: every combination of the axes' values, each written into the
base scenario and checked as a scenario file.

How this works
--------------
:func:`build_variants` takes the grid of the axes that have ``values`` (the first axis
changing slowest) for each ``[[point]]`` (or once, without points), writes each
combination into a copy of the base document (:func:`._targets.apply`), writes it out as
TOML (:mod:`._toml`) with a first comment line saying what it varies, and parses it with
:func:`condorsim.scenario.parse_scenario`. A variant that is not a valid scenario is
refused, naming the axis (or point) that made it invalid and what the scenario check said.
A variant's key is the hash of its text: the same sweep gives the same keys.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
import re
from pathlib import Path
from typing import Any, Final

from condorsim.scenario import FileContext, Scenario, ScenarioError, parse_scenario

from ._model import Axis, Variant
from ._targets import apply
from ._toml import dumps

__all__ = ["MAX_VARIANTS", "SLUG", "build_variants"]

MAX_VARIANTS: Final = 10_000
SLUG: Final = re.compile(r"[^A-Za-z0-9_.=\-]+")
"""What a directory name or a default axis name may not hold (replaced by '_')."""


def build_variants(ctx: FileContext, raw: dict[str, Any], axes: list[Axis],
              points: list[dict[str, Any]], scenario_path: Path) -> tuple[Variant, ...]:
    grid = [a for a in axes if a.values is not None]
    # counted before the combinations are made: 10 axes of 100 values must not hang
    count = max(len(points), 1) * math.prod(len(a.values or ()) for a in grid)
    if count > MAX_VARIANTS:
        raise ctx.error(f"{count:,} variants is more than {MAX_VARIANTS:,}, the limit "
                        "(MAX_VARIANTS): split the sweep", section="axis", index=1,
                        where="[[axis]]")
    combos = list(itertools.product(*(a.values or () for a in grid)))
    variants: list[Variant] = []
    for point_no, point in enumerate(points or [{}], start=1):
        for combo in combos:
            values = {**point, **{a.name: v for a, v in zip(grid, combo, strict=True)}}
            settings = tuple((a.name, values[a.name]) for a in axes)
            doc = copy.deepcopy(raw)
            for axis in axes:
                apply(doc, axis.target, axis.entry, axis.field, values[axis.name])
            text = f"# a variant of {scenario_path}: {_words(settings)}\n{dumps(doc)}"
            scenario = _check_variant(ctx, text, scenario_path, axes, settings,
                                      point_no if points else None)
            key = hashlib.sha256(text.encode()).hexdigest()
            slug = SLUG.sub("_", "_".join(f"{n}={v}" for n, v in settings))[:80]
            variants.append(Variant(number=len(variants) + 1, settings=settings, text=text,
                                    key=key, dir_name=f"{slug}-{key[:8]}",
                                    slots=sum(m.count * m.slots for m in scenario.machines)))
    return tuple(variants)


def _words(settings: tuple[tuple[str, Any], ...]) -> str:
    return " ".join(f"{n}={v!r}" for n, v in settings)


def _check_variant(ctx: FileContext, text: str, scenario_path: Path, axes: list[Axis],
                   settings: tuple[tuple[str, Any], ...], point: int | None) -> Scenario:
    """Parse the variant as a scenario; refuse it with the axis that made it invalid."""
    try:
        return parse_scenario(text, source=str(scenario_path), base_dir=scenario_path.parent)
    except ScenarioError as err:
        values = dict(settings)
        where = " ".join(p for p in (err.where, err.field) if p)
        problem = f"{where}: {err.message}" if where else err.message
        section = re.match(r"\[\[?(\w+)", err.where or "")
        axis = next((a for a in axes if section and a.section == section.group(1)), None)
        if point is not None and (axis is None or axis.values is None):
            raise ctx.error(f"the variant {_words(settings)} is not a valid scenario: {problem}",
                            section="point", index=point, where=f"[[point]] #{point}") from None
        axis = axis or axes[0]
        raise ctx.error(f"{values[axis.name]!r} makes the variant {_words(settings)} an invalid "
                        f"scenario: {problem}", section="axis", index=axis.index, key="values",
                        where=axis.label, field="values") from None
