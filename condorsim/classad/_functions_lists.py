"""Built-in ClassAd functions on lists: size, member, sum/avg/min/max, anyCompare.

How this works
--------------
Each function takes the evaluation context and the evaluated arguments and returns a
value, as HTCondor's ``FunctionCall`` implementations do. HTCondor compares list
elements with its operator code, which promotes operands *in place* (a boolean becomes
an integer, an integer beside a real becomes a real) and keeps the promoted value for
the next comparison; :func:`promote_pair` reproduces that, which is why
``min({1, 2.0, 0})`` is the real ``0.0``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._convert import utf8_len
from ._ops import (
    add,
    divide,
    equal,
    greater_or_equal,
    greater_than,
    less_or_equal,
    less_than,
    meta_equal,
    meta_not_equal,
    not_equal,
)
from ._values import ERROR, UNDEFINED, ClassAdValue, EvalContext, Value

_NUMERIC: Final = (int, float, bool)


def promote_pair(a: Value, b: Value) -> tuple[Value, Value]:
    """HTCondor's coerceToNumber as a side effect: the operands a comparison leaves behind."""
    ta = type(a)
    tb = type(b)
    if ta not in _NUMERIC or tb not in _NUMERIC:
        return a, b
    if ta is bool:
        a = int(a)
        ta = int
    if tb is bool:
        b = int(b)
        tb = int
    if ta is int and tb is float:
        a = float(a)
    elif ta is float and tb is int:
        b = float(b)
    return a, b


def size(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """size(list | ad | string): elements, attributes or bytes."""
    if len(args) != 1:
        return ERROR
    v = args[0]
    t = type(v)
    if t is list:
        return len(v)
    if t is str:
        return utf8_len(v)
    if v is UNDEFINED:
        return UNDEFINED
    if isinstance(v, ClassAdValue):
        return len(v)  # type: ignore[arg-type]
    return ERROR


def _member(args: tuple[Value, ...], identical: bool) -> Value:
    if len(args) != 2:
        return ERROR
    item, lst = args
    if lst is UNDEFINED or (not identical and item is UNDEFINED):
        return UNDEFINED
    if type(lst) is not list or type(item) is list or isinstance(item, ClassAdValue):
        return ERROR
    if not identical and item is ERROR:
        return ERROR
    for element in lst:
        if identical:
            if meta_equal(element, item) is True:
                return True
        else:
            element, item = promote_pair(element, item)
            if equal(element, item) is True:
                return True
    return False


def member(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """member(v, list): some element == v (strings case-insensitively)."""
    return _member(args, identical=False)


def identical_member(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """identicalMember(v, list): some element =?= v."""
    return _member(args, identical=True)


def _list_argument(args: tuple[Value, ...]) -> Value:
    """The single list argument, or the UNDEFINED / ERROR result."""
    if len(args) != 1:
        return ERROR
    lst = args[0]
    if lst is UNDEFINED:
        return UNDEFINED
    if type(lst) is not list:
        return ERROR
    return lst


def _sum_avg(args: tuple[Value, ...], average: bool) -> Value:
    lst = _list_argument(args)
    if type(lst) is not list:
        return lst
    result: Value = 0
    count = 0
    for element in lst:
        if element is UNDEFINED:
            continue
        if type(element) not in _NUMERIC:
            return ERROR
        result = element if count == 0 else add(result, element)
        count += 1
    if average and count > 0:
        return divide(result, float(count))
    return result


def sum_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """sum(list): the sum of the numbers (UNDEFINED elements skipped); 0 for {}."""
    return _sum_avg(args, average=False)


def avg(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """avg(list): the mean as a real (UNDEFINED elements skipped); 0 for {}."""
    return _sum_avg(args, average=True)


def _bound(args: tuple[Value, ...], better: Callable[[Value, Value], Value]) -> Value:
    lst = _list_argument(args)
    if type(lst) is not list:
        return lst
    result: Value = UNDEFINED
    first = True
    for element in lst:
        if element is UNDEFINED:
            continue
        if type(element) not in _NUMERIC:
            return ERROR
        if first:
            result = element
            first = False
            continue
        element, result = promote_pair(element, result)
        if better(element, result) is True:
            result = element
    return result


def min_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """min(list): the smallest number; UNDEFINED for an empty list."""
    return _bound(args, less_than)


def max_(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """max(list): the largest number; UNDEFINED for an empty list."""
    return _bound(args, greater_than)


_LIST_COMPARISONS: Final[dict[str, Callable[[Value, Value], Value]]] = {
    "<": less_than,
    "<=": less_or_equal,
    "!=": not_equal,
    "==": equal,
    ">": greater_than,
    ">=": greater_or_equal,
    "is": meta_equal,
    "isnt": meta_not_equal,
}


def _list_compare(args: tuple[Value, ...], need_all: bool) -> Value:
    if len(args) != 3:
        return ERROR
    op_text, lst, target = args
    if op_text is UNDEFINED:
        return UNDEFINED
    if type(op_text) is not str:
        return ERROR
    compare = _LIST_COMPARISONS.get(op_text)
    if compare is None:
        return ERROR
    if lst is UNDEFINED:
        return UNDEFINED
    if type(lst) is not list:
        return ERROR
    promotes = op_text not in ("is", "isnt")
    for element in lst:
        if promotes:
            element, target = promote_pair(element, target)
        r = compare(element, target)
        if r is True:
            if not need_all:
                return True
        elif r is False:
            if need_all:
                return False
        elif r is UNDEFINED:
            # HTCondor stops at the first UNDEFINED comparison with "no match".
            return False
        else:
            return ERROR
    return need_all


def any_compare(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """anyCompare(op, list, v): some element op v holds."""
    return _list_compare(args, need_all=False)


def all_compare(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """allCompare(op, list, v): every element op v holds."""
    return _list_compare(args, need_all=True)


LIST_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "size": size,
    "member": member,
    "identicalmember": identical_member,
    "sum": sum_,
    "avg": avg,
    "min": min_,
    "max": max_,
    "anycompare": any_compare,
    "allcompare": all_compare,
}
