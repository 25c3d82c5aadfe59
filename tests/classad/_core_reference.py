"""Test helpers: evaluate with HTCondor's C++ library (classad2) and compare with ours.

How this works
--------------
``reference(expr, my, target)`` evaluates expression text with ``classad2`` (after
``import htcondor``, which registers the HTCondor-only functions and switches the
library to the daemons' settings) in the context of ads given as new-syntax text.
Its result is normalised to our values: UNDEFINED/ERROR singletons, lists of values
(elements classad2 leaves unevaluated are evaluated through ``expr[i]``), and ads as
``("ad", {lower-name: canonical text})``. An evaluation that fails in C++ (circular
reference) becomes ``FAILED``; ours then must be ERROR.
"""

from __future__ import annotations

import datetime
import math
import warnings
from typing import Any

from condorsim.classad import ERROR, UNDEFINED, ClassAd, parse_expr
from condorsim.classad._values import AbsTime, RelTime

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import classad2
    import htcondor  # noqa: F401  (registers stringListMember & co., HTCondor's lexer settings)

FAILED = "<evaluation failed>"


def _probe(text: str, my: Any, target: Any) -> Any:
    return classad2.ExprTree(text).eval(my, target)


def _normalise(result: Any, expr: str, my: Any, target: Any, depth: int = 0) -> Any:
    if isinstance(result, datetime.datetime):  # an absolute time, without its offset
        return AbsTime(
            _probe(f"int({expr})", my, target), _probe(f"splitTime({expr}).Offset", my, target)
        )
    if type(result) is float and _probe(f"isRelTime({expr})", my, target) is True:
        return RelTime(result)
    if isinstance(result, classad2.Value):
        return ERROR if result == classad2.Value.Error else UNDEFINED
    if isinstance(result, list):
        items = []
        for i, item in enumerate(result):
            if isinstance(item, classad2.ExprTree) and depth < 3:
                sub = f"({expr})[{i}]"
                item = classad2.ExprTree(sub).eval(my, target)
                items.append(_normalise(item, sub, my, target, depth + 1))
            else:
                items.append(_normalise(item, f"({expr})[{i}]", my, target, depth + 1))
        return items
    if isinstance(result, classad2.ClassAd):
        return ("ad", {k.lower(): str(result.lookup(k)) for k in result.keys()})
    if isinstance(result, classad2.ExprTree):
        return ("tree", str(result))
    return result


def reference(expr: str, my: str | None = None, target: str | None = None) -> Any:
    """classad2's value of ``expr`` with the ads (new-syntax text) as MY and TARGET."""
    cmy = classad2.ClassAd(my) if my is not None else None
    ctarget = classad2.ClassAd(target) if target is not None else None
    try:
        result = classad2.ExprTree(expr).eval(cmy, ctarget)
    except Exception:  # classad2 raises its own ClassAdException
        return FAILED
    return _normalise(result, expr, cmy, ctarget)


def reference_parses(text: str) -> bool:
    """Whether classad2 parses ``text`` as an expression."""
    try:
        classad2.ExprTree(text)
    except Exception:
        return False
    return True


def ours(expr: str, my: str | None = None, target: str | None = None) -> Any:
    """Our value of ``expr``, normalised the same way (ads as name -> text)."""
    my_ad = ClassAd.parse(my) if my is not None else None
    target_ad = ClassAd.parse(target) if target is not None else None
    return _ours_normal(parse_expr(expr).evaluate(my_ad, target_ad))


def _ours_normal(value: Any) -> Any:
    if isinstance(value, list):
        return [_ours_normal(v) for v in value]
    if isinstance(value, ClassAd):
        return ("ad", {k.lower(): str(value.lookup(k)) for k in value})
    return value


def same_value(a: Any, b: Any) -> bool:
    """Type-exact equality; NaN equals NaN; -0.0 differs from 0.0; ads compare names and
    (through classad2) expressions."""
    if b == FAILED:
        return a is ERROR
    if type(a) is not type(b):
        return False
    if type(a) is float:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if type(a) is list:
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is RelTime:
        return same_value(a.secs, b.secs)
    if type(a) is tuple and a and a[0] == "ad":
        if a[1].keys() != b[1].keys():
            return False
        return all(classad2.ExprTree(a[1][k]) == classad2.ExprTree(b[1][k]) for k in a[1])
    return bool(a is b or a == b)


def same_tree(ours_text: str, original: str) -> bool:
    """Whether classad2 reads our text back to the same tree as ``original``."""
    return bool(classad2.ExprTree(ours_text) == classad2.ExprTree(original))


def reference_ad_text(text: str) -> dict[str, str]:
    """classad2's reading of an ad: lower-case name -> canonical expression text."""
    ad = classad2.ClassAd(text)
    return {k.lower(): str(ad.lookup(k)) for k in ad.keys()}
