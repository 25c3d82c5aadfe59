"""Built-in ClassAd functions on strings: strcat, join, substr, case, compare, split.

How this works
--------------
Each function takes the evaluation context and the evaluated arguments and returns a
value. HTCondor strings are UTF-8 byte strings and its string functions count, cut and
compare bytes (``size("é")`` is 2, ``toUpper`` changes ASCII letters only, ``strcmp``
orders by byte); the helpers in ``_convert`` keep to that. Arguments that are not
strings are turned into text with the ClassAd unparser where HTCondor does so
(``strcat("a", 1.5)`` is ``"a1.500000000000000E+00"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._convert import (
    ascii_lower,
    ascii_upper,
    from_utf8,
    int64_to_int32,
    is_c_space,
    to_string,
)
from ._ops import fold_case
from ._values import ERROR, UNDEFINED, EvalContext, Value


def strcat(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """strcat(a, b, ...): the arguments as strings, joined; UNDEFINED at the first
    UNDEFINED argument, ERROR at the first ERROR one."""
    parts = []
    for arg in args:
        s = to_string(arg)
        if s is UNDEFINED:
            return UNDEFINED
        if s is ERROR:
            return ERROR
        parts.append(s)
    return "".join(parts)


def join(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """join(sep, a, b, ...), join(sep, list), join(list): items joined by sep.

    UNDEFINED items are skipped; the result is UNDEFINED only when an item was
    UNDEFINED and none was defined. An empty item adds no separator before the first
    non-empty one.
    """
    items: list[Value] = list(args)
    if 0 < len(args) <= 2 and type(args[-1]) is list:
        items = ["" if len(args) == 1 else args[0], *args[-1]]
    sep = ""
    out = ""
    saw_undefined = False
    saw_defined = False
    for i, item in enumerate(items):
        s = to_string(item)
        if s is UNDEFINED:
            saw_undefined = True
            continue
        if s is ERROR:
            return ERROR
        if i == 0:
            sep = s
            continue
        if out:
            out += sep
        saw_defined = True
        out += s
    if saw_undefined and not saw_defined:
        return UNDEFINED
    return out


def _change_case(args: tuple[Value, ...], convert: Callable[[str], str]) -> Value:
    if len(args) != 1:
        return ERROR
    s = to_string(args[0])
    if type(s) is not str:
        return s
    return convert(s)


def to_upper(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """toUpper(s): ASCII letters upper-cased (non-strings are unparsed first)."""
    return _change_case(args, ascii_upper)


def to_lower(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """toLower(s): ASCII letters lower-cased (non-strings are unparsed first)."""
    return _change_case(args, ascii_lower)


def substr(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """substr(s, offset [, length]): Perl-like; negative offset / length count from the end.

    Offsets and lengths are in bytes and truncated to 32-bit C ints as in HTCondor.
    """
    if len(args) not in (2, 3):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    s = args[0]
    if type(s) is not str or type(args[1]) is not int:
        return ERROR
    if len(args) == 3 and type(args[2]) is not int:
        return ERROR
    data = s.encode("utf-8") if not s.isascii() else None
    total = len(s) if data is None else len(data)
    offset = int64_to_int32(args[1])
    length = int64_to_int32(args[2]) if len(args) == 3 else 0
    if offset < 0:
        offset = max(total + offset, 0)
    elif offset >= total:
        offset = total
    if length <= 0:
        length = max(total - offset + length, 0)
    elif length > total - offset:
        length = total - offset
    if len(args) == 3 and int64_to_int32(args[2]) == 0:
        length = 0
    if data is None:
        return s[offset : offset + length]
    return from_utf8(data[offset : offset + length])


def _c_compare(a: str, b: str) -> int:
    """strcmp's sign on the UTF-8 bytes (code point order is the same order)."""
    return (a > b) - (a < b)


def _compare_strings(args: tuple[Value, ...], ignore_case: bool) -> Value:
    if len(args) != 2:
        return ERROR
    a, b = args
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    sa = to_string(a)
    sb = to_string(b)
    if type(sa) is not str or type(sb) is not str:
        return ERROR
    if ignore_case:
        return _c_compare(fold_case(sa), fold_case(sb))
    return _c_compare(sa, sb)


def strcmp(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """strcmp(a, b): -1, 0 or 1 (non-strings are unparsed first)."""
    return _compare_strings(args, ignore_case=False)


def stricmp(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """stricmp(a, b): as strcmp, ignoring ASCII case."""
    return _compare_strings(args, ignore_case=True)


_SPLIT_SEPARATORS: Final = ", \t"


def split(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """split(s [, separators]): the pieces of s between separator characters.

    White space runs and a comma with white space around it count as one separator;
    two non-space separators in a row give an empty piece (``"a,,b"`` -> a, "", b).
    """
    if len(args) not in (1, 2):
        return ERROR
    s = args[0]
    seps = args[1] if len(args) == 2 else _SPLIT_SEPARATORS
    if type(s) is not str or type(seps) is not str:
        return ERROR
    if not (s.isascii() and seps.isascii()):
        return [from_utf8(p) for p in _split_bytes(s.encode("utf-8"), seps.encode("utf-8"))]
    return [p.decode("ascii") for p in _split_bytes(s.encode("ascii"), seps.encode("ascii"))]


def _split_bytes(s: bytes, seps: bytes) -> list[bytes]:
    pieces: list[bytes] = []
    last = 0
    previous = -1  # the last non-space separator seen
    if seps:
        for i, byte in enumerate(s):
            if byte not in seps:
                continue
            if i > last:
                pieces.append(s[last:i])
            elif previous == byte:
                pieces.append(b"")
            if not is_c_space(chr(byte)):
                previous = byte
            last = i + 1
    if len(s) > last:
        pieces.append(s[last:])
    return pieces


def _split_at(args: tuple[Value, ...], slot: bool) -> Value:
    if len(args) != 1 or type(args[0]) is not str:
        return ERROR
    s: str = args[0]
    head, at, tail = s.partition("@")
    if not at:
        return ["", s] if slot else [s, ""]
    return [head, tail]


def split_user_name(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """splitUserName("user@domain"): {user, domain}; no @ gives {s, ""}."""
    return _split_at(args, slot=False)


def split_slot_name(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """splitSlotName("slot1@host"): {slot, host}; no @ gives {"", s}."""
    return _split_at(args, slot=True)


STRING_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "strcat": strcat,
    "join": join,
    "toupper": to_upper,
    "tolower": to_lower,
    "substr": substr,
    "strcmp": strcmp,
    "stricmp": stricmp,
    "split": split,
    "splitusername": split_user_name,
    "splitslotname": split_slot_name,
}
