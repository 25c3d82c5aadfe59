"""Reading one TOML table of a scenario with checked types and precise messages.

How this works
--------------
An :class:`Entry` wraps one table of the file (``[scenario]``, the second
``[[action]]``, ...) with what is needed to complain about it: the file name, a
:class:`~condorsim.scenario._locate.Locator` for line numbers and the entry's label.
Its readers (``string``, ``integer``, ...) check a field's type and range and raise
:class:`ScenarioError` naming the file, line, entry and field; ``fail`` does the same
for checks made elsewhere. ``check_keys`` runs first, so a misspelt key is reported
as such ("did you mean 'attr'?") rather than as a missing field.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from ._errors import BadValue, ScenarioError
from ._locate import Locator
from ._times import type_name

__all__ = ["Entry", "FileContext", "did_you_mean"]


def did_you_mean(name: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string.

    ``cutoff`` is difflib's similarity ratio a choice must reach (a choice equal but
    for case always does).
    """
    options = list(choices)
    for choice in options:
        if choice.lower() == name.lower():
            return f" (did you mean '{choice}'?)"
    close = difflib.get_close_matches(name, options, n=1, cutoff=cutoff)
    return f" (did you mean '{close[0]}'?)" if close else ""


@dataclass(frozen=True)
class FileContext:
    """The file being read: its name in messages and where its lines are."""

    source: str
    locator: Locator

    def error(self, message: str, *, section: str = "", index: int = 0, key: str = "",
              where: str = "", field: str = "") -> ScenarioError:
        line = self.locator.line_of(section, index, key) if section or key else 0
        return ScenarioError(message, source=self.source, line=line, where=where, field=field)


class Entry:
    """One table of the scenario file, read field by field (see the module doc)."""

    def __init__(self, ctx: FileContext, section: str, index: int, data: dict[str, Any],
                 label: str) -> None:
        self.ctx = ctx
        self.section = section
        self.index = index
        self.data = data
        self.label = label

    def fail(self, key: str, message: str, *, field: str | None = None) -> NoReturn:
        """Raise a ScenarioError about field ``key`` (shown as ``field`` if given)."""
        raise self.ctx.error(message, section=self.section, index=self.index, key=key,
                             where=self.label, field=key if field is None else field)

    def check_keys(self, allowed: Iterable[str]) -> None:
        """Refuse keys not in ``allowed``, suggesting the closest allowed one."""
        names = list(allowed)
        for key in self.data:
            if key not in names:
                hint = did_you_mean(key, names)
                if not hint:
                    hint = f" (expected one of {', '.join(names)})"
                self.fail(key, f"unknown key '{key}'{hint}", field="")

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str) -> Any:
        return self.data.get(key)

    def require(self, key: str, what: str) -> None:
        """Refuse an entry without ``key``; ``what`` says what the key is for."""
        if key not in self.data:
            self.fail(key, f"missing (required: {what})")

    def string(self, key: str, default: str | None = None, *, empty: bool = False) -> str | None:
        """A string field (``default`` when absent); refuses "" unless ``empty``."""
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, str):
            self.fail(key, f"expected a string, found {type_name(value)}")
        if not empty and not value.strip():
            self.fail(key, "must not be empty")
        return value

    def integer(self, key: str, default: int, *, minimum: int | None = None) -> int:
        """An integer field, at least ``minimum``."""
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"expected an integer, found {type_name(value)}")
        if minimum is not None and value < minimum:
            self.fail(key, f"must be at least {minimum}, not {value}")
        return value

    def number(self, key: str, default: float, *, low: float, high: float | None) -> float:
        """A float (or integer) field within [low, high]; high None means no upper bound."""
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(key, f"expected a number, found {type_name(value)}")
        number = float(value)
        if not math.isfinite(number) or number < low or (high is not None and number > high):
            upper = f" and {high:g}" if high is not None else ""
            bound = f"between {low:g}{upper}" if high is not None else f"at least {low:g}"
            self.fail(key, f"must be {bound}, not {value}")
        return number

    def read_file(self, key: str, base_dir: Path) -> tuple[Path, bytes]:
        """The file field ``key`` names (relative to ``base_dir``) and its bytes."""
        name = self.string(key)
        assert name is not None
        if "\0" in name:
            self.fail(key, "a file name cannot contain a NUL character")
        path = (base_dir / name).resolve()
        try:
            return path, path.read_bytes()
        except FileNotFoundError:
            self.fail(key, f"no such file: {path}")
        except IsADirectoryError:
            self.fail(key, f"{path} is a directory, not a file")
        except OSError as err:
            self.fail(key, f"cannot read {path}: {err.strerror}")

    def convert(self, key: str, parse: Any, *args: Any, **kwargs: Any) -> Any:
        """``parse(value, *args)``, turning its BadValue into this entry's ScenarioError."""
        try:
            return parse(self.data[key], *args, **kwargs)
        except BadValue as bad:
            self.fail(key, bad.message)
