"""What the schedd's parts (claims, reconnection, the grid link) ask of the daemon running
them: its context, its queue, its address, and ways to start a task and query the
collector. A protocol, so that the parts import no daemon: the daemon
(:mod:`.daemon`) imports them and passes itself in -- the runner feeding them events.
"""

from __future__ import annotations

from typing import Any, Protocol

from condorsim.classad import ClassAd
from condorsim.runtime.daemon import DaemonContext
from condorsim.wire import Message

from .queue import JobQueue


class ScheddHost(Protocol):
    ctx: DaemonContext
    queue: JobQueue | None
    address: str
    tz: str

    def start_task(self, fn: Any, *args: Any) -> None:
        """Run ``fn(*args)`` as a task of the daemon."""

    async def query_collector(self, msg: Message) -> list[ClassAd]:
        """The ads the collector answers ``msg`` with (none if it cannot be reached)."""
