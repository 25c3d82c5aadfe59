"""The queue statement: ``queue [N] [vars in|from|matching [qualifiers] items]``.

How this works
--------------
``parse_queue_args`` follows HTCondor's ``SubmitForeachArgs::parse_queue_args`` on the
macro-expanded arguments: it finds the first ``in``, ``from`` or ``matching`` word
(ended by white space or ``(``), reads the qualifiers after it (``files``, ``dirs``,
``any`` for matching; a ``[start:end:step]`` slice), then the items: ``(a b c)`` on one
line, ``(`` opening a block that ends at a line starting with ``)``, or the rest of the
line (a file name for ``from``). Walking back from the keyword it collects the loop
variable names; whatever is left in front is the count, a constant ClassAd expression.

``load_items`` produces the item list: ``in`` items are split on white space and
commas, ``from`` items are whole lines (of the block or of a file), ``matching`` items
are file names that match glob patterns (directories get a trailing ``/``).
``split_item`` gives each loop variable its field of an item: fields are separated by a
comma, space or tab, and the last variable takes the rest of the line.
"""

from __future__ import annotations

import dataclasses
import glob
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ._exprs import eval_int
from ._lines import logical_lines

_KEYWORDS = ("in", "from", "matching")
_C_SPACE = " \t\n\r\v\f"


def _space(ch: str) -> bool:
    return ch in _C_SPACE


