"""The knob defaults table: every knob condorsim honours, read from ``config/knobs.toml``.

How this works
--------------
``config/knobs.toml`` has one table per knob::

    [SCHEDD_INTERVAL]
    default = "300"          # "" means: no default (HTCondor's empty param_info.in entry)
    type = "int"             # int, float, bool, string, expr, list
    meaning = "..."          # one line
    source = "..."           # where the default comes from (param_info.in, code, docs)
    min = 1                  # optional range, checked by Config.get_int / get_float

A name may be a template with ``<Placeholder>`` parts, e.g.
``STARTD_CRON_<Job>_PERIOD`` or ``SLOT<N>_JOB_HOOK_KEYWORD``: :func:`find_knob`
matches concrete names against them (``<N>`` is digits, any other placeholder a
word).  Template defaults are documentation only; :class:`Config` uses only the
defaults of exactly named knobs, as HTCondor's param table does.

:data:`KNOBS` maps names case-insensitively, as HTCondor compares knob names.

Every daemon process loads the table as it starts, and parsing 300 TOML tables cost each
about 30 ms of CPU (with tomllib's import). So the checked rows are also kept, like
bytecode, in ``__pycache__/knobs.toml.<python tag>.marshal`` beside this module, with the
text they came from and this module's own source (which checks and builds them): a cache
whose texts differ from today's is ignored, and the table parsed. It is written when Python may write bytecode, and by ``make bytecode``
(:func:`write_table_cache`).
"""

from __future__ import annotations

import marshal
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

from ._errors import ConfigError

__all__ = [
    "KNOBS", "KNOB_TYPES", "KnobInfo", "KnobTable", "find_knob", "load_knob_table",
    "write_table_cache",
]

KNOB_TYPES = frozenset({"int", "float", "bool", "string", "expr", "list"})

_TABLE_FILE = "knobs.toml"
_PLACEHOLDER = re.compile(r"<([A-Za-z]+)>")


@dataclass(frozen=True, slots=True)
class KnobInfo:
    """One row of the knob table.  ``default`` is None when HTCondor has no default."""

    name: str
    default: str | None
    type: str
    meaning: str
    source: str
    minimum: float | None = None
    maximum: float | None = None

    @property
    def is_template(self) -> bool:
        """True for a name pattern such as ``STARTD_CRON_<Job>_PERIOD``."""
        return "<" in self.name


