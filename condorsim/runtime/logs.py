"""Daemon logs: structlog, one file per daemon under HTCondor's name, JSON lines.

How this works
--------------
:func:`daemon_logger` builds a logger bound to one daemon (no global structlog
configuration). Each record carries ``event`` (a stable name tests may assert on),
``sim_time`` (simulated epoch seconds, from trio's clock), ``wall_time`` and the daemon's
name, and goes to ``<LOG>/<LogName>`` as one JSON object per line. With ``console=True``
records are also rendered readably on stderr.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

import structlog
import trio

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


class _Tee:
    """A structlog logger writing rendered JSON to a file and, optionally, a console line."""

    def __init__(self, file: TextIO | None) -> None:
        self._file = file

    def msg(self, message: str) -> None:
        if self._file is not None:
            self._file.write(message + "\n")
            self._file.flush()

    log = debug = info = warning = error = critical = exception = msg

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def close_daemon_logger(logger: Any) -> None:
    """Close the file behind a logger made by :func:`daemon_logger`."""
    tee = getattr(logger, "_logger", None)
    if isinstance(tee, _Tee):
        tee.close()


def daemon_logger(
    daemon: str, log_dir: str | Path | None, *, console: bool = False
) -> structlog.typing.FilteringBoundLogger:
    """A logger for ``daemon`` writing to ``log_dir/<HTCondor log name>``."""
    file: TextIO | None = None
    if log_dir is not None:
        base = daemon.split("@", 1)[0]
        name = LOG_NAMES.get(base, f"{base.capitalize()}Log")
        path = Path(log_dir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        file = open(path, "a", encoding="utf-8")
    processors: list[Any] = [
        structlog.processors.add_log_level,
        _add_times,
    ]
    if console:
        processors.append(_console_echo)
    processors.append(structlog.processors.JSONRenderer())
    logger: structlog.typing.FilteringBoundLogger = structlog.wrap_logger(
        _Tee(file),
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
