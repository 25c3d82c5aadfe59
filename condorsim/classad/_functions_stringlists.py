"""Built-in ClassAd functions on string lists ("a, b, c"): stringListSize, ...Member, ...Sum.

How this works
--------------
A string list is one string holding items separated by any of a set of delimiter
characters. HTCondor reads it with its StringTokenIterator: split at delimiters, trim
C white space from each item, drop empty items. The default delimiters differ between
functions, as in HTCondor: ", " for the size/sum/min/max/avg and regexp functions,
", \\t\\r\\n" for the member and subset functions; ``stringListsIntersect`` splits with
its own older splitter (default " ,", no trimming).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import AnyStr, Final

from ._convert import c_strtod, double_to_int64
from ._ops import fold_case
from ._values import ERROR, UNDEFINED, EvalContext, Value

_C_SPACE: Final = " \t\n\v\f\r"
_C_SPACE_BYTES: Final = _C_SPACE.encode("ascii")
_FLT_MAX: Final = 3.4028234663852886e38
_FLT_MIN: Final = 1.1754943508222875e-38
_INTEGER_CHARS: Final = frozenset("+-0123456789")


def tokens(s: str, delimiters: str) -> list[str]:
    """HTCondor's StringTokenIterator with trimming: the non-empty trimmed items.

    HTCondor splits bytes, so a non-ASCII delimiter splits at each of its UTF-8 bytes;
    items are then returned decoded with ``surrogateescape`` (compare them with each
    other, encode them back with ``surrogateescape``; they never leave this package).
    """
    if s.isascii() and delimiters.isascii():
        return _split_trimmed(s, delimiters, _C_SPACE)
    raw = _split_trimmed(s.encode("utf-8"), delimiters.encode("utf-8"), _C_SPACE_BYTES)
    return [item.decode("utf-8", errors="surrogateescape") for item in raw]


def _split_trimmed(s: AnyStr, delimiters: AnyStr, space: AnyStr) -> list[AnyStr]:
    if not delimiters:
        item = s.strip(space)
        return [item] if item else []
    out = []
    start = 0
    for i, ch in enumerate(s):
        if ch in delimiters:
            item = s[start:i].strip(space)
            if item:
                out.append(item)
            start = i + 1
    item = s[start:].strip(space)
    if item:
        out.append(item)
    return out


def _list_and_delimiters(args: tuple[Value, ...], default: str) -> tuple[str, str] | None:
    """(list, delimiters) from (list [, delimiters]) when both are strings."""
    if len(args) not in (1, 2):
        return None
    lst = args[0]
    delimiters = args[1] if len(args) == 2 else default
    if type(lst) is not str or type(delimiters) is not str:
        return None
    return lst, delimiters


def string_list_size(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """stringListSize(list [, delimiters]): the number of items."""
    parsed = _list_and_delimiters(args, ", ")
    if parsed is None:
        return ERROR
    return len(tokens(*parsed))


_SCANF_FAILS: Final = re.compile(
    r"[ \t\n\v\f\r]*[+-]?(?:0x(?![0-9a-f.])|inf(?=i)(?!inity))", re.IGNORECASE | re.ASCII
)


def _scan_double(item: str) -> float | None:
    """sscanf("%lf"): the number at the start of item, or None.

    glibc's scanf reads like strtod but cannot step back: "0x" with no hex digit after
    it, or a partial "infinity", is a failure rather than 0 or inf.
    """
    if _SCANF_FAILS.match(item):
        return None
    parsed = c_strtod(item)
    return None if parsed is None else parsed[0]


def _make_summary(kind: str) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def summarize(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        parsed = _list_and_delimiters(args, ", ")
        if parsed is None:
            return ERROR
        items = tokens(*parsed)
        if kind == "min":
            accumulator = _FLT_MAX
        elif kind == "max":
            accumulator = _FLT_MIN
        else:
            accumulator = 0.0
        is_real = False
        for item in items:
            number = _scan_double(item)
            if number is None:
                return ERROR
            if not _INTEGER_CHARS.issuperset(item):
                is_real = True
            if kind == "min":
                accumulator = number if number < accumulator else accumulator
            elif kind == "max":
                accumulator = number if number > accumulator else accumulator
            else:
                accumulator = number + accumulator
        if not items:
            return 0.0 if kind in ("sum", "avg") else UNDEFINED
        if kind == "avg":
            accumulator /= len(items)
        return accumulator if is_real else double_to_int64(accumulator)

    return summarize


def _string_or_empty(v: Value) -> str | None:
    """The string, "" for UNDEFINED, None for anything else."""
    if type(v) is str:
        return v
    if v is UNDEFINED:
        return ""
    return None


def _make_member(
    subset: bool, ignore_case: bool
) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def membership(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) not in (2, 3):
            return ERROR
        item = _string_or_empty(args[0])
        lst = _string_or_empty(args[1])
        delimiters = _string_or_empty(args[2]) if len(args) == 3 else ""
        if item is None or lst is None or delimiters is None:
            return ERROR
        if len(args) < 3 or args[2] is UNDEFINED:
            delimiters = ", \t\r\n"
        if args[0] is UNDEFINED and args[1] is UNDEFINED:
            return UNDEFINED
        fold = fold_case if ignore_case else _same
        members = {fold(x) for x in tokens(lst, delimiters)}
        if not subset:
            return fold(item) in members
        if not item:
            return True
        wanted = tokens(item, delimiters)
        return bool(wanted) and all(fold(x) in members for x in wanted)

    return membership


def _same(s: str) -> str:
    return s


def _split_string_list(s: bytes, delimiters: bytes) -> list[bytes]:
    """The older splitter of stringListsIntersect (on bytes): no trimming, empty items
    dropped."""
    if not delimiters:
        delimiters = b" ,"
    out = []
    start = 0
    for i, ch in enumerate(s):
        if ch in delimiters:
            if i > start:
                out.append(s[start:i])
            start = i + 1
    if len(s) > start:
        out.append(s[start:])
    return out


def string_lists_intersect(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """stringListsIntersect(a, b [, delimiters]): some item of a is an item of b
    (case-sensitive)."""
    if len(args) not in (2, 3):
        return ERROR
    if any(a is ERROR for a in args):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    delimiters = args[2] if len(args) == 3 else ""
    a, b = args[0], args[1]
    if type(a) is not str or type(b) is not str or type(delimiters) is not str:
        return ERROR
    separators = delimiters.encode("utf-8")
    right = set(_split_string_list(b.encode("utf-8"), separators))
    return any(x in right for x in _split_string_list(a.encode("utf-8"), separators))


STRING_LIST_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "stringlistsize": string_list_size,
    "stringlistsum": _make_summary("sum"),
    "stringlistavg": _make_summary("avg"),
    "stringlistmin": _make_summary("min"),
    "stringlistmax": _make_summary("max"),
    "stringlistmember": _make_member(subset=False, ignore_case=False),
    "stringlistimember": _make_member(subset=False, ignore_case=True),
    "stringlistsubsetmatch": _make_member(subset=True, ignore_case=False),
    "stringlistisubsetmatch": _make_member(subset=True, ignore_case=True),
    "stringlistsintersect": string_lists_intersect,
}
