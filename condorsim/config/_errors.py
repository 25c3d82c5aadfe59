"""The configuration error type and the record of where a value came from.

How this works
--------------
Every value in a configuration remembers its :class:`Origin`: a file and line,
or one of the pseudo sources HTCondor also distinguishes (the defaults table,
the ``_CONDOR_`` environment, overrides given by a program, values detected at
start-up).  Every problem a user can cause is reported as a :class:`ConfigError`
whose message starts with the origin, e.g. ``pool.conf, line 7: expected NAME = value``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT", "DETECTED", "ENVIRONMENT", "OVERRIDES", "ConfigError", "ExpandError", "Origin"]


class ConfigError(Exception):
    """A configuration file, value or lookup that condorsim cannot accept.

    ``str(error)`` is a complete, readable message naming the file and line
    (or the pseudo source) and what is wrong.
    """

    def __init__(self, message: str, origin: Origin | None = None) -> None:
        self.message = message
        self.origin = origin
        super().__init__(f"{origin}: {message}" if origin is not None else message)


class ExpandError(Exception):
    """Macro expansion failed; the message does not yet name the knob or its origin."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a configuration value was set: ``source`` is a file name or a pseudo source."""

    source: str
    line: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return self.source
        return f"{self.source}, line {self.line}"


DEFAULT = Origin("<default>")
ENVIRONMENT = Origin("<environment>")
OVERRIDES = Origin("<overrides>")
DETECTED = Origin("<detected>")
