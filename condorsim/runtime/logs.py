"""Daemon logs: structlog-style records, under HTCondor's names, in HTCondor's text form and
as JSON.

How this works
--------------
:func:`daemon_logger` builds a logger bound to one daemon (no global configuration). Each
record carries ``event`` (a stable name tests may assert on), ``level``, ``sim_time``
(simulated epoch seconds, from trio's clock), ``wall_time`` and the daemon's name. It goes
twice to ``<LOG>``: to ``<LogName>`` (``SchedLog``, ...) as HTCondor's text line
(:mod:`.logtext`: simulated time in SIM_TIMEZONE, ``(pid:N)``, HTCondor's wording), for a
person to read as they would a real pool's log, and to ``<LogName>.json`` as one JSON
object per line, for the tools (:func:`json_log_name`; the one reader is
:func:`condorsim.replay.explain.read_log_records`). With ``console=True`` records are
also rendered readably on stderr (structlog's ConsoleRenderer).

The logger is :class:`DaemonLogger`: the part of structlog's filtering bound logger the
daemons use (``info``/``warning``/``error``/..., ``bind``), writing what structlog's chain
(``add_log_level``, the times, the text line, ``JSONRenderer``) wrote, byte for byte
(``tests/runtime/test_logs.py`` holds it to that). structlog itself is imported only for
the console: importing it costs a daemon process a tenth of a CPU second as it starts
(it imports rich), and every daemon of every pool starts.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import trio

from .logtext import text_line, zone

LOG_NAMES = {
    "master": "MasterLog",
    "collector": "CollectorLog",
    "negotiator": "NegotiatorLog",
    "schedd": "SchedLog",
    "shadow": "ShadowLog",
    "startd": "StartLog",
    "starter": "StarterLog",
    "job_router": "JobRouterLog",
    "gridmanager": "GridmanagerLog",
    "replay": "ReplayLog",
}


def log_name(daemon: str) -> str:
    """HTCondor's log file name of a daemon (``schedd`` -> ``SchedLog``)."""
    base = daemon.split("@", 1)[0]
    return LOG_NAMES.get(base, f"{base.capitalize()}Log")


def json_log_name(name: str) -> str:
    """The JSON records beside a text log (``SchedLog`` -> ``SchedLog.json``)."""
    return f"{name}.json"


# structlog's level numbers and names (structlog._log_levels)
_LEVEL_NAMES = {50: "critical", 40: "error", 30: "warning", 20: "info", 10: "debug"}


def _json_default(obj: Any) -> Any:
    """What structlog's JSONRenderer does with a value json cannot write."""
    try:
        return obj.__structlog__()
    except AttributeError:
        return repr(obj)


_RECORD_ENCODER = json.JSONEncoder(default=_json_default)
"""``json.dumps(record, default=_json_default)``, without a new encoder per record."""


