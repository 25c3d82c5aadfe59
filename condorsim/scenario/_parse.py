"""Scenario files: TOML text -> a checked :class:`Scenario`.

How this works
--------------
``tomllib`` reads the text; then every section is checked before anything runs:
the top level (known sections only, each of the right shape), ``[scenario]`` first
(the start time is needed to turn moments into epoch seconds), ``[config]``, each
array section in file order (``_sections``), and finally what spans sections:
unique machine names and site resources, moments inside the run, and submit
descriptions that condor_submit would accept (``_jobs``). The first problem found is
raised as a :class:`ScenarioError` naming the file, line, entry and field.
"""

from __future__ import annotations

import datetime as _dt
import re
import tomllib
import zoneinfo
from pathlib import Path
from typing import Any, Final, Literal

from ._errors import ScenarioError
from ._fields import Entry, FileContext, did_you_mean
from ._files import check_files, file_label, parse_file
from ._jobs import check_submits
from ._limits import (
    MAX_SIM_SEED,
    MAX_SIM_SLOTS,
    MAX_SIM_SPEED,
    MAX_SIM_START,
    limit_text,
)
from ._locate import Locator
from ._model import QUIET, Scenario, TimelineEntry
from ._routing import check_knob_values, check_routing
from ._sections import (
    at_text,
    entry_label,
    parse_action,
    parse_expect,
    parse_machine,
    parse_site,
    parse_submit,
    read_config_table,
)
from ._times import END, datetime_seconds, format_duration, parse_duration, type_name

__all__ = ["DEFAULT_START", "load_scenario", "load_toml", "parse_scenario", "read_text"]

DEFAULT_START: Final = int(_dt.datetime(2026, 1, 1, tzinfo=_dt.UTC).timestamp())
"""2026-01-01T00:00:00Z, the start when ``[scenario]`` gives none."""

_TABLES: Final = ("scenario", "config")
_ARRAYS: Final = ("machine", "site", "file", "submit", "action", "expect")
_HEADER_KEYS: Final = ("name", "description", "start", "timezone", "until", "max", "seed",
                       "clock", "speed")
_TOML_POSITION: Final = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def load_scenario(path: str | Path) -> Scenario:
    """Read and check the scenario file at ``path``; raises ScenarioError."""
    path = Path(path)
    return parse_scenario(read_text(path), source=str(path), base_dir=path.parent)


def read_text(path: Path, kind: str = "scenario") -> str:
    """The text of a ``kind`` file; a ScenarioError naming it when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such file", source=str(path)) from None
    except IsADirectoryError:
        raise ScenarioError(f"is a directory, not a {kind} file", source=str(path)) from None
    except UnicodeDecodeError:
        raise ScenarioError("is not UTF-8 text", source=str(path)) from None
    except OSError as err:
        raise ScenarioError(f"cannot be read ({err.strerror})", source=str(path)) from None


def parse_scenario(text: str, source: str = "<string>", base_dir: Path = Path(".")) -> Scenario:
    """Check the scenario ``text``; files it names are relative to ``base_dir``."""
    data = load_toml(text, source)
    ctx = FileContext(source, Locator(text))
    _check_top_level(ctx, data)
    header = _read_header(ctx, data["scenario"])
    start = header["start"]
    config, config_file = _read_config(ctx, data.get("config", {}), base_dir)

    def entries(section: str) -> list[Entry]:
        return [Entry(ctx, section, i, d,
                      file_label(i, d) if section == "file" else entry_label(section, i, d))
                for i, d in enumerate(data.get(section, []), start=1)]

    scenario = Scenario(
        **header,
        config=config,
        config_file=config_file,
        machines=tuple(parse_machine(e) for e in entries("machine")),
        sites=tuple(parse_site(e) for e in entries("site")),
        files=tuple(parse_file(e, base_dir) for e in entries("file")),
        submits=tuple(parse_submit(e, start, base_dir) for e in entries("submit")),
        actions=tuple(parse_action(e, start) for e in entries("action")),
        expects=tuple(parse_expect(e, start) for e in entries("expect")),
        source=source,
        base_dir=base_dir,
    )
    _check_total_slots(ctx, scenario)
    _check_unique_names(ctx, scenario)
    check_files(ctx, scenario.files)
    _check_moments(ctx, scenario)
    check_submits(ctx, scenario)
    check_knob_values(ctx, scenario)
    check_routing(ctx, scenario)
    return scenario


def load_toml(text: str, source: str) -> dict[str, Any]:
    """The TOML document ``text``; its syntax errors as a ScenarioError with the line."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ScenarioError("not valid TOML: arrays or tables nested too deeply",
                            source=source) from None
    except ValueError as err:
        if not isinstance(err, tomllib.TOMLDecodeError):  # int(): more than 4300 digits
            long = re.search(r"[0-9_]{4300,}", text)
            raise ScenarioError("not valid TOML: a number of more than 4300 digits",
                                source=source,
                                line=text.count("\n", 0, long.start()) + 1 if long else 0,
                                ) from None
        message = str(err)
        found = _TOML_POSITION.search(message)
        if found is None:
            raise ScenarioError(f"not valid TOML: {message}", source=source) from None
        raise ScenarioError(
            f"not valid TOML: {message[:found.start()]} (column {found.group(2)})",
            source=source, line=int(found.group(1)),
        ) from None


