"""Reading the local configuration sources named by LOCAL_CONFIG_DIR and LOCAL_CONFIG_FILE.

How this works
--------------
After the main file, as ``real_config`` / ``process_locals`` /
``process_directory`` do: the files of each ``LOCAL_CONFIG_DIR`` directory, sorted,
minus those whose names match ``LOCAL_CONFIG_DIR_EXCLUDE_REGEXP``; then each file
of ``LOCAL_CONFIG_FILE`` in order (when a local file changes that list, the new
list is read, minus the files already read); then ``LOCAL_CONFIG_DIR`` again if its
value changed.  A missing file is an error unless ``REQUIRE_LOCAL_CONFIG_FILE`` is
false; a missing directory is skipped.  Relative names are taken relative to the
file that set the list.  A command (``|``) is refused.
"""

from __future__ import annotations

import re
from pathlib import Path

from ._errors import ConfigError, ExpandError
from ._lines import WHITESPACE
from ._macros import Resolved
from ._parser import Parser
from ._typed import InvalidValue, parse_boolean

__all__ = ["read_local_sources", "split_list"]

_LIST_SPLIT = re.compile(r"[\s,]+")


def split_list(value: str) -> list[str]:
    """Split a list value on commas and white space, as HTCondor's StringList does."""
    return [item for item in _LIST_SPLIT.split(value) if item]


def _value_now(parser: Parser, name: str) -> tuple[str, Resolved] | None:
    found = parser.macros.lookup(name)
    if found is None:
        return None
    try:
        value = parser.expander.expand(found.raw, (found.key,))
    except ExpandError as exc:
        raise ConfigError(f"{found.name}: {exc}", found.origin) from None
    return (value, found) if value.strip(WHITESPACE) else None


def _relative_to(found: Resolved, fallback: Path) -> Path:
    if found.origin.line is not None and Path(found.origin.source).is_file():
        return Path(found.origin.source).parent
    return fallback


def _required(parser: Parser) -> bool:
    setting = _value_now(parser, "REQUIRE_LOCAL_CONFIG_FILE")
    if setting is None:
        return True
    text = setting[0].strip(WHITESPACE).lower()
    if text in ("yes", "t", "no", "f"):  # param_boolean_crufty accepts these too
        return text in ("yes", "t")
    try:
        return parse_boolean(text)
    except InvalidValue as exc:
        raise ConfigError(
            f"REQUIRE_LOCAL_CONFIG_FILE = {setting[0]!r} is not a boolean: {exc.reason}",
            setting[1].origin,
        ) from None


def read_local_sources(parser: Parser, base: Path) -> None:
    """Read LOCAL_CONFIG_DIR, LOCAL_CONFIG_FILE and LOCAL_CONFIG_DIR again if it changed."""
    dirs_before = _value_now(parser, "LOCAL_CONFIG_DIR")
    if dirs_before is not None:
        _read_directories(parser, dirs_before, base)
    _read_local_files(parser, base)
    dirs_after = _value_now(parser, "LOCAL_CONFIG_DIR")
    if dirs_after is not None and (dirs_before is None or dirs_after[0] != dirs_before[0]):
        _read_directories(parser, dirs_after, base)


def _read_local_files(parser: Parser, base: Path) -> None:
    setting = _value_now(parser, "LOCAL_CONFIG_FILE")
    if setting is None:
        return
    value, found = setting
    if "|" in value:
        raise ConfigError(
            "LOCAL_CONFIG_FILE names a command (|); condorsim does not run programs to "
            "build its configuration",
            found.origin,
        )
    todo, done = split_list(value), []
    while todo:
        item = todo.pop(0)
        path = _relative_to(found, base) / item
        if path.exists() or _required(parser):
            parser.parse_file(path, depth=1, origin=found.origin)
        done.append(item)
        changed = _value_now(parser, "LOCAL_CONFIG_FILE")
        if changed is not None and changed[0] != value:
            value, found = changed
            todo = [i for i in split_list(value) if i not in done]


def _read_directories(parser: Parser, setting: tuple[str, Resolved], base: Path) -> None:
    value, found = setting
    exclude = _value_now(parser, "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")
    try:
        pattern = re.compile(exclude[0]) if exclude is not None else None
    except re.error as exc:
        assert exclude is not None
        raise ConfigError(
            f"LOCAL_CONFIG_DIR_EXCLUDE_REGEXP is not a valid regular expression: {exc}",
            exclude[1].origin,
        ) from None
    for item in split_list(value):
        directory = _relative_to(found, base) / item
        try:
            entries = sorted(str(p) for p in directory.iterdir() if not p.is_dir())
        except (OSError, ValueError):
            continue  # HTCondor logs "Cannot open" and goes on
        for entry in entries:
            if pattern is not None and pattern.search(Path(entry).name):
                continue
            if Path(entry).exists() or _required(parser):
                parser.parse_file(Path(entry), depth=1, origin=found.origin)
