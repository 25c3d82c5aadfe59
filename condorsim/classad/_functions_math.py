"""Built-in ClassAd functions on types and numbers: isX, int/real/string/bool, rounding,
pow, quantize, random.

How this works
--------------
Each function takes the evaluation context and the evaluated arguments and returns a
value. Conversions go through ``_convert``, which reproduces HTCondor's C conversions
(``int("3.7")`` is 3, ``int(1e30)`` is the most negative integer, ``round`` rounds half
to even like C's ``rint``). ``random`` draws from ``ctx.rng``, never from a global source.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from ._convert import (
    double_to_int32,
    double_to_int64,
    int64_to_int32,
    to_integer,
    to_real,
    to_string,
)
from ._values import (
    ERROR,
    UNDEFINED,
    AbsTime,
    ClassAdValue,
    EvalContext,
    RelTime,
    Value,
    wrap_int,
)

BuiltinTable = dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]


def _type_test(test: Callable[[Value], bool]) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def is_type(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) != 1:
            return ERROR
        return test(args[0])

    return is_type


def _one_argument(
    convert: Callable[[Value], Value],
) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def conversion(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) != 1:
            return ERROR
        return convert(args[0])

    return conversion


def _to_bool(v: Value) -> Value:
    t = type(v)
    if t is bool:
        return v
    if t is int or t is float:
        return v != 0
    if t is str:
        lowered = v.lower() if v.isascii() else v
        if lowered == "true":
            return True
        if lowered == "false":
            return False
        return UNDEFINED
    if v is UNDEFINED:
        return UNDEFINED
    if t is RelTime:
        return double_to_int32(v.secs) != 0
    return ERROR


def _make_rounding(
    rounder: Callable[[float], float],
) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def rounding(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) != 1:
            return ERROR
        v = args[0]
        if type(v) is int:
            return v
        r = to_real(v)
        if type(r) is not float:
            return ERROR
        if math.isinf(r) or r != r:
            return double_to_int64(r)
        return double_to_int64(rounder(r))

    return rounding


def _rint(r: float) -> float:
    """C rint in the default rounding mode: to nearest, ties to even."""
    return float(round(r))


def _floor(r: float) -> float:
    return float(math.floor(r))


def c_ceil(r: float) -> float:
    """C ceil(): infinities and NaN come back unchanged, a zero result keeps r's sign."""
    if math.isinf(r) or r != r:
        return r
    return math.copysign(float(math.ceil(r)), r)


def c_pow(x: float, y: float) -> float:
    """C's pow(): never raises; inf on overflow or a zero base with negative exponent,
    NaN for a negative base with a non-integer exponent."""
    try:
        return math.pow(x, y)
    except OverflowError:
        odd_integer = y == math.floor(y) and math.fmod(y, 2.0) != 0.0
        return -math.inf if x < 0 and odd_integer else math.inf
    except ValueError:
        if x == 0.0:
            odd_integer = y == math.floor(y) and math.fmod(y, 2.0) != 0.0
            negative_zero = math.copysign(1.0, x) < 0
            return -math.inf if negative_zero and odd_integer else math.inf
        return math.nan


def pow_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """pow(base, exponent): an integer for integer base and exponent >= 0, else a real."""
    if len(args) != 2:
        return ERROR
    base, exponent = args
    if type(base) is int and type(exponent) is int and exponent >= 0:
        return double_to_int64(c_pow(float(base), float(exponent)) + 0.5)
    rbase = to_real(base)
    rexp = to_real(exponent)
    if type(rbase) is not float or type(rexp) is not float:
        return ERROR
    return c_pow(rbase, rexp)


def _int_quantize(ival: int, ibase: int) -> int:
    """((ival + ibase - 1) / ibase) * ibase in wrapping C integer arithmetic."""
    numerator = wrap_int(ival + ibase - 1)
    q = abs(numerator) // abs(ibase)
    if (numerator < 0) != (ibase < 0):
        q = -q
    return wrap_int(q * ibase)


def quantize(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """quantize(v, base | list): v rounded up to a multiple of base, or the first list
    element >= v (past the end of the list: a multiple of the last element)."""
    if len(args) != 2:
        return ERROR
    value, base = args
    rval = to_real(value)
    if type(rval) is not float:
        return ERROR
    if type(base) is list:
        rbase = 0.0
        chosen: Value = 0.0
        for element in base:
            converted = to_real(element)
            if type(converted) is not float:
                return ERROR
            chosen, rbase = element, converted
            if rbase >= rval:
                return element
        base = chosen
    else:
        converted = to_real(base)
        if type(converted) is not float:
            return ERROR
        rbase = converted
    if type(base) is int:
        if base == 0:
            return value
        if type(value) is int:
            return _int_quantize(value, base)
        return c_ceil(rval / base) * float(base)
    if -1e-8 <= rbase <= 1e-8:
        return value
    return c_ceil(rval / rbase) * rbase


def random_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """random(): a real in [0, 1); random(n): an integer in [0, n) (n a 32-bit int);
    random(x): a real in [0, x). A bound <= 0 is ERROR."""
    if len(args) > 1:
        return ERROR
    bound: Value = args[0] if args else 1.0
    if type(bound) is int:
        n = int64_to_int32(bound)
        if n <= 0:
            return ERROR
        return ctx.rng.randrange(n)
    if type(bound) is float:
        if bound <= 0:
            return ERROR
        return bound * ctx.rng.random()
    return ERROR


MATH_FUNCTIONS: Final[BuiltinTable] = {
    "isundefined": _type_test(lambda v: v is UNDEFINED),
    "iserror": _type_test(lambda v: v is ERROR),
    "isstring": _type_test(lambda v: type(v) is str),
    "isinteger": _type_test(lambda v: type(v) is int),
    "isreal": _type_test(lambda v: type(v) is float),
    "isboolean": _type_test(lambda v: type(v) is bool),
    "islist": _type_test(lambda v: type(v) is list),
    "isclassad": _type_test(lambda v: isinstance(v, ClassAdValue)),
    "isabstime": _type_test(lambda v: type(v) is AbsTime),
    "isreltime": _type_test(lambda v: type(v) is RelTime),
    "int": _one_argument(to_integer),
    "real": _one_argument(to_real),
    "string": _one_argument(to_string),
    "bool": _one_argument(_to_bool),
    "floor": _make_rounding(_floor),
    "ceil": _make_rounding(c_ceil),
    "ceiling": _make_rounding(c_ceil),
    "round": _make_rounding(_rint),
    "pow": pow_,
    "quantize": quantize,
    "random": random_,
}
