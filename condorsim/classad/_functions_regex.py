"""Built-in ClassAd regular-expression functions: regexp, regexps, replace, replaceAll,
regexpMember, stringList_regexpMember.

How this works
--------------
Patterns are PCRE2 patterns matched on UTF-8 bytes (see ``_regex``). Substitution
follows HTCondor's own loop over PCRE2 matches, quirks included: ``\\0``..``\\9`` in the
replacement name groups, a group number past the last group that took part in the
match is ERROR, and under the ``g`` option an empty match is followed by a try for a
non-empty match at the same place, else one byte is copied over -- so a pattern that
matches the empty string at the end of the target makes ``replaceAll`` ERROR, as it
does in HTCondor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from ._convert import from_utf8
from ._functions_stringlists import tokens
from ._regex import PatternError, compile_pcre, option_flags
from ._values import ERROR, UNDEFINED, EvalContext, Value


def _match(
    regex: re.Pattern[bytes], target: bytes, start: int, non_empty: bool
) -> re.Match[bytes] | None:
    if non_empty:
        # PCRE2_ANCHORED | PCRE2_NOTEMPTY_ATSTART, as far as re can say it: the
        # pattern's first choice at this place, if that is not empty.
        m = regex.match(target, start)
        return m if m is not None and m.end() > start else None
    return regex.search(target, start)


def _expand(replacement: bytes, m: re.Match[bytes]) -> bytes | None:
    """The replacement with \\N group references filled in; None for a bad group."""
    last = 0
    for g in range(m.re.groups, 0, -1):
        if m.start(g) >= 0:
            last = g
            break
    out = bytearray()
    i = 0
    n = len(replacement)
    while i < n:
        c = replacement[i]
        if c == 0x5C and i + 1 < n and 0x30 <= replacement[i + 1] <= 0x39:
            g = replacement[i + 1] - 0x30
            if g > last:
                return None
            out += m.group(g) or b""
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def substitute(pattern: str, target: str, replacement: str | None, options: str) -> Value:
    """HTCondor's regexp_helper: a match test (replacement None) or a substitution."""
    try:
        regex = compile_pcre(pattern, option_flags(options))
    except PatternError:
        return ERROR
    data = target.encode("utf-8")
    if replacement is None:
        return regex.search(data) is not None
    full_target = "f" in options
    find_all = "g" in options
    repl = replacement.encode("utf-8")
    out = bytearray()
    index = 0
    empty_match = False
    while True:
        if index > len(data):
            return ERROR  # PCRE2 refuses a start offset past the end
        m = _match(regex, data, index, empty_match)
        if m is None and empty_match:
            out += data[index : index + 1] if index < len(data) else b"\0"
            index += 1
            empty_match = False
            continue
        if m is None:
            break
        if full_target:
            out += data[index : m.start()]
        expanded = _expand(repl, m)
        if expanded is None:
            return ERROR
        out += expanded
        index = m.end()
        empty_match = m.start() == m.end()
        if not find_all:
            break
    if full_target:
        out += data[index:]
    return from_utf8(bytes(out))


def _check_arguments(args: tuple[Value, ...], options_index: int) -> Value:
    """ERROR if any argument is ERROR, UNDEFINED if any is UNDEFINED, ERROR for
    non-string options; None when the caller may go on."""
    if any(a is ERROR for a in args):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    if len(args) > options_index and type(args[options_index]) is not str:
        return ERROR
    return None


def regexp(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """regexp(pattern, target [, options]): target contains a match of pattern."""
    if len(args) not in (2, 3):
        return ERROR
    early = _check_arguments(args, 2)
    if early is not None:
        return early
    pattern, target = args[0], args[1]
    if type(pattern) is not str or type(target) is not str:
        return ERROR
    return substitute(pattern, target, None, args[2] if len(args) == 3 else "")


def _make_substitution(extra: str) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def substitution(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) not in (3, 4):
            return ERROR
        early = _check_arguments(args, 3)
        if early is not None:
            return early
        pattern, target, replacement = args[0], args[1], args[2]
        if type(pattern) is not str or type(target) is not str or type(replacement) is not str:
            return ERROR
        options = (args[3] if len(args) == 4 else "") + extra
        return substitute(pattern, target, replacement, options)

    return substitution


def regexp_member(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """regexpMember(pattern, list [, options]): some string element matches; UNDEFINED
    elements make a no-match UNDEFINED, other non-strings make it ERROR."""
    if len(args) not in (2, 3):
        return ERROR
    early = _check_arguments(args, 2)
    if early is not None:
        return early
    pattern, lst = args[0], args[1]
    if type(pattern) is not str or type(lst) is not list:
        return ERROR
    options = args[2] if len(args) == 3 else ""
    could_be_undefined = False
    for element in lst:
        if type(element) is not str:
            if element is UNDEFINED:
                could_be_undefined = True
                continue
            return ERROR
        # a bad pattern gives ERROR per element, which HTCondor reads as "no match"
        if substitute(pattern, element, None, options) is True:
            return True
    return UNDEFINED if could_be_undefined else False


def string_list_regexp_member(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """stringList_regexpMember(pattern, list [, delimiters [, options]]): some item of
    the string list matches; UNDEFINED for an empty list."""
    if not 2 <= len(args) <= 4 or any(type(a) is not str for a in args):
        return ERROR
    pattern, lst = args[0], args[1]
    delimiters = args[2] if len(args) >= 3 else ", "
    options = args[3] if len(args) == 4 else ""
    try:
        regex = compile_pcre(pattern, option_flags(options, upper_case_too=True))
    except PatternError:
        return ERROR
    items = tokens(lst, delimiters)
    if not items:
        return UNDEFINED
    return any(regex.search(item.encode("utf-8", "surrogateescape")) for item in items)


REGEX_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "regexp": regexp,
    "regexps": _make_substitution(""),
    "replace": _make_substitution("f"),
    "replaceall": _make_substitution("fg"),
    "regexpmember": regexp_member,
    "stringlist_regexpmember": string_list_regexp_member,
}