class DaemonLogger:
    """A bound logger: ``log.info("event", key=value)`` writes one record, with the bound
    context first, then the keywords, then ``event``, ``level``, ``sim_time`` and
    ``wall_time`` (structlog's order). ``%``-style positional arguments are interpolated
    into the event as structlog does; ``exception`` is ``error`` with ``exc_info=True``."""

    __slots__ = ("_console", "_context", "_logger")

    def __init__(self, logger: _Tee, context: dict[str, Any],
                 console: Any = None) -> None:
        self._logger = logger
        self._context = context
        self._console = console

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}(context={self._context!r})>"

    def __eq__(self, other: object) -> bool:  # structlog's: loggers with equal contexts
        return isinstance(other, DaemonLogger) and self._context == other._context

    __hash__ = None  # type: ignore[assignment]

    def bind(self, **new_values: Any) -> DaemonLogger:
        """A new logger with ``new_values`` added to the context."""
        return DaemonLogger(self._logger, {**self._context, **new_values}, self._console)

    def unbind(self, *keys: str) -> DaemonLogger:
        """A new logger without ``keys`` (KeyError if one is not bound)."""
        bound = self.bind()
        for key in keys:
            del bound._context[key]
        return bound

    def try_unbind(self, *keys: str) -> DaemonLogger:
        """A new logger without ``keys``; missing keys are ignored."""
        bound = self.bind()
        for key in keys:
            bound._context.pop(key, None)
        return bound

    def new(self, **new_values: Any) -> DaemonLogger:
        """Clear the context (this logger's too, as structlog does), then bind ``new_values``."""
        self._context.clear()
        return self.bind(**new_values)

    def _write(self, level: str, event: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
        if args:  # structlog's _maybe_interpolate
            if len(args) == 1 and isinstance(args[0], Mapping) and args[0]:
                event = event % args[0]
            else:
                event = event % args
        record = self._context.copy()
        record.update(**kw)
        record["event"] = event
        record["level"] = level
        try:
            record["sim_time"] = trio.current_time()
        except RuntimeError:
            record["sim_time"] = None
        record["wall_time"] = round(time.time(), 6)
        tee = self._logger
        tee.text_processor(tee, level, record)
        if self._console is not None:
            sys.stderr.write(self._console(tee, level, dict(record)) + "\n")
        tee.msg(_RECORD_ENCODER.encode(record))

    def debug(self, event: str, *args: Any, **kw: Any) -> None:
        self._write("debug", event, args, kw)

    def info(self, event: str, *args: Any, **kw: Any) -> None:
        self._write("info", event, args, kw)

    def warning(self, event: str, *args: Any, **kw: Any) -> None:
        self._write("warning", event, args, kw)

    def error(self, event: str, *args: Any, **kw: Any) -> None:
        self._write("error", event, args, kw)

    def critical(self, event: str, *args: Any, **kw: Any) -> None:
        self._write("critical", event, args, kw)

    def exception(self, event: str, *args: Any, **kw: Any) -> None:
        kw.setdefault("exc_info", True)
        self._write("error", event, args, kw)

    warn = warning
    fatal = critical
    msg = info

    def log(self, level: int, event: str, *args: Any, **kw: Any) -> None:
        """Log at a numeric level (``logging.INFO`` ...), as structlog's ``log``."""
        if level < 0:
            return
        self._write(_LEVEL_NAMES[level], event, args, kw)

    def is_enabled_for(self, level: int) -> bool:
        return level >= 0

    def get_effective_level(self) -> int:
        return 0


class _Tee:
    """Writes each record's JSON line to one file and its text line to the other."""

    def __init__(self, file: TextIO | None, text: TextIO | None = None, own: str = "",
                 tz: str | None = None) -> None:
        self._file = file
        self._text = text
        self._own = own
        self._zone = zone(tz)
        self._pid = os.getpid()

    def text_processor(self, _logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
        if self._text is not None:
            self._text.write(text_line(event, self._own, self._pid, self._zone))
            self._text.flush()
        return event

    def msg(self, message: str) -> None:
        if self._file is not None:
            self._file.write(message + "\n")
            self._file.flush()

    def close(self) -> None:
        for f in (self._file, self._text):
            if f is not None:
                f.close()
        self._file = self._text = None


def close_daemon_logger(logger: Any) -> None:
    """Close the file behind a logger made by :func:`daemon_logger`."""
    tee = getattr(logger, "_logger", None)
    if isinstance(tee, _Tee):
        tee.close()


def daemon_logger(
    daemon: str, log_dir: str | Path | None, *, console: bool = False, tz: str | None = None
) -> DaemonLogger:
    """A logger for ``daemon`` writing to ``log_dir/<HTCondor log name>`` (text, times in
    the zone ``tz``) and ``log_dir/<HTCondor log name>.json``."""
    file: TextIO | None = None
    text: TextIO | None = None
    if log_dir is not None:
        name = log_name(daemon)
        path = Path(log_dir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        file = open(path.with_name(json_log_name(name)), "a", encoding="utf-8")
        text = open(path, "a", encoding="utf-8")
    renderer = None
    if console:
        import structlog.dev  # only here: it imports rich

        renderer = structlog.dev.ConsoleRenderer(colors=False)
    return DaemonLogger(_Tee(file, text, daemon, tz), {"daemon": daemon}, renderer)
