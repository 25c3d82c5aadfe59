"""What every daemon is given, and the shape every daemon has.

How this works
--------------
A daemon is a plain object with ``async run(ctx, task_status)``: it starts listening,
reports its address through ``task_status.started(address)``, and runs until cancelled.
Everything it needs from the world comes in the :class:`DaemonContext`: its configuration,
how to talk (``ctx.connect`` / ``ctx.serve``), a logger, a seeded random source, the run
directory, and the virtual-time hooks (``at_end_of_instant``, ``busy``). Time is
``trio.current_time()`` (simulated epoch seconds) -- daemon logic is handed ``now`` by its
runner and never reads a clock itself.

The same daemon object runs as its own OS process (:mod:`condorsim.runtime.process`) or
with the whole pool inside one trio run (:mod:`condorsim.runtime.inproc`).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio

from condorsim.config import Config

from .network import Conn, Endpoint, Handler
from .participant import Participant
from .pipeline import KeptConnection


def collector_address(config: Config) -> str:
    """COLLECTOR_HOST as a sinful string (``host:port`` or ``<host:port>`` accepted)."""
    host = (config.get("COLLECTOR_HOST") or "").strip()
    if not host:
        raise LookupError("COLLECTOR_HOST is not set: no collector to find the pool through")
    if not host.startswith("<"):
        if ":" not in host:
            host = f"{host}:9618"
        host = f"<{host}>"
    return host


def seeded_rng(seed: int, name: str) -> random.Random:
    """A random source for one daemon: the pool's seed and the daemon's name decide it."""
    return random.Random((seed << 32) ^ zlib.crc32(name.encode()))


@dataclass
class DaemonContext:
    name: str
    config: Config
    endpoint: Endpoint
    log: Any
    rng: random.Random
    run_dir: Path
    participant: Participant | None = None
    # How the daemon was told to stop: "graceful" (SIGTERM, condor_off -graceful) or
    # "fast" (SIGQUIT, condor_off -fast). Read by the code that runs as the daemon ends.
    shutdown: str = "graceful"
    # COLLECTOR_HOST's address and the configuration it was read from (a Config does not
    # change once loaded; the daemon's updates ask for the address at every send)
    _collector: tuple[Config, str] | None = field(default=None, repr=False, compare=False)

    def now(self) -> float:
        return trio.current_time()

    async def connect(self, address: str, peer: str) -> Conn:
        return await self.endpoint.connect(address, peer)

    async def serve(
        self, handler: Handler, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
        port: int = 0,
    ) -> None:
        await self.endpoint.serve(handler, task_status=task_status, port=port)

    def collector_address(self) -> str:
        config = self.config
        kept = self._collector
        if kept is not None and kept[0] is config:
            return kept[1]
        address = collector_address(config)  # raises LookupError (not kept) when unset
        self._collector = (config, address)
        return address

    def collector_updates(self) -> KeptConnection:
        """Where the daemon's updates to the collector go: one connection kept between them,
        as HTCondor's DCCollector keeps its update socket (failures logged as
        ``collector_update_failed``)."""
        return KeptConnection(self.connect, self.collector_address, "collector", self.log,
                              "collector_update_failed", "collector_reconnect")

    def at_end_of_instant(self, key: Any, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the pool is quiescent at this instant (sorted by ``key``).

        Without virtual time (wall clock) there is no instant to wait for: it runs at once.
        """
        if self.participant is None:
            callback()
        else:
            self.participant.at_end_of_instant(key, callback)

    @contextmanager
    def busy(self) -> Iterator[None]:
        if self.participant is None:
            yield
        else:
            with self.participant.busy():
                yield

    def path(self, knob: str, default: str) -> Path:
        """A directory or file named by a config knob, relative to the run directory."""
        value = self.config.get(knob) or default
        p = Path(value)
        return p if p.is_absolute() else self.run_dir / p


class Daemon(Protocol):
    """The shape of every daemon."""

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None: ...
