"""HTCondor's two syntaxes for arguments and environments (``ArgList`` and ``Env``).

How this works
--------------
A value that starts (after white space) with a double quote is in the *new* (V2)
syntax, anything else in the *old* (V1) one:

* V2 text is wrapped in double quotes (``""`` inside is one ``"``; only white space
  may follow the closing quote); inside, words are split on white space and single
  quotes group words (``''`` inside them is one ``'``).
* V1 arguments are split on white space; ``\\"`` is a literal quote, a bare ``"`` is an
  error. V1 environments are ``NAME=VALUE`` entries separated by ``;`` -- or by the
  first character of the value when it is one of ``!#$%&*+,-/:;<>?@^`|~`` -- and by
  new lines; an entry without ``=`` that holds ``$$`` is kept as it is.

``Arguments`` (V2) is written unless the input was V1 (then ``Args``). An environment
is a map of names to values, written sorted by name: ``Environment`` (V2), or ``Env``
with ``EnvDelim = ";"`` when the ``env`` command holds V1 text. V2 text quotes white
space and single quotes with single quotes, as ``append_arg`` does.

Errors raise ``ArgsError`` with HTCondor's message; the caller adds the
"The full arguments you specified were" line and the location.
"""

from __future__ import annotations

from collections.abc import Mapping

_WS = " \t\n\r"
_C_SPACE = " \t\n\r\v\f"
_V1_DELIMS = "!#$%&*+,-/:;<>?@^`|~\x1f"
NO_VALUE = "\x01\x02\x03\x04\x05\x06"
"""The value of an environment entry kept without ``=`` (an unexpanded ``$$()``)."""


class ArgsError(Exception):
    """Arguments or environment text HTCondor would refuse."""


def is_v2_quoted(text: str) -> bool:
    return text.lstrip(_C_SPACE).startswith('"')


def v2_unquote(text: str) -> str:
    """The raw V2 text inside ``"..."`` (``""`` becomes ``"``); errors as HTCondor words them."""
    s = text.lstrip(_C_SPACE)
    out: list[str] = []
    i = 1
    while True:
        if i >= len(s):
            raise ArgsError("Unterminated double-quote.")
        ch = s[i]
        if ch == '"':
            if s[i + 1 : i + 2] == '"':
                out.append('"')
                i += 2
                continue
            if s[i + 1 :].strip(_C_SPACE):
                raise ArgsError(
                    "Unexpected characters following double-quote.  Did you forget to escape "
                    "the double-quote by repeating it?  Here is the quote and trailing "
                    f"characters: {s[i:]}\n"
                )
            return "".join(out)
        out.append(ch)
        i += 1


