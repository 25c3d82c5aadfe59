"""ClassAd operators on values, exactly as HTCondor's C++ ClassAd library applies them.

How this works
--------------
Every operator is a plain function of already-evaluated operand values, found by its
text in :data:`BINARY_OPS` / :data:`UNARY_OPS`. The evaluator calls them; the
non-strict operators (``&&``, ``||``, ``?:``) short-circuit in the evaluator, which
uses :func:`logic_value` (and may use :func:`logical_and` / :func:`logical_or` once both
sides are known).

The rules (checked against ``classad2`` from htcondor 24.0; see docs/classad-values.md):

* Strict operators (all but ``=?= =!= is isnt``): an ERROR operand gives ERROR (left
  checked first, but ERROR always beats UNDEFINED), else an UNDEFINED operand gives
  UNDEFINED.
* Arithmetic: booleans count as 0/1; int op int is 64-bit wrapping, ``/`` and ``%``
  truncate toward zero, by zero is ERROR, ``INT_MIN / -1`` is INT_MAX and
  ``INT_MIN % -1`` is 0. With a real operand the other is converted to a C double;
  ``%`` on reals is always ERROR; a result of +inf is ERROR (C's ``HUGE_VAL`` check)
  while -inf and NaN pass through. Strings, lists and ads are ERROR.
* Comparisons: booleans count as 0/1, int vs real compares as doubles, strings
  compare case-insensitively (ASCII only, byte order), string vs non-string, lists
  and ads are ERROR.
* ``=?=`` / ``is``: false when the types differ (int vs real, bool vs int too),
  true for UNDEFINED/UNDEFINED and ERROR/ERROR, case-sensitive on strings, reals by
  ``==`` (NaN is not identical to itself), ERROR on two lists or two ads.
* Bitwise operators and ``~`` take integers only (not booleans); shift counts behave
  as on x86-64 (``<<`` uses ``count & 63``; see the shift helpers).
* Unary ``-`` on a boolean is ERROR; unary ``+`` on a boolean, string, list or ad is
  ERROR and passes UNDEFINED/ERROR through.
* Time values (``doTimeArithmetic``): abs - abs is a relative time, abs +/- rel an
  absolute time (the relative part cut to a C int), rel +/- rel and rel * / number a
  relative time (no HUGE_VAL check: ``relTime(5) / 0`` is an infinite relative time),
  number * rel too; anything else with a time (booleans included) is ERROR. Times
  compare only with their own kind; ``is`` on absolute times also compares offsets.
  These cases sit after the numeric ones, so they cost ordinary values nothing.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, Final

from ._convert import double_to_int32
from ._values import (
    ERROR,
    INT_MAX,
    INT_MIN,
    UNDEFINED,
    AbsTime,
    ClassAdValue,
    RelTime,
    Value,
    wrap_int,
)

_INF: Final = math.inf
_MASK64: Final = (1 << 64) - 1

# ASCII-only lower-casing, as C's strcasecmp does in the C / UTF-8 locales.
_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def fold_case(s: str) -> str:
    """Lower-case ASCII letters only (what strcasecmp compares); other characters stay."""
    if s.isascii():
        return s.lower()
    return s.translate(_ASCII_LOWER)


def _special(a: Value, b: Value) -> Value:
    """ERROR if either operand is ERROR, else UNDEFINED if either is UNDEFINED, else None."""
    if a is ERROR or b is ERROR:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    return None


# --------------------------------------------------------------------------- arithmetic


def _real_result(r: float) -> Value:
    """C's check after real arithmetic: a result equal to HUGE_VAL (+inf) is ERROR."""
    return ERROR if r == _INF else r


def _real_div(a: float, b: float) -> Value:
    return _real_result(_ieee_div(a, b))


def _int_div(a: int, b: int) -> Value:
    if b == 0:
        return ERROR
    if a == INT_MIN and b == -1:
        return INT_MAX
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _int_mod(a: int, b: int) -> Value:
    if b == 0:
        return ERROR
    r = abs(a) % abs(b)
    return -r if a < 0 else r


_TIMES: Final = (AbsTime, RelTime)
_TIME: Final = object()
"""What :func:`_arith_operands` returns when a time value takes part."""


def _ieee_div(a: float, b: float) -> float:
    """C double division, infinities and NaN included (Python refuses to divide by 0)."""
    if b != 0.0:
        return a / b
    if a != a or a == 0.0:
        return math.nan
    negative = (a < 0.0) != (math.copysign(1.0, b) < 0.0)
    return -_INF if negative else _INF


def _time_add(a: Value, b: Value) -> Value:
    ta, tb = type(a), type(b)
    if ta is AbsTime and tb is RelTime:
        return AbsTime(wrap_int(a.secs + double_to_int32(b.secs)), a.offset)
    if ta is RelTime and tb is AbsTime:
        return AbsTime(wrap_int(b.secs + double_to_int32(a.secs)), b.offset)
    if ta is RelTime and tb is RelTime:
        return RelTime(a.secs + b.secs)
    return ERROR


