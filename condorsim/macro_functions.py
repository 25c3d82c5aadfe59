"""The macro functions of HTCondor's submit and transform languages: ``$INT()``, ``$CHOICE()`` ...

How this works
--------------
condor_submit and the transform language expand macros with the same routine (HTCondor's
``expand_macro`` in config.cpp); when it meets ``$WORD(`` for one of the function words
below, it hands the *body* (the text up to the first ``)``, nested parentheses are not
counted) to ``evaluate_macro_func``. This module is that function, pure:

* :func:`function_at` recognises a function call in a text (``$INT(``, ``$RANDOM_CHOICE(``,
  ``$F<letters>(`` ...; the words are case-sensitive, the ``F`` letters are not);
* :func:`evaluate` computes its value. The caller supplies a :class:`MacroSource` (how to
  look a macro name up, raw, and how to expand a text), a seeded :class:`random.Random`
  for ``$RANDOM_CHOICE()`` / ``$RANDOM_INTEGER()`` (never the global one), and, for the
  transform language, the ClassAd ``$EVAL()`` evaluates against.

An argument that names a macro is replaced by the macro's value, otherwise it is taken
literally (``$INT(x)`` and ``$INT(12)`` both work). Numbers are read as HTCondor's
``string_is_long_param`` reads them (a literal, else a ClassAd expression:
``$INT(1+2)`` is 3). A bad call raises :class:`MacroFunctionError` with HTCondor's message
(condor_submit prints it and exits with status 4). Where HTCondor crashes
(``$CHOICE()`` with an index past the end of the list) or prints memory
(``$INT(x,%d%d)``), a clear error is raised instead; docs/submit.md lists these.

``$ENV()`` and ``$(name)`` are not here: they are the expanders' own.
"""

from __future__ import annotations

import random
import re
from typing import Protocol

from condorsim.config._errors import ExpandError
from condorsim.config._functions import (
    INT_FORMAT,
    REAL_FORMAT,
    STRING_FORMAT,
    apply_format,
    filename_part,
)
from condorsim.config._typed import InvalidValue, parse_double, parse_long

__all__ = [
    "FUNCTION_WORDS",
    "MacroFunctionError",
    "MacroSource",
    "evaluate",
    "function_at",
]

FUNCTION_WORDS = frozenset(
    {"RANDOM_CHOICE", "RANDOM_INTEGER", "CHOICE", "SUBSTR", "INT", "REAL", "STRING", "EVAL",
     "BASENAME", "DIRNAME"}
)  # fmt: skip
"""The function words besides ``F<letters>`` (HTCondor's special macro table, minus ENV)."""

_FILENAME_LETTERS = frozenset("pnxdqabfwuPNXDQABFWU")
_WORD = re.compile(r"[A-Za-z0-9_]*")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_SNPRINTF_LIMIT = 55  # $INT/$REAL format into a 56-byte buffer


class MacroFunctionError(Exception):
    """A macro function that cannot be evaluated; the message is HTCondor's."""


class MacroSource(Protocol):
    """What a macro function needs from the expander that calls it."""

    def raw(self, key: str) -> str | None:
        """The unexpanded value of macro ``key``, or None when it is not defined."""

    def expand(self, text: str) -> str:
        """``text`` with every macro expanded."""


def function_at(text: str, i: int) -> tuple[str, str, int] | None:
    """``(word, body, end)`` when ``text[i:]`` starts a macro function call, else None.

    ``text[i]`` is a ``$``. The body runs to the first ``)`` (HTCondor does not count
    nested parentheses: ``$INT($(x))`` has the body ``$(x``); ``end`` is just after it.
    """
    m = _WORD.match(text, i + 1)
    assert m is not None
    word = m.group()
    j = m.end()
    if j >= len(text) or text[j] != "(" or not is_function_word(word):
        return None
    close = text.find(")", j + 1)
    if close < 0:
        return None
    return word, text[j + 1 : close], close + 1


def is_function_word(word: str) -> bool:
    """True for ``INT``, ``CHOICE`` ... and ``F`` followed by file-name letters."""
    if word in FUNCTION_WORDS:
        return True
    return word[:1] == "F" and all(c in _FILENAME_LETTERS for c in word[1:])


def evaluate(
    word: str,
    body: str,
    source: MacroSource,
    *,
    rng: random.Random,
    ad: object | None = None,
    cwd: str | None = None,
) -> str:
    """The value of ``$word(body)``. ``ad`` (a ClassAd) is what ``$EVAL()`` sees as MY;
    ``cwd`` is the directory ``$Ff()`` makes paths absolute against (None: left as is)."""
    if word == "RANDOM_CHOICE":
        return _random_choice(body, source, rng)
    if word == "RANDOM_INTEGER":
        return _random_integer(body, rng)
    if word == "CHOICE":
        return _choice(body, source)
    if word == "SUBSTR":
        return _substr(body, source)
    if word in ("INT", "REAL"):
        return _number(word, body, source)
    if word == "STRING":
        return _string(body, source)
    if word == "EVAL":
        return _eval(body, source, ad)
    letters = {"BASENAME": "nx", "DIRNAME": "p"}.get(word, word[1:])
    return _filename(letters, _arg(body, source), cwd)


