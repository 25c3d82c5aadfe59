"""Where an axis reaches into the base scenario, what values it takes, and how a value is
written into the scenario's TOML document.

How this works
--------------
The base scenario is kept as the document ``tomllib`` read (a dict), not as a checked
:class:`~condorsim.scenario.Scenario`: a variant is that document with each axis's value
written in (:func:`apply`), then written out as TOML and checked as any scenario file,
so defaults that follow a field (``cpus`` follows ``slots``) follow it in the variant too.

:data:`FIELDS` says which fields of each target an axis may vary and what each takes;
:func:`check_value` checks one value; :func:`check_entry` finds the entry an axis names
in the base document (and refuses what cannot be varied, such as a ``queue`` statement
that is not ``queue N``). Both raise :class:`~condorsim.scenario.BadValue`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Final

from condorsim.scenario import BadValue, config_text, flatten_config, parse_duration, type_name

__all__ = ["FIELDS", "apply", "check_entry", "check_value", "prepare_base"]

Check = Callable[[Any], None]


def _integer(low: int) -> Check:
    def check(value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadValue(f"expected an integer, found {type_name(value)}")
        if value < low:
            raise BadValue(f"must be at least {low}, not {value}")
    return check


def _duration(value: Any) -> None:
    parse_duration(value)


def _until(value: Any) -> None:
    if value != "quiet" and parse_duration(value) == 0:
        raise BadValue('must be longer than 0s (or "quiet")')


def _positive_duration(value: Any) -> None:
    if parse_duration(value) == 0:
        raise BadValue("must be longer than 0s")


def _rate(value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValue(f"expected a number, found {type_name(value)}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise BadValue(f"must be between 0 and 1, not {value}")


def _knob_value(value: Any) -> None:
    config_text(value)


# target -> field -> the check of one value (None: any field, each value a knob's value)
FIELDS: Final[dict[str, dict[str, Check] | None]] = {
    "knob": None,
    "route": None,
    "scenario": {"seed": _integer(0), "until": _until, "max": _positive_duration},
    "machine": {f: _integer(1) for f in ("count", "slots", "cpus", "memory", "disk")},
    "site": {"slots": _integer(1), "start_delay": _duration, "failure_rate": _rate},
    "submit": {"queue": _integer(1)},
}

_QUEUE: Final = re.compile(r"^([ \t]*queue)\b(.*)$", re.IGNORECASE | re.MULTILINE)
_MACRO_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def check_value(target: str, field: str, value: Any) -> None:
    """Refuse a value the target's field cannot take."""
    fields = FIELDS[target]
    if isinstance(value, list | dict):
        raise BadValue(f"expected a number, a boolean or a string, found {type_name(value)}")
    (fields[field] if fields is not None else _knob_value)(value)


def check_field(target: str, field: str) -> None:
    """Refuse a field the target has not (or cannot vary)."""
    fields = FIELDS[target]
    if fields is None:
        if not _MACRO_NAME.fullmatch(field):
            raise BadValue(f"'{field}' is not a {'knob' if target == 'knob' else 'macro'} "
                           "name (letters, digits, '_' and '.')")
        return
    if field not in fields:
        raise BadValue(f"a {target} axis varies one of {', '.join(fields)}, not '{field}'")


def _knob_key(config: dict[str, Any], name: str) -> str | None:
    """The flattened name of the knob ``name`` in a [config] table (any case), or None."""
    return next((k for k, _ in flatten_config(config) if k.upper() == name.upper()), None)


