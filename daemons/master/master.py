"""condor_master: starts the pool's daemons as OS processes, restarts them, stops them.

How this works
--------------
:class:`Master` follows :func:`~.logic.daemon_plan`: it starts the collector, reads the
address the collector prints on its first line of output, hands it to every later daemon as
``_CONDOR_COLLECTOR_HOST``, and starts all the rest at once (a Python process takes about
half a second to start), each companion once its parent is up (:func:`~.logic.start_after`). Each daemon is watched by a task of its own;
when one dies, the master waits the back-off of :class:`~.logic.RestartPolicy` (simulated
seconds) and starts it again. Waiting on real processes is marked *busy*, so virtual time
never jumps while a daemon is starting or stopping.

In virtual mode the master's process also hosts the pool's coordinator; every daemon it
starts is announced to the coordinator first (``expect``), so no jump happens before the new
process has joined.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import trio

from condorsim.classad import ClassAd
from condorsim.config import Config as DaemonConfig
from condorsim.runtime.coordinator import Coordinator
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.runtime.pipeline import KeptConnection
from condorsim.runtime.process import wait_real
from condorsim.runtime.zygote import SPAWN_KNOB, ForkedProcess, ZygoteUnavailable, zygote_for
from condorsim.wire import Message
from condorsim.wire.messages import (
    DAEMON_OFF,
    DAEMON_ON,
    DAEMONS_OFF,
    DAEMONS_ON,
    DC_OFF_FAST,
    DC_OFF_GRACEFUL,
    DC_RECONFIG,
    FAILED,
    OK,
    RESTART,
    UPDATE_MASTER_AD,
)

from .logic import PlannedDaemon, RestartPolicy, daemon_plan, start_after

STOP_TIMEOUT = 10.0  # real seconds a daemon gets to exit on SIGTERM before SIGKILL
# Stopping the whole pool (condorsim down, SIGTERM or SIGQUIT to the master): real seconds
# the startds (and their starters) get, then all the daemons together, before SIGKILL.
# HTCondor's SHUTDOWN_GRACEFUL_TIMEOUT (1800 s) and SHUTDOWN_FAST_TIMEOUT (300 s) are for
# daemons with real work to save; a simulated one is done in well under a second.
STARTD_STOP_TIMEOUT = 2.0
POOL_STOP_TIMEOUT = 3.5


@dataclass
class ChildOptions:
    """How the master starts its children (the same for every daemon of the pool)."""

    run_dir: Path
    config_path: Path | None
    clock: str = "wall"  # "wall" or "virtual"
    coordinator_address: str | None = None
    speed: float = 1.0
    seed: int = 0
    trace_path: Path | None = None
    python: str = sys.executable


@dataclass
class _Child:
    planned: PlannedDaemon
    process: trio.Process | ForkedProcess | None = None
    address: str | None = None
    started: float = 0.0
    restarts: int = 0
    stopping: bool = False
    up: trio.Event = field(default_factory=trio.Event)
    # Set by kill(): the master stays busy from the kill until its restart timer is set, so
    # virtual time cannot move between the death and the moment the master sees it.
    dying: ExitStack | None = None
    # condor_off -daemon NAME: stopped and not restarted until condor_on sets ``resume``.
    off: bool = False
    resume: trio.Event = field(default_factory=trio.Event)
    # When the restart timer set after a death fires (simulated time; None when none is
    # set), and why the last start failed (None once one succeeds): for restart_state().
    restart_at: float | None = None
    start_failed: str | None = None


@dataclass(frozen=True)
class RestartState:
    """What the master knows of one child (:meth:`Master.restart_state`).

    ``running``: up and answering at ``address``. Otherwise ``restart_at`` is when the
    master's restart timer fires (None: not known yet, e.g. the death is not reaped yet),
    ``start_failed`` why the last attempt to start it failed, and ``gave_up`` why the master
    will not start it again (empty when it will)."""

    running: bool
    address: str | None = None
    restart_at: float | None = None
    start_failed: str | None = None
    gave_up: str = ""


class Master:
    """The master daemon. ``coordinator`` is given in virtual mode (it lives in this process)."""

    def __init__(self, options: ChildOptions, coordinator: Coordinator | None = None) -> None:
        self.options = options
        self.coordinator = coordinator
        self.children: dict[str, _Child] = {}
        self.collector_address: str | None = None
        self.all_up = trio.Event()
        # condor_restart: a master that restarts is a new process (HTCondor's master execs
        # itself) and advertises at once, with its new start time.
        self._advertise_now = trio.Event()
        self._stopping = False
        self._ctx: DaemonContext | None = None
        self._nursery: trio.Nursery | None = None

    # -- the daemon ---------------------------------------------------------------------------
    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self._ctx = ctx
        cfg = ctx.config
        policy = RestartPolicy(
            constant=cfg.get_float("MASTER_BACKOFF_CONSTANT", 9),
            factor=cfg.get_float("MASTER_BACKOFF_FACTOR", 2.0),
            ceiling=cfg.get_float("MASTER_BACKOFF_CEILING", 3600),
            recover=cfg.get_float("MASTER_RECOVER_FACTOR", 300),
        )
        plan = daemon_plan(cfg.get_list("DAEMON_LIST"))
        self._start_time = int(trio.current_time())
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            address = await nursery.start(ctx.serve, self._handle)
            task_status.started(address)
            try:
                for planned in plan:
                    self.children[planned.name] = _Child(planned)
                first = [c for c in self.children.values() if c.planned.key == "COLLECTOR"]
                for child in first:
                    nursery.start_soon(self._supervise, child, policy)
                    await child.up.wait()
                    self.collector_address = child.address
                after = start_after(plan)
                for child in self.children.values():
                    if child not in first:
                        parent = self.children.get(after.get(child.planned.name, ""))
                        nursery.start_soon(self._supervise, child, policy, parent)
                for child in self.children.values():
                    await child.up.wait()
                self.all_up.set()
                ctx.log.info("all_daemons_started", daemons=[p.name for p in plan])
                if self.collector_address is not None:
                    await self._advertise(address)
                await trio.sleep_forever()
            finally:
                with trio.CancelScope(shield=True):
                    await self.stop_all()

    async def _advertise(self, address: str) -> None:
        """UPDATE_MASTER_AD to the collector every MASTER_UPDATE_INTERVAL, and at once after
        a condor_restart (the collector restarted with the rest has lost every ad)."""
        assert self._ctx is not None and self.collector_address is not None
        interval = self._ctx.config.get_int("MASTER_UPDATE_INTERVAL", 300)
        to_collector = KeptConnection(self._ctx.connect, lambda: self.collector_address or "",
                                      "collector", self._ctx.log, "collector_update_failed")
        async with to_collector:
            while True:
                ad = ClassAd()
                ad["MyType"] = "DaemonMaster"
                ad["Name"] = "master@localhost"
                ad["Machine"] = "localhost"
                ad["MyAddress"] = address
                ad["DaemonList"] = ", ".join(
                    ["MASTER", *(c.planned.key for c in self.children.values())])
                ad["UpdateInterval"] = interval
                ad.update(master_ad_attrs(self._ctx.config, self._start_time))
                await to_collector.send(UPDATE_MASTER_AD(ad=ad))
                with trio.move_on_after(interval):
                    await self._advertise_now.wait()
                self._advertise_now = trio.Event()

    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, DC_OFF_GRACEFUL | DC_OFF_FAST):
            await conn.send(OK())
            assert self._ctx is not None
            self._ctx.shutdown = "fast" if isinstance(msg, DC_OFF_FAST) else "graceful"
            self._ctx.log.info("shutdown_requested", how=self._ctx.shutdown,
                               command=msg.command)
            assert self._nursery is not None
            self._nursery.cancel_scope.cancel()
        elif isinstance(msg, DAEMONS_OFF):  # condor_off: the children stop, the master stays
            for name in reversed(list(self.children)):
                await self.stop(name)
            await conn.send(OK())
        elif isinstance(msg, DAEMONS_ON):  # condor_on: every stopped child starts again
            await conn.send(OK())
            for name in self.children:
                self.start(name)
        elif isinstance(msg, DAEMON_OFF | DAEMON_ON):
            child = self._child_name(msg.name)
            if child is None:
                await conn.send(FAILED(reason=f"no daemon named {msg.name!r}"))
            else:
                if isinstance(msg, DAEMON_OFF):
                    await self.stop(child)
                else:
                    self.start(child)
                await conn.send(OK())
        elif isinstance(msg, RESTART):
            await conn.send(OK())
            for name in list(self.children):
                await self.restart(name)
            self._start_time = int(trio.current_time())
            self._advertise_now.set()
        elif isinstance(msg, DC_RECONFIG):
            await conn.send(OK())
        else:
            await conn.send(FAILED(reason=f"the master does not take {type(msg).__name__}"))

    # -- children -----------------------------------------------------------------------------
    def _argv(self, child: _Child) -> list[str]:
        o = self.options
        name = child.planned.name
        log_dir = o.run_dir / "log"
        argv = [
            o.python, "-m", child.planned.module,
            "--name", name,
            "--run-dir", str(o.run_dir),
            "--clock", o.clock,
            "--start", repr(trio.current_time()), "--wall-origin", repr(time.time()),
            "--speed", repr(o.speed),
            "--seed", str(o.seed),
            "--address-file", str(log_dir / f".{name}_address"),
        ]
        if o.config_path is not None:
            argv += ["--config", str(o.config_path)]
        if o.coordinator_address is not None:
            argv += ["--coordinator", o.coordinator_address]
        if o.trace_path is not None:
            argv += ["--trace", str(o.trace_path)]
        return argv

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.collector_address:
            env["_CONDOR_COLLECTOR_HOST"] = self.collector_address.strip("<>")
        return env

    async def _start(self, child: _Child) -> None:
        assert self._ctx is not None
        name = child.planned.name
        log_dir = self.options.run_dir / "log"
        log_dir.mkdir(parents=True, exist_ok=True)
        if self.coordinator is not None:
            self.coordinator.expect(name)
        with self._ctx.busy():
            err = open(log_dir / f"{name}.stderr", "ab")
            try:
                proc = await self._spawn(child, err.fileno())
            finally:
                err.close()
            child.process = proc
            assert proc.stdout is not None
            line = await _read_line(proc.stdout)
        if not line:
            if self.coordinator is not None:
                self.coordinator.forget(name)
            with self._ctx.busy():
                await wait_real(proc, STOP_TIMEOUT)  # its stdout closed: it is exiting
            reason = _last_line(log_dir / f"{name}.stderr")
            child.start_failed = reason or f"exit status {proc.returncode}"
            self._ctx.log.error("daemon_failed_to_start", daemon=name, pid=proc.pid,
                                status=proc.returncode, reason=reason)
            return
        child.restart_at = child.start_failed = None
        child.address = line
        child.started = trio.current_time()
        self._ctx.log.info("daemon_started", daemon=name, pid=proc.pid, address=line)
        child.up.set()

    async def _spawn(self, child: _Child, stderr: int) -> trio.Process | ForkedProcess:
        """Start the daemon's process: forked by this process's zygote
        (SIM_DAEMON_SPAWN = fork, the default; condorsim/runtime/zygote.py), or exec'd as
        ``python -m daemons.<name>`` (SIM_DAEMON_SPAWN = exec, or the zygote cannot)."""
        assert self._ctx is not None
        argv, env = self._argv(child), self._env()
        if self._spawn_mode() == "fork":
            try:
                # a new zygote imports this pool's daemons (another module is imported by
                # the child that runs it)
                zygote = zygote_for(self.options.python, env,
                                    sorted({c.planned.module for c in self.children.values()}))
                return await zygote.spawn(argv, env, stderr=stderr,
                                          comm=f"condor_{child.planned.key.lower()}")
            except ZygoteUnavailable as e:
                self._ctx.log.warning("daemon_spawn_fallback", daemon=child.planned.name,
                                      reason=str(e))
        return await trio.lowlevel.open_process(
            argv, stdout=subprocess.PIPE, stderr=stderr, env=env, start_new_session=True)

    def _spawn_mode(self) -> str:
        assert self._ctx is not None
        mode = (self._ctx.config.get(SPAWN_KNOB) or "fork").strip().lower()
        if mode not in ("fork", "exec"):
            self._ctx.log.warning("bad_knob", knob=SPAWN_KNOB, value=mode,
                                  using="fork", reason="neither fork nor exec")
            mode = "fork"
        return mode

    async def _supervise(
        self, child: _Child, policy: RestartPolicy, after: _Child | None = None
    ) -> None:
        assert self._ctx is not None
        if after is not None:
            await after.up.wait()
        while not self._stopping:
            await self._start(child)
            proc = child.process
            if proc is None:
                return
            assert proc.stdout is not None
            async with trio.open_nursery() as n:
                n.start_soon(_drain, proc.stdout)
                status = await proc.wait()
            if self._ctx.participant is not None:
                # A death is news from outside the pool: make sure virtual time sees what
                # follows (the restart timer) before it moves.
                self._ctx.participant.wake()
            dying, child.dying = child.dying, None
            if self._stopping:
                if dying is not None:
                    dying.close()
                return
            now = trio.current_time()
            if child.off:
                self._ctx.log.info("daemon_off", daemon=child.planned.name, status=status,
                                   pid=proc.pid)
                if dying is not None:
                    dying.close()
                child.up = trio.Event()
                await child.resume.wait()
                child.resume = trio.Event()
                child.off = False
                continue
            if child.stopping:
                child.stopping = False
                delay = 0.0
            else:
                delay = policy.delay_after_exit(child.planned.name, child.started, now)
            child.restarts += 1
            child.up = trio.Event()
            why = _last_line(self.options.run_dir / "log" / f"{child.planned.name}.stderr") \
                if status else ""
            self._ctx.log.warning(
                "daemon_exited", daemon=child.planned.name, status=status, restart_in=delay,
                pid=proc.pid, **({"reason": why} if why else {}),
            )
            child.restart_at = now + delay
            if dying is not None:
                dying.close()  # the restart timer below is set before anyone is idle
            if delay:
                await trio.sleep(delay)

    def pid(self, name: str) -> int | None:
        child = self.children.get(name)
        if child is None or child.process is None or child.process.returncode is not None:
            return None
        return child.process.pid

    def restart_state(self, name: str) -> RestartState | None:
        """Whether the child ``name`` runs and, if not, whether and when the master starts
        it again (read only; None when DAEMON_LIST has no such daemon)."""
        child = self.children.get(name)
        if child is None:
            return None
        proc = child.process
        alive = proc is not None and proc.returncode is None and child.dying is None
        if alive and child.up.is_set() and not child.off:
            return RestartState(True, child.address)
        gave_up = ("the pool is shutting down" if self._stopping else
                   "it was turned off (condor_off)" if child.off else "")
        return RestartState(False, None, child.restart_at, child.start_failed, gave_up)

    def kill(self, name: str) -> None:
        """SIGKILL a daemon (as a crash would); the master restarts it after its back-off."""
        child = self.children[name]
        if child.process is not None and child.process.returncode is None:
            if self.coordinator is not None:
                self.coordinator.will_leave(name)  # the death happens at this instant
            if self._ctx is not None and child.dying is None:
                child.dying = ExitStack()
                child.dying.enter_context(self._ctx.busy())
            child.process.kill()

    async def restart(self, name: str) -> None:
        """Stop a daemon gracefully and start it again at once (condor_restart -daemon)."""
        child = self.children[name]
        child.stopping = True
        await self._terminate(child)
        await child.up.wait()

    async def stop(self, name: str) -> None:
        """condor_off -daemon: stop a daemon gracefully and keep it stopped until
        :meth:`start` (condor_on)."""
        child = self.children[name]
        if child.off:
            return
        child.off = True
        await self._terminate(child)

    def start(self, name: str) -> None:
        """condor_on -daemon: start again a daemon that :meth:`stop` stopped."""
        child = self.children[name]
        if child.off:
            child.resume.set()  # the supervising task clears ``off`` when it starts it

    def _child_name(self, text: str) -> str | None:
        """The child a condor_on/off name means: its name or its DAEMON_LIST entry."""
        for name, child in self.children.items():
            if text.lower() in (name.lower(), child.planned.key.lower()):
                return name
        return None

    async def _terminate(self, child: _Child) -> None:
        proc = child.process
        if proc is None or proc.returncode is not None:
            return
        assert self._ctx is not None
        with self._ctx.busy():
            proc.send_signal(signal.SIGTERM)
            if not await wait_real(proc, STOP_TIMEOUT):
                proc.kill()
                await wait_real(proc, STOP_TIMEOUT)

    async def stop_all(self) -> None:
        """Stop every daemon and leave no process behind, as condor_master's
        ``StopAllDaemons``: the startds first (each vacates its jobs; their starters with
        them), then, once they are gone, all the others at once. A graceful shutdown sends
        SIGTERM, a fast one (condor_off -fast, SIGQUIT to the master) SIGQUIT; a daemon
        still there after its phase's timeout gets SIGKILL."""
        self._stopping = True
        assert self._ctx is not None
        sig = signal.SIGQUIT if self._ctx.shutdown == "fast" else signal.SIGTERM
        start = time.monotonic()
        first = [c for c in self.children.values() if c.planned.key in ("STARTD", "STARTER")]
        rest = [c for c in self.children.values() if c not in first]
        await self._stop_together(first, sig, start + STARTD_STOP_TIMEOUT)
        await self._stop_together(rest, sig, start + POOL_STOP_TIMEOUT)
        self._ctx.log.info("all_daemons_stopped", how=self._ctx.shutdown,
                           seconds=round(time.monotonic() - start, 2))

    async def _stop_together(self, children: list[_Child], sig: int, deadline: float) -> None:
        procs = [(c, c.process) for c in children
                 if c.process is not None and c.process.returncode is None]
        for _, proc in procs:
            proc.send_signal(sig)
        for child, proc in procs:
            if not await wait_real(proc, max(0.0, deadline - time.monotonic())):
                assert self._ctx is not None
                self._ctx.log.warning("daemon_killed_at_shutdown", daemon=child.planned.name,
                                      pid=proc.pid)
                proc.kill()
                await wait_real(proc, STOP_TIMEOUT)


