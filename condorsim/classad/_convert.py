"""Value conversions the built-in functions share, with C's exact edge behaviour.

How this works
--------------
HTCondor's functions convert between types with C library calls: ``strtod`` to read a
number from a string, casts from ``double`` to ``long long`` or ``int`` (which on
x86-64 give the "integer indefinite" value, the most negative integer, when the value
does not fit or is NaN), ``int`` truncation of 64-bit values, and the ClassAd
unparser to turn a value into text. This module reproduces each of those, so that
``int("1e30")``, ``string(1.5)`` and ``substr(s, 2**32 + 1)`` give what HTCondor gives.

Strings in HTCondor are byte strings (UTF-8); where a function counts or cuts bytes,
the helpers here do the same on the UTF-8 encoding.
"""

from __future__ import annotations

import math
import re
from typing import Final

from ._values import ERROR, INT_MIN, UNDEFINED, AbsTime, ClassAdValue, RelTime, Value

INT32_MIN: Final = -(2**31)
_TWO63: Final = 2.0**63
_TWO31: Final = 2.0**31

_C_SPACE: Final = " \t\n\v\f\r"

# What strtod accepts at the start of a string (after leading white space).
_STRTOD: Final = re.compile(
    r"[ \t\n\v\f\r]*"
    r"(?P<num>[+-]?(?:"
    r"(?P<inf>inf(?:inity)?)"
    r"|(?P<nan>nan(?:\([0-9A-Za-z_]*\))?)"
    r"|(?P<hex>0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?"
    r"))",
    re.IGNORECASE | re.ASCII,
)


def c_strtod(s: str) -> tuple[float, int] | None:
    """Parse a number at the start of ``s`` as C's ``strtod`` does.

    Returns (value, characters consumed), or None when no number starts ``s``
    (after optional white space). Overflow gives +/-inf, as strtod does.
    """
    m = _STRTOD.match(s)
    if m is None:
        return None
    text = m.group("num")
    negative = text.startswith("-")
    if m.group("inf") is not None:
        value = -math.inf if negative else math.inf
    elif m.group("nan") is not None:
        value = math.nan
    elif m.group("hex") is not None:
        try:
            value = float.fromhex(text)
        except OverflowError:
            value = -math.inf if negative else math.inf
    else:
        value = float(text)
    return value, m.end()


def double_to_int64(x: float) -> int:
    """C's ``(long long) x`` on x86-64: truncation, INT_MIN when out of range or NaN."""
    if x != x or x >= _TWO63 or x <= -_TWO63 - 1.0:
        return INT_MIN
    return int(x)


def double_to_int32(x: float) -> int:
    """C's ``(int) x`` on x86-64: truncation, INT32_MIN when out of range or NaN."""
    if x != x or x >= _TWO31 or x <= -_TWO31 - 1.0:
        return INT32_MIN
    return int(x)


def int64_to_int32(i: int) -> int:
    """C's conversion of a ``long long`` to ``int``: keep the low 32 bits."""
    return ((i + 2**31) % 2**32) - 2**31


def utf8_len(s: str) -> int:
    """Length of ``s`` in bytes, as HTCondor's ``size()`` counts it."""
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def from_utf8(b: bytes) -> str:
    """Bytes HTCondor produced back to text (a cut through a character becomes U+FFFD)."""
    return b.decode("utf-8", errors="replace")


def ascii_lower(s: str) -> str:
    """C ``tolower`` on every byte: only ASCII letters change."""
    if s.isascii():
        return s.lower()
    return "".join(c.lower() if c.isascii() else c for c in s)


def ascii_upper(s: str) -> str:
    """C ``toupper`` on every byte: only ASCII letters change."""
    if s.isascii():
        return s.upper()
    return "".join(c.upper() if c.isascii() else c for c in s)


# --------------------------------------------------------------------------- unparsing


def format_real(r: float) -> str:
    """A real as HTCondor's unparser writes it (``%1.15E``, ``0.0``, ``real("INF")``)."""
    if r == 0.0:
        return "-0.0" if math.copysign(1.0, r) < 0 else "0.0"
    if r != r:
        return 'real("NaN")'
    if r == math.inf:
        return 'real("INF")'
    if r == -math.inf:
        return 'real("-INF")'
    return f"{r:.15E}"


_STRING_ESCAPES: Final = {
    0x07: "\\a",
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x0B: "\\v",
    0x5C: "\\\\",
    0x22: '\\"',
}


def quote_string(s: str) -> str:
    """A string as a ClassAd string literal, escaped byte by byte as HTCondor does.

    Non-printable bytes, including every byte of a non-ASCII character, are written
    as three-digit octal escapes.
    """
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for byte in s.encode("utf-8"):
        escape = _STRING_ESCAPES.get(byte)
        if escape is not None:
            out.append(escape)
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def unparse_value(v: Value) -> str:
    """ClassAd text of a value, as HTCondor's ClassAdUnParser writes it.

    A nested ad is written by ``str(ad)``, which the ClassAd class provides.
    """
    t = type(v)
    if t is str:
        return quote_string(v)
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is float:
        return format_real(v)
    if t is list:
        return "{ " + ",".join(unparse_value(x) for x in v) + " }"
    if v is UNDEFINED:
        return "undefined"
    if v is ERROR:
        return "error"
    if isinstance(v, ClassAdValue):
        return str(v)
    if t is AbsTime or t is RelTime:
        from ._unparse import literal_text

        return literal_text(v)
    raise TypeError(f"not a ClassAd value: {v!r}")


def to_string(v: Value) -> Value:
    """HTCondor's convertValueToStringValue: strings as is, UNDEFINED/ERROR kept,
    times as their bare text (a relative time through a C ``(int)``), anything else
    unparsed."""
    t = type(v)
    if t is str or v is UNDEFINED or v is ERROR:
        return v
    if t is AbsTime:
        from ._time import abstime_text

        return abstime_text(v)
    if t is RelTime:
        from ._time import reltime_text

        return reltime_text(float(double_to_int32(v.secs)))
    return unparse_value(v)


def to_real(v: Value) -> Value:
    """HTCondor's convertValueToRealValue: a real, or UNDEFINED / ERROR."""
    t = type(v)
    if t is float:
        return v
    if t is int or t is bool:
        return float(v)
    if t is str:
        parsed = c_strtod(v)
        return ERROR if parsed is None else parsed[0]
    if v is UNDEFINED:
        return UNDEFINED
    if t is AbsTime:
        return float(v.secs)
    if t is RelTime:
        return float(double_to_int32(v.secs))
    return ERROR


def to_integer(v: Value) -> Value:
    """HTCondor's convertValueToIntegerValue: an integer, or UNDEFINED / ERROR.

    Strings are read with strtod and truncated, so ``"3.7"`` gives 3 and ``"1e3"`` 1000.
    """
    t = type(v)
    if t is int:
        return v
    if t is bool:
        return int(v)
    if t is float:
        return double_to_int64(v)
    if t is str:
        parsed = c_strtod(v)
        return ERROR if parsed is None else double_to_int64(parsed[0])
    if v is UNDEFINED:
        return UNDEFINED
    if t is AbsTime:
        return v.secs
    if t is RelTime:
        return double_to_int32(v.secs)
    return ERROR


def is_c_space(ch: str) -> bool:
    """C ``isspace`` in the C locale."""
    return ch in _C_SPACE
