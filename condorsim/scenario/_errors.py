"""The one error class of scenario files.

A :class:`ScenarioError` names the file (``source``), the line when it can be found
(``line``, 0 when not), the section entry (``where``, e.g. ``[[action]] #2 (at "10m")``),
the field (``field``, e.g. ``do``) and what is wrong (``message``). ``str()`` joins
them in that order::

    scenario.toml, line 14: [[action]] #2 (at "10m"): do: unknown action 'freeze' (...)
"""

from __future__ import annotations

__all__ = ["BadValue", "ScenarioError"]


class ScenarioError(Exception):
    """A scenario file that cannot be run: found before any daemon starts."""

    def __init__(
        self, message: str, *, source: str = "<string>", line: int = 0, where: str = "",
        field: str = "",
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.where = where
        self.field = field
        parts = [f"{source}, line {line}" if line else source]
        if where:
            parts.append(where)
        if field:
            parts.append(field)
        parts.append(message)
        super().__init__(": ".join(parts))


class BadValue(Exception):
    """A value that is wrong in itself; the caller adds the file, section and field."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
