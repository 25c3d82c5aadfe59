"""Reading numbers and booleans out of configuration text, as HTCondor's param_* do.

How this works
--------------
HTCondor first tries a plain literal (``strtoll``, ``strtod``, or the words
``true``/``false``/``1``/``0``), and only when that fails parses the whole value
as a ClassAd expression and evaluates it (``string_is_long_param`` and friends in
condor_config.cpp).  So ``5 * 60``, ``$(MINUTE) * 5`` (after macro expansion)
and ``2 > 1`` are all valid values.  An integer knob accepts an expression
yielding an integer, a real (truncated toward zero) or a boolean (0/1); a
boolean knob accepts a boolean or a number (non-zero is true); a real knob
accepts any number or boolean.

Expressions are evaluated with ``condorsim.classad.parse_expr(text).evaluate()``,
imported when first needed.  Failures raise :class:`InvalidValue` with a reason;
the caller adds the knob's name and origin.
"""

from __future__ import annotations

import importlib
import math
import re
from typing import Any

__all__ = ["InvalidValue", "evaluate", "parse_boolean", "parse_double", "parse_long", "unparse"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_INT_LITERAL = re.compile(r"[ \t\n\r\f\v]*[+-]?[0-9]+[ \t\n\r\f\v]*")
_REAL_LITERAL = re.compile(
    r"[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\f\v]*"
)
_WS = " \t\n\r\f\v"
_C_SPECIAL_REAL = re.compile(
    r"[ \t\n\r\f\v]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|inf(?:inity)?|nan))[ \t\n\r\f\v]*",
    re.IGNORECASE,
)


class InvalidValue(Exception):
    """The text is not a value of the wanted type; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def evaluate(text: str) -> Any:
    """Parse ``text`` as a ClassAd expression and evaluate it with no ad in scope."""
    try:  # imported when first needed: the ClassAd package does not need this one
        classad = importlib.import_module("condorsim.classad")
    except ImportError:
        classad = None
    parse_expr = getattr(classad, "parse_expr", None)
    if parse_expr is None:
        raise InvalidValue(
            "it is not a plain literal, and the ClassAd evaluator (condorsim.classad) "
            "is not available to evaluate it as an expression"
        )
    try:
        return parse_expr(text).evaluate()
    except Exception as exc:  # condorsim.classad's own parse/evaluation errors
        raise InvalidValue(f"it is not a valid ClassAd expression ({exc})") from None


def _kind(value: Any) -> str:
    if type(value) is bool:
        return "bool"
    if type(value) is int:
        return "int"
    if type(value) is float:
        return "float"
    if type(value) is str:
        return "string"
    return "other"


def parse_long(text: str) -> int:
    """An integer value: a literal, else an expression giving an int, real or boolean."""
    if _INT_LITERAL.fullmatch(text):
        if len(text.strip(_WS).lstrip("+-")) > 20:  # int() refuses 4300 digits
            raise InvalidValue("it does not fit in a 64-bit integer")
        result = int(text.strip(_WS))
    else:
        value = evaluate(text)
        kind = _kind(value)
        if kind == "bool" or kind == "int":
            result = int(value)
        elif kind == "float" and math.isfinite(value):
            result = int(value)
        else:
            raise InvalidValue(f"it evaluates to {_describe(value)}, not an integer")
    if not INT64_MIN <= result <= INT64_MAX:
        raise InvalidValue("it does not fit in a 64-bit integer")
    return result


def parse_double(text: str) -> float:
    """A real value: a literal, else an expression giving a number or boolean."""
    if _REAL_LITERAL.fullmatch(text):
        return float(text.strip(_WS))
    special = _C_SPECIAL_REAL.fullmatch(text)  # what C's strtod also reads: 0x1p3, inf, nan
    if special:
        literal = special.group(1)
        return float.fromhex(literal) if "x" in literal.lower() else float(literal)
    value = evaluate(text)
    if _kind(value) in ("bool", "int", "float"):
        return float(value)
    raise InvalidValue(f"it evaluates to {_describe(value)}, not a number")


def parse_boolean(text: str) -> bool:
    """A boolean: ``true``/``false``/``1``/``0`` (any case), else an expression.

    As in ``string_is_boolean_param``: the literal word may only be followed by
    white space; anything else is evaluated, and a number counts as non-zero.
    """
    lowered = text.lower()
    for word, result in (("true", True), ("1", True), ("false", False), ("0", False)):
        if lowered.startswith(word) and not lowered[len(word) :].strip(_WS):
            return result
    value = evaluate(text)
    kind = _kind(value)
    if kind == "bool":
        return bool(value)
    if kind in ("int", "float"):
        return bool(value != 0)
    raise InvalidValue(f"it evaluates to {_describe(value)}, not a boolean")


def _describe(value: Any) -> str:
    kind = _kind(value)
    if kind == "other":
        return str(value)
    return f"{unparse(value)} (a {kind})" if kind != "string" else f"the string {value!r}"


def unparse(value: Any) -> str:
    """Text for a ClassAd value, as ``$EVAL()`` prints it (strings without quotes)."""
    kind = _kind(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("int", "string"):
        return str(value)
    if kind == "float":
        return repr(value)
    if isinstance(value, list):
        return "{" + ", ".join(_unparse_item(v) for v in value) + "}"
    return str(value)


def _unparse_item(value: Any) -> str:
    if type(value) is str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return unparse(value)