def check_entry(base: dict[str, Any], target: str, entry: str | int | None) -> None:
    """Refuse an axis whose entry the base scenario has not, or cannot have varied."""
    if target == "machine":
        names = [m.get("name", "exec") for m in base.get("machine", [])]
        if entry not in names:
            known = ", ".join(f'"{n}"' for n in names) or "none"
            raise BadValue(f'the scenario has no [[machine]] named "{entry}" (machines: '
                           f"{known})")
    elif target == "site":
        resources = [s.get("resource") for s in base.get("site", [])]
        if entry not in resources:
            known = ", ".join(f'"{r}"' for r in resources) or "none"
            raise BadValue(f'the scenario has no [[site]] with resource "{entry}" (sites: '
                           f"{known})")
    elif target == "submit":
        submits = base.get("submit", [])
        assert isinstance(entry, int)
        if not 1 <= entry <= len(submits):
            raise BadValue(f"the scenario has no [[submit]] #{entry} (it has {len(submits)})")
        _queue_line(submits[entry - 1]["text"])
    elif target == "route":
        assert isinstance(entry, str)
        knob = f"JOB_ROUTER_ROUTE_{entry}"
        key = _knob_key(base.get("config", {}), knob)
        if key is None:
            raise BadValue(f"the scenario's [config] has no {knob} (a route of a "
                           "config_file cannot be varied: vary a knob it names instead)")
        text = str(dict(flatten_config(base["config"]))[key])
        if text.lstrip().startswith(("[", "/*")):
            raise BadValue(f"{knob} is in the old ClassAd syntax; an axis varies routes in "
                           "the transform syntax (`condorsim transform_ads "
                           "-convertoldroutes` translates it)")


def _queue_line(text: str) -> re.Match[str]:
    found = list(_QUEUE.finditer(text))
    if len(found) != 1:
        raise BadValue(f"its submit description has {len(found)} queue statements; an axis "
                       "varies the N of a description with one `queue N`")
    rest = found[0].group(2).strip()
    if rest and not rest.isdigit():
        raise BadValue(f"its queue statement is `queue {rest}`; an axis varies the N of "
                       "`queue N` only")
    return found[0]


def prepare_base(base: dict[str, Any], read: Callable[[str], str],
                 resolve: Callable[[str], str]) -> dict[str, Any]:
    """The base document made independent of where it was read: each submit ``file`` read
    in as ``text`` (``read``), a ``[[file]]``'s ``file`` and ``config_file`` made absolute
    (``resolve``)."""
    for submit in base.get("submit", []):
        if "file" in submit:
            submit["text"] = read(submit.pop("file"))
    for entry in base.get("file", []):
        if isinstance(entry.get("file"), str):
            entry["file"] = resolve(entry["file"])
    config = base.get("config", {})
    if isinstance(config.get("config_file"), str):
        config["config_file"] = resolve(config["config_file"])
    return base


def apply(doc: dict[str, Any], target: str, entry: str | int | None, field: str,
          value: Any) -> None:
    """Write ``value`` into the scenario document ``doc`` (checked by check_entry)."""
    if target == "scenario":
        doc.setdefault("scenario", {})[field] = value
    elif target == "machine":
        next(m for m in doc["machine"] if m.get("name", "exec") == entry)[field] = value
    elif target == "site":
        next(s for s in doc["site"] if s.get("resource") == entry)[field] = value
    elif target == "submit":
        assert isinstance(entry, int)
        submit = doc["submit"][entry - 1]
        line = _queue_line(submit["text"])
        text = submit["text"]
        submit["text"] = f"{text[:line.start()]}{line.group(1)} {value}{text[line.end():]}"
    elif target == "knob":
        _set_knob(doc.setdefault("config", {}), field, value)
    else:
        config = doc["config"]
        knob = _knob_key(config, f"JOB_ROUTER_ROUTE_{entry}")
        assert knob is not None
        route = str(dict(flatten_config(config))[knob])
        _set_knob(config, knob, _set_macro(route, field, config_text(value)))


def _set_knob(config: dict[str, Any], name: str, value: Any) -> None:
    """Set a knob, first removing it under any spelling or nesting (SCHEDD.X as a table)."""
    _remove_knob(config, name.upper(), "")
    config[name] = value


def _remove_knob(table: dict[str, Any], upper: str, prefix: str) -> None:
    for key in list(table):
        value = table[key]
        if isinstance(value, dict):
            _remove_knob(value, upper, f"{prefix}{key}.")
            if not value:
                del table[key]
        elif f"{prefix}{key}".upper() == upper:
            del table[key]


def _set_macro(route: str, name: str, value: str) -> str:
    """The route's text with ``name = value``: each line that sets the macro rewritten
    (wherever it stands, an ``if`` block included), or the line added first."""
    line = re.compile(rf"^([ \t]*){re.escape(name)}[ \t]*=.*$", re.IGNORECASE | re.MULTILINE)
    if line.search(route):
        return line.sub(lambda m: f"{m.group(1)}{name} = {value}", route)
    return f"{name} = {value}\n{route.lstrip(chr(10))}"
