"""Macro expansion: ``$(NAME)``, ``$(NAME:default)``, ``$ENV(NAME)`` and the ``$FUNC()`` macros.

How this works
--------------
:meth:`Expander.expand` scans the text left to right.  ``$(NAME)`` is replaced
by the fully expanded value of NAME (looked up in the :class:`MacroSet`, with its
subsystem context), or by the default after the first ``:`` when NAME is
undefined or empty, or by nothing.  ``$(DOLLAR)`` gives a ``$``; ``$$(...)`` is
left alone (it is for submit files).  A ``$(`` whose name has characters that
cannot be in a knob name is not a macro and is copied as is, so
``$(A:$(B))`` expands the inner macro as part of the default.

The function macros follow HTCondor's ``evaluate_macro_func``: ``$ENV(NAME)``
(``UNDEFINED`` when unset), ``$INT()``, ``$REAL()``, ``$STRING()``, ``$EVAL()``,
``$SUBSTR()``, ``$CHOICE()``, ``$BASENAME()``, ``$DIRNAME()`` and ``$F<letters>()``.
``$RANDOM_CHOICE()`` and ``$RANDOM_INTEGER()`` are refused: a condorsim
configuration gives the same values on every run.

A value that refers back to itself through other names is an error (HTCondor
would loop); so is nesting deeper than :data:`MAX_DEPTH`.  Errors are raised as
:class:`ExpandError` and given a name and origin by the caller.

:meth:`Expander.expand_self` is the immediate expansion done when a value is set:
only references to the name being set are replaced, by its previous raw value,
so ``X = $(X) more`` appends (HTCondor's ``expand_self_macro``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._errors import ExpandError
from ._functions import INT_FORMAT, REAL_FORMAT, STRING_FORMAT, apply_format, filename_part
from ._macros import MacroSet
from ._typed import InvalidValue, evaluate, parse_double, parse_long, unparse

__all__ = ["MAX_DEPTH", "Expander"]

MAX_DEPTH = 64

_WORD = re.compile(r"[A-Za-z0-9_]*")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./")
_FILENAME_LETTERS = frozenset("pnxdqabfwu")
_SPECIALS = frozenset(
    {"ENV", "RANDOM_CHOICE", "RANDOM_INTEGER", "CHOICE", "SUBSTR", "INT", "REAL", "STRING",
     "EVAL", "BASENAME", "DIRNAME"}
)
def _parse_body(text: str, start: int) -> tuple[str, str | None, int] | None:
    """Parse ``NAME)`` or ``NAME:default)`` from ``start``; None if it is not a macro body."""
    n = len(text)
    i = start
    while i < n and text[i] in _NAME_CHARS:
        i += 1
    if i >= n:
        return None
    if text[i] == ")":
        return text[start:i], None, i + 1
    if text[i] != ":":
        return None
    depth = 0
    for j in range(i + 1, n):
        c = text[j]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return text[start:i], text[i + 1 : j], j + 1
            depth -= 1
    return None


def _matching_paren(text: str, open_at: int) -> int | None:
    depth = 0
    for j in range(open_at + 1, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            if depth == 0:
                return j
            depth -= 1
    return None


class Expander:
    """Expands macro references against a :class:`MacroSet`."""

    def __init__(self, macros: MacroSet) -> None:
        self.macros = macros

    # -- full expansion ------------------------------------------------------------

    def expand(self, text: str, stack: tuple[str, ...] = ()) -> str:
        """Expand every macro in ``text``; ``stack`` holds the names being expanded."""
        if "$" not in text:
            return text
        out: list[str] = []
        i, n = 0, len(text)
        while True:
            j = text.find("$", i)
            if j < 0:
                out.append(text[i:])
                return "".join(out)
            out.append(text[i:j])
            if j + 1 < n and text[j + 1] == "$":  # $$(...) is deferred to submit time
                end = _WORD.match(text, j + 2).end()  # type: ignore[union-attr]
                out.append(text[j:end])
                i = end
                continue
            word_end = _WORD.match(text, j + 1).end()  # type: ignore[union-attr]
            word = text[j + 1 : word_end]
            if word_end >= n or text[word_end] != "(" or not self._is_macro_word(word):
                out.append(text[j:word_end])
                i = word_end
                continue
            done = self._one(text, word, word_end, stack)
            if done is None:  # not a well-formed macro: copy the '$' and scan on
                out.append("$")
                i = j + 1
                continue
            out.append(done[0])
            i = done[1]

    @staticmethod
    def _is_macro_word(word: str) -> bool:
        if word == "" or word in _SPECIALS:
            return True
        return word[0] == "F" and all(c.lower() in _FILENAME_LETTERS for c in word[1:])

    def _one(self, text: str, word: str, paren: int, stack: tuple[str, ...]) -> tuple[str, int] | None:
        if word in ("", "ENV"):
            body = _parse_body(text, paren + 1)
            if body is None:
                return None
            name, default, end = body
            if word == "ENV":
                return self._env(name, default, stack), end
            return self._reference(name, default, stack), end
        close = _matching_paren(text, paren)
        if close is None:
            return None
        args = text[paren + 1 : close]
        if "$" in args:
            args = self.expand(args, stack)
        return self._function(word, args, stack), close + 1

    def _reference(self, name: str, default: str | None, stack: tuple[str, ...]) -> str:
        if name.upper() == "DOLLAR":
            return "$"
        found = self.macros.lookup(name)
        if found is None or found.raw == "":
            return self.expand(default, stack) if default is not None else ""
        return self._expand_found(found.key, found.raw, stack)

    def _expand_found(self, key: str, raw: str, stack: tuple[str, ...]) -> str:
        if key in stack:
            chain = " -> ".join((*stack[stack.index(key) :], key))
            raise ExpandError(f"macro expansion is recursive: {chain}")
        if len(stack) >= MAX_DEPTH:
            raise ExpandError(f"macro expansion is nested more than {MAX_DEPTH} deep")
        return self.expand(raw, (*stack, key))

    def _env(self, name: str, default: str | None, stack: tuple[str, ...]) -> str:
        value = self.macros.env.get(name)
        if value:
            return value
        if default is not None:
            return self.expand(default, stack)
        return "UNDEFINED" if value is None else ""

    def _lookup_or_literal(self, arg: str, stack: tuple[str, ...]) -> str:
        """A function argument: the expanded value of the macro it names, else the text itself."""
        arg = arg.strip()
        found = self.macros.lookup(arg) if arg else None
        if found is not None:
            return self._expand_found(found.key, found.raw, stack)
        return self.expand(arg, stack)

    # -- function macros -----------------------------------------------------------

    def _function(self, word: str, args: str, stack: tuple[str, ...]) -> str:
        handlers: dict[str, Callable[[str, tuple[str, ...]], str]] = {
            "INT": self._int,
            "REAL": self._real,
            "STRING": self._string,
            "EVAL": self._eval,
            "SUBSTR": self._substr,
            "CHOICE": self._choice,
        }
        if word in ("RANDOM_CHOICE", "RANDOM_INTEGER"):
            raise ExpandError(
                f"${word}() is not supported: a condorsim configuration must give the "
                "same values on every run"
            )
        handler = handlers.get(word)
        if handler is not None:
            return handler(args, stack)
        letters = {"BASENAME": "nx", "DIRNAME": "p"}.get(word, word[1:])
        return filename_part(letters, self._lookup_or_literal(args, stack))

    def _int(self, args: str, stack: tuple[str, ...]) -> str:
        name, _, fmt = args.partition(",")
        value = self._lookup_or_literal(name, stack)
        try:
            number = parse_long(value)
        except InvalidValue as exc:
            raise ExpandError(f"$INT() macro: {value!r} is not an integer: {exc.reason}") from None
        return apply_format(fmt, number, INT_FORMAT, "$INT()") if fmt else str(number)

    def _real(self, args: str, stack: tuple[str, ...]) -> str:
        name, _, fmt = args.partition(",")
        value = self._lookup_or_literal(name, stack)
        try:
            number = parse_double(value)
        except InvalidValue as exc:
            raise ExpandError(f"$REAL() macro: {value!r} is not a real: {exc.reason}") from None
        if not fmt:
            return f"{number:.16G}"
        text = apply_format(fmt, number, REAL_FORMAT, "$REAL()")
        return text if "." in text else text + ".0"

    def _string(self, args: str, stack: tuple[str, ...]) -> str:
        name, _, fmt = args.partition(",")
        value = self._lookup_or_literal(name, stack)
        try:
            result = evaluate(value)
            if type(result) is str:
                value = result
        except InvalidValue:
            pass
        return apply_format(fmt, value, STRING_FORMAT, "$STRING()") if fmt else value

    def _eval(self, args: str, stack: tuple[str, ...]) -> str:
        value = self._lookup_or_literal(args, stack)
        try:
            return unparse(evaluate(value))
        except InvalidValue:
            return value

    def _number_arg(self, arg: str, stack: tuple[str, ...], what: str) -> int:
        value = self._lookup_or_literal(arg, stack)
        try:
            return parse_long(value)
        except InvalidValue:
            raise ExpandError(f"{what}: '{value}' is not an integer") from None

    def _substr(self, args: str, stack: tuple[str, ...]) -> str:
        parts = args.split(",")
        if len(parts) < 2:
            raise ExpandError("$SUBSTR() macro: no start position given")
        value = self._lookup_or_literal(parts[0], stack)
        start = self._number_arg(parts[1], stack, "$SUBSTR() macro start")
        length = self._number_arg(parts[2], stack, "$SUBSTR() macro length") if len(parts) > 2 else None
        start = max(0, len(value) + start) if start < 0 else min(start, len(value))
        rest = value[start:]
        if length is None:
            return rest
        length = max(0, len(rest) + length) if length < 0 else min(length, len(rest))
        return rest[:length]

    def _choice(self, args: str, stack: tuple[str, ...]) -> str:
        parts = args.split(",")
        if len(parts) < 2:
            raise ExpandError("$CHOICE() macro: no list given")
        index = self._number_arg(parts[0], stack, "$CHOICE() macro index")
        items = [p.strip() for p in parts[1:]]
        if len(items) == 1:
            found = self.macros.lookup(items[0])
            if found is None:
                raise ExpandError(f"$CHOICE() macro: no list named {items[0]}")
            items = [p.strip() for p in self._expand_found(found.key, found.raw, stack).split(",")]
        if not 0 <= index < len(items):
            raise ExpandError(f"$CHOICE() macro: index {index} is out of range")
        return items[index]

    # -- self references (done when a value is set) ------------------------------------

    def expand_self(self, text: str, name: str) -> str:
        """Replace references to ``name`` (the knob being set) by its previous raw value."""
        if "$(" not in text:
            return text
        selves = self.macros.self_names(name)
        out: list[str] = []
        i = 0
        while True:
            j = text.find("$(", i)
            if j < 0:
                out.append(text[i:])
                return "".join(out)
            out.append(text[i:j])
            body = _parse_body(text, j + 2)
            if body is None or body[0].upper() not in selves or (j > 0 and text[j - 1] == "$"):
                out.append(text[j : j + 2])
                i = j + 2
                continue
            ref, default, end = body
            found = self.macros.lookup(ref)
            previous = found.raw if found is not None else ""
            out.append(previous if previous or default is None else default)
            i = end