def _check_top_level(ctx: FileContext, data: dict[str, Any]) -> None:
    known = (*_TABLES, *_ARRAYS)
    for key, value in data.items():
        if key in known:
            continue
        if key in _HEADER_KEYS:
            raise ctx.error(f"'{key}' is before any section header: put it under [scenario]",
                            key=key)
        is_array = isinstance(value, list)
        shape = "[[{}]]" if is_array else "[{}]" if isinstance(value, dict) else "'{}'"
        close = did_you_mean(key, known)
        if close:
            best = close.split("'")[1]
            hint = f" (did you mean [{best}]?)" if best in _TABLES else \
                f" (did you mean [[{best}]]?)"
        else:
            hint = f" (expected {', '.join(known)})"
        raise ctx.error(f"unknown section {shape.format(key)}{hint}", section=key,
                        index=int(is_array), key=key)
    if "scenario" not in data:
        raise ctx.error('missing the [scenario] section (it needs at least name = "...")')
    for key in _TABLES:
        value = data.get(key, {})
        if isinstance(value, list):
            raise ctx.error(f"[{key}] must be a table: write [{key}], not [[{key}]]",
                            section=key, index=1, key=key)
        if not isinstance(value, dict):
            raise ctx.error(f"[{key}] must be a table, not {type_name(value)}", key=key)
    for key in _ARRAYS:
        value = data.get(key, [])
        if isinstance(value, dict):
            raise ctx.error(f"[[{key}]] must be an array of tables: write [[{key}]], "
                            f"not [{key}]", section=key, key=key)
        if not isinstance(value, list):
            raise ctx.error(f"[[{key}]] must be an array of tables, not {type_name(value)}",
                            key=key)
        for item in value:
            if not isinstance(item, dict):
                raise ctx.error(f"[[{key}]] must be an array of tables, not of "
                                f"{type_name(item).split(' ', 1)[1]}s", key=key)


def _read_header(ctx: FileContext, table: dict[str, Any]) -> dict[str, Any]:
    entry = Entry(ctx, "scenario", 0, table, "[scenario]")
    entry.check_keys(_HEADER_KEYS)
    entry.require("name", "the scenario's name, shown by replay")
    start = DEFAULT_START
    if entry.has("start"):
        raw = entry.raw("start")
        if isinstance(raw, _dt.datetime):
            start = entry.convert("start", datetime_seconds)
        elif isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
            start = raw
        else:
            entry.fail("start", "expected a datetime with an offset (start = "
                                f"2026-01-01T09:30:00Z) or epoch seconds, found "
                                f"{type_name(raw)}")
        if start >= MAX_SIM_START:
            entry.fail("start", f"{at_text(raw)} is not before 9000-01-01T00:00:00Z, the "
                                "simulator's limit (MAX_SIM_START)")
    timezone = entry.string("timezone", "UTC")
    assert timezone is not None
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        entry.fail("timezone", f"unknown time zone '{timezone}' (expected an IANA name "
                               'such as "UTC" or "America/Chicago")')
    until: int | Literal["quiet"] = QUIET
    if entry.has("until") and entry.raw("until") != QUIET:
        until = entry.convert("until", parse_duration)
        if until == 0:
            entry.fail("until", 'must be longer than 0s (or "quiet")')
    max_ = entry.convert("max", parse_duration) if entry.has("max") else 7 * 86400
    if max_ == 0:
        entry.fail("max", "must be longer than 0s")
    if until != QUIET and until > max_:
        entry.fail("until", f"{format_duration(until)} is longer than max "
                            f"({format_duration(max_)}); raise max too")
    clock = entry.string("clock", "virtual")
    if clock not in ("virtual", "wall"):
        entry.fail("clock", f"unknown clock '{clock}' (expected \"virtual\" or \"wall\")")
    if entry.has("speed") and clock != "wall":
        entry.fail("speed", 'only used with clock = "wall"')
    speed = entry.number("speed", 1.0, low=0.0, high=None)
    if speed <= 0:
        entry.fail("speed", f"must be more than 0, not {entry.raw('speed')}")
    if speed > MAX_SIM_SPEED:
        entry.fail("speed", f"{entry.raw('speed')} exceeds the limit of 1,000,000 simulated "
                            "seconds a second (MAX_SIM_SPEED)")
    seed = entry.integer("seed", 1, minimum=0)
    if seed > MAX_SIM_SEED:
        entry.fail("seed", limit_text("seed", seed, MAX_SIM_SEED, "(a 64-bit integer)",
                                      "MAX_SIM_SEED"))
    return {
        "name": entry.string("name"),
        "description": entry.string("description", "", empty=True),
        "start": start,
        "timezone": timezone,
        "until": until,
        "max": max_,
        "seed": seed,
        "clock": clock,
        "speed": speed,
    }


