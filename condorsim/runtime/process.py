"""Running one daemon as an OS process: ``python -m daemons.<name> [options]``.

How this works
--------------
The master starts every daemon with the same options: the run directory, the pool's config
file, the clock (``--clock virtual`` with the coordinator's address, or ``--clock wall`` with
a speed), the simulated start time and the seed. :func:`daemon_main` builds the clock, runs
trio with it, joins the virtual-time coordinator when there is one, and runs the daemon
until SIGTERM (or the coordinator goes away, which means the pool is over).

SIGTERM (and SIGINT) is HTCondor's graceful shutdown, SIGQUIT its fast one: either ends the
daemon's tasks at once; the context's ``shutdown`` says which, for the code that runs as the
daemon ends (a starter kills its jobs' processes with SIGTERM or SIGKILL). A daemon whose
``run`` returns by itself (the master told DC_OFF_GRACEFUL) ends its process too.
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import trio

from condorsim.config import Config, ConfigError
from condorsim.security import PoolKeyError, Security

from .clock import VirtualClock, WallClock
from .coordination import run_participant_link
from .daemon import Daemon, DaemonContext, seeded_rng
from .logs import daemon_logger
from .network import Endpoint, TcpNetwork
from .participant import Participant
from .sched import policy_name, set_batch
from .trace import Tracer

#: Python's cyclic garbage collector in a daemon: a young collection after 50,000 net
#: allocations of container objects (Python's default is 700), the older generations after
#: 20 of the one below them (default 10). Measured in docs/performance.md ("the storm cycle,
#: second pass"); why in docs/runtime.md ("Garbage collection").
GC_THRESHOLDS = (50_000, 20, 20)


def settle_heap() -> None:
    """Put what the daemon's process holds now (its modules, config, daemon object) in the
    collector's permanent generation, never scanned again, and collect the rest by
    :data:`GC_THRESHOLDS`. Called once, after start-up and before the daemon runs."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=f"condorsim {prog} daemon")
    p.add_argument("--name", help="this daemon's name in traces and logs")
    p.add_argument("--run-dir", required=True, type=Path)
    p.add_argument("--config", type=Path, help="the pool's condor_config")
    p.add_argument("--clock", choices=["virtual", "wall"], default="wall")
    p.add_argument("--coordinator", help="address of the virtual-time coordinator")
    p.add_argument("--start", type=float, default=None, help="simulated start (epoch s)")
    p.add_argument("--wall-origin", type=float, default=None,
                   help="wall clock: the host's epoch time at which simulated time was --start")
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--trace", type=Path, help="append the message trace here")
    p.add_argument("--address-file", type=Path, help="write the listening address here")
    p.add_argument("--port", type=int, default=0)
    return p


def daemon_main(
    subsystem: str,
    factory: Callable[[argparse.Namespace], Daemon],
    argv: list[str] | None = None,
) -> int:
    """Entry point of ``python -m daemons.<name>``."""
    base = subsystem.lower()
    args = build_parser(base).parse_args(argv)
    name = args.name or base
    try:
        config = Config.load(args.config, subsystem=subsystem)
    except ConfigError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    try:
        # the master creates the pool key if the pool has none yet; the others read it
        security = Security.for_daemon(config, args.run_dir, create=subsystem == "MASTER")
    except PoolKeyError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    import time

    start = args.start if args.start is not None else time.time()
    clock: trio.abc.Clock
    if args.clock == "virtual":
        if not args.coordinator:
            print(f"{name}: --clock virtual needs --coordinator", file=sys.stderr)
            return 2
        clock = VirtualClock(start)
    else:
        clock = WallClock(start, args.speed, args.wall_origin)

    async def main() -> None:
        virtual = isinstance(clock, VirtualClock)
        participant = Participant(clock if isinstance(clock, VirtualClock) else None)
        network = TcpNetwork()
        log_dir = _log_dir(config, args.run_dir)
        log = daemon_logger(name, log_dir, tz=config.get("SIM_TIMEZONE"))
        tracer = Tracer(args.trace) if args.trace else None
        endpoint = Endpoint(
            name=name, network=network, participant=participant if virtual else None,
            tracer=tracer, log=log, security=security,
        )
        ctx = DaemonContext(
            name=name, config=config, endpoint=endpoint, log=log,
            rng=seeded_rng(args.seed, name), run_dir=args.run_dir,
            participant=participant if virtual else None,
        )
        daemon = factory(args)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_stop_on_signal, nursery.cancel_scope, ctx)
            if isinstance(clock, VirtualClock):
                nursery.start_soon(
                    _link_then_stop, network, args.coordinator, name, participant, clock,
                    nursery.cancel_scope, security.key,
                )
            address = await nursery.start(_run_then_stop, daemon, ctx, nursery.cancel_scope)
            log.info("daemon_started", address=address, pid=os.getpid(),
                     scheduling=policy_name())
            # The master reads this first line to learn where the daemon listens.
            print(address, flush=True)
            if args.address_file:
                tmp = args.address_file.with_suffix(".tmp")
                tmp.write_text(f"{address}\n")
                tmp.replace(args.address_file)

    settle_heap()
    if isinstance(clock, VirtualClock):
        set_batch()  # a batch process on virtual time (runtime/sched.py)
    try:
        trio.run(main, clock=clock)
    except KeyboardInterrupt:
        return 0
    except (ConfigError, BaseExceptionGroup) as e:
        # A knob the daemon read as it started (SCHEDD_INTERVAL = soon) and cannot use: one
        # line naming it on stderr, which the master quotes, and exit 2 -- no traceback.
        error = _config_error(e)
        if error is None:
            raise
        print(f"{name}: {error}", file=sys.stderr)
        return 2
    return 0