# -- helpers ---------------------------------------------------------------------------------


def _split(text: str, seps: str = ", \t\r\n") -> list[str]:
    """HTCondor's ``split()``: tokens between any of ``seps``, trimmed, empty ones dropped."""
    pattern = "[" + re.escape(seps) + "]"
    return [t.strip() for t in re.split(pattern, text) if t.strip()]


def _arg(name: str, source: MacroSource) -> str:
    """A macro's value when ``name`` names one, else ``name`` itself; then expanded."""
    raw = source.raw(name)
    value = name if raw is None else raw
    return source.expand(value) if "$" in value else value


def _strtol(text: str) -> int | None:
    """C ``strtol`` as ``string_to_long`` uses it: leading digits, None when there are none."""
    m = re.match(r"[ \t\n\r\f\v]*([+-]?[0-9]+)", text)
    return int(m.group(1)) if m else None


def _long_param(text: str) -> int | None:
    try:
        return parse_long(text)
    except InvalidValue:
        return None


def _format(fmt: str, value: object, pattern: re.Pattern[str], message: str) -> str:
    try:
        return apply_format(fmt, value, pattern, "")
    except ExpandError:
        raise MacroFunctionError(message) from None


# -- the functions ---------------------------------------------------------------------------


def _random_choice(body: str, source: MacroSource, rng: random.Random) -> str:
    entries = _split(body, ",")
    if len(entries) == 1:
        raw = source.raw(entries[0])
        if raw is not None:  # a single argument that names a macro: the list is its value
            entries = _split(source.expand(raw) if "$" in raw else raw)
    if not entries:
        raise MacroFunctionError("$RANDOM_CHOICE() macro in config file empty!")
    return entries[rng.randrange(len(entries))]


def _random_integer(body: str, rng: random.Random) -> str:
    entries = _split(body, ",")
    low = _strtol(entries[0]) if entries else None
    if low is None:
        raise MacroFunctionError("$RANDOM_INTEGER() config macro: invalid min!")
    high = _strtol(entries[1]) if len(entries) > 1 else None
    if high is None:
        raise MacroFunctionError("$RANDOM_INTEGER() config macro: invalid max!")
    step = 1
    if len(entries) > 2:
        parsed = _strtol(entries[2])
        if parsed is None:
            raise MacroFunctionError("$RANDOM_INTEGER() config macro: invalid step!")
        step = parsed
    if step < 1:
        raise MacroFunctionError("$RANDOM_INTEGER() config macro: invalid step!")
    if low > high:
        raise MacroFunctionError("$RANDOM_INTEGER() config macro: min > max!")
    count = (step + high - low) // step
    return str(low + rng.randrange(count) * step)


def _choice(body: str, source: MacroSource) -> str:
    entries = [e.strip() for e in body.split(",") if e != ""]
    if len(entries) < 2:
        raise MacroFunctionError("$CHOICE() config macro: no index!")
    index_text = _arg(entries[0], source)
    index = _long_param(index_text)
    if index is None or index < 0 or index >= _INT_MAX:
        raise MacroFunctionError(f"$CHOICE() macro: {index_text} is invalid index!")
    items = entries[1:]
    if len(entries) == 2:
        raw = source.raw(items[0])
        if raw is None:
            raise MacroFunctionError(f'$CHOICE() macro: no list named "{items[0]}"!')
        items = _split(source.expand(raw) if "$" in raw else raw, ",")
    if index >= len(items):  # HTCondor reads past the end of its list (and crashes)
        raise MacroFunctionError(f"$CHOICE() config macro: index {index} is out of range!")
    return items[index]


def _substr(body: str, source: MacroSource) -> str:
    name, comma, rest = body.partition(",")
    if not comma:
        raise MacroFunctionError("$SUBSTR() macro: no length specified!")
    start_arg, comma, length_arg = rest.partition(",")
    start_text = _arg(start_arg, source)
    start = _long_param(start_text)
    if start is None or not _INT_MIN <= start < _INT_MAX:
        raise MacroFunctionError(f"$SUBSTR() macro: {start_text} is invalid start index!")
    length: int | None = None
    if comma:
        length_text = _arg(length_arg, source)
        length = _long_param(length_text)
        if length is None or not _INT_MIN <= length <= _INT_MAX:
            raise MacroFunctionError(f"$SUBSTR() macro: {length_text} is invalid length !")
    raw = source.raw(name)  # the string must be a macro: a literal gives ""
    if raw is None:
        return ""
    value = source.expand(raw) if "$" in raw else raw
    size = len(value)
    if start < 0:
        start = max(0, size + start)
    start = min(start, size)
    rest_len = size - start
    if length is None:
        length = rest_len
    elif length < 0:
        length = max(0, rest_len + length)
    return value[start : start + min(length, rest_len)]


