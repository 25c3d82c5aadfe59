"""Writing TOML: the variant of a sweep is a scenario file again.

How this works
--------------
:func:`dumps` writes what :func:`tomllib.loads` reads back equal: a document whose top
level holds tables (``[scenario]``) and arrays of tables (``[[machine]]``), as scenario
files do, plus any plain values before them. Inside a table, a nested table or an array
is written inline (``attrs = { HasGPU = "true" }``). Strings of several lines that a
literal multi-line string can hold exactly are written as one (``'''`` on a line of its
own first, which TOML drops), so a submit description stays readable; every other string
is a basic string with JSON's escapes (which TOML shares), control characters spelled as
``\\uXXXX``. Keys are bare when TOML allows it, else quoted. Floats are written with ``repr`` (``inf``, ``nan``).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from typing import Any

__all__ = ["dumps"]

_LITERAL_OK = {"\n", "\t"}
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def dumps(document: dict[str, Any]) -> str:
    """The TOML text of ``document`` (a dict as tomllib gives)."""
    plain = [(k, v) for k, v in document.items() if not _is_table(v) and not _is_tables(v)]
    lines = [f"{_key(k)} = {_value(v)}" for k, v in plain]
    for key, value in document.items():
        if _is_table(value):
            lines += ["", f"[{_key(key)}]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in value.items()]
        elif _is_tables(value):
            for entry in value:
                lines += ["", f"[[{_key(key)}]]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in entry.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table(value: Any) -> bool:
    return isinstance(value, dict)


def _is_tables(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _basic(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _literal_block(value) if _fits_literal_block(value) else _basic(value)
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }" \
            if value else "{}"
    raise TypeError(f"cannot write a {type(value).__name__} as TOML")


def _basic(text: str) -> str:
    """A basic string: JSON's escapes are TOML's (JSON leaves DEL as it is: escaped here)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _fits_literal_block(text: str) -> bool:
    """Whether ``'''\\n`` + text + ``'''`` reads back as exactly ``text``."""
    if "\n" not in text or "'''" in text or text.endswith("'"):
        return False
    if "\r" in text:
        return False
    return all(c in _LITERAL_OK or (c >= " " and c != "\x7f") for c in text)


def _literal_block(text: str) -> str:
    return "'''\n" + text + "'''"