def _time_subtract(a: Value, b: Value) -> Value:
    ta, tb = type(a), type(b)
    if ta is AbsTime and tb is AbsTime:
        return RelTime(float(wrap_int(a.secs - b.secs)))
    if ta is AbsTime and tb is RelTime:
        return AbsTime(wrap_int(a.secs - double_to_int32(b.secs)), a.offset)
    if ta is RelTime and tb is RelTime:
        return RelTime(a.secs - b.secs)
    return ERROR


def _time_scale(a: Value, b: Value, divide: bool) -> Value:
    ta, tb = type(a), type(b)
    if ta is RelTime and (tb is int or tb is float):
        return RelTime(_ieee_div(a.secs, float(b)) if divide else a.secs * float(b))
    if tb is RelTime and (ta is int or ta is float) and not divide:
        return RelTime(float(a) * b.secs)
    return ERROR


def _arith_operands(a: Value, b: Value) -> tuple[Value, Value] | Value:
    """Promote booleans to ints and check both operands are numbers.

    Returns the promoted pair, or the ERROR / UNDEFINED result.
    """
    special = _special(a, b)
    if special is not None:
        return special
    ta = type(a)
    tb = type(b)
    if ta is bool:
        a = int(a)
        ta = int
    if tb is bool:
        b = int(b)
        tb = int
    if (ta is not int and ta is not float) or (tb is not int and tb is not float):
        if ta in _TIMES or tb in _TIMES:
            return _TIME
        return ERROR
    return (a, b)


def _make_arith(
    int_op: Callable[[int, int], Value],
    real_op: Callable[[float, float], Value],
    time_op: Callable[[Value, Value], Value],
) -> Callable[[Value, Value], Value]:
    def arith(a: Value, b: Value) -> Value:
        if type(a) is int and type(b) is int:
            return int_op(a, b)
        pair = _arith_operands(a, b)
        if type(pair) is not tuple:
            return time_op(a, b) if pair is _TIME else pair
        x, y = pair
        if type(x) is int and type(y) is int:
            return int_op(x, y)
        return real_op(float(x), float(y))

    return arith


add = _make_arith(lambda a, b: wrap_int(a + b), lambda a, b: _real_result(a + b), _time_add)
subtract = _make_arith(
    lambda a, b: wrap_int(a - b), lambda a, b: _real_result(a - b), _time_subtract
)
multiply = _make_arith(
    lambda a, b: wrap_int(a * b),
    lambda a, b: _real_result(a * b),
    lambda a, b: _time_scale(a, b, False),
)
divide = _make_arith(_int_div, _real_div, lambda a, b: _time_scale(a, b, True))
modulus = _make_arith(_int_mod, lambda a, b: ERROR, lambda a, b: ERROR)


# --------------------------------------------------------------------------- comparison


def _make_compare(py_op: Callable[[Any, Any], bool]) -> Callable[[Value, Value], Value]:
    def compare(a: Value, b: Value) -> Value:
        ta = type(a)
        tb = type(b)
        if ta is tb and (ta is int or ta is float):
            return py_op(a, b)
        special = _special(a, b)
        if special is not None:
            return special
        if ta is str or tb is str:
            if ta is str and tb is str:
                return py_op(fold_case(a), fold_case(b))
            return ERROR
        if ta is bool:
            a = int(a)
            ta = int
        if tb is bool:
            b = int(b)
            tb = int
        if ta is int:
            if tb is int:
                return py_op(a, b)
            if tb is float:
                return py_op(float(a), b)
        elif ta is float:
            if tb is float:
                return py_op(a, b)
            if tb is int:
                return py_op(a, float(b))
        elif ta is tb:
            if ta is AbsTime:
                return py_op(a.secs, b.secs)
            if ta is RelTime:
                return py_op(a.secs, b.secs)
        # lists, ads, a time against anything but its own kind: ERROR
        return ERROR

    return compare


less_than = _make_compare(operator.lt)
less_or_equal = _make_compare(operator.le)
greater_than = _make_compare(operator.gt)
greater_or_equal = _make_compare(operator.ge)
equal = _make_compare(operator.eq)
not_equal = _make_compare(operator.ne)


def meta_equal(a: Value, b: Value) -> Value:
    """``=?=`` / ``is``: same type and same value; never UNDEFINED; ERROR on lists/ads."""
    ta = type(a)
    if ta is not type(b):
        if isinstance(a, ClassAdValue) and isinstance(b, ClassAdValue):
            return ERROR
        return False
    if ta is int or ta is float or ta is str or ta is bool:
        return bool(a == b)
    if a is UNDEFINED or a is ERROR:
        return a is b
    if ta is AbsTime:
        return a.secs == b.secs and a.offset == b.offset
    if ta is RelTime:
        return a.secs == b.secs
    # two lists or two ads
    return ERROR


