"""One hook at a time, in the order asked: how a daemon keeps its hooks' order replayable.

How this works
--------------
A site's hooks often share state (a work queue the fetch hook pops and the reply hook
marks). Hooks asked for at one simulated instant would otherwise run at once in real
time, and which one read the shared state first would change from run to run. A
:class:`HookLane` has one worker task that runs the calls put in its channel in order.

:meth:`HookLane.run` is for a hook the daemon waits for by design (FETCH_WORK, the prepare
hooks, JOB_EXIT): the process is *busy* from the moment the hook is asked for -- while it
waits for its turn behind earlier hooks, and while it runs -- until its result is back, so
simulated time cannot jump past it and its result is handled at the instant it was asked
for. :meth:`HookLane.submit` is for an advisory hook (REPLY_FETCH, EVICT_CLAIM, the
starter's UPDATE_JOB_INFO): nobody waits for it and it holds nothing up -- the process is
not busy while it runs, so simulated time goes on (its result is only logged, at the
simulated time it comes back, which may vary between runs). A replay stays deterministic
because an advisory hook changes nothing in the pool and a waited-for hook queued behind
it still runs after it, at its own instant.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import nullcontext
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
            result = await run_hook(call)  # a waited-for call's caller holds the busy mark
            log_hook_result(self.log, result, **fields)
            if done is not None:
                done(result)

    def submit(self, call: HookCall, done: Callable[[HookResult], None] | None = None,
               **fields: Any) -> None:
        """Queue an advisory ``call`` (the caller does not wait; simulated time goes on
        while it runs); ``done`` gets its result. Its log line comes when it is over and
        says when it was asked for (``asked_at``, simulated seconds)."""
        self._send.send_nowait((call, done, {**fields, "asked_at": trio.current_time()}))

    async def run(self, call: HookCall, **fields: Any) -> HookResult:
        """Queue ``call`` and wait for its result, busy all along."""
        box: list[HookResult] = []
        finished = trio.Event()

        def done(result: HookResult) -> None:
            box.append(result)
            finished.set()

        with self.busy() if self.busy is not None else nullcontext():
            self._send.send_nowait((call, done, fields))
            await finished.wait()
        return box[0]

