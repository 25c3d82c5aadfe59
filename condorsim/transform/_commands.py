"""Command lines of a transform: ``SET A 1``, ``COPY /regex/ New\\1`` ...

How this works
--------------
A command line is read as HTCondor's ``tokener`` reads it: words split on white space,
a quoted word is one token. The first word is the keyword (any case); the second is the
first argument, an attribute name, or ``/regex/options`` for COPY, RENAME and DELETE (a
regex may hold spaces, not ``/``); for a two-argument keyword the rest of the line,
after an optional ``=`` or ``,`` word, is its value (macro-expanded when it runs). A value
without macros is parsed now: when it does not parse, HTCondor reports it only when the
command runs and skips the command, so the problem is noted as a warning.
"""

from __future__ import annotations

import re

from condorsim.classad import ClassAdError, ExprTree
from condorsim.classad._parser import parse_expression
from condorsim.classad._regex import PatternError, compile_pcre

from ._errors import TransformError
from ._program import Command, Statement

__all__ = ["KEYWORDS", "is_attribute_name", "parse_command", "parse_expr_old"]

KEYWORDS = {
    "COPY": 2, "DEFAULT": 2, "DELETE": 1, "EVALMACRO": 2, "EVALSET": 2, "NAME": 0, "RENAME": 2,
    "REQUIREMENTS": 0, "SET": 2, "TRANSFORM": 0, "UNIVERSE": 1,
}  # fmt: skip
"""HTCondor's transform keywords and how many arguments each takes."""
_REGEX_KEYWORDS = frozenset({"COPY", "RENAME", "DELETE"})
_SPACE = " \t\r\n"
_ATTR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_attribute_name(name: str) -> bool:
    """HTCondor's ``IsValidAttrName``: a letter or ``_``, then letters, digits, ``_``."""
    return _ATTR.fullmatch(name) is not None


def parse_expr_old(text: str) -> ExprTree:
    """A ClassAd expression as HTCondor's transforms parse one (old ClassAd syntax)."""
    return parse_expression(text, old_syntax=True)


def parse_command(number: int, line: str, warnings: list[TransformError]) -> Statement:
    """One command line (see the module comment); warnings collects what HTCondor would
    report when the command runs."""
    tokens = _Tokens(line)
    word = tokens.next()
    assert word is not None
    key = word.upper()
    if key not in KEYWORDS:
        raise TransformError(f"{word} is not a valid transform keyword", line=number)
    count = KEYWORDS[key]
    first = tokens.next()
    start = tokens.start - (1 if tokens.quoted else 0)
    if first is None:
        if key == "TRANSFORM":
            return Statement(number)
        what = {2: "2 arguments", 1: "an attribute name", 0: "a value"}[count]
        raise TransformError(f"{key} needs {what}", line=number)
    regex: re.Pattern[bytes] | None = None
    if key in _REGEX_KEYWORDS and first.startswith("/") and not tokens.quoted:
        pattern, options = tokens.regex()
        if pattern is None:
            raise TransformError(f"{key}: invalid regex", line=number)
        regex = _compile(key, pattern, options, number, warnings)
        attr = "/" + pattern + "/"
    else:
        attr = first
        if attr.endswith((",", "=")):
            raise TransformError(
                f"{key} {attr}: write the attribute and its value apart "
                f"({key} {attr[:-1]} ... or {key} {attr[:-1]} = ...)",
                line=number,
            )
        if key in ("SET", "DEFAULT", "EVALSET") and not is_attribute_name(attr):
            raise TransformError(f"{key}: {attr!r} is not an attribute name", line=number)
        if key in ("COPY", "RENAME", "DELETE") and not is_attribute_name(attr):
            raise TransformError(f"{key}: {attr!r} is not an attribute name", line=number)
    if count == 2:
        second = tokens.next()
        if second in ("=", ",") and not tokens.quoted:
            second = tokens.next()
        if second is None:
            raise TransformError(f"{key} needs 2 arguments", line=number)
        rest = line[tokens.start - (1 if tokens.quoted else 0) :]
    else:
        rest = line[start:].lstrip(_SPACE)
    return _checked(Command(number, key, attr, rest, regex, None, line), warnings)


def _compile(
    key: str, pattern: str, options: str, number: int, warnings: list[TransformError]
) -> re.Pattern[bytes] | None:
    flags = re.IGNORECASE | (re.MULTILINE if "m" in options else 0)
    if "U" in options:
        warnings.append(TransformError(
            f"{key} /{pattern}/U: ungreedy regexes are not supported; the entry is ignored",
            line=number))  # fmt: skip
        return None
    try:
        return compile_pcre(pattern, flags)
    except PatternError:
        warnings.append(TransformError(
            f"Error compiling regex '{pattern}'. this entry will be ignored.", line=number))
        return None

def _checked(command: Command, warnings: list[TransformError]) -> Command:
    """Parse the expression now when it has no macro; note what HTCondor would skip."""
    key, rest = command.keyword, command.rest
    if "$" in rest:
        return command
    if key in ("SET", "DEFAULT", "EVALSET", "EVALMACRO"):
        try:
            tree = parse_expr_old(rest)
        except ClassAdError:
            verb = "could not evaluate" if key.startswith("EVAL") else "invalid expression"
            warnings.append(TransformError(
                f"{key} {command.attr} {verb} : {rest}", line=command.line))  # fmt: skip
            return command
        return Command(command.line, key, command.attr, rest, command.regex, tree, command.text)
    if key in ("COPY", "RENAME") and command.regex is None and not is_attribute_name(rest):
        warnings.append(TransformError(
            f"{key} {command.attr} new name {rest} is not valid", line=command.line))
    return command


class _Tokens:
    """HTCondor's ``tokener``: words split on white space; a quoted word is one token."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.next_at = 0
        self.start = 0
        self.quoted = False

    def next(self) -> str | None:
        line, i = self.line, self.next_at
        while i < len(line) and line[i] in _SPACE:
            i += 1
        if i >= len(line):
            self.start = len(line)
            return None
        self.quoted = line[i] in "\"'"
        if self.quoted:
            end = line.find(line[i], i + 1)
            self.start = i + 1
            self.next_at = len(line) if end < 0 else end + 1
            return line[i + 1 : end if end >= 0 else len(line)]
        end = i
        while end < len(line) and line[end] not in _SPACE:
            end += 1
        self.start, self.next_at = i, end
        return line[i:end]

    def regex(self) -> tuple[str | None, str]:
        """``/pattern/options`` at the current token: (pattern or None, option letters)."""
        close = self.line.find("/", self.start + 1)
        if close < 0:
            return None, ""
        end = close + 1
        while end < len(self.line) and self.line[end] not in _SPACE:
            end += 1
        options = self.line[close + 1 : end]
        if any(c not in "gmiU" for c in options):
            return None, ""
        self.next_at = end
        return self.line[self.start + 1 : close], options
