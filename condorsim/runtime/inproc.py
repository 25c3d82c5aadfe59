"""A whole pool inside one trio run: the same daemon code, memory streams, MockClock.

How this works
--------------
:func:`open_inprocess_pool` starts each daemon as a task with its own
:class:`~.daemon.DaemonContext` over one :class:`~.network.InProcessNetwork`. The collector
(if any) is started first and listens on the port of COLLECTOR_HOST, so every daemon finds
it as in a real pool. Run it under ``trio.testing.MockClock(autojump_threshold=0)`` (pytest-
trio's ``autojump_clock`` fixture): time jumps whenever every task is blocked, and
:func:`~.participant.run_instant_driver` runs end-of-instant work before each jump.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorsim.config import Config
from condorsim.security import Policy, Security

from .daemon import Daemon, DaemonContext, seeded_rng
from .logs import close_daemon_logger, daemon_logger
from .network import Conn, Endpoint, InProcessNetwork
from .participant import Participant, run_instant_driver
from .trace import Tracer


@dataclass
class InProcessPool:
    network: InProcessNetwork
    participant: Participant
    tracer: Tracer
    config: Config
    run_dir: Path
    addresses: dict[str, str] = field(default_factory=dict)
    daemons: dict[str, Daemon] = field(default_factory=dict)
    trace: list[dict[str, Any]] = field(default_factory=list)
    key: bytes = field(default_factory=lambda: os.urandom(32))
    """The pool key (in memory: every daemon and test client of this pool holds it)."""

    def security(self, config: Config | None = None) -> Security:
        return Security(key=self.key, policy=Policy.from_config(config or self.config))

    def endpoint(self, name: str, *, with_key: bool = True) -> Endpoint:
        """An endpoint for a test or a tool to talk to the pool as ``name``: with the pool
        key (a daemon, or the replay driver, who may act for any user) unless ``with_key``
        is false (then it is a tool: the OS user running the test, by FS)."""
        return Endpoint(name=name, network=self.network, participant=self.participant,
                        tracer=self.tracer, security=self.security() if with_key else None)

    async def connect(self, daemon: str, me: str = "tool") -> Conn:
        return await self.endpoint(me).connect(self.addresses[daemon], daemon)


@asynccontextmanager
async def open_inprocess_pool(
    config: Config,
    run_dir: Path,
    daemons: list[tuple[str, Callable[[], Daemon]]],
    *,
    seed: int = 0,
    trace_path: Path | None = None,
    log_dir: Path | None = None,
) -> AsyncIterator[InProcessPool]:
    """Start ``daemons`` (name, factory) in order; yield the pool; stop them all on exit."""
    network = InProcessNetwork()
    participant = Participant()
    records: list[dict[str, Any]] = []
    tracer = Tracer(trace_path, sink=records.append)
    pool = InProcessPool(network, participant, tracer, config, run_dir, trace=records)
    loggers: list[Any] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_instant_driver, participant)
        for name, factory in daemons:
            daemon = factory()
            base = name.split("@", 1)[0].upper()
            cfg = config.with_subsystem(base)
            log = daemon_logger(name, log_dir, tz=cfg.get("SIM_TIMEZONE"))
            loggers.append(log)
            endpoint = Endpoint(name=name, network=network, participant=participant,
                                tracer=tracer, log=log, security=pool.security(cfg))
            ctx = DaemonContext(
                name=name, config=cfg, endpoint=endpoint, log=log,
                rng=seeded_rng(seed, name), run_dir=run_dir, participant=participant,
            )
            pool.addresses[name] = await nursery.start(daemon.run, ctx)
            pool.daemons[name] = daemon
        try:
            yield pool
        finally:
            nursery.cancel_scope.cancel()
            tracer.close()
    for log in loggers:
        close_daemon_logger(log)


class Killable:
    """A daemon of an in-process pool that a test kills and starts again, as a crash and
    the master's restart would: :meth:`kill` cancels it at once (no goodbye to anyone);
    :meth:`start` runs a fresh daemon from ``factory`` under the same name, on the same run
    directory (its spool, its logs). ``daemon`` is the one running now."""

    def __init__(self, pool: InProcessPool, nursery: trio.Nursery, name: str,
                 factory: Callable[[], Daemon]) -> None:
        self.pool, self.nursery, self.name, self.factory = pool, nursery, name, factory
        self.daemon: Daemon | None = None
        self._scope: trio.CancelScope | None = None

    async def start(self) -> None:
        self.daemon = self.factory()
        log = daemon_logger(self.name, None)
        cfg = self.pool.config.with_subsystem(self.name.upper())
        endpoint = Endpoint(name=self.name, network=self.pool.network,
                            participant=self.pool.participant, tracer=self.pool.tracer, log=log,
                            security=self.pool.security(cfg))
        ctx = DaemonContext(
            name=self.name, config=cfg,
            endpoint=endpoint, log=log, rng=seeded_rng(0, self.name),
            run_dir=self.pool.run_dir, participant=self.pool.participant)
        self.pool.addresses[self.name] = await self.nursery.start(self._run, self.daemon, ctx)
        self.pool.daemons[self.name] = self.daemon

    async def _run(self, daemon: Daemon, ctx: DaemonContext,
                   task_status: trio.TaskStatus[str]) -> None:
        with trio.CancelScope() as scope:
            self._scope = scope
            await daemon.run(ctx, task_status)

    def kill(self) -> None:
        assert self._scope is not None, f"{self.name} was never started"
        self._scope.cancel()
