"""PCRE2 patterns, as HTCondor compiles them, run with Python's ``re`` on UTF-8 bytes.

How this works
--------------
HTCondor compiles ClassAd regular expressions with PCRE2 without its UTF mode, so a
pattern and its target are byte strings: ``.`` matches one byte of a two-byte "é",
``\\w`` and case-less matching know ASCII only. Python's ``re`` on ``bytes`` behaves the
same way, so both the pattern and the target are encoded to UTF-8 first.

The pattern is translated from PCRE2 syntax where the two differ: ``\\Q...\\E``,
``\\z``/``\\Z``, ``(?<name>...)``, ``\\k<name>``, ``\\h``/``\\v``/``\\R``, ``\\e``, POSIX
classes such as ``[[:alpha:]]``, option settings in mid-pattern (``a(?i)b``) and a
``{`` that does not start a PCRE quantifier. Constructs Python cannot run (``\\K``,
``\\p{..}``, recursion, ``(*VERB)``s, ``\\G``) make the pattern invalid, which gives
ERROR as a bad pattern does in HTCondor. Compiled patterns are cached.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

_POSIX_CLASSES: Final = {
    b"alpha": rb"a-zA-Z",
    b"digit": rb"0-9",
    b"alnum": rb"a-zA-Z0-9",
    b"upper": rb"A-Z",
    b"lower": rb"a-z",
    b"space": rb" \t\n\r\f\v",
    b"blank": rb" \t",
    b"punct": rb"!-/:-@\[-`{-~",
    b"xdigit": rb"0-9A-Fa-f",
    b"word": rb"a-zA-Z0-9_",
    b"cntrl": rb"\x00-\x1f\x7f",
    b"print": rb"\x20-\x7e",
    b"graph": rb"\x21-\x7e",
    b"ascii": rb"\x00-\x7f",
}

# Escapes whose meaning differs, outside and inside a character class.
_ESCAPES: Final = {
    ord("z"): (rb"\Z", None),
    ord("Z"): (rb"(?=\n?\Z)", None),
    ord("h"): (rb"[ \t]", rb" \t"),
    ord("H"): (rb"[^ \t]", None),
    ord("v"): (rb"[\n\x0b\f\r\x85]", rb"\n\x0b\f\r\x85"),
    ord("V"): (rb"[^\n\x0b\f\r\x85]", None),
    ord("R"): (rb"(?:\r\n|[\n\x0b\f\r\x85])", None),
    ord("e"): (rb"\x1b", rb"\x1b"),
}

_QUANTIFIER: Final = re.compile(rb"\{(?:\d+(?:,\d*)?)\}")
_NAMED_GROUP: Final = re.compile(rb"\(\?(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')")
_BACKREF: Final = re.compile(rb"\\k(?:<(\w+)>|'(\w+)'|\{(\w+)\})")
_INLINE_FLAGS: Final = re.compile(rb"\(\?([imsx]*)(?:-([imsx]*))?\)")


class PatternError(Exception):
    """A pattern that PCRE2 rejects or that Python's ``re`` cannot run."""


def translate(pattern: bytes) -> bytes:
    """PCRE2 pattern syntax -> Python ``re`` syntax (bytes)."""
    out = bytearray()
    # per open group: the scoped-flag groups opened for (?i)-style settings inside it
    settings: list[list[bytes]] = [[]]
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == 0x5C:  # backslash
            if i + 1 >= n:
                raise PatternError("\\ at end of pattern")
            e = pattern[i + 1]
            if e == ord("Q"):
                end = pattern.find(rb"\E", i + 2)
                literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out += re.escape(literal)
                i = n if end < 0 else end + 2
                continue
            if e == ord("E"):
                i += 2
                continue
            if not in_class:
                m = _BACKREF.match(pattern, i)
                if m:
                    out += b"(?P=" + (m.group(1) or m.group(2) or m.group(3)) + b")"
                    i = m.end()
                    continue
            special = _ESCAPES.get(e)
            if special is not None:
                replacement = special[1] if in_class else special[0]
                if replacement is None:
                    raise PatternError("unsupported escape in a character class")
                out += replacement
            else:
                out += pattern[i : i + 2]
            i += 2
            continue
        if in_class:
            if c == ord("[") and pattern.startswith(b"[:", i):
                end = pattern.find(b":]", i + 2)
                name = pattern[i + 2 : end] if end > 0 else b""
                if name in _POSIX_CLASSES:
                    out += _POSIX_CLASSES[name]
                    i = end + 2
                    continue
                out += rb"\["
                i += 1
                continue
            if c == ord("]"):
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == ord("["):
            in_class = True
            out.append(c)
            i += 1
            # a ] right after [ or [^ is a literal
            if pattern.startswith(b"^", i):
                out.append(pattern[i])
                i += 1
            if pattern.startswith(b"]", i):
                out += rb"\]"
                i += 1
            continue
        if c == ord("{"):
            if _QUANTIFIER.match(pattern, i) is None:
                out += rb"\{"
                i += 1
                continue
        if c == ord("("):
            m = _INLINE_FLAGS.match(pattern, i)
            if m and (m.group(1) or m.group(2)):
                on, off = m.group(1), m.group(2) or b""
                opener = b"(?" + on + (b"-" + off if off else b"") + b":"
                out += opener
                settings[-1].append(opener)
                i = m.end()
                continue
            m = _NAMED_GROUP.match(pattern, i)
            if m:
                out += b"(?P<" + (m.group(1) or m.group(2)) + b">"
                settings.append([])
                i = m.end()
                continue
            settings.append([])
        elif c == ord(")"):
            out += b")" * len(settings.pop())
            if not settings:
                raise PatternError("unmatched )")
        elif c == ord("|") and settings[-1]:
            # an option setting lasts to the end of its group, into later alternatives
            out += b")" * len(settings[-1]) + b"|" + b"".join(settings[-1])
            i += 1
            continue
        out.append(c)
        i += 1
    out += b")" * len(settings[-1])
    return bytes(out)


@lru_cache(maxsize=512)
def compile_pcre(pattern: str, flags: int) -> re.Pattern[bytes]:
    """Compile a ClassAd (PCRE2) pattern for byte matching; PatternError if invalid."""
    try:
        return re.compile(translate(pattern.encode("utf-8")), flags)
    except PatternError:
        raise
    except Exception as e:  # re.error, OverflowError, RecursionError on huge patterns
        raise PatternError(str(e)) from None


def option_flags(options: str, upper_case_too: bool = False) -> int:
    """``re`` flags for HTCondor's option letters i, m, s, x (others are ignored)."""
    if upper_case_too:
        options = options.lower()
    flags = 0
    if "i" in options:
        flags |= re.IGNORECASE
    if "m" in options:
        flags |= re.MULTILINE
    if "s" in options:
        flags |= re.DOTALL
    if "x" in options:
        flags |= re.VERBOSE
    return flags
