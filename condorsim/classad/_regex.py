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
import warnings
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
    ord("h"): (rb"[ \t\xa0]", rb" \t\xa0"),
    ord("H"): (rb"[^ \t\xa0]", None),
    ord("v"): (rb"[\n\x0b\f\r\x85]", rb"\n\x0b\f\r\x85"),
    ord("V"): (rb"[^\n\x0b\f\r\x85]", None),
    ord("R"): (rb"(?:\r\n|[\n\x0b\f\r\x85])", None),
    ord("e"): (rb"\x1b", rb"\x1b"),
}

_QUANTIFIER: Final = re.compile(rb"\{(?:\d+(?:,\d*)?)\}")
_NAMED_GROUP: Final = re.compile(rb"\(\?(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')")
_BACKREF: Final = re.compile(rb"\\k(?:<(\w+)>|'(\w+)'|\{(\w+)\})")
_INLINE_FLAGS: Final = re.compile(rb"\(\?([imsx]*)(?:-([imsx]*))?\)")
_DIGITS: Final = re.compile(rb"[0-9]+")
_OCTAL: Final = re.compile(rb"[0-7]{1,3}")


def _number_escape(pattern: bytes, i: int, groups_before: int, in_class: bool) -> tuple[bytes, int]:
    """PCRE's reading of backslash-digits at ``pattern[i]`` (the backslash): a back
    reference when below 10 or when that many groups came before, else up to three
    octal digits. Returns the Python text and the index after the escape."""
    digits = _DIGITS.match(pattern, i + 1)
    assert digits is not None
    number = int(digits.group())
    if not in_class and (number < 10 or number <= groups_before or digits.group()[:1] in b"89"):
        if digits.group()[:1] == b"0":
            pass  # \0... is always octal
        else:
            return b"(?:\\" + digits.group() + b")", digits.end()
    octal = _OCTAL.match(pattern, i + 1)
    if octal is None:  # \8 or \9 in a class: the digit itself
        return pattern[i + 1 : i + 2], i + 2
    return b"\\x%02x" % (int(octal.group(), 8) & 0xFF), octal.end()


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
    groups = 0  # capturing groups opened so far
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
            if 0x30 <= e <= 0x39:
                text, i = _number_escape(pattern, i, groups, in_class)
                out += text
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
            elif c == ord("["):
                out += rb"\["
                i += 1
                continue
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
            if m and not (m.group(1) or m.group(2)):
                i = m.end()  # "(?)" sets no option (and, like any setting, takes no quantifier)
                if pattern[i : i + 1] in (b"*", b"+", b"?") or _QUANTIFIER.match(pattern, i):
                    raise PatternError("quantifier after an option setting")
                continue
            if m:
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
                groups += 1
                i = m.end()
                continue
            if not pattern.startswith(b"?", i + 1) or pattern.startswith(b"?P<", i + 1):
                groups += 1
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
        with warnings.catch_warnings():
            # re warns about "[[", "--", "&&"... in a class that a later Python may read
            # as set operations; today it reads them as PCRE does.
            warnings.simplefilter("ignore", FutureWarning)
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
