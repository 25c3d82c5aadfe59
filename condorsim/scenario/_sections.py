"""Reading the array sections: ``[[machine]]``, ``[[site]]``, ``[[submit]]``,
``[[action]]`` and ``[[expect]]``.

How this works
--------------
One function per section turns an :class:`Entry` into its frozen spec. Each first
refuses unknown keys, then reads every field with its type, range and default, then
checks how the fields go together (``text`` or ``file``; ``job`` or ``constraint``;
what each action needs). Moments become epoch seconds here; whether they fall inside
the run is checked once the whole file is read (``_parse``).
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any, Final

from ._errors import BadValue
from ._fields import Entry, did_you_mean
from ._limits import MACHINE_LIMITS, MAX_SIM_SLOTS, limit_text
from ._messages import MESSAGE_FIELDS, parse_message_fields
from ._model import ActionSpec, ExpectSpec, MachineSpec, SiteSpec, SubmitSpec
from ._names import ACTIONS, AD_TYPES, DAEMONS, EVENT_NAMES
from ._times import END, Moment, parse_duration, parse_moment, type_name
from ._values import (
    ATTRIBUTE_NAME,
    check_knob_name,
    config_text,
    expression_text,
    flatten_config,
    parse_job_id,
)

__all__ = ["at_text", "entry_label", "parse_action", "parse_expect", "parse_machine", "parse_site",
           "parse_submit", "read_config_table"]

_MACHINE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_OWNER: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")

# Which fields each action uses besides `at` and `do`; "target" is job or constraint.
_ACTION_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "hold": ("target", "reason"),
    "release": ("target",),
    "remove": ("target", "reason"),
    "qedit": ("target", "attr", "value"),
    "suspend": ("target",),
    "continue": ("target",),
    "vacate": ("target",),
    "reconfig": ("daemon", "config"),
    "kill": ("daemon",),
    "restart": ("daemon",),
    "site_down": ("site",),
    "site_up": ("site",),
}
_FIELD_OF: Final = {"job": "target", "constraint": "target", "reason": "reason",
                     "attr": "attr", "value": "value", "daemon": "daemon", "config": "config",
                     "site": "site"}


def at_text(raw: Any) -> str:
    """How a moment as written is shown in labels and results."""
    if isinstance(raw, _dt.datetime):
        return raw.isoformat().replace("+00:00", "Z")
    return str(raw)


def entry_label(section: str, index: int, data: dict[str, Any]) -> str:
    """``[[action]] #2 (at "10m")``, ``[[machine]] #1 (name "exec")`` ..."""
    key = {"machine": "name", "site": "resource"}.get(section, "at")
    value = data.get(key)
    if isinstance(value, str | int | _dt.datetime) and not isinstance(value, bool):
        return f'[[{section}]] #{index} ({key} "{at_text(value)}")'
    if key == "at" and section in ("submit", "expect"):
        return f'[[{section}]] #{index} (at "{"0s" if section == "submit" else END}")'
    return f"[[{section}]] #{index}"


def _moment(entry: Entry, start: int, default: str | None) -> tuple[Moment, str]:
    if not entry.has("at"):
        if default is None:
            entry.require("at", "when it happens, e.g. at = \"10m\"")
        assert default is not None
        return parse_moment(default, start), default
    moment: Moment = entry.convert("at", parse_moment, start)
    return moment, at_text(entry.raw("at"))


def _expression(entry: Entry, key: str, default: str | None = None) -> str | None:
    if not entry.has(key):
        return default
    text: str = entry.convert(key, expression_text)
    return text


