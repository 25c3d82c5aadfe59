"""The conditions of ``if`` / ``elif`` lines, and the stack of open ``if`` blocks.

How this works
--------------
HTCondor allows only simple conditions (``Evaluate_config_if`` in config.cpp):
a number (non-zero is true), ``true``/``false`` and the old words
``yes``/``no``/``t``/``f``, ``defined NAME`` (set or defaulted, and not empty),
``defined use CATEGORY[:NAME]``, and ``version <op> x.y[.z]`` compared with
:data:`CONDOR_VERSION`.  The parser expands macros and strips a leading ``!``
before calling :func:`evaluate_condition`.  Anything else is refused with
HTCondor's reasons ("complex conditionals are not supported"...).

:class:`IfStack` holds one :class:`Branch` per open ``if``; lines are read only
when every open branch is active.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from ._lines import WHITESPACE, keyword
from ._macros import is_valid_name
from ._metaknobs import METAKNOBS, metaknob_body

__all__ = [
    "CONDOR_VERSION",
    "MAX_IF_NESTING",
    "Branch",
    "ConditionError",
    "IfStack",
    "NameLookup",
    "evaluate_condition",
    "version_test",
]

CONDOR_VERSION = (24, 0, 24)
MAX_IF_NESTING = 63

_NUMBER = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_VERSION = re.compile(r"[vV]?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")


class _RawValue(Protocol):
    @property
    def raw(self) -> str: ...


class NameLookup(Protocol):
    """What ``defined NAME`` looks NAME up in: the configuration's macros, or a transform's."""

    def lookup(self, name: str) -> _RawValue | None: ...


class ConditionError(Exception):
    """An ``if`` condition that cannot be evaluated; the message is the reason."""


@dataclass(slots=True)
class Branch:
    """One open ``if``: whether its current branch is read and whether any branch was."""

    active: bool  # this branch's lines are read (if its enclosing branches are too)
    taken: bool  # some branch of this if/elif/else chain was true
    seen_else: bool = False


@dataclass(slots=True)
class IfStack:
    """The open ``if`` blocks of one file, innermost last."""

    frames: list[Branch] = field(default_factory=list)

    @property
    def enabled(self) -> bool:
        return all(f.active for f in self.frames)


def evaluate_condition(text: str, macros: NameLookup) -> bool:
    """The value of a simple condition (already macro-expanded, without its ``!``)."""
    if not text:
        raise ConditionError("the condition is empty")
    lowered = text.lower()
    if _NUMBER.fullmatch(text):
        return float(text) != 0
    if lowered in ("true", "yes", "t"):
        return True
    if lowered in ("false", "no", "f"):
        return False
    rest = keyword(text, "defined")
    if rest is not None:
        return _defined(rest, macros)
    if lowered.startswith("version") and not lowered[7:8].isalnum():
        return version_test(text[7:].strip(WHITESPACE))
    if is_valid_name(text):
        raise ConditionError("expression is not a conditional")
    raise ConditionError("complex conditionals are not supported")


def _defined(what: str, macros: NameLookup) -> bool:
    if not what:
        return False
    lowered = what.lower()
    if _NUMBER.fullmatch(what) or lowered in ("true", "false"):
        return True
    use = keyword(what, "use")
    if use is not None:
        if any(c in WHITESPACE for c in use):
            raise ConditionError("defined use meta argument with internal spaces will never match")
        category, _, name = use.partition(":")
        if category.upper() not in METAKNOBS:
            return False
        return not name or metaknob_body(category, name) is not None
    if is_valid_name(what):
        found = macros.lookup(what)
        return (found is not None and found.raw != "") or lowered in ("yes", "no", "t", "f")
    raise ConditionError("defined argument must be param name, boolean, or number")


def version_test(text: str) -> bool:
    """``version [!][<|=|>][=] x.y[.z]`` against condorsim's :data:`CONDOR_VERSION`."""
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    op = 0
    if text[:1] in ("<", "=", ">"):
        op = {"<": -1, "=": 0, ">": 1}[text[0]]
        text = text[1:]
    or_equal = text.startswith("=")
    if or_equal:
        text = text[1:]
    m = _VERSION.fullmatch(text.strip(WHITESPACE))
    if m is None or int(m.group(1)) < 6:
        raise ConditionError("the version literal is invalid")
    theirs = (int(m.group(1)), int(m.group(2)), int(m.group(3) or CONDOR_VERSION[2]))
    diff = (CONDOR_VERSION > theirs) - (CONDOR_VERSION < theirs)
    result = diff == op or (or_equal and diff == 0)
    return result != negated
