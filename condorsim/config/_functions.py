"""Helpers of the ``$FUNC()`` configuration macros: printf formats and file name parts.

How this works
--------------
``$INT(x,fmt)``, ``$REAL(x,fmt)`` and ``$STRING(x,fmt)`` take one C printf
conversion (checked against the patterns below; C length modifiers such as ``ll``
are dropped before Python's ``%`` does the formatting).  ``$F<letters>(x)`` keeps
parts of a path as HTCondor's ``evaluate_macro_func`` does: ``p`` directory, ``d``
last directories, ``n`` name, ``x`` extension, ``b`` bare (no trailing slash or
leading dot), ``q``/``a`` quote, ``u``/``w`` slash style; ``f`` (full path) is a
no-op, as it is outside submit files.
"""

from __future__ import annotations

import re

from ._errors import ExpandError

__all__ = ["INT_FORMAT", "REAL_FORMAT", "STRING_FORMAT", "apply_format", "filename_part"]

INT_FORMAT = re.compile(r"%[-+ #0]*[0-9]*(?:\.[0-9]+)?(?:hh|h|ll|l|q|j|z|t)?([diouxXc])")
REAL_FORMAT = re.compile(r"%[-+ #0]*[0-9]*(?:\.[0-9]+)?(?:L|l)?([eEfFgG])")
STRING_FORMAT = re.compile(r"%[-0]*[0-9]*(?:\.[0-9]+)?(s)")
_LENGTH_MODIFIER = re.compile(r"(?<=[0-9.%#+\- ])(?:hh|h|ll|l|q|j|z|t|L)(?=[a-zA-Z])")



def apply_format(fmt: str, value: object, pattern: re.Pattern[str], func: str) -> str:
    """``value`` formatted with the C printf format ``fmt``, which must match ``pattern``."""
    specs = [m for m in re.finditer(r"%.", fmt) if m.group() != "%%"]
    if len(specs) != 1 or pattern.search(fmt) is None:
        raise ExpandError(f"{func} macro: '{fmt}' is not a valid format specifier")
    try:
        return _LENGTH_MODIFIER.sub("", fmt) % (value,)
    except (TypeError, ValueError, OverflowError):
        raise ExpandError(f"{func} macro: '{fmt}' is not a valid format specifier") from None


def _strip_quotes(text: str, quote: str) -> str:
    """HTCondor's ``strcpy_quoted`` without the quoting: drop a leading ``"`` (or leading
    ``quote``) and the same character at the end."""
    if text[:1] == '"' or (quote and text[:1] == quote):
        q = text[0]
        text = text[1:]
        if text.endswith(q):
            text = text[:-1]
    return text


def _dirs_start(path: str, num_dirs: int) -> int:
    """``condor_basename_plus_dirs``: where the last ``num_dirs`` directories begin."""
    seps = [i + 1 for i, c in enumerate(path) if c in "/\\"]
    del seps[len(seps) - num_dirs :]
    return seps[-1] if seps else 0


def filename_part(letters: str, value: str) -> str:
    """HTCondor's ``$F<letters>()`` path pieces (p, d, n, x, b, q, a, u, w; f is a no-op here).

    Follows ``evaluate_macro_func`` step by step, on Linux: only ``/`` separates the
    file name (``\\`` does separate directories for ``d``), quotes are added to the
    working buffer before the pieces are cut, and a piece that comes out empty keeps
    HTCondor's quirks (``$Fpq`` of a bare name is a lone quote).
    """
    parts = num_dirs = 0
    quoted = bare = arg_quote = False
    to_path = ""
    for c in letters.lower():
        if c in "xnpd":
            parts |= {"x": 1, "n": 2, "p": 4, "d": 8}[c]
            num_dirs += c == "d"
        elif c == "a":
            arg_quote = True
        elif c == "b":
            bare = True
        elif c in "wu":
            to_path = "\\" if c == "w" else "/"
        elif c == "q":
            quoted = True
    quote = ("'" if arg_quote else '"') if quoted else ""
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    text = _strip_quotes(value, quote)
    if to_path and (parts or bare or to_path):
        text = text.replace("\\" if to_path == "/" else "/", to_path)
    buf = list(quote + text + quote)
    end = len(buf)
    joined = "".join(buf)
    name_at = joined.rfind("/") + 1
    dot = joined.rfind(".", name_at + 1)
    ext_at = dot if dot > name_at else end
    if not name_at and parts & 3:
        parts &= ~12
    start = 0
    kind = parts & 0xF
    if kind == 1:
        start = ext_at + 1 if bare and ext_at < end else ext_at
    elif kind == 3:
        start = name_at
    elif kind == 2:
        start, end = name_at, ext_at
    elif kind == 4:
        end = name_at - 1 if bare and name_at > 0 else name_at
    elif kind == 6:
        end = ext_at
    elif kind >= 8:
        if name_at > 0:
            start = _dirs_start(joined, num_dirs)
            if parts & 3 == 2:
                end = ext_at
            elif parts & 3 == 0:
                end = name_at - 1 if bare else name_at
        else:
            start = end = 1
    if quote:
        if start >= len(buf) or buf[start] != quote:
            start -= 1
            buf[start] = quote
        if end > 1 and buf[end - 1] == quote:
            end -= 1
        buf[end : end + 1] = [quote]
        end += 1
    return "".join(buf[start:end])
