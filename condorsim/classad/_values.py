"""ClassAd values: the small set of types an expression evaluates to.

How this works
--------------
A ClassAd value is one of:

* ``bool``   -- ClassAd boolean (check with ``type(v) is bool``: bool is an int in Python)
* ``int``    -- ClassAd integer, 64-bit two's complement (use :func:`wrap_int` after arithmetic)
* ``float``  -- ClassAd real
* ``str``    -- ClassAd string
* ``list``   -- ClassAd list; its elements are values
* a :class:`ClassAdValue` -- a nested ClassAd (the concrete class is ``condorsim.classad.ClassAd``)
* :class:`AbsTime` -- an absolute time: epoch seconds and the UTC offset it is shown in
* :class:`RelTime` -- a relative time: a number of seconds (a C double)
* :data:`UNDEFINED` or :data:`ERROR` -- the two singleton special values

Values are native Python objects so that the evaluator's hot path does no boxing;
the rules (what is an integer, what is a number) live in the helpers below, and code
must use them rather than ``isinstance`` on numbers.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias


class _Special:
    """The type of UNDEFINED and ERROR: two singletons, falsy-free, compared by identity."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __str__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        raise TypeError(f"a ClassAd {self._name} value has no Python truth value")

    def __reduce__(self) -> str:
        return self._name


UNDEFINED: Final = _Special("UNDEFINED")
ERROR: Final = _Special("ERROR")


class ClassAdValue:
    """Marker base class of nested-ClassAd values (``condorsim.classad.ClassAd`` derives from it)."""

    __slots__ = ()


class AbsTime:
    """An absolute time value: ``secs`` since the epoch (UTC) and the ``offset`` (seconds
    east of UTC) of the zone it is shown in. Immutable; ``==`` compares both fields."""

    __slots__ = ("offset", "secs")

    secs: int
    offset: int

    def __init__(self, secs: int, offset: int) -> None:
        object.__setattr__(self, "secs", secs)
        object.__setattr__(self, "offset", offset)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("AbsTime is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not AbsTime:
            return NotImplemented
        return self.secs == other.secs and self.offset == other.offset

    def __hash__(self) -> int:
        return hash(("abstime", self.secs, self.offset))

    def __repr__(self) -> str:
        return f"AbsTime({self.secs}, {self.offset})"

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return (AbsTime, (self.secs, self.offset))


class RelTime:
    """A relative time value: ``secs``, a C double (fractions and sign allowed).
    Immutable; ``==`` compares the doubles (and takes NaN as equal to NaN)."""

    __slots__ = ("secs",)

    secs: float

    def __init__(self, secs: float) -> None:
        object.__setattr__(self, "secs", secs)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("RelTime is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not RelTime:
            return NotImplemented
        a, b = self.secs, other.secs
        return a == b or (a != a and b != b)

    def __hash__(self) -> int:
        return hash(("reltime", self.secs if self.secs == self.secs else "nan"))

    def __repr__(self) -> str:
        return f"RelTime({self.secs!r})"

    def __reduce__(self) -> tuple[type, tuple[float]]:
        return (RelTime, (self.secs,))


Value: TypeAlias = Any
"""bool | int | float | str | list[Value] | ClassAdValue | AbsTime | RelTime | UNDEFINED |
ERROR (see module doc)."""

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1


def wrap_int(n: int) -> int:
    """Wrap an arbitrary Python int to a 64-bit two's complement value, as C++ int64 arithmetic does."""
    if INT_MIN <= n <= INT_MAX:
        return n
    return ((n + 2**63) % 2**64) - 2**63


def is_int(v: Value) -> bool:
    """True for a ClassAd integer (not a boolean)."""
    return type(v) is int


def is_real(v: Value) -> bool:
    return type(v) is float


def is_number(v: Value) -> bool:
    """Integer or real (booleans are not numbers here; arithmetic promotes them itself)."""
    t = type(v)
    return t is int or t is float


def is_bool(v: Value) -> bool:
    return type(v) is bool


def is_string(v: Value) -> bool:
    return type(v) is str


def is_list(v: Value) -> bool:
    return type(v) is list


def is_classad(v: Value) -> bool:
    return isinstance(v, ClassAdValue)


def is_abstime(v: Value) -> bool:
    return type(v) is AbsTime


def is_reltime(v: Value) -> bool:
    return type(v) is RelTime


def is_undefined(v: Value) -> bool:
    return v is UNDEFINED


def is_error(v: Value) -> bool:
    return v is ERROR


@dataclass
class EvalContext:
    """Everything evaluation reads from the world: simulated time, a seeded random source.

    ``now`` is simulated epoch seconds (what ``time()`` returns); it is never read from the
    host clock. ``rng`` is the seeded source behind ``random()``. ``debug`` receives the
    text of ``debug()`` calls. ``tz`` is the time zone of the simulated host (never the
    real host's).
    """

    now: int = 0
    rng: _random.Random = field(default_factory=lambda: _random.Random(0))
    debug: Callable[[str], None] | None = None
    tz: str = "UTC"
    """IANA time zone name that ``formatTime()`` and ``splitTime()`` show local time in."""


BuiltinFunction: TypeAlias = Callable[[EvalContext, "tuple[Value, ...]"], Value]
"""A strict built-in: gets evaluated argument values, returns a value, never raises.

Wrong argument counts or types give ERROR (or what HTCondor gives), never an exception.
"""
