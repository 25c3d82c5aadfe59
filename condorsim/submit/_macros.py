"""Submit macros: the table of submit commands and ``$(...)`` expansion.

How this works
--------------
``MacroTable`` holds the submit commands seen so far, keyed without regard to case
(the first spelling of a key is kept, the last value wins), plus two layers HTCondor
keeps beside them: *live* values that override the user's (``$(Cluster)``,
``$(Process)`` and the queue loop variables) and *defaults* the user may override
(``$(ClusterId)``, ``$(ProcId)``, ``$(Step)``, ``$(Row)``, ``$(ItemIndex)``, ``$(ARCH)``...).

``expand`` substitutes the leftmost macro and scans again from the start, as
HTCondor's ``expand_macro`` does, so a macro may build the name of another
(``$($(x)d)``). Recognised forms:

* ``$(name)`` and ``$(name:default)`` -- an unknown name expands to the default, or to "";
* ``$ENV(name)`` and ``$ENV(name:default)`` -- an unset variable gives ``UNDEFINED``;
* ``$F<opts>(body)`` with opts among ``p n x d q a b f w u`` -- parts of a file name (of
  the body itself when it is not a macro; see ``_filemacro``);
* ``$(DOLLAR)`` -- a literal ``$``, put in after every other macro is expanded;
* the macro functions ``$INT()``, ``$REAL()``, ``$STRING()``, ``$EVAL()``, ``$SUBSTR()``,
  ``$CHOICE()``, ``$RANDOM_CHOICE()``, ``$RANDOM_INTEGER()``, ``$BASENAME()`` and
  ``$DIRNAME()``, computed by :mod:`condorsim.macro_functions` (random ones from the
  table's seeded ``rng``).

``$$(...)`` is left untouched for the schedd; so is anything else that looks like a
macro but is not one of these (``$(ENV(X))``, ``$(a b)``, ``$UNKNOWN(x)``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from condorsim import macro_functions

from ._filemacro import FILE_OPTIONS, file_part

_ID = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./")
_PREFIX = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_MAX_SUBSTITUTIONS = 10000
_MAX_DEPTH = 20
_MAX_LENGTH = 1 << 20


class MacroError(Exception):
    """Expansion that cannot finish (a macro that refers to itself without end)."""


@dataclass
class MacroTable:
    """Submit commands (``user``), live values and defaults, all keyed by lower-case name."""

    user: dict[str, tuple[str, str]] = field(default_factory=dict)
    live: dict[str, str] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    """The directory ``$Ff(...)`` makes names absolute against (the job's Iwd, once known)."""
    used: set[str] = field(default_factory=set)
    """Lower-cased names looked up as commands or referred to by a macro (for the
    unused-line warnings of condor_submit)."""
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    """The source of ``$RANDOM_CHOICE()`` / ``$RANDOM_INTEGER()`` (seeded: same text, same jobs)."""
    trace: set[str] | None = None
    """When a set: every lower-cased name looked up (live, user or default) is added to it,
    and ``$volatile`` when ``$RANDOM_*()`` or ``$EVAL()`` is called -- what one proc's ad depended
    on (condor_submit's per-proc expansion is skipped for later procs that depend on no
    per-proc value)."""

    def call_function(self, word: str, body: str) -> str:
        """The value of the macro function ``$word(body)``; MacroError when it fails."""
        if self.trace is not None and (word.upper().startswith("RANDOM") or
                                       word.upper() == "EVAL"):
            self.trace.add("$volatile")
        try:
            return macro_functions.evaluate(word, body, self, rng=self.rng,
                                            cwd=self.cwd or os.getcwd())
        except macro_functions.MacroFunctionError as exc:
            raise MacroError(str(exc)) from None

    def set(self, key: str, value: str, expand_self: bool = True) -> None:
        """Assign a submit command. A reference to itself takes the previous value: as
        written for ``$(key)``, expanded now for ``$F(key)`` (as HTCondor does);
        ``expand_self=False`` stores the value as written (``+Attr``)."""
        lower = key.lower()
        old = self.user.get(lower)
        if expand_self and _refers_to(value, lower):
            value = _substitute_self(value, lower, old[1] if old else None, self)
        self.user[lower] = (old[0] if old else key, value)

    def raw(self, key: str) -> str | None:
        """The unexpanded value a name has for macro lookups (live, then user, then default)."""
        lower = key.lower()
        self.used.add(lower)
        if self.trace is not None:
            self.trace.add(lower)
        if lower in self.live:
            return self.live[lower]
        if lower in self.user:
            return self.user[lower][1]
        return self.defaults.get(lower)

    def param(self, key: str, alt: str | None = None) -> str | None:
        """A submit command's expanded value, or None when unset or empty (``submit_param``:
        ``alt`` is looked up only when ``key`` has no value, not even a default)."""
        raw = self.raw(key)
        if raw is None and alt is not None:
            raw = self.raw(alt)
        if raw is None:
            return None
        value = self.expand(raw)
        return value or None

    def user_value(self, key: str) -> str | None:
        """The raw value of a submit command the user (or a live variable) set."""
        lower = key.lower()
        if self.trace is not None:
            self.trace.add(lower)
        if lower in self.live:
            return self.live[lower]
        entry = self.user.get(lower)
        return entry[1] if entry else None

    def expand(self, text: str, depth: int = 0) -> str:
        """Expand every macro in ``text``; raises MacroError on a runaway expansion."""
        original = text
        if depth < _MAX_DEPTH:
            for _ in range(_MAX_SUBSTITUTIONS):
                found = _find_macro(text, dollar=False)
                if found is None:
                    return _replace_dollars(text)
                start, end, replacement = found(self, depth)
                text = text[:start] + replacement + text[end:]
                if len(text) > _MAX_LENGTH:
                    break
        raise MacroError(f"macro expansion does not terminate in: {original[:200]}")


class _Found:
    """A macro located in a text; calling it with a table (and the
    nesting depth of ``$F`` expansions) gives (start, end, replacement)."""

    __slots__ = ("default", "end", "kind", "name", "opts", "start")

    def __init__(
        self, kind: str, start: int, end: int, name: str, default: str | None, opts: str = ""
    ) -> None:
        self.kind, self.start, self.end = kind, start, end
        self.name, self.default, self.opts = name, default, opts

    def __call__(self, table: MacroTable, depth: int) -> tuple[int, int, str]:
        if self.kind == "env":
            value = table.env.get(self.name)
            if value is None:
                value = self.default if self.default is not None else "UNDEFINED"
            return self.start, self.end, value
        if self.kind == "function":
            return self.start, self.end, table.call_function(self.opts, self.name)
        raw = table.raw(self.name)
        if self.kind == "file":
            # $F of a name that is not a macro works on the name itself.
            path = self.name if raw is None else raw
            if "$" in path:
                path = table.expand(path, depth + 1)
            return self.start, self.end, file_part(path, self.opts, table.cwd)
        if raw is None or (raw == "" and self.default is not None):
            raw = self.default or ""
        return self.start, self.end, raw


def _replace_dollars(text: str) -> str:
    """The last step of expansion: each ``$(DOLLAR)`` becomes ``$``, leftmost first and
    scanning again from the start (so ``$(DOLLAR)$(DOLLAR)`` ends as ``$$(DOLLAR)``)."""
    for _ in range(_MAX_SUBSTITUTIONS):
        found = _find_macro(text, dollar=True)
        if found is None:
            return text
        text = text[: found.start] + "$" + text[found.end :]
    return text


def _find_macro(text: str, dollar: bool) -> _Found | None:
    """The leftmost macro: ``$(DOLLAR)`` only when ``dollar``, any other one otherwise."""
    i = text.find("$")
    while i >= 0:
        nxt = text[i + 1 : i + 2]
        if nxt == "$":
            # $$(...) belongs to the schedd: skip it whole.
            close = _close_paren(text, i + 2) if text[i + 2 : i + 3] == "(" else -1
            i = text.find("$", close + 1 if close > 0 else i + 2)
            continue
        found = _macro_at(text, i)
        if found is not None:
            is_dollar = found.kind == "plain" and found.name.lower() == "dollar"
            if is_dollar == dollar:
                return found
            i = text.find("$", found.end if is_dollar else i + 1)
            continue
        i = text.find("$", i + 1)
    return None


def _macro_at(text: str, i: int) -> _Found | None:
    rest = text[i + 1 :]
    if rest.startswith("("):
        return _named(text, i, i + 2, "plain")
    if rest[:4].upper() == "ENV(":
        return _named(text, i, i + 5, "env")
    if rest[:1] == "F":
        # $F<options>(body): the body is anything up to the first ")".
        j = i + 2
        while j < len(text) and text[j] in _PREFIX:
            j += 1
        close = text.find(")", j) if text[j : j + 1] == "(" else -1
        if close > 0 and all(ch in FILE_OPTIONS for ch in text[i + 2 : j]):
            return _Found("file", i, close + 1, text[j + 1 : close], None, text[i + 2 : j])
    call = macro_functions.function_at(text, i)
    if call is not None:
        return _Found("function", i, call[2], call[1], None, call[0])
    return None


def _named(text: str, start: int, name_at: int, kind: str) -> _Found | None:
    j = name_at
    while j < len(text) and text[j] in _ID:
        j += 1
    if j == name_at:
        return None
    name = text[name_at:j]
    if text[j : j + 1] == ")":
        return _Found(kind, start, j + 1, name, None)
    if text[j : j + 1] == ":" and kind != "file":
        close = _close_paren(text, name_at - 1)
        if close > j:
            return _Found(kind, start, close + 1, name, text[j + 1 : close])
    return None


def _close_paren(text: str, open_at: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``open_at`` (nested parens count), or -1."""
    depth = 0
    for k in range(open_at, len(text)):
        ch = text[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _refers_to(value: str, lower_key: str) -> bool:
    low = value.lower()
    return f"({lower_key}" in low


def _substitute_self(value: str, lower_key: str, old: str | None, table: MacroTable) -> str:
    """Replace the macros that name ``lower_key`` (``$(key)``, ``$(key:default)``,
    ``$F..(key)``) by the previous value ``old`` (None: there was none).

    Scanning goes on from the start of each replacement, so a ``$`` it ends with can make
    a ``$$`` escape of what follows, as in HTCondor.
    """
    out = value
    start = 0
    for _ in range(_MAX_SUBSTITUTIONS):
        i = out.find("$", start)
        if i < 0:
            return out
        if out[i + 1 : i + 2] == "$":
            start = i + 2
            continue
        found = _macro_at(out, i)
        if found is None or found.kind in ("env", "function") or found.name.lower() != lower_key:
            start = i + 1
            continue
        if found.kind == "file":
            path = found.name if old is None else old
            if "$" in path:
                path = table.expand(path)
            replacement = file_part(path, found.opts, table.cwd)
        elif old:
            replacement = old
        else:
            replacement = found.default or ""
        out = out[:i] + replacement + out[found.end :]
        start = i
    raise MacroError(f"macro expansion does not terminate in: {value[:200]}")