class KnobTable(Mapping[str, KnobInfo]):
    """Knobs by name, case-insensitively; iteration yields the table's spelling."""

    def __init__(self, knobs: list[KnobInfo]) -> None:
        self.rows = tuple(knobs)  # as given, for write_table_cache
        self._by_key: dict[str, KnobInfo] = {}
        for knob in knobs:
            self._by_key[knob.name.upper()] = knob
        # compiled on the first find() that needs them: sixty case-blind regexes are a
        # daemon's 10 ms, and a daemon looks its knobs up by their exact names
        self._templates: list[tuple[re.Pattern[str], KnobInfo]] | None = None

    def __getitem__(self, name: str) -> KnobInfo:
        return self._by_key[name.upper()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.upper() in self._by_key

    def __iter__(self) -> Iterator[str]:
        return (k.name for k in self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def find(self, name: str) -> KnobInfo | None:
        """The entry for ``name``: an exact entry, else the first matching template.

        A name with a subsystem or local-name prefix (``SCHEDD.SCHEDD_INTERVAL``)
        is found by the part after the last dot.
        """
        exact = self._by_key.get(name.upper())
        if exact is not None:
            return exact
        if self._templates is None:
            self._templates = [(_template_regex(k.name), k) for k in self.rows if k.is_template]
        for regex, knob in self._templates:
            if regex.fullmatch(name):
                return knob
        if "." in name:
            return self.find(name.rsplit(".", 1)[1])
        return None


def _template_regex(name: str) -> re.Pattern[str]:
    parts: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(name):
        parts.append(re.escape(name[pos : m.start()]))
        parts.append(r"[0-9]+" if m.group(1) == "N" else r"[A-Za-z0-9_]+?")
        pos = m.end()
    parts.append(re.escape(name[pos:]))
    return re.compile("".join(parts), re.IGNORECASE)


def _table_text() -> tuple[str, str]:
    """The table's text and its path, from the source tree or the installed package."""
    repo_copy = Path(__file__).resolve().parents[2] / "config" / _TABLE_FILE
    if repo_copy.is_file():
        return repo_copy.read_text(encoding="utf-8"), str(repo_copy)
    from importlib import resources

    packaged = resources.files("condorsim").joinpath(_TABLE_FILE)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8"), str(packaged)
    raise ConfigError(f"the knob table {_TABLE_FILE} was not found next to the package")


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: min/max must be numbers")
    return float(value)


def load_knob_table(text: str, source: str = _TABLE_FILE) -> KnobTable:
    """Parse the TOML knob table; every entry needs default, type, meaning and source."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    knobs: list[KnobInfo] = []
    for name, row in data.items():
        where = f"{source}: [{name}]"
        if not isinstance(row, dict):
            raise ConfigError(f"{where}: expected a table")
        missing = [k for k in ("default", "type", "meaning", "source") if k not in row]
        if missing:
            raise ConfigError(f"{where}: missing {', '.join(missing)}")
        unknown = sorted(set(row) - {"default", "type", "meaning", "source", "min", "max"})
        if unknown:
            raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}")
        if not all(isinstance(row[k], str) for k in ("default", "type", "meaning", "source")):
            raise ConfigError(f"{where}: default, type, meaning and source must be strings")
        if row["type"] not in KNOB_TYPES:
            raise ConfigError(f"{where}: type must be one of {', '.join(sorted(KNOB_TYPES))}")
        knobs.append(
            KnobInfo(
                name=name,
                default=row["default"] or None,
                type=row["type"],
                meaning=row["meaning"],
                source=row["source"],
                minimum=_number(row.get("min"), where),
                maximum=_number(row.get("max"), where),
            )
        )
    return KnobTable(knobs)


def _cache_path() -> Path:
    return (Path(__file__).parent / "__pycache__"
            / f"{_TABLE_FILE}.{sys.implementation.cache_tag}.marshal")


def _code() -> str:
    """This module's source: a cache made by other code than today's is not used."""
    try:
        return Path(__file__).read_text(encoding="utf-8")
    except OSError:
        return ""


def _cached_table(text: str) -> KnobTable | None:
    """The table kept for ``text`` by :func:`write_table_cache`, or None (no cache, another
    text or code, or a file that is not one)."""
    try:
        kept_code, kept_text, rows = marshal.loads(_cache_path().read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if kept_text != text or not kept_code or kept_code != _code():
        return None
    try:
        return KnobTable([KnobInfo(*row) for row in rows])
    except TypeError:
        return None


def write_table_cache(table: KnobTable | None = None, text: str | None = None) -> None:
    """Keep the checked rows of the knob table (of ``text``, by default the table file's)
    for the next process; a directory that cannot be written is left alone."""
    if text is None or table is None:
        text, source = _table_text()
        if _cached_table(text) is not None:
            return  # up to date
        table = load_knob_table(text, source)
    rows = [astuple(knob) for knob in table.rows]
    path = _cache_path()
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps((_code(), text, rows)))
        tmp.replace(path)
    except OSError:
        pass


def _load_table() -> KnobTable:
    text, source = _table_text()
    table = _cached_table(text)
    if table is None:
        table = load_knob_table(text, source)
        if not sys.dont_write_bytecode:
            write_table_cache(table, text)
    return table


KNOBS: KnobTable = _load_table()


def find_knob(name: str) -> KnobInfo | None:
    """The table entry that covers ``name`` (exact or template), or None."""
    return KNOBS.find(name)
