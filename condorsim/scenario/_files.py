"""Reading ``[[file]]``: files the replay writes into the run directory before the pool
starts (a site's hooks, their data).

How this works
--------------
:func:`parse_file` checks one entry: ``path`` (relative to the run directory, and it
may not leave it: no absolute path, no ``..`` that climbs out, not the directory itself,
not the ``condor_config``, ``trace.jsonl`` or ``result.json`` the replay writes), exactly
one of ``text`` (the content) and ``file`` (a file relative to the scenario file, read now, as bytes),
and ``executable`` (mode 0755; default false, 0644). :func:`check_files` then refuses two
entries for the same path and a path that another entry needs as a directory.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Final

from ._fields import Entry, FileContext
from ._model import FileSpec

__all__ = ["check_files", "file_label", "parse_file"]

RESERVED: Final = ("condor_config", "trace.jsonl", "result.json")
"""Files of the run directory that the replay itself writes."""


def file_label(index: int, data: dict[str, object]) -> str:
    path = data.get("path")
    return f'[[file]] #{index} (path "{path}")' if isinstance(path, str) else f"[[file]] #{index}"


def _clean_path(entry: Entry, raw: str) -> str:
    if "\\" in raw or "\0" in raw:
        entry.fail("path", f"'{raw}' is not a portable relative path (no backslash, no NUL)")
    if raw.startswith("/") or raw.startswith("~"):
        entry.fail("path", f"'{raw}' is absolute: give a path relative to the run directory")
    clean = posixpath.normpath(raw)
    if clean == ".." or clean.startswith("../"):
        entry.fail("path", f"'{raw}' leaves the run directory")
    if clean in (".", ""):
        entry.fail("path", f"'{raw}' is the run directory itself: name a file in it")
    if clean in RESERVED:
        entry.fail("path", f"'{raw}' is written by the replay itself")
    return clean


def parse_file(entry: Entry, base_dir: Path) -> FileSpec:
    """A ``[[file]]`` entry; a ``file`` source is read now, relative to ``base_dir``."""
    entry.check_keys(("path", "text", "file", "executable"))
    entry.require("path", 'where to write it, relative to the run directory, e.g. '
                          '"hooks/fetch.sh"')
    raw = entry.string("path")
    assert raw is not None
    path = _clean_path(entry, raw)
    has_text, has_file = entry.has("text"), entry.has("file")
    if has_text == has_file:
        entry.fail("text" if has_text else "",
                   "give either text (the content) or file, not both" if has_text
                   else "missing the content: give text = '''...''' or file = \"name\"",
                   field="" if not has_text else "text")
    source: Path | None = None
    if has_file:
        source, content = entry.read_file("file", base_dir)
    else:
        text = entry.string("text", empty=True)
        assert text is not None
        content = text.encode("utf-8")
    executable = entry.raw("executable") if entry.has("executable") else False
    if not isinstance(executable, bool):
        entry.fail("executable", "expected true or false (mode 0755 or 0644)")
    return FileSpec(index=entry.index, path=path, content=content, executable=executable,
                    source_file=source)


def check_files(ctx: FileContext, files: tuple[FileSpec, ...]) -> None:
    """Refuse two entries for one path, and a file where another entry needs a directory."""
    owners: dict[str, FileSpec] = {}
    for spec in files:
        first = owners.setdefault(spec.path, spec)
        if first is not spec:
            raise ctx.error(f"[[file]] #{first.index} writes the same path",
                            section="file", index=spec.index, key="path", where=spec.label,
                            field="path")
    for spec in files:
        parts = spec.path.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            other = owners.get(parent)
            if other is not None:
                raise ctx.error(f"'{parent}' is a file of [[file]] #{other.index}, so it "
                                "cannot be a directory here", section="file",
                                index=spec.index, key="path", where=spec.label, field="path")
