"""Expectations about messages between daemons (our extension of ``[[expect]]``).

How this works
--------------
``messages = { cmd = "REGISTER_JOB_INFO", from = "starter", to = "shadow" }`` selects the
records of the run's ``trace.jsonl`` (docs/scenarios.md, "Messages"). A
:class:`MessageSelector` holds the commands (``cmd``: one name or an array), the sender
and receiver (``from``/``to``: a daemon name, matching every instance ``name@...``, or one
instance ``startd@exec1``) and attribute names the message must carry (``attrs``).
``after`` is a second selector: the first message it matches is the origin of ``first``
and of ``intervals``, and only later messages count. :func:`parse_message_fields` reads
and checks all of them when the file is loaded; command names are checked against the
wire catalogue (``condorsim.wire.messages``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._fields import Entry, did_you_mean
from ._names import DAEMONS
from ._times import parse_duration, type_name
from ._values import ATTRIBUTE_NAME

__all__ = ["MESSAGE_FIELDS", "TRACE_NAMES", "MessageSelector", "parse_message_fields"]

TRACE_NAMES: Final = (*DAEMONS, "tool", "replay")
"""The names of the trace's ``from`` and ``to``: daemons, a tool, the replay driver."""

MESSAGE_FIELDS: Final = ("messages", "after", "first", "every", "intervals")
"""The ``[[expect]]`` fields of this extension (``count``, ``job`` and ``constraint``
are shared with the other kinds)."""

_SELECTOR_KEYS: Final = ("cmd", "from", "to", "attrs")


@dataclass(frozen=True)
class MessageSelector:
    """Which trace records a ``messages`` (or ``after``) table selects."""

    cmds: tuple[str, ...] = ()
    sender: str | None = None
    receiver: str | None = None
    attrs: tuple[str, ...] = ()

    def matches(self, record: Mapping[str, Any]) -> bool:
        """Whether the trace record is one of these messages."""
        if self.cmds and record.get("cmd") not in self.cmds:
            return False
        if not (_name_matches(self.sender, record.get("from"))
                and _name_matches(self.receiver, record.get("to"))):
            return False
        carried = {str(a).lower() for a in record.get("attrs") or ()}
        return all(a.lower() in carried for a in self.attrs)

    def describe(self) -> str:
        """``REGISTER_JOB_INFO starter -> shadow`` and the like."""
        parts = ["|".join(self.cmds) if self.cmds else "messages"]
        if self.sender or self.receiver:
            parts.append(f"{self.sender or '*'} -> {self.receiver or '*'}")
        if self.attrs:
            parts.append(f"carrying {', '.join(self.attrs)}")
        return " ".join(parts)


def _name_matches(wanted: str | None, name: object) -> bool:
    if wanted is None:
        return True
    if not isinstance(name, str):
        return False
    return name == wanted or ("@" not in wanted and name.split("@", 1)[0] == wanted)


def _commands() -> frozenset[str]:
    from condorsim.wire import messages as _catalogue  # noqa: F401  (registers them)
    from condorsim.wire import registered_messages

    return frozenset(name for name in registered_messages() if not name.startswith("SIM_"))


def _selector(entry: Entry, key: str) -> MessageSelector:
    table = entry.raw(key)
    example = '{ cmd = "REGISTER_JOB_INFO", from = "starter", to = "shadow" }'
    if not isinstance(table, dict):
        entry.fail(key, f"expected a table ({key} = {example}), found {type_name(table)}")
    if not table:
        entry.fail(key, "empty: give cmd, from, to or attrs")
    for name in table:
        if name not in _SELECTOR_KEYS:
            hint = did_you_mean(name, _SELECTOR_KEYS) or \
                f" (expected one of {', '.join(_SELECTOR_KEYS)})"
            entry.fail(key, f"unknown key '{name}'{hint}", field=f"{key}.{name}")
    commands = _commands()
    cmds = _strings(entry, key, "cmd", table.get("cmd"))
    for cmd in cmds:
        if cmd not in commands:
            hint = did_you_mean(cmd, commands, 0.75) or \
                " (see docs/protocol.md for the commands)"
            entry.fail(key, f"unknown command '{cmd}'{hint}", field=f"{key}.cmd")
    ends: dict[str, str | None] = {}
    for end in ("from", "to"):
        value = table.get(end)
        if value is not None:
            if not isinstance(value, str):
                entry.fail(key, f"expected a daemon name, found {type_name(value)}",
                           field=f"{key}.{end}")
            daemon = value.split("@", 1)[0]
            if daemon not in TRACE_NAMES or value.endswith("@"):
                hint = did_you_mean(daemon, TRACE_NAMES, 0.75) or \
                    f" (expected one of {', '.join(TRACE_NAMES)}, optionally name@instance)"
                entry.fail(key, f"unknown daemon '{value}'{hint}", field=f"{key}.{end}")
        ends[end] = value
    attrs = _strings(entry, key, "attrs", table.get("attrs"))
    for attr in attrs:
        if not ATTRIBUTE_NAME.fullmatch(attr):
            entry.fail(key, f"'{attr}' is not a ClassAd attribute name", field=f"{key}.attrs")
    return MessageSelector(cmds=cmds, sender=ends["from"], receiver=ends["to"], attrs=attrs)


def _strings(entry: Entry, key: str, name: str, value: object) -> tuple[str, ...]:
    """A string or an array of strings (absent: empty)."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or \
            not all(isinstance(i, str) and i for i in items):
        found = "an empty array" if items == [] else type_name(value)
        entry.fail(key, f"expected a name or an array of names, found {found}",
                   field=f"{key}.{name}")
    return tuple(items)


def parse_message_fields(entry: Entry) -> dict[str, Any]:
    """The extension's fields of an ``[[expect]]`` with ``messages``, as ExpectSpec
    keyword arguments. ``after``, ``first``, ``every`` and ``intervals`` without
    ``messages`` are refused."""
    if not entry.has("messages"):
        for key in MESSAGE_FIELDS[1:]:
            if entry.has(key):
                entry.fail(key, "only with messages (messages = { cmd = \"...\" })")
        return {}
    for key in ("that", "events", "where"):
        if entry.has(key):
            entry.fail(key, "not used with messages (check count, first, every or intervals)")
    fields: dict[str, Any] = {"messages": _selector(entry, "messages")}
    if entry.has("after"):
        fields["after"] = _selector(entry, "after")
    for key in ("first", "every"):
        if entry.has(key):
            fields[key] = entry.convert(key, parse_duration)
    if fields.get("every") == 0:
        entry.fail("every", "must be more than 0s")
    if entry.has("intervals"):
        raw = entry.raw("intervals")
        if not isinstance(raw, list) or not raw:
            found = "an empty array" if isinstance(raw, list) else type_name(raw)
            entry.fail("intervals", f'expected an array of durations (["8s", "300s"]), '
                                    f"found {found}")
        fields["intervals"] = tuple(entry.convert("intervals", lambda _: [
            parse_duration(item) for item in raw]))
    return fields