def _number(word: str, body: str, source: MacroSource) -> str:
    name, comma, fmt = body.partition(",")
    pattern = INT_FORMAT if word == "INT" else REAL_FORMAT
    bad_format = f"${word}() macro: '{fmt}' is not a valid format specifier!"
    prints_garbage = False  # HTCondor takes a real's %c format and prints memory with it
    if comma:
        try:
            _format(fmt, 1 if word == "INT" else 1.0, pattern, bad_format)  # before the value
        except MacroFunctionError:
            if word == "INT" or not _prints_a_char(fmt):
                raise
            prints_garbage = True  # refused, as HTCondor would fail: after the value's check
    value = _arg(name, source)
    if word == "INT":
        number = _long_param(value)
        if number is None:
            raise MacroFunctionError(f"$INT() macro: {value} does not evaluate to an integer!")
        text = _format(fmt, _c_int(fmt, number), pattern, bad_format) if comma else str(number)
        return text.split("\0", 1)[0][:_SNPRINTF_LIMIT]  # C's string ends at a NUL (%c of 0)
    try:
        real = parse_double(value)
    except InvalidValue:
        raise MacroFunctionError(f"$REAL() macro: {value} does not evaluate to an real!") from None
    if prints_garbage:
        raise MacroFunctionError(bad_format)
    if not comma:
        return _c_general(real)[:_SNPRINTF_LIMIT]
    text = _format(fmt, real, pattern, bad_format)[:_SNPRINTF_LIMIT]
    return text if "." in text else text + ".0"


_INT_CONVERSION = re.compile(r"%[-+ #0]*[0-9]*(?:\.[0-9]+)?(hh|h|ll|l|q|j|z|t)?([diouxXc])")
_INT_BITS = {"hh": 8, "h": 16, "": 32}


def _c_int(fmt: str, number: int) -> int:
    """``number`` as C's ``printf`` reads it for ``fmt``: HTCondor passes a 64-bit value, so
    ``%d`` sees its low 32 bits (``%hd`` 16, ``%hhd`` and ``%c`` 8); ``%u``, ``%x``, ``%o``
    see it unsigned."""
    m = _INT_CONVERSION.search(fmt)
    if m is None:
        return number
    modifier, conversion = m.group(1) or "", m.group(2)
    bits = 8 if conversion == "c" else _INT_BITS.get(modifier, 64)
    value = number & ((1 << bits) - 1)
    if conversion in "di" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _prints_a_char(fmt: str) -> bool:
    """Whether ``fmt`` is an integer format whose conversion is ``%c``: HTCondor's check of a
    $REAL format lets it through and prints whatever memory the real's bytes point it at."""
    m = _INT_CONVERSION.search(fmt)
    if m is None or m.group(2) != "c":
        return False
    try:
        apply_format(fmt, 1, INT_FORMAT, "")
    except ExpandError:
        return False
    return True


def _c_general(value: float) -> str:
    """C's ``%.16G``."""
    return f"{value:.16G}"


def _string(body: str, source: MacroSource) -> str:
    name, comma, fmt = body.partition(",")
    bad_format = f"$STRING macro: '{fmt}' is not a valid format specifier!"
    if comma:
        _format(fmt, "", STRING_FORMAT, bad_format)
    value = _arg(name, source)
    evaluated = _evaluate_text(value, None)
    if type(evaluated) is str:
        value = evaluated
    return _format(fmt, value, STRING_FORMAT, bad_format) if comma else value


def _eval(body: str, source: MacroSource, ad: object | None) -> str:
    raw = source.raw(body)
    value = body if raw is None else raw
    expanded = source.expand(value) if "$" in value else None
    text = value if expanded is None else expanded
    result = _evaluate_text(text, ad)
    if result is _UNPARSABLE:
        return expanded or ""
    if type(result) is str:
        return result
    from condorsim.classad import unparse_value

    return unparse_value(result)


_UNPARSABLE = object()


def _evaluate_text(text: str, ad: object | None) -> object:
    """``text`` parsed as a ClassAd expression and evaluated (MY is ``ad``), or _UNPARSABLE."""
    from condorsim.classad import ClassAd, ClassAdError, parse_expr

    try:
        tree = parse_expr(text)
    except (ClassAdError, RecursionError):
        return _UNPARSABLE
    my = ad if isinstance(ad, ClassAd) else ClassAd()
    return tree.evaluate(my=my)


def _filename(letters: str, value: str, cwd: str | None) -> str:
    """``$F<letters>()``: config's file-name parts, plus ``f`` (full path against ``cwd``)."""
    if "f" in letters.lower():
        quoted = len(value) > 1 and value[0] == value[-1] and value[0] in "\"'"
        path = value[1:-1] if quoted else value
        if cwd and not path.startswith("/"):
            if len(path) > 2 and path.startswith("./"):
                path = path[2:]
            path = cwd.rstrip("/") + "/" + path
        value = path
    return filename_part(letters.replace("f", "").replace("F", ""), value)
