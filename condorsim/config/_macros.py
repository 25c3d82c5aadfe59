"""The macro set: every name a configuration set, with its raw value and origin.

How this works
--------------
Values are stored raw (unexpanded) under their upper-cased name; a name may
carry a prefix, as in ``SCHEDD.SCHEDD_INTERVAL``.  :meth:`MacroSet.lookup`
resolves a name the way HTCondor's ``lookup_macro`` does, stopping at the first
hit, even an empty one:

1. ``<local name>.<name>`` (when the daemon has a local name), set then default;
2. ``<subsystem>.<name>`` (when a subsystem is given), set then default;
3. ``<name>`` as set, then the values detected at start-up (``SUBSYSTEM``,
   ``TILDE``...), then the knob table's default.

Only exactly named table entries give defaults (templates do not).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._errors import DEFAULT, DETECTED, Origin
from ._knobs import KNOBS, KnobTable

__all__ = ["Macro", "MacroSet", "Resolved", "is_valid_name"]

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./")


def is_valid_name(name: str) -> bool:
    """True for a legal knob name: letters, digits, ``_``, ``.`` and ``/`` (HTCondor's ISIDCHAR)."""
    return bool(name) and all(c in _NAME_CHARS for c in name)


@dataclass(slots=True)
class Macro:
    """One set name: its spelling as first written, raw value and where it was last set."""

    name: str
    raw: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Resolved:
    """The result of a lookup: which key matched, its raw value and origin."""

    key: str
    name: str
    raw: str
    origin: Origin

    @property
    def is_default(self) -> bool:
        return self.origin is DEFAULT or self.origin is DETECTED


class MacroSet:
    """Raw values by name, plus the lookup context (subsystem, local name, environment)."""

    def __init__(
        self,
        *,
        subsystem: str | None,
        local_name: str | None,
        env: Mapping[str, str],
        detected: Mapping[str, str],
        knobs: KnobTable = KNOBS,
    ) -> None:
        self.subsystem = subsystem.upper() if subsystem else None
        self.local_name = local_name.upper() if local_name else None
        self.env = env
        self.knobs = knobs
        self.items: dict[str, Macro] = {}
        self.detected = {k.upper(): Macro(k, v, DETECTED) for k, v in detected.items()}

    def set(self, name: str, raw: str, origin: Origin) -> None:
        """Set (or replace) ``name``; the first spelling of a name is kept."""
        key = name.upper()
        old = self.items.get(key)
        self.items[key] = Macro(old.name if old else name, raw, origin)

    def _default(self, key: str) -> Resolved | None:
        knob = self.knobs.get(key)
        if knob is None or knob.is_template:
            return None
        return Resolved(key, knob.name, knob.default or "", DEFAULT)

    def _exact(self, key: str, *, with_default: bool) -> Resolved | None:
        macro = self.items.get(key)
        if macro is not None:
            return Resolved(key, macro.name, macro.raw, macro.origin)
        return self._default(key) if with_default else None

    def lookup(self, name: str) -> Resolved | None:
        """Resolve ``name`` in HTCondor's order; None when it is nowhere."""
        key = name.upper()
        for prefix in (self.local_name, self.subsystem):
            if prefix:
                found = self._exact(f"{prefix}.{key}", with_default=True)
                if found is not None:
                    return found
        found = self._exact(key, with_default=False)
        if found is not None:
            return found
        detected = self.detected.get(key)
        if detected is not None:
            return Resolved(key, detected.name, detected.raw, DETECTED)
        return self._default(key)

    def self_names(self, name: str) -> tuple[str, ...]:
        """The names that count as self references when ``name`` is being set.

        ``SCHEDD.X = $(X) more`` appends to the previous value when the
        configuration is read for the SCHEDD subsystem (``expand_self_macro``).
        """
        names = [name.upper()]
        for prefix in (self.local_name, self.subsystem):
            if prefix and names[0].startswith(prefix + ".") and len(names[0]) > len(prefix) + 1:
                names.append(names[0][len(prefix) + 1 :])
                break
        return tuple(names)