def master_ad_attrs(config: DaemonConfig, start_time: int) -> dict[str, object]:
    """What condor_status -master shows: the version, the machine's CPUs and memory
    (NUM_CPUS and MEMORY when set, as the master's DetectedCpus / DetectedMemory follow
    them in a simulated machine, else the host's), and when the master started."""
    from condorsim.submit._build import CONDOR_PLATFORM, CONDOR_VERSION

    get_int = config.get_int
    cpus = get_int("NUM_CPUS", 0) or os.cpu_count() or 1
    try:
        host_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError, AttributeError):
        host_mb = 1024
    return {"CondorVersion": CONDOR_VERSION, "CondorPlatform": CONDOR_PLATFORM,
            "DetectedCpus": cpus, "DetectedMemory": get_int("MEMORY", 0) or int(host_mb),
            "DaemonStartTime": start_time}


def _last_line(path: Path) -> str:
    """The last non-empty line a daemon wrote to its stderr file (why it did not start)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            lines = [x.strip() for x in f.read().decode(errors="replace").splitlines()]
    except OSError:
        return ""
    return next((x for x in reversed(lines) if x), "")


async def _read_line(stream: trio.abc.ReceiveStream) -> str:
    data = b""
    while b"\n" not in data:
        chunk = await stream.receive_some(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode(errors="replace").strip()


async def _drain(stream: trio.abc.ReceiveStream) -> None:
    try:
        while await stream.receive_some(4096):
            pass
    except (trio.ClosedResourceError, trio.BrokenResourceError):
        pass