def read_config_table(entry: Entry, table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Knob name -> config text, refusing bad names and names that differ only in case.

    ``prefix`` is how fields are named in messages (``"config."`` inside an action).
    """
    knobs: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name, value in flatten_config(table):
        locate = prefix.rstrip(".") or name.split(".")[0]
        try:
            check_knob_name(name)
            text = config_text(value)
        except BadValue as bad:
            entry.fail(locate, bad.message, field=prefix + name)
        other = seen.setdefault(name.upper(), name)
        if other != name:
            entry.fail(locate, f"'{other}' and '{name}' name the same knob "
                               "(knob names are case-insensitive)", field=prefix + name)
        knobs[name] = text
    return knobs


def parse_machine(entry: Entry) -> MachineSpec:
    """A ``[[machine]]`` entry."""
    entry.check_keys(("name", "count", "slots", "cpus", "memory", "disk", "start", "rank",
                      "attrs", "clock_offset"))
    name = entry.string("name", "exec")
    assert name is not None
    if not _MACHINE_NAME.fullmatch(name):
        entry.fail("name", f"'{name}' is not a machine name (letters, digits, '_', '-', '.')")
    slots = entry.integer("slots", 1, minimum=1)
    count = entry.integer("count", 1, minimum=1)
    if count * slots > MAX_SIM_SLOTS:
        entry.fail("count" if entry.has("count") else "slots",
                   limit_text(f"machines x slots = {count:,} x {slots:,}", count * slots,
                              MAX_SIM_SLOTS, "slots", "MAX_SIM_SLOTS"))
    for key in ("cpus", "memory", "disk"):
        amount = entry.raw(key)
        if type(amount) is int and 0 <= amount < slots:
            entry.fail(key, f"{amount} cannot be split over {slots} slots "
                            "(each slot needs at least 1)")
        most, unit, limit = MACHINE_LIMITS[key]
        if type(amount) is int and amount > most:
            entry.fail(key, limit_text(key, amount, most, f"{unit} per machine", limit))
    attrs: dict[str, str] = {}
    if entry.has("attrs"):
        table = entry.raw("attrs")
        if not isinstance(table, dict):
            entry.fail("attrs", f"expected a table (attrs = {{ Name = \"expr\" }}), "
                                f"found {type_name(table)}")
        for attr, value in table.items():
            field = f"attrs.{attr}"
            if not ATTRIBUTE_NAME.fullmatch(attr):
                entry.fail("attrs", f"'{attr}' is not a ClassAd attribute name", field=field)
            try:
                attrs[attr] = expression_text(value)
            except BadValue as bad:
                entry.fail("attrs", bad.message, field=field)
    spec = MachineSpec(
        index=entry.index,
        name=name,
        count=count,
        slots=slots,
        cpus=entry.integer("cpus", slots, minimum=slots),
        memory=entry.integer("memory", 1024 * slots, minimum=slots),
        disk=entry.integer("disk", 10485760 * slots, minimum=slots),
        start=_expression(entry, "start", "TRUE") or "TRUE",
        rank=_expression(entry, "rank", "0") or "0",
        attrs=attrs,
        clock_offset=entry.convert("clock_offset", parse_duration, signed=True)
        if entry.has("clock_offset") else 0,
    )
    return spec


def parse_site(entry: Entry) -> SiteSpec:
    """A ``[[site]]`` entry."""
    entry.check_keys(("resource", "slots", "start_delay", "failure_rate"))
    entry.require("resource", 'the GridResource its jobs name, e.g. "batch slurm"')
    resource = entry.string("resource")
    assert resource is not None
    return SiteSpec(
        index=entry.index,
        resource=resource,
        slots=_site_slots(entry),
        start_delay=entry.convert("start_delay", parse_duration)
        if entry.has("start_delay") else 0,
        failure_rate=entry.number("failure_rate", 0.0, low=0.0, high=1.0),
    )


def _site_slots(entry: Entry) -> int:
    slots = entry.integer("slots", 1, minimum=1)
    if slots > MAX_SIM_SLOTS:
        entry.fail("slots", limit_text("slots", slots, MAX_SIM_SLOTS, "slots", "MAX_SIM_SLOTS"))
    return slots


def parse_submit(entry: Entry, start: int, base_dir: Path) -> SubmitSpec:
    """A ``[[submit]]`` entry; a ``file`` is read now, relative to ``base_dir``."""
    entry.check_keys(("at", "owner", "text", "file", "expect_error"))
    at, shown = _moment(entry, start, "0s")
    owner = entry.string("owner", "condor")
    assert owner is not None
    if not _OWNER.fullmatch(owner):
        entry.fail("owner", f"'{owner}' is not a user name")
    has_text, has_file = entry.has("text"), entry.has("file")
    if has_text == has_file:
        entry.fail("text" if has_text else "",
                   "give either text (the submit description) or file, not both" if has_text
                   else "missing the submit description: give text = '''...''' or file = "
                        '"name.sub"', field="")
    path: Path | None = None
    if has_file:
        path, content = entry.read_file("file", base_dir)
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            entry.fail("file", f"{path} is not UTF-8 text")
    else:
        text = entry.string("text") or ""
    return SubmitSpec(index=entry.index, at=_not_end(entry, at), at_text=shown, text=text,
                      owner=owner, file=path, expect_error=entry.string("expect_error"))


def _not_end(entry: Entry, at: Moment) -> int:
    if at == END:
        entry.fail("at", '"end" is only for [[expect]] (it is after the run stops)')
    assert isinstance(at, int)
    return at


def _target(entry: Entry, whole_cluster: bool, required: bool) -> tuple[str | None, str | None]:
    """(job, constraint): exactly one of them, or neither when not required."""
    has_job, has_constraint = entry.has("job"), entry.has("constraint")
    if has_job and has_constraint:
        entry.fail("constraint", "give job or constraint, not both")
    if required and not (has_job or has_constraint):
        entry.fail("", 'missing the jobs it acts on: give job = "1.0" or constraint = '
                       "'...'", field="")
    job = entry.convert("job", parse_job_id, whole_cluster=whole_cluster) if has_job else None
    return job, _expression(entry, "constraint")


def parse_action(entry: Entry, start: int) -> ActionSpec:
    """An ``[[action]]`` entry."""
    entry.check_keys(("at", "do", "job", "constraint", "reason", "attr", "value", "daemon",
                      "config", "site"))
    at, shown = _moment(entry, start, None)
    entry.require("do", f"what to do: one of {', '.join(ACTIONS)}")
    do = entry.string("do")
    assert do is not None
    if do not in ACTIONS:
        hint = did_you_mean(do, ACTIONS, 0.75) or f" (expected one of {', '.join(ACTIONS)})"
        entry.fail("do", f"unknown action '{do}'{hint}")
    used = _ACTION_FIELDS[do]
    for key, group in _FIELD_OF.items():
        if entry.has(key) and group not in used:
            users = [a for a, fields in _ACTION_FIELDS.items() if group in fields]
            entry.fail(key, f"not used by '{do}' (only by {', '.join(users)})")
    job, constraint = _target(entry, whole_cluster=True, required="target" in used)
    if do == "qedit":
        entry.require("attr", "the attribute to set")
        entry.require("value", "the attribute's new value, as ClassAd expression text")
        attr = entry.string("attr")
        assert attr is not None
        if not ATTRIBUTE_NAME.fullmatch(attr):
            entry.fail("attr", f"'{attr}' is not a ClassAd attribute name")
    if do in ("site_down", "site_up"):
        entry.require("site", "the resource of the [[site]] it concerns")
    daemon = entry.string("daemon")
    if do in ("kill", "restart"):
        entry.require("daemon", f"which daemon: one of {', '.join(DAEMONS)}")
    if daemon is not None and daemon not in DAEMONS:
        hint = did_you_mean(daemon, DAEMONS, 0.75) or f" (expected one of {', '.join(DAEMONS)})"
        entry.fail("daemon", f"unknown daemon '{daemon}'{hint}")
    config: dict[str, str] = {}
    if entry.has("config"):
        table = entry.raw("config")
        if not isinstance(table, dict):
            entry.fail("config", f"expected a table of knobs, found {type_name(table)}")
        config = read_config_table(entry, table, "config.")
    return ActionSpec(
        index=entry.index, at=_not_end(entry, at), at_text=shown, do=do, job=job,
        constraint=constraint, reason=entry.string("reason"), attr=entry.string("attr"),
        value=_expression(entry, "value"), daemon=daemon, config=config,
        site=entry.string("site"),
    )


def parse_expect(entry: Entry, start: int) -> ExpectSpec:
    """An ``[[expect]]`` entry."""
    entry.check_keys(("at", "job", "constraint", "that", "count", "events", "ads", "where",
                      "description", *MESSAGE_FIELDS))
    at, shown = _moment(entry, start, END)
    extension = parse_message_fields(entry)
    subjects = [k for k in ("job", "constraint", "ads") if entry.has(k)]
    if extension and "ads" in subjects:
        entry.fail("ads", "give messages or ads, not both")
    if not subjects and not extension:
        entry.fail("", 'missing what it is about: give job = "1.0", constraint = \'...\', '
                       'ads = "Machine" or messages = { cmd = "..." }', field="")
    if len(subjects) > 1:
        entry.fail(subjects[1], f"give only one of job, constraint and ads "
                                f"(found {' and '.join(subjects)})")
    subject = subjects[0] if subjects else "messages"
    if entry.has("count") and subject == "job" and not extension:
        entry.fail("count", "only for constraint, ads or messages (a job is one job)")
    if entry.has("where") and subject != "ads":
        entry.fail("where", "only for ads (for jobs, use constraint)")
    if entry.has("events") and subject == "ads":
        entry.fail("events", "only for jobs (job or constraint)")
    checks = [k for k in ("that", "count", "events") if entry.has(k)]
    if not checks and not extension:
        what = "that or events" if subject == "job" else \
            "that, count or events" if subject == "constraint" else "that or count"
        entry.fail("", f"nothing to check: give {what}", field="")
    job = entry.convert("job", parse_job_id, whole_cluster=False) if subject == "job" else None
    ads: str | None = None
    if subject == "ads":
        name = entry.string("ads")
        assert name is not None
        canonical = {t.lower(): t for t in AD_TYPES}.get(name.lower())
        if canonical is None:
            hint = did_you_mean(name, AD_TYPES, 0.75) or f" (expected one of {', '.join(AD_TYPES)})"
            entry.fail("ads", f"unknown ad type '{name}'{hint}")
        ads = canonical
    return ExpectSpec(
        index=entry.index, at=at, at_text=shown, job=job,
        constraint=_expression(entry, "constraint"), that=_expression(entry, "that"),
        count=entry.integer("count", 0, minimum=0) if entry.has("count") else None,
        events=_events(entry), ads=ads, where=_expression(entry, "where"),
        description=entry.string("description", "", empty=True) or "",
        **extension,
    )


def _events(entry: Entry) -> tuple[str, ...]:
    if not entry.has("events"):
        return ()
    raw = entry.raw("events")
    if not isinstance(raw, list) or not raw:
        found = "an empty array" if isinstance(raw, list) else type_name(raw)
        entry.fail("events", f'expected an array of event names (["SUBMIT", "EXECUTE"]), '
                             f"found {found}")
    names: list[str] = []
    for item in raw:
        if not isinstance(item, str):
            entry.fail("events", f"expected event names (strings), found {type_name(item)}")
        if item.upper() not in EVENT_NAMES:
            hint = did_you_mean(item.upper(), EVENT_NAMES, 0.75) or \
                " (see htcondor.JobEventType for the names)"
            entry.fail("events", f"unknown event '{item}'{hint}")
        names.append(item.upper())
    return tuple(names)
