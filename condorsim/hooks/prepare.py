"""What a prepare hook said: the starter's PREPARE_JOB(_BEFORE_TRANSFER) and the shadow's
SHADOW_PREPARE_JOB read their hook's result the same way.

How this works
--------------
:func:`prepare_result` is the common part of HTCondor's ``HookPrepareJobClient::hookExited``
and ``HookShadowPrepareJobClient::hookExited``: the hook's stdout is an ad (lines up to the
first bad one count, as ``initAdFromString``); a ``HookStatusCode`` integer in it replaces
the exit status -- not when a signal killed the hook, whose status is then minus the
signal (the starter takes only a code >= 0, the shadow any integer: ``any_code``);
``HookStatusMessage`` is the message; ``log_msg`` is HTCondor's line
``<TYPE> (<file name>) failed (exited with status 1): <message or "<no message>">``
(``reported status 042`` when the code came from the output). What a failure does to the
job is the caller's business.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from condorsim.classad import ClassAd

from .adtext import parse_until_bad
from .runner import HookResult


@dataclass(frozen=True)
class PrepareResult:
    status: int
    log_msg: str
    message: str
    update: ClassAd
    bad_line: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status == 0


def prepare_result(hook_type: str, result: HookResult, *, any_code: bool = False) -> PrepareResult:
    """Read a prepare hook's result (see the module doc). A hook that did not start is
    reported with status -1 and HTCondor's "failed to execute" message."""
    if result.error is not None:
        return PrepareResult(-1, f"failed to execute {hook_type} ({result.call.path})", "",
                             ClassAd())
    parsed = parse_until_bad(result.stdout) if result.stdout.strip() else None
    update = parsed.ad if parsed is not None else ClassAd()
    status_msg = result.status_text()
    if result.signal is not None:
        status = -result.signal
    else:
        status = result.exit_code or 0
        code = update.evaluate("HookStatusCode")
        if type(code) is int and (any_code or code >= 0):
            status = code
            status_msg = f"reported status {code:03d}"
    message = update.evaluate("HookStatusMessage")
    message = message if isinstance(message, str) else ""
    name = os.path.basename(result.call.path)
    log_msg = (f"{hook_type} ({name}) {'failed' if status else 'succeeded'} ({status_msg}): "
               f"{message or '<no message>'}")
    return PrepareResult(status, log_msg, message, update,
                         parsed.bad_line if parsed is not None else None)
