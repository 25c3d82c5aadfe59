"""Best-effort line numbers for messages about a TOML file.

How this works
--------------
``tomllib`` gives values without positions, so :class:`Locator` scans the text once
for table headers (``[scenario]``, ``[[action]]``, ``[machine.attrs]``) and key lines
(``name = ...``), skipping the insides of multi-line strings. It counts the entries
of each array of tables, so ``line_of("action", 2, "do")`` finds the ``do =`` line of
the second ``[[action]]``. Anything it cannot find is line 0 (no line in the message):
a wrong line number would be worse than none.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["Locator"]

_HEADER: Final = re.compile(r"\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY: Final = re.compile(r"""\s*([A-Za-z0-9_\-]+|"[^"]*"|'[^']*')\s*(?:\.|=)""")


def _bare(name: str) -> str:
    return name[1:-1] if name[:1] in "\"'" else name


class Locator:
    """Where headers and keys are in a TOML text (see the module doc)."""

    def __init__(self, text: str) -> None:
        self._headers: dict[tuple[str, int], int] = {}
        self._keys: dict[tuple[str, int, str], int] = {}
        counts: dict[str, int] = {}
        section, index = "", 0
        closing: str | None = None  # the delimiter of the multi-line string we are in
        for number, line in enumerate(text.splitlines(), start=1):
            if closing is not None:
                if line.count(closing) % 2 == 1:
                    closing = None
                continue
            header = _HEADER.match(line)
            if header is not None and "=" not in line.split("]")[0]:
                path = [_bare(p.strip()) for p in header.group(2).split(".")]
                if header.group(1) == "[[":
                    counts[path[0]] = counts.get(path[0], 0) + 1
                section = path[0]
                index = counts.get(section, 0)
                if len(path) == 1:
                    self._headers.setdefault((section, index), number)
                else:
                    self._keys.setdefault((section, index, path[1]), number)
                continue
            key = _KEY.match(line)
            if key is not None:
                self._keys.setdefault((section, index, _bare(key.group(1))), number)
            for delim in ('"""', "'''"):
                if line.count(delim) % 2 == 1:
                    closing = delim
                    break

    def line_of(self, section: str, index: int = 0, key: str = "") -> int:
        """The line of ``key`` in entry ``index`` of ``section`` (else of its header), or 0.

        ``index`` is 1-based for arrays of tables and 0 for plain tables.
        """
        if key:
            found = self._keys.get((section, index, key))
            if found is not None:
                return found
        return self._headers.get((section, index), 0)
