"""``arguments`` and ``environment``: HTCondor's two syntaxes and the attributes they make.

How this works
--------------
Both commands accept the *old* (V1) syntax and the *new* (V2) syntax, chosen by whether
the value starts with a double quote (HTCondor's ``ArgList`` and ``Env`` classes):

* V1 arguments are split on white space (``\\"`` is a literal quote, a bare ``"`` is an
  error); V1 environment entries are split on ``;`` and each is ``NAME=VALUE``.
* V2 values are wrapped in double quotes (``""`` inside is one ``"``); inside, words are
  split on white space and single quotes group words (``''`` inside them is one ``'``).

condor_submit then writes ``Args`` (V1 text) when the arguments were given in V1, else
``Arguments`` (V2 text, also when there are none). The environment goes to ``Env`` with
``EnvDelim = ";"`` only when the ``env`` command is used with V1 text; otherwise to
``Environment``. Environment variables are kept sorted by name, a later duplicate wins.
V2 text quotes white space and single quotes with single quotes, as ``ArgList`` does.

Errors raise ``ArgsError`` with HTCondor's message; the caller adds the
"The full arguments you specified were" line and the location.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

_WS = " \t\n\r"


class ArgsError(Exception):
    """Arguments or environment text HTCondor would refuse."""


def is_v2_quoted(text: str) -> bool:
    return text.lstrip(_WS).startswith('"')


def v2_unquote(text: str) -> str:
    """The raw V2 text inside ``"..."`` (``""`` becomes ``"``); errors as HTCondor words them."""
    s = text.lstrip(_WS)
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
            rest = s[i + 1 :]
            if rest.strip(_WS):
                raise ArgsError(
                    "Unexpected characters following double-quote.  Did you forget to escape "
                    "the double-quote by repeating it?  Here is the quote and trailing "
                    f"characters: {s[i:]}\n"
                )
            return "".join(out)
        out.append(ch)
        i += 1


def split_v2_raw(raw: str) -> list[str]:
    """Split raw V2 text into words (single quotes group, ``''`` inside is a quote)."""
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
    """Raw V2 text for a word list: white space and ``'`` are quoted with ``'``."""
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


def _split_v1_args(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    in_word = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _WS:
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
        elif ch == "\\" and text[i + 1 : i + 2] == '"':
            current.append('"')
            in_word = True
            i += 1
        elif ch == '"':
            raise ArgsError(f"Found illegal unescaped double-quote: {text[i:]}")
        else:
            current.append(ch)
            in_word = True
        i += 1
    if in_word:
        words.append("".join(current))
    return words


def arguments_attribute(value: str | None) -> tuple[str, str]:
    """(attribute, string value) for the ``arguments`` command: ``Args`` or ``Arguments``."""
    if value is None:
        return "Arguments", ""
    if is_v2_quoted(value):
        return "Arguments", v2_join(split_v2_raw(v2_unquote(value)))
    return "Args", " ".join(_split_v1_args(value))


def parse_environment(value: str) -> tuple[dict[str, str], bool]:
    """Variables of an ``environment`` value and whether it was V1 text."""
    env: dict[str, str] = {}
    if is_v2_quoted(value):
        entries, was_v1 = split_v2_raw(v2_unquote(value)), False
    else:
        entries = [e.strip(_WS) for e in value.split(";")]
        entries, was_v1 = [e for e in entries if e], True
    for entry in entries:
        name, eq, val = entry.partition("=")
        if not eq:
            raise ArgsError(f"ERROR: Missing '=' after environment variable '{name}'.")
        if not name:
            raise ArgsError(f"ERROR: missing variable in '{entry}'.")
        env[name] = val
    return env, was_v1


def import_environment(
    env: dict[str, str], getenv: str, submitter_env: Mapping[str, str], v1: bool
) -> None:
    """Add the submitter's variables that ``getenv`` selects, never overriding ``env``.

    ``getenv`` is true/false or a list of names (``*`` wildcards allowed). Values that
    cannot be written (a newline; a ``;`` when the output is V1) are left out.
    """
    lowered = getenv.strip(_WS).lower()
    if lowered == "false":
        return
    patterns = None if lowered == "true" else [p for p in getenv.replace(",", " ").split() if p]
    for name, val in submitter_env.items():
        if name in env or "\n" in val or (v1 and ";" in val):
            continue
        if patterns is None or any(fnmatch.fnmatchcase(name, p) for p in patterns):
            env[name] = val


def environment_attributes(env: dict[str, str], v1: bool) -> list[tuple[str, str]]:
    """(attribute, string value) pairs: ``Env`` + ``EnvDelim`` (V1) or ``Environment``."""
    names = sorted(env)
    if v1:
        return [("Env", ";".join(f"{n}={env[n]}" for n in names)), ("EnvDelim", ";")]
    return [("Environment", v2_join([f"{n}={env[n]}" for n in names]))]
