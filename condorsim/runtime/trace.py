"""The message trace: one JSON object per message between daemons, in the order sent.

How this works
--------------
The connection layer calls :meth:`Tracer.record` for every message it sends. A record has
``t`` (simulated epoch seconds), ``from`` and ``to`` (daemon names, optionally
``name@instance``), ``cmd`` (the command's name), ``job`` (``"cluster.proc"`` when the
message concerns one job) and ``attrs`` (the ClassAd attribute names it carried). Every
process of a pool appends to the same ``trace.jsonl``; each record is a single ``write`` on
a file opened for appending, so records of different processes never interleave.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from condorsim.classad import ClassAd

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""Each message class's field names (``dataclasses.fields`` builds its tuple at every call)."""

_ENCODER = json.JSONEncoder(separators=(",", ":"))
"""``json.dumps(rec, separators=(",", ":"))`` without a new encoder for every record."""

_quote = json.encoder.encode_basestring_ascii
"""A string as ``json.dumps`` writes it (``ensure_ascii``, the default)."""


def _field_names(msg: Any) -> tuple[str, ...]:
    cls = type(msg)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(msg))
    return names


_AD_TYPES: dict[type, bool] = {}
"""Whether each type met in a message's fields is a ClassAd (``isinstance`` against
ClassAd, a MutableMapping, goes through ABCMeta's check in Python for every field)."""


def _is_ad(value: Any) -> bool:
    """``isinstance(value, ClassAd)``, asked once per type."""
    t = type(value)
    known = _AD_TYPES.get(t)
    if known is None:
        known = _AD_TYPES[t] = issubclass(t, ClassAd)
    return known


def _ads(msg: Any) -> list[ClassAd]:
    """The ClassAds a message carries, in field order (a list field's in its order)."""
    ads: list[ClassAd] = []
    for name in _field_names(msg):
        value = getattr(msg, name)
        if _is_ad(value):
            ads.append(value)
        elif isinstance(value, list | tuple):
            ads.extend(item for item in value if _is_ad(item))
    return ads


def message_job(msg: Any) -> str | None:
    """The job a message concerns, as ``"cluster.proc"``, or None."""
    job = getattr(msg, "job", None)
    if isinstance(job, str) and job:
        return job
    for name in _field_names(msg):
        value = getattr(msg, name)
        if _is_ad(value):
            cluster = value.lookup("ClusterId")  # get's KeyError costs on the many ads
            proc = value.lookup("ProcId")  # without a job id (slot ads)
            if cluster is not None and proc is not None:
                c, p = str(cluster), str(proc)
                if c.lstrip("-").isdigit() and p.lstrip("-").isdigit():
                    return f"{c}.{p}"
            routed = value.lookup("RoutedFromJobId")  # a routed copy being submitted
            if routed is not None:
                text = str(routed).strip('"')
                c, _, p = text.partition(".")
                if c.isdigit() and p.isdigit():
                    return text
    return None


def message_attrs(msg: Any) -> list[str]:
    """The names of the ClassAd attributes a message carries (its ads' attributes)."""
    return list(_attrs_of(_ads(msg))[0])


def _attrs_of(ads: list[ClassAd]) -> tuple[tuple[str, ...], str]:
    """The sorted attribute names of ``ads`` and their JSON text. An ad's names, as spelled,
    are the key of a cache: the slot ads of a pool, or the job ads of a cluster, have the
    same names in the same order, and are sorted and written once. Several ads' names are
    keyed as a tuple of each ad's names (the job and slot ads of a STARTER_START): the
    union is made and sorted only for a combination not seen lately."""
    key: tuple[Any, ...] = ads[0].names() if len(ads) == 1 else tuple(ad.names() for ad in ads)
    known = _SORTED.get(key)
    if known is None:
        if len(ads) == 1:
            ordered = tuple(sorted(key, key=str.lower))
        else:
            names: set[str] = set()
            for ad in ads:
                names.update(ad.names())
            ordered = tuple(sorted(sorted(names), key=str.lower))
        known = (ordered, _names_json(ordered))
        if len(_SORTED) >= 4096:
            _SORTED.clear()
        _SORTED[key] = known
    return known


_SORTED: dict[tuple[Any, ...], tuple[tuple[str, ...], str]] = {}


def _names_json(names: tuple[str, ...] | list[str]) -> str:
    return f"[{','.join(map(_quote, names))}]"


class Tracer:
    """Writes trace records to a file and/or hands them to a callback (tests)."""

    def __init__(
        self,
        path: str | Path | None = None,
        sink: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self._fd: int | None = None
        if path is not None:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._sink = sink

    def record(self, sender: str, receiver: str, msg: Any) -> None:
        now = trio.current_time()
        t = int(now) if now == int(now) else now
        cmd = getattr(msg, "command", type(msg).__name__)
        job = message_job(msg)
        attrs, attrs_json = _attrs_of(_ads(msg))
        if self._sink is not None:
            self._sink({"t": t, "from": sender, "to": receiver, "cmd": cmd, "job": job,
                        "attrs": list(attrs)})
        if self._fd is not None:
            os.write(self._fd, _line(t, sender, receiver, cmd, job, attrs_json).encode())

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def record_line(rec: dict[str, Any]) -> str:
    """``json.dumps(rec, separators=(",", ":")) + "\n"`` for a record of :meth:`Tracer.record`,
    written out field by field (under half the cost; the same characters)."""
    t, cmd, job = rec["t"], rec["cmd"], rec["job"]
    sender, receiver, attrs = rec["from"], rec["to"], rec["attrs"]
    if not ((type(t) is int or (type(t) is float and math.isfinite(t)))
            and type(sender) is str and type(receiver) is str and type(cmd) is str
            and (job is None or type(job) is str) and type(attrs) is list
            and all(type(a) is str for a in attrs)):
        return _ENCODER.encode(rec) + "\n"
    return _line(t, sender, receiver, cmd, job, _names_json(attrs))


def _line(t: float, sender: str, receiver: str, cmd: str, job: str | None,
          attrs_json: str) -> str:
    if not (type(t) is int or math.isfinite(t)):
        return _ENCODER.encode({"t": t, "from": sender, "to": receiver, "cmd": cmd,
                                "job": job, "attrs": json.loads(attrs_json)}) + "\n"
    return (f'{{"t":{t!r},"from":{_quote(sender)},"to":{_quote(receiver)},'
            f'"cmd":{_quote(cmd)},"job":{"null" if job is None else _quote(job)},'
            f'"attrs":{attrs_json}}}\n')


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """Read a ``trace.jsonl`` file."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
