"""What a sweep file says, as frozen dataclasses (docs/sweeps.md is the reference).

How this works
--------------
``condorsim.sweep._parse`` builds these after checking every field; nothing here parses
or checks. An :class:`Axis` is one thing varied: where it is in the base scenario (its
*target*: a knob, a field of ``[scenario]``, of a ``[[machine]]``, of a ``[[site]]``, the
``queue N`` of a ``[[submit]]``, or a macro of a route) and, for a grid axis, its values.
A :class:`Variant` is one combination of values, already turned into the scenario file
it replays (``text``): its ``key`` (a hash of that text) is what ``--resume`` recognises.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from condorsim.scenario import Scenario

__all__ = ["TARGETS", "Axis", "Sweep", "Variant"]

TARGETS: Final = ("knob", "scenario", "machine", "site", "submit", "route")
"""The keys of an ``[[axis]]`` that say what it varies; each axis has exactly one."""


@dataclass(frozen=True)
class Axis:
    """One ``[[axis]]``: ``target`` is one of :data:`TARGETS`; ``entry`` says which one
    (the knob's name, the machine's name, the site's resource, the submit's number, the
    route's name; None for ``scenario``); ``field`` the field (the knob's name again for a
    knob). ``values`` is None when the ``[[point]]``s give this axis its values."""

    index: int
    name: str
    target: str
    entry: str | int | None
    field: str
    values: tuple[Any, ...] | None

    @property
    def label(self) -> str:
        return f'[[axis]] #{self.index} (name "{self.name}")'

    @property
    def section(self) -> str:
        """The base scenario's section the axis changes."""
        return {"knob": "config", "route": "config"}.get(self.target, self.target)

    def describe(self) -> str:
        """What the axis changes, in words of the scenario format."""
        if self.target == "knob":
            return f"[config] {self.field}"
        if self.target == "scenario":
            return f"[scenario] {self.field}"
        if self.target == "route":
            return f"route {self.entry}: {self.field}"
        if self.target == "submit":
            return f"[[submit]] #{self.entry}: queue N"
        key = "name" if self.target == "machine" else "resource"
        return f'[[{self.target}]] ({key} "{self.entry}"): {self.field}'


@dataclass(frozen=True)
class Variant:
    """One variant: the value of each axis (in axis order), the scenario it makes (and
    how many slots its pool has: the figures' utilization needs them)."""

    number: int
    settings: tuple[tuple[str, Any], ...]
    text: str
    key: str
    dir_name: str
    slots: int

    @property
    def label(self) -> str:
        """``interval=20 slots=2 seed=1``."""
        return " ".join(f"{name}={value}" for name, value in self.settings)


@dataclass(frozen=True)
class Sweep:
    """A whole sweep file, checked; ``base_dir`` is the base scenario's directory (where
    the variants' relative paths resolve)."""

    name: str
    description: str
    source: str
    scenario_path: Path
    base: Scenario
    axes: tuple[Axis, ...]
    variants: tuple[Variant, ...]
    metrics: tuple[str, ...]
    per_owner: bool

    @property
    def base_dir(self) -> Path:
        return self.scenario_path.parent
