"""Tokens of the ClassAd language, as HTCondor's lexer cuts them.

How this works
--------------
:func:`tokenize` turns the whole text into a list of :class:`Token` up front. The
rules follow HTCondor's C++ lexer (``src/classad/lexer.cpp``) as ``classad2`` from
htcondor 24.0 behaves once ``htcondor`` is loaded (the daemons' setting):

* ``-`` right after a value-like token (a literal, an identifier, ``.``, ``)``, ``]``,
  ``}``) is the minus operator; anywhere else ``-`` directly followed by a digit (or by
  ``.`` and a digit) starts a negative number literal, so ``- -1`` is unary minus of -1.
* Integers are decimal only: a multi-digit integer with a leading ``0`` (``010``, ``0x1F``)
  is an error; one outside 64 bits reads as 0. Reals are ``digits.digits``, ``.digits``
  or with an exponent (``1e5``); ``1.`` is an error. ``0x1.8`` is a hexadecimal real.
* Strings are ``"..."`` with C escapes (``\\n``, ``\\t``, octal ``\\101``; an unknown
  escape drops its backslash; a NUL is an error); adjacent strings separated only by
  white space are joined. ``'...'`` is a quoted attribute name.
* ``?:`` written without a space is one token (the elvis operator); ``? :`` is two.
* ``true false undefined error is isnt`` are keywords in any case; ``//`` and
  ``/* */`` are comments.
* In the old (``condor_q -l``) syntax, strings have no escapes except ``\\"`` followed by
  more text on the line.
"""

from __future__ import annotations

import re
from typing import Final

from ._errors import ClassAdSyntaxError
from ._values import INT_MAX, INT_MIN

# C isspace() in the C locale.
_SPACE: Final = frozenset(" \t\n\r\v\f")
_DIGITS: Final = frozenset("0123456789")
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_ALPHA: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_IDENT_REST: Final = _ALPHA | _DIGITS | {"_"}

_KEYWORDS: Final = {
    "true": ("bool", True),
    "false": ("bool", False),
    "undefined": ("undef", None),
    "error": ("error", None),
    "is": ("=?=", None),
    "isnt": ("=!=", None),
}

# After one of these, '-' is the binary minus operator, not the sign of a number.
_VALUE_LIKE: Final = frozenset(
    {"int", "real", "bool", "str", "undef", "error", "ident", ".", "]", ")", "}"}
)

_SIMPLE_ESCAPES: Final = {ord(k): ord(v) for k, v in {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}.items()}


class Token:
    """One token: ``kind`` is a word (``int real str bool undef error ident eof``) or the
    operator / punctuation text; ``value`` its value; ``pos`` its offset in the text."""

    __slots__ = ("kind", "pos", "value")

    def __init__(self, kind: str, value: object, pos: int) -> None:
        self.kind = kind
        self.value = value
        self.pos = pos

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.value!r}, {self.pos})"


_HEX_REAL: Final = re.compile(r"-?0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*")


