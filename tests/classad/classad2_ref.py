"""Test helpers: our values as ClassAd literal text, and HTCondor's C++ evaluator on it.

How this works
--------------
The differential tests do not use our parser (written in parallel): they call our
operator or function directly on values, and build the same expression as text for
HTCondor's C++ evaluator (``classad2`` from the htcondor wheel), whose result is
normalised back to our values (UNDEFINED, ERROR, lists) before comparing. Importing
``htcondor2`` registers HTCondor's extra functions (stringList*, split*, userMap...).

Regression cases are stored as JSON lines whose values use :func:`encode` /
:func:`decode` (reals by their repr, so -0.0, inf and NaN survive).
"""

from __future__ import annotations

import datetime
import json
import math
import warnings
from typing import Any

from condorsim.classad import ClassAd
from condorsim.classad._time import abstime_text, parse_abstime
from condorsim.classad._values import ERROR, INT_MIN, UNDEFINED, AbsTime, RelTime

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import classad2
    import htcondor2  # noqa: F401  (registers HTCondor's compatibility functions)

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\b": "\\b",
    "\f": "\\f",
}

HTCONDOR_SPELLING = {
    "versionle": "versionLE",
    "versionlt": "versionLT",
    "versionge": "versionGE",
    "versiongt": "versionGT",
    "versioneq": "versionEQ",
}
"""Functions HTCondor only recognises in this exact spelling (see docs/classad-values.md)."""


def string_literal(s: str) -> str:
    """A ClassAd string literal for ``s`` (control characters as octal escapes)."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_LITERALS: dict[tuple[Any, ...], str] = {}
"""The text of every scalar written so far: the differential tests write the same values
(their grids of awkward values) hundreds of thousands of times."""


def _literal_key(v: Any) -> tuple[Any, ...] | None:
    """What tells two scalars' texts apart exactly: the type and, for a double, its repr
    (0.0 == -0.0, and NaN is no key); lists and the specials are not kept."""
    t = type(v)
    if t is int or t is str or t is bool:
        return (t, v)
    if t is float:
        return (t, repr(v))
    if t is AbsTime:
        return (t, repr(v.secs), repr(v.offset))
    if t is RelTime:
        return (t, repr(v.secs))
    return None


def literal(v: Any) -> str:
    """ClassAd expression text that evaluates to the value ``v``.

    Negative numbers are written as negative literals (HTCondor folds ``-5`` into one
    literal, so inside a list it unparses as ``-5``); callers put operands of binary
    operators in parentheses.
    """
    key = _literal_key(v)
    if key is None:
        return _literal(v)
    text = _LITERALS.get(key)
    if text is None:
        if len(_LITERALS) > 100_000:
            _LITERALS.clear()
        text = _LITERALS[key] = _literal(v)
    return text


def _literal(v: Any) -> str:
    if v is UNDEFINED:
        return "undefined"
    if v is ERROR:
        return "error"
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return "-9223372036854775808" if v == INT_MIN else str(v)
    if t is float:
        if math.isnan(v):
            return 'real("NaN")'
        if math.isinf(v):
            return 'real("INF")' if v > 0 else 'real("-INF")'
        return repr(v)
    if t is str:
        return string_literal(v)
    if t is list:
        return "{" + ", ".join(literal(x) for x in v) + "}"
    if t is AbsTime:
        if parse_abstime(abstime_text(v)) == v:  # the literal prints back the same in a list
            return f'absTime("{abstime_text(v)}")'
        secs = f"{v.secs}.0" if v.offset == -1 else str(v.secs)  # (int, -1) is ERROR
        return f"absTime({secs}, {v.offset})"
    if t is RelTime:  # relTime(real) keeps the double (a relTime("text") literal is a real)
        return f"relTime({literal(v.secs)})"
    raise TypeError(f"no ClassAd literal for {v!r}")


def call_text(name: str, args: tuple[Any, ...]) -> str:
    """The text of a call to built-in ``name`` (our lower-case key) on literal args."""
    spelled = HTCONDOR_SPELLING.get(name, name)
    if name in ("abstime", "reltime"):
        # absTime("text") is read by HTCondor's parser, not called: parentheses make it
        # a call on a string value, which is what the function gets (test_time.py has
        # the literals).
        return f"{spelled}({', '.join(f'({literal(a)})' for a in args)})"
    return f"{spelled}({', '.join(literal(a) for a in args)})"


def binary_text(op: str, a: Any, b: Any) -> str:
    return f"({literal(a)}) {op} ({literal(b)})"


def unary_text(op: str, a: Any) -> str:
    return f"{op}({literal(a)})"


def _probe(text: str) -> Any:
    return classad2.ExprTree(text).eval()


def normalise(r: Any, text: str | None = None) -> Any:
    """classad2's evaluation result as one of our values.

    The binding gives a relative time as a float and an absolute time as a datetime
    without its offset; with the expression ``text`` the value's kind and offset are
    asked back from classad2 (``isRelTime``, ``int``, ``splitTime(...).Offset``).
    Nested ads become ``("ad", {lower-case name: value})``.
    """
    if isinstance(r, classad2.Value):
        return ERROR if r == classad2.Value.Error else UNDEFINED
    if isinstance(r, list):
        return [normalise(x, None if text is None else f"({text})[{i}]") for i, x in enumerate(r)]
    if isinstance(r, classad2.ExprTree):
        return normalise(r.eval(), text)
    if isinstance(r, classad2.ClassAd):
        return ("ad", {k.lower(): normalise(r.eval(k)) for k in r.keys()})
    if isinstance(r, datetime.datetime):
        if text is None:
            raise ReferenceRefused("an absolute time without its expression")
        return AbsTime(_probe(f"int({text})"), _probe(f"splitTime({text}).Offset"))
    if type(r) is float and text is not None and _probe(f"isRelTime({text})") is True:
        return RelTime(r)
    return r


def ours_normal(v: Any, ctx: Any = None) -> Any:
    """Our value in the form :func:`normalise` gives classad2's (ads as name -> value)."""
    if type(v) is list:
        return [ours_normal(x, ctx) for x in v]
    if isinstance(v, ClassAd):
        return ("ad", {k.lower(): ours_normal(v.evaluate(k, ctx=ctx), ctx) for k in v})
    return v