def meta_not_equal(a: Value, b: Value) -> Value:
    """``=!=`` / ``isnt``: the negation of ``=?=`` (still ERROR on lists/ads)."""
    r = meta_equal(a, b)
    return r if r is ERROR else not r


# --------------------------------------------------------------------------- bitwise


def _shift_left(a: int, n: int) -> int:
    return wrap_int(a << (n & 63))


def _shift_right(a: int, n: int) -> int:
    """``>>``: arithmetic shift; HTCondor shifts a negative value min(n, 64) times."""
    if a >= 0:
        return a >> (n & 63)
    if n <= 0:
        return a
    return a >> min(n, 64)


def _shift_right_unsigned(a: int, n: int) -> int:
    """``>>>``: logical shift; a negative value is shifted once, then by (n - 1) & 63."""
    if a >= 0:
        return a >> (n & 63)
    return ((a >> 1) & INT_MAX) >> ((n - 1) & 63)


def _make_bitwise(int_op: Callable[[int, int], int]) -> Callable[[Value, Value], Value]:
    def bitwise(a: Value, b: Value) -> Value:
        if type(a) is int and type(b) is int:
            return int_op(a, b)
        special = _special(a, b)
        if special is not None:
            return special
        return ERROR

    return bitwise


bitwise_and = _make_bitwise(operator.and_)
bitwise_or = _make_bitwise(operator.or_)
bitwise_xor = _make_bitwise(operator.xor)
left_shift = _make_bitwise(_shift_left)
right_shift = _make_bitwise(_shift_right)
unsigned_right_shift = _make_bitwise(_shift_right_unsigned)


# --------------------------------------------------------------------------- unary


def unary_minus(a: Value) -> Value:
    t = type(a)
    if t is int:
        return wrap_int(-a)
    if t is float:
        return -a
    if a is UNDEFINED:
        return UNDEFINED
    if t is RelTime:
        return RelTime(-a.secs)
    return ERROR


def unary_plus(a: Value) -> Value:
    t = type(a)
    if t is int or t is float or a is UNDEFINED or a is ERROR or t is RelTime:
        return a
    return ERROR


def bitwise_not(a: Value) -> Value:
    if type(a) is int:
        return ~a
    if a is UNDEFINED:
        return UNDEFINED
    return ERROR


def logical_not(a: Value) -> Value:
    v = logic_value(a)
    if v is True:
        return False
    if v is False:
        return True
    return v


# --------------------------------------------------------------------------- logic


def logic_value(v: Value) -> Value:
    """How ``v`` acts in ``&&``, ``||``, ``!`` and as a ``?:`` condition.

    Returns True, False, UNDEFINED or ERROR: booleans are themselves, an integer or
    real is true when non-zero (NaN is true), UNDEFINED stays UNDEFINED, and anything
    else (ERROR, strings, lists, ads) is ERROR.
    """
    t = type(v)
    if t is bool:
        return v
    if t is int or t is float:
        return v != 0
    if v is UNDEFINED:
        return UNDEFINED
    return ERROR


def logical_and(a: Value, b: Value) -> Value:
    """``a && b`` once both sides are evaluated (the evaluator skips ``b`` when
    ``logic_value(a) is False``; the result is then False, as here)."""
    la = logic_value(a)
    if la is False:
        return False
    lb = logic_value(b)
    if la is ERROR or lb is ERROR:
        return ERROR
    if la is True:
        return lb
    # a is UNDEFINED
    return False if lb is False else UNDEFINED


def logical_or(a: Value, b: Value) -> Value:
    """``a || b`` once both sides are evaluated (the evaluator skips ``b`` when
    ``logic_value(a) is True``; the result is then True, as here)."""
    la = logic_value(a)
    if la is True:
        return True
    lb = logic_value(b)
    if la is ERROR or lb is ERROR:
        return ERROR
    if la is False:
        return lb
    # a is UNDEFINED
    return True if lb is True else UNDEFINED


BINARY_OPS: Final[dict[str, Callable[[Value, Value], Value]]] = {
    "+": add,
    "-": subtract,
    "*": multiply,
    "/": divide,
    "%": modulus,
    "<": less_than,
    "<=": less_or_equal,
    ">": greater_than,
    ">=": greater_or_equal,
    "==": equal,
    "!=": not_equal,
    "=?=": meta_equal,
    "=!=": meta_not_equal,
    "is": meta_equal,
    "isnt": meta_not_equal,
    "&": bitwise_and,
    "|": bitwise_or,
    "^": bitwise_xor,
    "<<": left_shift,
    ">>": right_shift,
    ">>>": unsigned_right_shift,
}
"""Strict binary operators by their text (``&&`` and ``||`` are the evaluator's)."""

UNARY_OPS: Final[dict[str, Callable[[Value], Value]]] = {
    "-": unary_minus,
    "+": unary_plus,
    "!": logical_not,
    "~": bitwise_not,
}
"""Unary operators by their text."""
