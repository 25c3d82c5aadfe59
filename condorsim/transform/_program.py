"""The typed form of a transform: what :func:`parse_transform` makes and :func:`apply` runs.

A :class:`Transform` keeps the statements HTCondor hoists out of the text (``NAME``,
``REQUIREMENTS``, ``UNIVERSE``, ``TRANSFORM``) as fields, and the rest as a tree of
statements: macro assignments, commands (``SET``, ``COPY`` ...), ``if`` blocks and
``error :`` / ``warning :`` lines. Texts that hold ``$(...)`` are kept raw and expanded
when the transform is applied; the rest is checked (and expressions parsed) once, here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from condorsim.classad import ClassAd, EvalContext, ExprTree

from ._errors import TransformError

__all__ = [
    "Assign",
    "Command",
    "Conditional",
    "Message",
    "Statement",
    "Transform",
    "universe_name",
    "universe_number",
]

UNIVERSES = {
    "standard": 1, "pipe": 2, "linda": 3, "pvm": 4, "vanilla": 5, "pvmd": 6, "scheduler": 7,
    "mpi": 8, "grid": 9, "globus": 9, "java": 10, "parallel": 11, "local": 12, "vm": 13,
}  # fmt: skip
_NAMES = {5: "vanilla", 7: "scheduler", 9: "grid", 10: "java", 11: "parallel", 12: "local",
          13: "vm", 1: "standard", 2: "pipe", 3: "linda", 4: "pvm", 6: "pvmd", 8: "mpi"}  # fmt: skip


def universe_number(text: str) -> int:
    """HTCondor's ``CondorUniverseNumberEx``: a number (``atoi``) or a name; 0 if neither."""
    m = re.match(r"\s*([+-]?\d+)", text)
    if m and int(m.group(1)) != 0:
        return int(m.group(1))
    return UNIVERSES.get(text.strip().lower(), 0)


def universe_name(number: int) -> str:
    """The universe's name as HTCondor prints it (``CondorUniverseName``: ``GRID``)."""
    return _NAMES[number].upper() if number in _NAMES else "Unknown"


@dataclass(frozen=True)
class Statement:
    line: int


@dataclass(frozen=True)
class Assign(Statement):
    """``name = value`` (or a ``name @=tag`` block): a macro of the transform."""

    name: str
    value: str


@dataclass(frozen=True)
class Command(Statement):
    """``SET``, ``DEFAULT``, ``EVALSET``, ``EVALMACRO``, ``COPY``, ``RENAME`` or ``DELETE``.

    ``attr`` is the first argument as written (never macro-expanded); ``regex`` is set
    for the ``/regex/`` forms. ``rest`` is the rest of the line, expanded when applied;
    ``expr`` is its parsed expression when it holds no macro.
    """

    keyword: str
    attr: str
    rest: str
    regex: re.Pattern[bytes] | None = None
    expr: ExprTree | None = None
    text: str = ""


@dataclass(frozen=True)
class Conditional(Statement):
    """``if`` / ``elif`` ... ``else`` ... ``endif``: (condition, line, body) per branch."""

    branches: tuple[tuple[str, int, tuple[Statement, ...]], ...]
    otherwise: tuple[Statement, ...] | None = None


@dataclass(frozen=True)
class Message(Statement):
    """``error : text`` (fails the transform) or ``warning : text``."""

    is_error: bool
    text: str


@dataclass(frozen=True)
class Transform:
    """A parsed transform (a route, a pre/post-route transform, a JOB_TRANSFORM, a rules file).

    ``requirements`` is tested against the ad before the transform is applied, with the
    ad as MY and no TARGET (:meth:`matches`). ``universe`` is 0 unless the text has a
    ``UNIVERSE`` statement. ``iterate`` holds the arguments of a ``TRANSFORM`` statement
    that asks for more than one ad, ``iterate_items`` the lines after it (an item block);
    only condor_transform_ads uses them. ``warnings``
    are problems HTCondor reports only when the statement runs, and then skips the
    statement (an expression that does not parse, a bad new attribute name).
    """

    name: str
    body: tuple[Statement, ...]
    requirements: ExprTree | None = None
    requirements_text: str = ""
    universe: int = 0
    iterate: str = ""
    iterate_items: tuple[str, ...] = ()
    source: str = ""
    text: str = ""
    lines: tuple[tuple[int, str], ...] = ()
    warnings: tuple[TransformError, ...] = field(default=())

    def matches(self, ad: ClassAd, now: int = 0) -> bool:
        """True when REQUIREMENTS (if any) is true of ``ad``: a boolean, or a non-zero
        number (``IsBooleanValueEquiv``); undefined, error and strings are no match."""
        if self.requirements is None:
            return True
        value = self.requirements.evaluate(my=ad, ctx=EvalContext(now=now))
        if type(value) is bool:
            return value
        if type(value) in (int, float):
            return bool(value != 0)
        return False

    @property
    def steps(self) -> int:
        """How many commands the transform has (macro lines and ifs not counted)."""
        return _count(self.body)

    def formatted(self, prefix: str = "", comments: bool = False) -> str:
        """The transform as HTCondor prints it (``getFormattedText``): NAME, UNIVERSE and
        REQUIREMENTS first, then the remaining lines (without comments and blank lines
        unless ``comments``), each line starting with ``prefix``."""
        out: list[str] = []
        if self.name:
            out.append(f"{prefix}NAME {self.name}")
        if self.universe:
            out.append(f"{prefix}UNIVERSE {universe_name(self.universe)}")
        if self.requirements_text:
            out.append(f"{prefix}REQUIREMENTS {self.requirements_text}")
        for _, line in self.lines:
            stripped = line.strip()
            if not comments and (not stripped or stripped.startswith("#")):
                continue
            out.append(prefix + line)
        return "\n".join(out)


def _count(body: tuple[Statement, ...]) -> int:
    total = 0
    for statement in body:
        if isinstance(statement, Command):
            total += 1
        elif isinstance(statement, Conditional):
            for _, _, branch in statement.branches:
                total += _count(branch)
            if statement.otherwise is not None:
                total += _count(statement.otherwise)
    return total