def _hex_real(word: str) -> float:
    """What C's strtod reads from a hexadecimal real token (it stops at a sign)."""
    match = _HEX_REAL.match(word)
    assert match is not None
    return float.fromhex(match.group(0))


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos`` in ``text``."""
    line = text.count("\n", 0, pos) + 1
    start = text.rfind("\n", 0, pos) + 1
    return line, pos - start + 1


def syntax_error(text: str, pos: int, message: str, expected: str = "") -> ClassAdSyntaxError:
    line, col = line_col(text, pos)
    return ClassAdSyntaxError(message, line, col, expected)


def convert_escapes(raw: str, text: str, pos: int) -> str:
    """Resolve the backslash escapes of a new-syntax string body.

    HTCondor works on bytes: octal escapes make bytes, and the result is read back as
    UTF-8 (bytes that are not UTF-8 are kept as surrogate escapes).
    """
    if "\\" not in raw:
        if "\0" in raw:
            raise syntax_error(text, pos, "NUL character in string")
        return raw
    data = raw.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b != 0x5C or i + 1 >= n:
            out.append(b)
            i += 1
            continue
        nxt = data[i + 1]
        if 0x30 <= nxt <= 0x37:
            limit = 3 if nxt <= 0x33 else 2
            j = i + 1
            value = 0
            while j < n and j - i - 1 < limit and 0x30 <= data[j] <= 0x37:
                value = value * 8 + data[j] - 0x30
                j += 1
            out.append(value & 0xFF)
            i = j
            continue
        out.append(_SIMPLE_ESCAPES.get(nxt, nxt))
        i += 2
    if 0 in out:
        raise syntax_error(text, pos, "NUL character in string")
    return out.decode("utf-8", "surrogateescape")


class _Lexer:
    """The scanner state; :func:`tokenize` is the entry point."""

    def __init__(self, text: str, old_syntax: bool) -> None:
        self.text = text
        self.n = len(text)
        self.old = old_syntax
        self.tokens: list[Token] = []

    def error(self, pos: int, message: str, expected: str = "") -> ClassAdSyntaxError:
        return syntax_error(self.text, pos, message, expected)

    def skip_space(self, i: int) -> int:
        text, n = self.text, self.n
        while i < n:
            ch = text[i]
            if ch in _SPACE:
                i += 1
            elif ch == "/" and i + 1 < n and text[i + 1] == "/":
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif ch == "/" and i + 1 < n and text[i + 1] == "*":
                j = text.find("*/", i + 2)
                if j < 0:
                    raise self.error(i, "unterminated /* comment")
                i = j + 2
            else:
                break
        return i

    def run(self) -> list[Token]:
        text, n = self.text, self.n
        tokens = self.tokens
        i = self.skip_space(0)
        while i < n:
            ch = text[i]
            prev = tokens[-1].kind if tokens else ""
            if ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
                i = self.number(i)
            elif ch == "-" and prev not in _VALUE_LIKE and self.starts_number(i + 1):
                i = self.number(i)
            elif ch in _ALPHA or ch == "_":
                i = self.word(i)
            elif ch == '"':
                i = self.string(i)
            elif ch == "'":
                i = self.quoted_name(i)
            else:
                i = self.punct(i)
            i = self.skip_space(i)
        tokens.append(Token("eof", None, n))
        return tokens

    def starts_number(self, i: int) -> bool:
        text, n = self.text, self.n
        if i < n and text[i] in _DIGITS:
            return True
        return i + 1 < n and text[i] == "." and text[i + 1] in _DIGITS

    def number(self, start: int) -> int:
        text, n = self.text, self.n
        i = start + 1 if text[start] == "-" else start
        real = False
        hexnum = False
        if text[i] == "0" and i + 1 < n and text[i + 1] in "xX":
            hexnum = True
            i += 2
            if i >= n or text[i] not in _HEX:
                raise self.error(start, "malformed hexadecimal number")
            while i < n and text[i] in _HEX:
                i += 1
        else:
            while i < n and text[i] in _DIGITS:
                i += 1
        if i < n and text[i] == ".":
            i += 1
            if i >= n or text[i] not in _DIGITS:
                raise self.error(start, "malformed real number", "digits after '.'")
            while i < n and text[i] in _DIGITS:
                i += 1
            real = True
        if (real or not hexnum) and i < n and text[i] in "eE":
            i += 1
            if i < n and text[i] in "+-":
                i += 1
            if i >= n or text[i] not in _DIGITS:
                raise self.error(start, "malformed real number", "digits in the exponent")
            while i < n and text[i] in _DIGITS:
                i += 1
            real = True
        word = text[start:i]
        if real:
            value = _hex_real(word) if hexnum else float(word)
            self.tokens.append(Token("real", value, start))
            return i
        digits = word.lstrip("-")
        if hexnum or (len(digits) > 1 and digits[0] == "0"):
            raise self.error(start, f"malformed integer {word!r} (only decimal integers)")
        # out of range (and past Python's 4300-digit int() limit): 0, as below
        number = int(word) if len(digits) <= 20 else 0
        if number < INT_MIN or number > INT_MAX:
            number = 0
        self.tokens.append(Token("int", number, start))
        return i

    def word(self, start: int) -> int:
        text, n = self.text, self.n
        i = start + 1
        while i < n and text[i] in _IDENT_REST:
            i += 1
        name = text[start:i]
        keyword = _KEYWORDS.get(name.lower())
        if keyword is not None:
            kind, value = keyword
            self.tokens.append(Token(kind, value, start))
        else:
            self.tokens.append(Token("ident", name, start))
        return i

    def scan_quoted(self, start: int, delim: str) -> tuple[str, int]:
        """The raw body of a quoted token starting at ``start`` and the offset after it."""
        text, n = self.text, self.n
        if self.old:
            return self.scan_quoted_old(start, delim)
        i = start + 1
        parts: list[str] = []
        while True:
            body_start = i
            while i < n and text[i] != delim:
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                raise self.error(start, "unterminated quoted text", delim)
            parts.append(text[body_start:i])
            i += 1
            j = i
            while j < n and text[j] in _SPACE:
                j += 1
            if j < n and text[j] == delim:
                i = j + 1
                continue
            return "".join(parts), i

    def scan_quoted_old(self, start: int, delim: str) -> tuple[str, int]:
        text, n = self.text, self.n
        i = start + 1
        out: list[str] = []
        while True:
            j = text.find(delim, i)
            if j < 0:
                raise self.error(start, "unterminated quoted text", delim)
            if j > i and text[j - 1] == "\\" and j + 1 < n and text[j + 1] != "\n":
                out.append(text[i : j - 1] + delim)
                i = j + 1
                continue
            out.append(text[i:j])
            return "".join(out), j + 1

    def string(self, start: int) -> int:
        raw, i = self.scan_quoted(start, '"')
        if self.old:
            if "\0" in raw:
                raise self.error(start, "NUL character in string")
            value = raw
        else:
            value = convert_escapes(raw, self.text, start)
        self.tokens.append(Token("str", value, start))
        return i

    def quoted_name(self, start: int) -> int:
        raw, i = self.scan_quoted(start, "'")
        value = raw if self.old else convert_escapes(raw, self.text, start)
        self.tokens.append(Token("ident", value, start))
        return i

    def punct(self, start: int) -> int:
        text = self.text
        two = text[start : start + 2]
        three = text[start : start + 3]
        if three in (">>>", "=?=", "=!="):
            kind = three
        elif two in ("&&", "||", "<=", "<<", ">=", ">>", "==", "!=", "?:"):
            kind = two
        elif two == "=?":
            raise self.error(start, "malformed operator", "'=?='")
        elif text[start] in "+-*/%~^!&|<>=?:;,.()[]{}":
            kind = text[start]
        else:
            raise self.error(start, f"unexpected character {text[start]!r}")
        self.tokens.append(Token(kind, None, start))
        return start + len(kind)


def tokenize(text: str, old_syntax: bool = False) -> list[Token]:
    """All tokens of ``text``, ending with an ``eof`` token; raises ClassAdSyntaxError."""
    return _Lexer(text, old_syntax).run()