def split_v2_raw(raw: str) -> list[str]:
    """``split_args``: raw V2 text into words (single quotes group, ``''`` inside is a quote)."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch in _WS:
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            i += 1
            continue
        in_word = True
        if ch == "'":
            start = i
            i += 1
            while True:
                if i >= len(raw):
                    raise ArgsError(f"Unbalanced quote starting here: {raw[start:]}")
                if raw[i] == "'":
                    if raw[i + 1 : i + 2] == "'":
                        current.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                current.append(raw[i])
                i += 1
            continue
        current.append(ch)
        i += 1
    if in_word:
        words.append("".join(current))
    return words


def v2_join(words: list[str]) -> str:
    """``join_args``: raw V2 text for a word list (white space and ``'`` quoted with ``'``)."""
    out = ""
    for word in words:
        if out:
            out += " "
        if not word:
            out += "''"
        for ch in word:
            if ch in " \t\n\r'":
                if out.endswith("'"):
                    out = out[:-1]
                else:
                    out += "'"
                if ch == "'":
                    out += "'"
                out += ch + "'"
            else:
                out += ch
    return out


def _v1_wacked_to_raw(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            raise ArgsError(f"Found illegal unescaped double-quote: {text[i:]}")
        if ch == "\\" and text[i + 1 : i + 2] == '"':
            out.append('"')
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_arguments(value: str, v2_only: bool = False) -> tuple[list[str], bool]:
    """(words, the input was V1) of an arguments value; ``v2_only`` refuses V1 text
    (``arguments2`` and the other ``...2`` commands)."""
    if is_v2_quoted(value):
        return split_v2_raw(v2_unquote(value)), False
    if v2_only:
        raise ArgsError("Expecting double-quoted input string (V2 format).")
    return _tokens(_v1_wacked_to_raw(value), _WS), True


def split_v1_raw(raw: str) -> list[str]:
    """``AppendArgsV1Raw``: raw V1 arguments into words (split on white space)."""
    return _tokens(raw, _WS)


def v1_arguments(words: list[str]) -> str:
    """Raw V1 text of a word list (``GetArgsStringV1Raw``)."""
    for word in words:
        if any(ch in word for ch in _WS):
            raise ArgsError(f"Cannot represent '{word}' in V1 arguments syntax.")
    out = ""
    for word in words:  # a space only after something: leading empty words vanish
        out += (" " if out else "") + word
    return out


class Env:
    """An environment being built: names to values (``NO_VALUE`` for a bare ``$$`` entry)."""

    def __init__(self) -> None:
        self.vars: dict[str, str] = {}

    def set_entry(self, entry: str) -> None:
        """``SetEnvWithErrorMessage``: one ``NAME=VALUE`` entry."""
        if not entry:
            raise ArgsError("")
        name, eq, value = entry.partition("=")
        if not eq and "$$" in entry:
            self.vars[entry] = NO_VALUE
            return
        if not eq:
            raise ArgsError(f"ERROR: Missing '=' after environment variable '{entry}'.")
        if not name:
            raise ArgsError(f"ERROR: missing variable in '{entry}'.")
        self.vars[name] = value

    def merge_v2_raw(self, raw: str) -> None:
        for entry in split_v2_raw(raw):
            self.set_entry(entry)

    def merge_v1(self, text: str, delim: str = ";") -> None:
        """``MergeFromV1AutoDelim``: V1 text, its delimiter perhaps given by its first character."""
        if not text:
            return
        if text[0] == delim or text[0] in _V1_DELIMS:
            delim, text = text[0], text[1:]
        i = 0
        while i < len(text):
            while i < len(text) and text[i] in _WS:
                i += 1
            start = i
            while i < len(text) and text[i] != "\n" and text[i] != delim:
                i += 1
            entry = text[start:i]
            i += 1
            if entry:
                self.set_entry(entry)

    def merge(self, value: str, v2_only: bool = False) -> None:
        """``MergeFromV1RawOrV2Quoted`` (``MergeFromV2Quoted`` with ``v2_only``)."""
        if is_v2_quoted(value):
            self.merge_v2_raw(v2_unquote(value))
        elif v2_only:
            raise ArgsError("Expecting a double-quoted environment string (V2 format).")
        else:
            self.merge_v1(value)

    def merge_attributes(self, environment: object, env: object, delim: object) -> None:
        """``MergeFrom(ad)``: the variables of a job ad's ``Environment`` (or ``Env`` with
        its ``EnvDelim``), as far as they can be read."""
        try:
            if isinstance(environment, str):
                self.merge_v2_raw(environment)
            elif isinstance(env, str):
                self.merge_v1(env, delim[0] if isinstance(delim, str) and delim else ";")
        except ArgsError:
            pass

    def import_from(self, source: Mapping[str, str], patterns: str | None, v1: bool) -> None:
        """``Env::Import``: add the submitter's variables that the ``getenv`` list selects
        (all when ``patterns`` is None), never overriding; values that cannot be written
        (a new line, or a ``;`` when the output is V1) are left out."""
        white: list[str] = []
        black: list[str] = []
        for item in _tokens(patterns or "", ",; \t\r\n"):
            if item.startswith("!"):
                if item[1:].strip(_WS):
                    black.append(item[1:].strip(_WS))
            else:
                white.append(item)
        for name, value in source.items():
            if not name or name in self.vars or "\n" in value or (v1 and ";" in value):
                continue
            if black and any(wildcard_match(p, name) for p in black):
                continue
            if white and not any(wildcard_match(p, name) for p in white):
                continue
            self.vars[name] = value

    def v2(self) -> str:
        """``getDelimitedStringV2Raw``: sorted by name."""
        return v2_join([n if v == NO_VALUE else f"{n}={v}" for n, v in sorted(self.vars.items())])

    def v1(self) -> str:
        """``getDelimitedStringV1Raw`` with ``;``; entries that hold ``;`` or a new line fail."""
        out = []
        for name, value in sorted(self.vars.items()):
            if any(ch in name or (value != NO_VALUE and ch in value) for ch in ";\n"):
                shown = "" if value == NO_VALUE else value
                raise ArgsError(
                    f"Environment entry is not compatible with V1 syntax: {name}={shown}"
                )
            out.append(name if value == NO_VALUE else f"{name}={value}")
        return ";".join(out)


def _tokens(text: str, seps: str) -> list[str]:
    out: list[str] = []
    current = ""
    for ch in text:
        if ch in seps:
            if current:
                out.append(current)
            current = ""
        else:
            current += ch
    if current:
        out.append(current)
    return out


def wildcard_match(pattern: str, text: str) -> bool:
    """HTCondor's ``matches_withwildcard`` without regard to case: one ``*`` at the start,
    the end, in the middle, or at the start and the end."""
    p, t = pattern.lower(), text.lower()
    star = p.find("*")
    if star < 0:
        return p == t
    prefix_mode = False
    if star == 0:
        start, end = "", p[1:]
    elif star == len(p) - 1:
        start, end, prefix_mode = p[:-1], "", True
    else:
        start, end = p[:star], p[star + 1 :]
    if end.endswith("*"):
        end, prefix_mode = end[:-1], True
    if start and not t.startswith(start):
        return False
    tail = t[len(start) :] if start else t
    if not end:
        return True
    if prefix_mode:
        return end in tail
    return tail.endswith(end)
