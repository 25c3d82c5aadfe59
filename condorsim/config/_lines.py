"""Splitting configuration text into logical lines: trimming, comments and ``\\`` continuations.

How this works
--------------
Each physical line is trimmed of leading and trailing white space (as HTCondor's
``getline_implementation`` does).  A line ending in a backslash continues on the
next line: the backslash is removed and the next (trimmed) line is appended
directly, so ``A = x \\`` followed by ``y`` gives ``A = x y``.  A comment line
(first character ``#``) never continues, even when it ends in a backslash.  A
comment line met *inside* a continuation is dropped and the continuation goes on,
as the HTCondor manual documents (see docs/config.md for how the C++ code differs).

Each logical line is yielded with the number of its first physical line.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["WHITESPACE", "keyword", "logical_lines"]

WHITESPACE = " \t\n\r\v\f"


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every logical line, comments and blanks included."""
    physical = text.split("\n")
    count = len(physical)
    i = 0
    while i < count:
        number = i + 1
        line = physical[i].strip(WHITESPACE)
        i += 1
        if line.startswith("#"):
            yield number, line
            continue
        parts: list[str] = []
        while line.endswith("\\"):
            parts.append(line[:-1])
            line = ""
            while i < count:
                following = physical[i].strip(WHITESPACE)
                i += 1
                if not following.startswith("#"):
                    line = following
                    break
        parts.append(line)
        yield number, "".join(parts)


def keyword(line: str, word: str) -> str | None:
    """The rest of ``line`` when it starts with the keyword ``word``, else None."""
    if line[: len(word)].lower() == word and (len(line) == len(word) or line[len(word)] in WHITESPACE):
        return line[len(word) :].strip(WHITESPACE)
    return None
