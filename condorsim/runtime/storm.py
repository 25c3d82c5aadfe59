"""A message-storm daemon: the load that proves (and measures) virtual time.

How this works
--------------
``python -m condorsim.runtime.storm`` runs like any daemon. Told STORM_START (its peers'
addresses, a seed and how many timers), it sets that many timers at random simulated
moments. When a timer fires it checks it fired at exactly its deadline, then sends a random
burst of STORM_PING messages to random peers; a ping carries the simulated time it was sent
at and a hop count, and whoever receives it checks that the time has not moved while it was
in flight, then passes it on while hops remain. STORM_REPORT asks for the tally: timers
fired, pings received, and every violation seen. The virtual-time property test and
``make bench`` both use it.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import trio

from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.wire import Message, message
from condorsim.wire.messages import OK


@message("SIM_STORM_START")
class SIM_STORM_START(Message):
    peers: list[str]
    seed: int
    timers: int
    horizon: float
    max_burst: int
    max_hops: int


@message("SIM_STORM_PING")
class SIM_STORM_PING(Message):
    sent_at: float
    hops: int


@message("SIM_STORM_REPORT")
class SIM_STORM_REPORT(Message):
    pass


@message("SIM_STORM_RESULT")
class SIM_STORM_RESULT(Message):
    tally: str  # JSON


@dataclass
class StormDaemon:
    timers_fired: int = 0
    pings_received: int = 0
    pings_sent: int = 0
    violations: list[str] = field(default_factory=list)
    last_deadline: float = 0.0
    _ctx: DaemonContext | None = None
    _nursery: trio.Nursery | None = None
    _rng: random.Random = field(default_factory=random.Random)
    _peers: list[str] = field(default_factory=list)
    _max_burst: int = 0
    _max_hops: int = 0

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self._ctx = ctx
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            address = await nursery.start(lambda task_status: ctx.serve(self._handle, task_status=task_status))
            task_status.started(address)

    async def _handle(self, msg: Message, conn: Conn) -> None:
        assert self._nursery is not None
        if isinstance(msg, SIM_STORM_START):
            self._rng = random.Random(msg.seed)
            self._peers = list(msg.peers)
            self._max_burst, self._max_hops = msg.max_burst, msg.max_hops
            now = trio.current_time()
            for _ in range(msg.timers):
                offset = self._rng.choice([self._rng.randint(1, int(msg.horizon)),
                                           self._rng.uniform(0.5, msg.horizon)])
                deadline = now + offset
                self.last_deadline = max(self.last_deadline, deadline)
                self._nursery.start_soon(self._timer, deadline)
            await conn.send(OK())
        elif isinstance(msg, SIM_STORM_PING):
            self.pings_received += 1
            now = trio.current_time()
            if now != msg.sent_at:
                self.violations.append(f"ping sent at {msg.sent_at} received at {now}")
            if msg.hops > 0:
                self._nursery.start_soon(self._ping, self._rng.choice(self._peers), msg.hops - 1)
        elif isinstance(msg, SIM_STORM_REPORT):
            tally = {
                "timers_fired": self.timers_fired,
                "pings_received": self.pings_received,
                "pings_sent": self.pings_sent,
                "violations": self.violations,
                "last_deadline": self.last_deadline,
            }
            await conn.send(SIM_STORM_RESULT(tally=json.dumps(tally)))

    async def _timer(self, deadline: float) -> None:
        await trio.sleep_until(deadline)
        now = trio.current_time()
        self.timers_fired += 1
        if now != deadline:
            self.violations.append(f"timer for {deadline} fired at {now}")
        for _ in range(self._rng.randint(0, self._max_burst)):
            await self._ping(self._rng.choice(self._peers), self._rng.randint(0, self._max_hops))

    async def _ping(self, address: str, hops: int) -> None:
        assert self._ctx is not None
        self.pings_sent += 1
        conn = await self._ctx.connect(address, "storm")
        async with conn:
            await conn.send(SIM_STORM_PING(sent_at=trio.current_time(), hops=hops))


@dataclass
class StormOutcome:
    tallies: list[dict[str, object]]
    jumps: int
    final_time: float
    finish_reason: str
    wall_seconds: float  # from the first process started to the end of the run
    run_seconds: float = 0.0  # from the storm's start (every process up) to its end


def run_storm(
    processes: int,
    *,
    seed: int,
    timers: int,
    horizon: float = 3600.0,
    max_burst: int = 3,
    max_hops: int = 3,
    start: float = 1_767_225_600.0,
    run_dir: str | None = None,
) -> StormOutcome:
    """Run a storm over ``processes`` real daemon processes on virtual time; return the tallies.

    This process hosts the coordinator and takes part as ``driver``.
    """
    import tempfile
    import time

    from condorsim.runtime.clock import VirtualClock
    from condorsim.runtime.coordination import CoordinatorHost
    from condorsim.runtime.coordinator import Coordinator
    from condorsim.runtime.network import Endpoint, TcpNetwork
    from condorsim.runtime.participant import Participant
    from condorsim.security import Security, create_key, load_key

    clock = VirtualClock(start)
    workdir = run_dir or tempfile.mkdtemp(prefix="condorsim-storm-")
    key_file = Path(workdir) / "passwords.d" / "POOL"
    create_key(key_file)

    async def main() -> StormOutcome:
        participant = Participant(clock)
        network = TcpNetwork()
        coordinator = Coordinator(now=start)
        host = CoordinatorHost(coordinator, clock, participant, local_name="driver")
        endpoint = Endpoint(name="driver", network=network, participant=participant,
                            security=Security(key=load_key(key_file)))
        procs: list[trio.Process] = []
        t0 = time.perf_counter()
        async with trio.open_nursery() as nursery:
            coord_address = await nursery.start(lambda task_status: host.run(network, task_status=task_status))
            addresses = []
            for i in range(processes):
                name = f"storm{i + 1}"
                coordinator.expect(name)
                with participant.busy():
                    proc = await trio.lowlevel.open_process(
                        [sys.executable, "-m", "condorsim.runtime.storm", "--name", name,
                         "--run-dir", workdir, "--clock", "virtual",
                         "--coordinator", coord_address, "--start", repr(start)],
                        stdout=subprocess.PIPE,
                    )
                    procs.append(proc)
                    assert proc.stdout is not None
                    line = b""
                    while not line.endswith(b"\n"):
                        chunk = await proc.stdout.receive_some(1024)
                        if not chunk:
                            raise RuntimeError(f"{name} exited before listening")
                        line += chunk
                addresses.append(line.decode().strip())
            t1 = time.perf_counter()
            for i, address in enumerate(addresses):
                conn = await endpoint.connect(address, f"storm{i + 1}")
                async with conn:
                    started = await conn.request(SIM_STORM_START(
                        peers=addresses, seed=seed * 1000 + i, timers=timers,
                        horizon=horizon, max_burst=max_burst, max_hops=max_hops))
                    if not isinstance(started, OK):
                        raise RuntimeError(f"storm{i + 1} refused the storm: {started}")
            await host.finished.wait()
            wall = time.perf_counter() - t0
            run = time.perf_counter() - t1
            tallies = []
            for i, address in enumerate(addresses):
                conn = await endpoint.connect(address, f"storm{i + 1}")
                async with conn:
                    reply = await conn.request(SIM_STORM_REPORT())
                    assert isinstance(reply, SIM_STORM_RESULT)
                    tallies.append(json.loads(reply.tally))
            for proc in procs:
                proc.terminate()
            with participant.busy():
                for proc in procs:
                    await proc.wait()
            nursery.cancel_scope.cancel()
        return StormOutcome(tallies, coordinator.jumps, clock.now, host.finish_reason, wall, run)

    return trio.run(main, clock=clock)


def main() -> int:
    from condorsim.runtime.process import daemon_main

    return daemon_main("STORM", lambda args: StormDaemon())


if __name__ == "__main__":
    sys.exit(main())