def _read_config(ctx: FileContext, table: dict[str, Any],
                 base_dir: Path) -> tuple[dict[str, str], Path | None]:
    entry = Entry(ctx, "config", 0, table, "[config]")
    knobs = dict(table)
    config_file: Path | None = None
    if "config_file" in knobs:
        del knobs["config_file"]
        name = entry.string("config_file")
        assert name is not None
        if "\0" in name:
            entry.fail("config_file", "a file name cannot contain a NUL character")
        config_file = (base_dir / name).resolve()
        if not config_file.is_file():
            entry.fail("config_file", f"no such file: {config_file}")
    return read_config_table(entry, knobs), config_file


def _check_total_slots(ctx: FileContext, scenario: Scenario) -> None:
    """Refuse machines whose slots add up to more than MAX_SIM_SLOTS (each entry alone was
    checked as it was read), naming the entry that passes it."""
    total = 0
    for machine in scenario.machines:
        total += machine.count * machine.slots
        if total > MAX_SIM_SLOTS:
            raise ctx.error(limit_text("slots of [[machine]] #1 to #" + str(machine.index),
                                       total, MAX_SIM_SLOTS, "slots", "MAX_SIM_SLOTS"),
                            section="machine", index=machine.index, key="count",
                            where=machine.label, field="count")


def _check_unique_names(ctx: FileContext, scenario: Scenario) -> None:
    owners: dict[str, int] = {}
    for machine in scenario.machines:
        for name in machine.machine_names():
            first = owners.setdefault(name.lower(), machine.index)
            if first != machine.index:
                raise ctx.error(f"machine name '{name}' is also made by [[machine]] #{first}",
                                section="machine", index=machine.index, key="name",
                                where=machine.label, field="name")
    resources: dict[str, int] = {}
    for site in scenario.sites:
        first = resources.setdefault(site.resource, site.index)
        if first != site.index:
            raise ctx.error(f"[[site]] #{first} has the same resource", section="site",
                            index=site.index, key="resource", where=site.label,
                            field="resource")
    for action in scenario.actions:
        if action.site is not None and action.site not in resources:
            known = ", ".join(f'"{r}"' for r in resources) or "none: add a [[site]]"
            raise ctx.error(f'no [[site]] has resource "{action.site}" (sites: {known})',
                            section="action", index=action.index, key="site",
                            where=action.label, field="site")


def _check_moments(ctx: FileContext, scenario: Scenario) -> None:
    entries: list[TimelineEntry] = [*scenario.submits, *scenario.actions, *scenario.expects]
    for entry in entries:
        if entry.at == END:
            continue
        assert isinstance(entry.at, int)
        offset = entry.at - scenario.start
        problem = ""
        if offset < 0:
            problem = f"is {format_duration(-offset)} before the scenario's start"
        elif scenario.until != QUIET and offset > scenario.until:
            problem = f"is after the run stops (until = {format_duration(scenario.until)})"
        elif offset > scenario.max:
            problem = f"is after the run's cap (max = {format_duration(scenario.max)})"
        if problem:
            raise ctx.error(f"{entry.at_text} {problem}", section=entry.kind,
                            index=entry.index, key="at", where=entry.label, field="at")

