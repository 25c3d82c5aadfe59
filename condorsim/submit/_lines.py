"""Physical lines to logical lines, and the statements a submit file is read into.

How this works
--------------
``logical_lines`` joins continued lines exactly as HTCondor's config reader does for a
submit file (``getline_implementation`` with the options submit uses):

* every physical line is trimmed of trailing white space, and of leading white space
  when it continues a previous line;
* a line that ends in ``\\`` continues onto the next; the backslash is removed and the
  white space before it is kept (``a \\`` + ``b`` is ``a b``, ``a\\`` + ``b`` is ``ab``);
* a comment line (``#`` first) does not continue even if it ends in ``\\``;
* a comment line *inside* a continuation is reduced to its last character (HTCondor's
  off-by-one: ``a \\`` + ``# c`` is ``a c``, and ``#x \\`` keeps the continuation going).

The reader (``_reader``) turns logical lines into ``Assign`` and ``Queue`` statements;
``queue_args`` recognises a queue statement (``queue`` or HTCondor's alternate word
``iterate``, which may be shortened to ``iter``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

_SPACE = " \t\n\r\v\f"


@dataclass(frozen=True)
class Assign:
    """``key = value``; ``key`` keeps the user's spelling (``+A`` is stored as ``MY.A``).

    ``source`` names an included file (None: the description itself); ``raw`` values
    are stored as written (``+A``/``-A``), others have their references to ``key``
    replaced by its previous value."""

    key: str
    value: str
    line: int
    source: str | None = None
    raw: bool = False


@dataclass(frozen=True)
class Queue:
    """A queue statement: its raw (unexpanded) arguments and any multi-line item block."""

    args: str
    line: int
    block: tuple[str, ...] | None = None
    block_line: int = 0


Statement = Assign | Queue


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(first physical line number, logical line)`` with continuations joined."""
    buf = ""
    first = 0
    continuing = False
    for number, raw in enumerate(text.split("\n"), start=1):
        piece = raw.rstrip(_SPACE).lstrip(_SPACE)
        in_comment = piece.startswith("#")
        if continuing and in_comment:
            piece = piece[-1:]
            in_comment = False
        if not continuing:
            first = number
        buf += piece
        if buf.endswith("\\"):
            buf = buf[:-1]
            if not in_comment:
                continuing = True
                continue
        yield first, buf
        buf = ""
        continuing = False
    if continuing and buf:
        yield first, buf


def queue_args(line: str) -> str | None:
    """The arguments of a queue statement, else None (``is_queue_statement``): ``queue``
    then the end or white space, or a first word that is ``iterate`` shortened to at
    least ``iter``."""
    if line[:5].lower() == "queue" and (len(line) == 5 or line[5] in _SPACE):
        return line[5:].strip(_SPACE)
    word = line.lstrip(" \t\r\n").split(maxsplit=1)
    if word and 4 <= len(word[0]) <= 7 and "iterate".startswith(word[0].lower()):
        return word[1].strip(_SPACE) if len(word) > 1 else ""
    return None