class ReferenceRefused(Exception):
    """classad2 could not produce a Python value (e.g. a string cut inside a UTF-8
    character raises UnicodeDecodeError in its binding)."""


def reference_eval(text: str) -> Any:
    """Evaluate expression text with HTCondor's C++ ClassAd library.

    An evaluation that fails outright (a function returning false, which classad2
    reports as an exception) counts as ERROR, which is what HTCondor's daemons make of
    a failed evaluation.
    """
    try:
        return normalise(classad2.ExprTree(text).eval(), text)
    except (UnicodeDecodeError, SystemError) as e:
        # a result holding a cut UTF-8 character, which the binding cannot convert
        raise ReferenceRefused(str(e)) from None
    except classad2.ClassAdException as e:
        if "failed to evaluate" in str(e):
            return ERROR
        raise


def same_value(ours: Any, theirs: Any) -> bool:
    """Type-exact equality of two values, NaN equal to NaN, -0.0 distinct from 0.0."""
    if type(ours) is not type(theirs):
        return False
    if type(ours) is float:
        if math.isnan(ours) or math.isnan(theirs):
            return math.isnan(ours) and math.isnan(theirs)
        return ours == theirs and math.copysign(1.0, ours) == math.copysign(1.0, theirs)
    if type(ours) is list:
        return len(ours) == len(theirs) and all(
            same_value(a, b) for a, b in zip(ours, theirs, strict=True)
        )
    if type(ours) is RelTime:
        return same_value(ours.secs, theirs.secs)
    if type(ours) is tuple:  # ("ad", {name: value})
        return ours[1].keys() == theirs[1].keys() and all(
            same_value(ours[1][k], theirs[1][k]) for k in ours[1]
        )
    return bool(ours is theirs or ours == theirs)


def encode(v: Any) -> Any:
    """A value as JSON data: reals as {"real": repr}, specials as {"undefined": 1} etc."""
    if v is UNDEFINED:
        return {"undefined": 1}
    if v is ERROR:
        return {"error": 1}
    if type(v) is float:
        return {"real": repr(v)}
    if type(v) is list:
        return [encode(x) for x in v]
    if type(v) is AbsTime:
        return {"abstime": [v.secs, v.offset]}
    if type(v) is RelTime:
        return {"reltime": repr(v.secs)}
    return v


def decode(data: Any) -> Any:
    """The inverse of :func:`encode`."""
    if isinstance(data, dict):
        if "undefined" in data:
            return UNDEFINED
        if "error" in data:
            return ERROR
        if "abstime" in data:
            return AbsTime(*data["abstime"])
        if "reltime" in data:
            return RelTime(float(data["reltime"]))
        return float(data["real"])
    if isinstance(data, list):
        return [decode(x) for x in data]
    return data


def dumps(v: Any) -> str:
    return json.dumps(encode(v), ensure_ascii=False)
