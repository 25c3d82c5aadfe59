"""Physical lines to submit statements.

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

``statements`` turns logical lines into ``Assign`` and ``Queue`` statements. Blank lines
and comments are skipped; ``+Attr`` becomes ``MY.Attr``. The item block of a
``queue ... in|from (`` statement that spans lines is read here too, because it is part
of the file's text; whether a block follows is decided by the caller (it depends on the
macro-expanded queue arguments), through the ``opens_block`` callback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ._errors import SubmitError

_SPACE = " \t\n\r\v\f"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./")


@dataclass(frozen=True)
class Assign:
    """``key = value``; ``key`` keeps the user's spelling (``+A`` is stored as ``MY.A``)."""

    key: str
    value: str
    line: int


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
    """The arguments of a queue statement (``queue`` then end or white space), else None."""
    if line[:5].lower() == "queue" and (len(line) == 5 or line[5] in _SPACE):
        return line[5:].strip(_SPACE)
    return None


def statements(
    text: str,
    source: str,
    on_assign: Callable[[Assign], None],
    opens_block: Callable[[str, int], bool],
) -> list[Statement]:
    """Parse submit text into statements.

    ``on_assign`` sees each assignment as it is read, so the caller can keep the macro
    table that queue arguments are expanded with. ``opens_block(args, line)`` is asked
    for each queue statement: True when its (expanded) arguments open a multi-line item
    list, which is then read up to the line that starts with ``)``.
    """
    out: list[Statement] = []
    lines = logical_lines(text)
    for number, line in lines:
        if not line.strip(_SPACE) or line.startswith("#"):
            continue
        args = queue_args(line)
        if args is not None:
            if opens_block(args, number):
                block: list[str] = []
                for _, item in lines:
                    item = item.strip(_SPACE)
                    if item.startswith("#"):
                        continue
                    if item.startswith(")"):
                        break
                    block.append(item)
                else:
                    raise SubmitError(
                        "Reached end of file without finding closing brace ')' for Queue "
                        f"command on line {number}",
                        source=source,
                        line=number,
                    )
                out.append(Queue(args, number, tuple(block), number + 1))
            else:
                out.append(Queue(args, number))
            continue
        assign = _assignment(line, number, source)
        on_assign(assign)
        out.append(assign)
    return out


_UNSUPPORTED = frozenset({"if", "elif", "else", "endif", "include", "use", "error", "warning"})


def _assignment(line: str, number: int, source: str) -> Assign:
    eq = line.find("=")
    words = line.replace(":", " ").split()
    word = words[0] if words else ""
    if word.lower() in _UNSUPPORTED and (eq < 0 or line[:eq].strip(_SPACE) != word):
        raise SubmitError(
            f"'{word}' statements are not supported by condorsim", source=source, line=number
        )
    if eq <= 0:
        raise SubmitError(
            f'syntax error: expected "name = value" or a queue statement, got "{line}"',
            source=source,
            line=number,
        )
    key = line[:eq].strip(_SPACE)
    value = line[eq + 1 :].lstrip(_SPACE)
    if key.startswith("+"):
        key = "MY." + key[1:]
    if not key or not all(ch in _NAME_CHARS for ch in key):
        raise SubmitError(
            f'syntax error: "{key}" is not a valid submit command name', source=source, line=number
        )
    return Assign(key, value, number)
