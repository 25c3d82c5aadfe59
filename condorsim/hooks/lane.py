"""One hook at a time, in the order asked: how a daemon keeps its hooks' order replayable.

How this works
--------------
A site's hooks often share state (a work queue the fetch hook pops and the reply hook
marks). Hooks asked for at one simulated instant would otherwise run at once in real
time, and which one read the shared state first would change from run to run. A
:class:`HookLane` has one worker task that runs the calls put in its channel in order:
:meth:`HookLane.run` waits for the result (the daemon waits for that hook by design, e.g.
FETCH_WORK), :meth:`HookLane.submit` does not (an advisory hook such as REPLY_FETCH; its
result is only logged). Either way the daemon itself carries on: only hooks wait for hooks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import trio

from .report import log_hook_result
from .runner import BusyFactory, HookCall, HookResult, run_hook


class HookLane:
    """Runs hooks one at a time, in submission order (see the module doc)."""

    def __init__(self, log: Any, busy: BusyFactory | None = None) -> None:
        self.log = log
        self.busy = busy
        self._send, self._receive = trio.open_memory_channel[
            tuple[HookCall, Callable[[HookResult], None] | None, dict[str, Any]]](math.inf)

    async def serve(self) -> None:
        """The worker: run it in the daemon's nursery."""
        async for call, done, fields in self._receive:
            result = await run_hook(call, self.busy)
            log_hook_result(self.log, result, **fields)
            if done is not None:
                done(result)

    def submit(self, call: HookCall, done: Callable[[HookResult], None] | None = None,
               **fields: Any) -> None:
        """Queue ``call``; ``done`` gets its result (the caller does not wait)."""
        self._send.send_nowait((call, done, fields))

    async def run(self, call: HookCall, **fields: Any) -> HookResult:
        """Queue ``call`` and wait for its result."""
        box: list[HookResult] = []
        finished = trio.Event()

        def done(result: HookResult) -> None:
            box.append(result)
            finished.set()

        self.submit(call, done, **fields)
        await finished.wait()
        return box[0]