def _digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _alpha(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


_QUALIFIERS = ("files", "dirs", "any")
_INT_MAX = 2**31 - 1


class QueueSyntaxError(Exception):
    """Queue arguments condor_submit cannot parse."""


@dataclass(frozen=True)
class Slice:
    """A python-style ``[start:end:step]`` item selection (only positive steps)."""

    start: int | None = None
    end: int | None = None
    step: int | None = None

    def selected(self, index: int, length: int) -> bool:
        start = 0 if self.start is None else (self.start + length if self.start < 0 else self.start)
        end = length if self.end is None else (self.end + length if self.end < 0 else self.end)
        if not start <= index < end:
            return False
        return self.step is None or (index - start) % self.step == 0


@dataclass
class QueueSpec:
    """A parsed queue statement."""

    count: int = 1
    variables: list[str] = field(default_factory=list)
    mode: str | None = None  # in | from | matching
    match: str = "any"  # any | files | dirs
    items: list[str] = field(default_factory=list)
    filename: str | None = None
    block: bool = False
    slice: Slice = field(default_factory=Slice)


def _scan_keyword(
    text: str, words: tuple[str, ...], start: int, first_only: bool
) -> tuple[int, int, str | None]:
    """Find a word of ``words`` ended by white space or ``(``: (word start, end, word).

    With ``first_only`` only the first word is looked at. Returns (-1, pos, None) when
    none is found (``pos`` is where scanning stopped)."""
    i = start
    n = len(text)
    while i < n:
        while i < n and (_space(text[i]) or text[i] == "("):
            i += 1
        j = i
        while j < n and not (_space(text[j]) or text[j] == "("):
            j += 1
        if j == i:
            break
        if j < n and text[i:j].lower() in words:
            return i, j, text[i:j].lower()
        if first_only:
            return -1, i, None
        i = j
    return -1, i, None


def _parse_slice(text: str) -> tuple[Slice, int]:
    """Parse ``[a:b:c]`` at the start of ``text``: (slice, characters used)."""
    close = text.find("]")
    if close < 0:
        raise QueueSyntaxError("Invalid [::] statement")
    parts = text[1:close].split(":")
    if len(parts) > 3:
        raise QueueSyntaxError("Invalid [::] statement")
    values: list[int | None] = []
    for part in parts:
        part = part.strip()
        if not part:
            values.append(None)
            continue
        try:
            values.append(int(part))
        except ValueError:
            raise QueueSyntaxError("Invalid [::] statement") from None
    values += [None] * (3 - len(values))
    if values[2] is not None and values[2] <= 0:
        raise QueueSyntaxError("Invalid [::] statement (only positive steps are supported)")
    return Slice(values[0], values[1], values[2]), close + 1


def split_list(text: str) -> list[str]:
    """Items of an ``in`` list: separated by white space and commas."""
    return [t for t in text.replace(",", " ").split() if t]


def parse_queue_args(args: str) -> QueueSpec:
    """Parse expanded queue arguments; raises QueueSyntaxError with HTCondor's wording."""
    text = args.strip()
    spec = QueueSpec()
    if not text:
        return spec
    kw_start, kw_end, mode = _scan_keyword(text, _KEYWORDS, 0, first_only=False)
    count_text = text
    if mode is not None:
        spec.mode = mode
        p = kw_end
        while True:
            while p < len(text) and _space(text[p]):
                p += 1
            if text[p : p + 1] == "(":
                break
            if text[p : p + 1] == "[":
                spec.slice, used = _parse_slice(text[p:])
                p += used
                continue
            _, q_end, qual = _scan_keyword(text, _QUALIFIERS, p, first_only=True)
            if qual is None:
                break
            if mode != "matching":
                raise QueueSyntaxError("Queue keyword conflict")
            spec.match = qual
            p = q_end
        _parse_items(spec, text[p:])
        spec.variables = _variables(text[:kw_start])
        count_text = text[:kw_start]
        count_text = count_text[: len(count_text) - len(_vars_suffix(count_text))]
    count_text = count_text.strip()
    if count_text:
        value = eval_int(count_text)
        if value is None:
            raise QueueSyntaxError("Invalid Queue count expression")
        if value < 0 or value >= _INT_MAX:
            raise QueueSyntaxError("Queue count out of range")
        spec.count = value
    if spec.mode is not None and not spec.variables:
        spec.variables = ["Item"]
    return spec


def _parse_items(spec: QueueSpec, rest: str) -> None:
    plist = rest.strip()
    one_line = False
    if plist.startswith("(") and plist.endswith(")") and len(plist) > 1:
        plist, one_line = plist[1:-1], True
    if plist.startswith("(") and not one_line:
        spec.block = True
        first = plist[1:].strip()
        if first:
            spec.items = [first] if spec.mode == "from" else split_list(first)
    elif spec.mode == "from":
        if one_line:
            spec.items = [plist.strip()]
        else:
            spec.filename = plist.strip()
    else:
        spec.items = split_list(plist)


def _vars_suffix(text: str) -> str:
    """The trailing part of ``text`` (before the keyword) that names loop variables."""
    end = len(text.rstrip())
    pt = end
    start = end
    while pt > 0:
        ch = text[pt - 1]
        if _digit(ch):
            pt -= 1
            while pt > 0 and _digit(text[pt - 1]):
                pt -= 1
            if pt == 0 or not _alpha(text[pt - 1]):
                break
            ch = text[pt - 1]
        if _space(ch) or _alpha(ch) or ch in ",_.":
            start = pt - 1
            pt -= 1
        else:
            break
    return text[start:]


def _variables(text: str) -> list[str]:
    return split_list(_vars_suffix(text))


def opens_block(args: str) -> bool:
    """True when the queue arguments open a multi-line item list."""
    try:
        return parse_queue_args(args).block
    except QueueSyntaxError:
        return False


@dataclass(frozen=True)
class MatchOptions:
    """How ``matching`` expands its patterns (the ``SubmitWarnEmptyMatches`` family)."""

    warn_empty: bool = True
    fail_empty: bool = False
    warn_dups: bool = True
    allow_dups: bool = False
    files: bool = True
    dirs: bool = True


def load_items(
    spec: QueueSpec,
    block: tuple[str, ...] | None,
    cwd: str,
    warn: Callable[[str], None],
    options: MatchOptions | None = None,
) -> list[str]:
    """The full item list of a queue statement (before slicing)."""
    items = list(spec.items)
    if spec.block and block is not None:
        for line in block:
            items.extend([line] if spec.mode == "from" else split_list(line))
    if spec.mode == "from" and spec.filename is not None:
        path = os.path.join(cwd, spec.filename)
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise QueueSyntaxError(
                f"Failed to open queue item file {spec.filename}: {reason}"
            ) from None
        if text.endswith("\n"):
            text = text[:-1]
        items.extend(line.strip() for _, line in logical_lines(text))
    if spec.mode == "matching":
        opts = options or MatchOptions()
        if spec.match == "files":
            opts = dataclasses.replace(opts, files=True, dirs=False)
        elif spec.match == "dirs":
            opts = dataclasses.replace(opts, files=False, dirs=True)
        elif spec.match == "any":
            opts = dataclasses.replace(opts, files=True, dirs=True)
        items = _match(items, opts, cwd, warn)
    return items


def _match(
    patterns: list[str], opts: MatchOptions, cwd: str, warn: Callable[[str], None]
) -> list[str]:
    """``submit_expand_globs``: the names each pattern matches (directories with a
    trailing ``/``), sorted per pattern, later duplicates skipped."""
    groups: list[tuple[str, list[str], int]] = []
    for pattern in patterns:
        names = [] if "\0" in pattern else sorted(glob.glob(pattern, root_dir=cwd))
        marked = [n + "/" if os.path.isdir(os.path.join(cwd, n)) else n for n in names]
        if not opts.dirs:
            count = sum(1 for n in marked if not n.endswith("/"))
        elif not opts.files:
            marked = [n for n in marked if n.endswith("/")]
            count = len(marked)
        else:
            count = len(marked)
        groups.append((pattern, sorted(marked), count))
    if opts.fail_empty and any(count == 0 for _, _, count in groups):
        empty = "".join(f"'{p}' " for p, _, count in groups if count == 0)
        raise QueueSyntaxError(f"no matches for pattern(s): {empty}")
    found: list[str] = []
    for index, (pattern, names, count) in enumerate(groups):
        # HTCondor warns while walking the matches, so only about an empty pattern that
        # some match comes after (never the first pattern).
        if index > 0 and count == 0 and opts.warn_empty and any(g[1] for g in groups[index:]):
            warn(f"'{pattern}' does not match any files")
        for name in names:
            if not opts.dirs and name.endswith("/"):
                continue
            if index > 0 and not opts.allow_dups:
                dup = next((earlier.index(name) for _, earlier, _ in groups[:index]
                            if name in earlier), None)  # fmt: skip
                if dup is not None:
                    if opts.warn_dups:
                        warn(f"'{name}' matching pattern '{pattern}' is a duplicate of item "
                             f"{dup}, skipping")  # fmt: skip
                    continue
            found.append(name)
    return found


def split_item(item: str, count: int) -> list[str]:
    """Fields of ``item`` for ``count`` loop variables.

    Each field ends at a comma, space or tab (the white space after it is skipped); the
    last variable takes the rest, and variables with no field left get "" (as the
    Python bindings and late materialization do; condor_submit's own loop leaves them
    at their previous value, see docs/submit.md).
    """
    fields: list[str] = []
    data: str | None = item
    for position in range(count):
        if data is None:
            fields.append("")
            continue
        if position == count - 1:
            fields.append(data)
            continue
        k = next((i for i, ch in enumerate(data) if ch in ", \t"), -1)
        if k < 0:
            fields.append(data)
            data = None
            continue
        fields.append(data[:k])
        data = data[k + 1 :].lstrip(" \t")
    return fields
