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


def _unquote(value: str) -> tuple[str, str]:
    if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1], value[0]
    return value, ""


def filename_part(letters: str, value: str) -> str:
    """HTCondor's ``$F<letters>()`` path pieces (p, d, n, x, b, q, a, u, w; f is a no-op here)."""
    flags = {c.lower() for c in letters}
    num_dirs = sum(1 for c in letters if c.lower() == "d")
    path, _ = _unquote(value)
    if "u" in flags:
        path = path.replace("\\", "/")
    if "w" in flags:
        path = path.replace("/", "\\")
    name_at = max(path.rfind("/"), path.rfind("\\")) + 1
    dot = path.rfind(".", name_at)
    ext_at = dot if dot > name_at else len(path)
    want_x, want_n, want_p = "x" in flags, "n" in flags, "p" in flags
    bare = "b" in flags
    if name_at == 0 and (want_x or want_n):
        want_p = False
        num_dirs = 0
    if num_dirs and not want_p:
        if name_at == 0:
            result = ""
        else:
            seps = [i + 1 for i, c in enumerate(path) if c in "/\\"]
            begin = seps[-1 - num_dirs] if len(seps) > num_dirs else 0
            if want_n and not want_x:
                result = path[begin:ext_at]
            elif want_n or want_x:
                result = path[begin:]
            else:
                result = path[begin : name_at - 1 if bare else name_at]
    elif want_p and not want_n and not want_x:
        result = path[: name_at - 1 if bare and name_at > 0 else name_at]
    elif want_p and want_n and not want_x:
        result = path[:ext_at]
    elif want_x and not want_n and not want_p:
        result = path[ext_at + 1 if bare and ext_at < len(path) else ext_at :]
    elif want_n and not want_x and not want_p:
        result = path[name_at:ext_at]
    elif want_n and want_x and not want_p:
        result = path[name_at:]
    else:
        result = path
    if "q" in flags:
        quote = "'" if "a" in flags else '"'
        result = f"{quote}{result}{quote}"
    return result
