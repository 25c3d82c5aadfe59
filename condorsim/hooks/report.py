"""One log line per hook run, with a stable event name.

How this works
--------------
:func:`log_hook_result` writes what became of a hook to the daemon's log:
``hook_not_started`` (the path could not be executed), ``hook_timed_out`` (killed after its
timeout), ``hook_failed`` (a non-zero status or a signal; stderr included, as HTCondor logs a
failed hook's stderr at D_ERROR), else ``hook_exited``. Every record names the hook (its
knob or cron job), the path and the status in HTCondor's words.
"""

from __future__ import annotations

from typing import Any

from .runner import HookResult

STDERR_SHOWN = 2000
"""Characters of a hook's stderr put in its log record."""


def log_hook_result(log: Any, result: HookResult, **fields: Any) -> None:
    """Log ``result`` (see the module doc); ``fields`` are added to the record."""
    call = result.call
    base: dict[str, Any] = {"hook": call.name, "path": call.path, **fields}
    stderr = result.stderr.strip()
    if stderr:
        base["stderr"] = stderr[:STDERR_SHOWN]
    if result.truncated:
        base["truncated"] = True
    if result.error is not None:
        log.warning("hook_not_started", error=result.error, **base)
    elif result.timed_out:
        log.warning("hook_timed_out", timeout=call.timeout, status=result.status_text(), **base)
    elif not result.succeeded:
        log.warning("hook_failed", status=result.status_text(), **base)
    else:
        log.info("hook_exited", status=result.status_text(), **base)
