"""Daemon logs: structlog, under HTCondor's names, in HTCondor's text form and as JSON.

How this works
--------------
:func:`daemon_logger` builds a logger bound to one daemon (no global structlog
configuration). Each record carries ``event`` (a stable name tests may assert on),
``sim_time`` (simulated epoch seconds, from trio's clock), ``wall_time`` and the daemon's
name. It goes twice to ``<LOG>``: to ``<LogName>`` (``SchedLog``, ...) as HTCondor's text
line (:mod:`.logtext`: simulated time in SIM_TIMEZONE, ``(pid:N)``, HTCondor's wording),
for a person to read as they would a real pool's log, and to ``<LogName>.json`` as one
JSON object per line, for the tools (:func:`json_log_name`; the one reader is
:func:`condorsim.replay.explain.read_log_records`). With ``console=True`` records are
also rendered readably on stderr.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import structlog
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


def _add_times(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
    try:
        event["sim_time"] = trio.current_time()
    except RuntimeError:
        event["sim_time"] = None
    event["wall_time"] = round(time.time(), 6)
    return event


def log_name(daemon: str) -> str:
    """HTCondor's log file name of a daemon (``schedd`` -> ``SchedLog``)."""
    base = daemon.split("@", 1)[0]
    return LOG_NAMES.get(base, f"{base.capitalize()}Log")


def json_log_name(name: str) -> str:
    """The JSON records beside a text log (``SchedLog`` -> ``SchedLog.json``)."""
    return f"{name}.json"


class _Tee:
    """A structlog logger writing each rendered JSON record to one file; the text file beside
    it is written by :meth:`text_processor`, before the JSON rendering."""

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

    log = debug = info = warning = error = critical = exception = msg

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
) -> structlog.typing.FilteringBoundLogger:
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
    tee = _Tee(file, text, daemon, tz)
    processors: list[Any] = [
        structlog.processors.add_log_level,
        _add_times,
        tee.text_processor,
    ]
    if console:
        processors.append(_console_echo)
    processors.append(structlog.processors.JSONRenderer())
    logger: structlog.typing.FilteringBoundLogger = structlog.wrap_logger(
        tee,
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(0),
        context_class=dict,
        cache_logger_on_first_use=True,
    ).bind(daemon=daemon)
    return logger


_console = structlog.dev.ConsoleRenderer(colors=False)


def _console_echo(logger: Any, method: str, event: dict[str, Any]) -> dict[str, Any]:
    sys.stderr.write(_console(logger, method, dict(event)) + "\n")
    return event