def _config_error(e: BaseException) -> ConfigError | None:
    """The ConfigError ``e`` is or holds (trio wraps a task's error in a group)."""
    if isinstance(e, ConfigError):
        return e
    if isinstance(e, BaseExceptionGroup):
        for inner in e.exceptions:
            found = _config_error(inner)
            if found is not None:
                return found
    return None


def _log_dir(config: Config, run_dir: Path) -> Path:
    value = config.get("LOG")
    p = Path(value) if value else run_dir / "log"
    return p if p.is_absolute() else run_dir / p


async def _run_then_stop(
    daemon: Daemon, ctx: DaemonContext, scope: trio.CancelScope,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the daemon; when it returns by itself (the master told to go by DC_OFF_*), the
    process ends too, rather than waiting for a signal that nobody will send."""
    await daemon.run(ctx, task_status)
    scope.cancel()


async def _link_then_stop(
    network: TcpNetwork, address: str, name: str, participant: Participant,
    clock: VirtualClock, scope: trio.CancelScope, key: bytes | None,
) -> None:
    await run_participant_link(network, address, name, participant, clock, key)
    scope.cancel()


async def _stop_on_signal(scope: trio.CancelScope, ctx: DaemonContext) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGQUIT) as signals:
        async for signum in signals:
            ctx.shutdown = "fast" if signum == signal.SIGQUIT else "graceful"
            ctx.log.info("shutdown_requested", how=ctx.shutdown, signal=signum)
            scope.cancel()
            return


class Pollable(Protocol):
    """A child process: a ``trio.Process`` or a zygote's ForkedProcess."""

    def poll(self) -> int | None: ...


async def wait_real(proc: Pollable, timeout: float) -> bool:
    """Wait up to ``timeout`` real seconds for a process to exit (True if it did).

    Virtual time may stand still meanwhile (the caller is marked busy, or the daemon is
    ending), so the pauses are real ones, taken in a worker thread; the process itself is
    polled here, in trio. Usable inside a shielded cancel scope.
    """
    import time

    end = time.monotonic() + timeout
    while proc.poll() is None:
        if time.monotonic() > end:
            return False
        await trio.to_thread.run_sync(time.sleep, 0.01)
    return True


def checked_daemon_main(
    subsystem: str,
    factory: Callable[[argparse.Namespace], Daemon],
    check: Callable[[Config], object],
    errors: tuple[type[Exception], ...],
    argv: list[str] | None = None,
) -> int:
    """:func:`daemon_main`, after ``check`` has read the daemon's own knobs from its config.

    A knob the daemon cannot use (``check`` raises one of ``errors``) is reported on stderr
    as ``<daemon>: <problem>`` and the process exits 2 before it serves anything; the
    master logs that the daemon failed to start. Config errors are left to daemon_main.
    """
    argv = sys.argv[1:] if argv is None else argv
    name = subsystem.lower()
    args, _ = build_parser(name).parse_known_args(argv)
    try:
        check(Config.load(args.config, subsystem=subsystem))
    except ConfigError:
        pass  # daemon_main reports config errors itself
    except errors as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    return daemon_main(subsystem, factory, argv)
