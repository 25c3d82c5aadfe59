"""``use CATEGORY : NAME[(args)], ...`` in a submit file: submit templates.

How this works
--------------
A submit file may ``use`` two tables of HTCondor's (the submit hash's own metaknob
tables, ``SubmitTemplateTables`` in submit_utils.cpp):

* ``STRICT`` -- built in: ``TRUE``, ``FALSE`` and ``HARSH`` set the
  ``SubmitWarnEmptyMatches`` family of commands;
* ``TEMPLATE`` -- the administrator's templates: every name listed in the config knob
  ``SUBMIT_TEMPLATE_NAMES`` with its text in ``SUBMIT_TEMPLATE_<name>``.

Names are looked up without regard to case. A name may take arguments in parentheses;
``$(1)``, ``$(2)``... in the template become the comma-separated arguments (trimmed),
``$(0)`` all of them, ``$(N?)`` 1 or 0 for whether argument N is non-empty, ``$(0#)``
their count, ``$(N+)`` (or ``$(N#)``) the arguments from N on, and ``$(N:default)``
falls back to ``default`` (``MetaKnobAndArgs`` and ``expand_meta_args`` in config.cpp).
The expanded text is then read as submit statements by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_STRICT = {
    "FALSE": "SubmitWarnEmptyMatches=false\nSubmitFailEmptyMatches=false\n"
    "SubmitWarnDuplicateMatches=false\nSubmitFailEmptyFields=false\nSubmitWarnEmptyFields=false",
    "TRUE": "SubmitWarnEmptyMatches=true\nSubmitFailEmptyMatches=true\n"
    "SubmitWarnDuplicateMatches=true\nSubmitFailEmptyFields=false\nSubmitWarnEmptyFields=true",
    "HARSH": "SubmitWarnEmptyMatches=true\nSubmitFailEmptyMatches=true\n"
    "SubmitWarnDuplicateMatches=true\nSubmitFailEmptyFields=true\nSubmitWarnEmptyFields=true",
}
_WS = " \t\n\r\v\f"
_META_ARG = re.compile(r"\$\((\d+)([?#+]?)(?::([^)]*))?\)")


class TemplateError(Exception):
    """A ``use`` line that names no known table or template."""


def template_table(category: str, config: Mapping[str, str]) -> dict[str, str] | None:
    """The templates of a category (upper-case names), or None when there is no such table."""
    upper = category.upper()
    if upper == "STRICT":
        return dict(_STRICT)
    if upper != "TEMPLATE":
        return None
    table: dict[str, str] = {}
    names = config.get("SUBMIT_TEMPLATE_NAMES", "")
    for name in names.replace(",", " ").split():
        if name.upper() == "NAMES":
            continue
        text = config.get(f"SUBMIT_TEMPLATE_{name.upper()}")
        if text is not None:
            table[name.upper()] = text
    return table


def _close_paren(text: str, start: int) -> int:
    """``find_close_brace`` for ``(`` at ``start``: nested ``()`` and ``[]`` count."""
    depth_stack = [")"]
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == depth_stack[-1]:
            depth_stack.pop()
            if not depth_stack:
                return i
        elif ch in "([":
            depth_stack.append(")" if ch == "(" else "]")
        i += 1
    return -1


def uses(rhs: str) -> list[tuple[str, str]]:
    """The (name, arguments) pairs of the right-hand side of a ``use`` line."""
    out: list[tuple[str, str]] = []
    p = 0
    n = len(rhs)
    while p < n:
        while p < n and (rhs[p] in _WS or rhs[p] == ","):
            p += 1
        e = p
        while e < n and rhs[e] not in _WS and rhs[e] not in ",(":
            e += 1
        if e == p:
            break
        name, args = rhs[p:e], ""
        p = e
        while p < n and rhs[p] in _WS:
            p += 1
        if rhs[p : p + 1] == "(":
            close = _close_paren(rhs, p)
            if close >= 0:
                args = rhs[p + 1 : close]
                p = close
            p += 1
            while p < n and rhs[p] in _WS:
                p += 1
        out.append((name, args))
    return out


def _tokens(args: str) -> list[str]:
    return [t.strip(_WS) for t in args.split(",") if t.strip(_WS)]


def _meta_value(match: re.Match[str], args: str) -> str:
    index = int(match.group(1))
    flag = match.group(2)
    default = match.group(3)
    tokens = _tokens(args)
    if index <= 0:
        value = str(len(tokens)) if flag in ("#", "+") else args
    elif flag in ("#", "+"):
        pieces = args.split(",")
        value = ",".join(pieces[index - 1 :]) if len(pieces) >= index else ""
        if not value.strip(_WS) and default is not None:
            value = default
    elif index <= len(tokens):
        value = tokens[index - 1]
    else:
        value = default if default is not None else ""
    value = value.strip(_WS)
    if flag == "?":
        return "1" if value else "0"
    return value


def expand_arguments(text: str, args: str) -> str:
    """Replace ``$(N)`` and its forms in a template by the ``use`` line's arguments."""
    for _ in range(10000):
        match = _META_ARG.search(text)
        if match is None:
            return text
        text = text[: match.start()] + _meta_value(match, args) + text[match.end() :]
    return text


def template_texts(category: str, rhs: str, config: Mapping[str, str]) -> list[str]:
    """The statement texts a ``use`` line brings in; raises TemplateError."""
    table = template_table(category, config)
    if table is None:
        raise TemplateError(f"use {category}: is not a known submit template category "
                            "(STRICT, TEMPLATE)")  # fmt: skip
    out = []
    for name, args in uses(rhs):
        text = table.get(name.upper())
        if text is None:
            raise TemplateError(f"use {category}: does not recognise {name}")
        out.append(expand_arguments(text, args) if args or _META_ARG.search(text) else text)
    return out
