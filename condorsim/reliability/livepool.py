"""A live pool for the fuzz and load drivers: ``condorsim up`` in a temporary
``CONDORSIM_HOME`` (loopback only), asked and stopped through the same commands a user runs.

How this works
--------------
:class:`LivePool` writes the pool's condor_config first (the mini-pool's, with simulated job
run times instead of real executables, the job router with one route to a simulated site,
and a faster clock), runs ``condorsim up`` and reads every daemon's address from its
address file. :meth:`LivePool.deaths` counts the master's ``daemon_exited`` records: a
daemon that died (and was restarted) shows there. :meth:`LivePool.down` runs ``condorsim
down`` and, if anything is left, kills the master's process group it started.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import trio

from condorsim import pool as poolmod
from condorsim.runtime.network import Endpoint, TcpNetwork
from condorsim.wire import Message
from condorsim.wire import messages as m

R = TypeVar("R")
DAEMONS = ("master", "collector", "negotiator", "schedd", "shadow", "startd", "starter",
           "gridmanager", "job_router")
EXTRA_CONFIG = """
# condorsim.reliability: simulated run times, a router and a site, a faster clock.
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, JOB_ROUTER
SIM_EXECUTE_REAL_JOBS = False
SIM_SPEED = 10
NEGOTIATOR_INTERVAL = 20
JOB_ROUTER_ROUTE_NAMES = Site1
JOB_ROUTER_ROUTE_Site1 @=end
REQUIREMENTS WantJobRouter is true
GridResource = "batch slurm"
@end
SIM_GRID_SITES = [ Resource = "batch slurm"; Slots = 4; StartDelay = 10 ]
"""


class PoolError(RuntimeError):
    """The pool did not start, or did not do what was asked of it."""


class LivePool:
    def __init__(self, extra_config: str = "") -> None:
        self.home = Path(tempfile.mkdtemp(prefix="condorsim-live-"))
        self.env = dict(os.environ, CONDORSIM_HOME=str(self.home))
        config = poolmod.ensure_home(self.home)
        with open(config, "a", encoding="utf-8") as fh:
            fh.write(EXTRA_CONFIG + extra_config)
        self.addresses: dict[str, str] = {}

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "condorsim.cli", *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout, cwd=self.home)

    def up(self) -> None:
        done = self.cli("up")
        if done.returncode != 0:
            raise PoolError(f"condorsim up failed: {done.stderr or done.stdout}")
        for name in DAEMONS:
            self.addresses[name] = poolmod.read_address(self.home, name)

    def deaths(self) -> list[str]:
        """``daemon (status)`` of every daemon the master saw exit so far."""
        path = self.home / "log" / "MasterLog.json"
        out = []
        for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == "daemon_exited":
                out.append(f"{record.get('daemon')} (status {record.get('status')})")
        return out

    def down(self) -> None:
        pid = poolmod.master_pid(self.home)
        try:
            self.cli("down", timeout=90)
        except subprocess.TimeoutExpired:
            pass
        if pid is not None and poolmod.master_pid(self.home) is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def remove(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)

    # -- asking it (async, as the tools ask) ------------------------------------------------
    async def ask(self, daemon: str, msg: Message, timeout: float = 60) -> Message:
        endpoint = Endpoint(name="tool", network=TcpNetwork())
        with trio.fail_after(timeout):
            async with await endpoint.connect(self.addresses[daemon], daemon) as conn:
                return await conn.request(msg)

    async def submit(self, text: str, owner: str = "alice") -> int:
        reply = await self.ask("schedd", m.SUBMIT_JOBS(owner=owner, text=text,
                                                       iwd=str(self.home), source="load.sub"))
        if not isinstance(reply, m.SUBMIT_RESULT):
            raise PoolError(f"submit refused: {reply}")
        return reply.cluster

    async def jobs(self, constraint: str = "", history: bool = False) -> list[tuple[int, int, int]]:
        """(ClusterId, ProcId, JobStatus) of the queue's (or the history's) jobs."""
        projection = ["ClusterId", "ProcId", "JobStatus"]
        msg: Message = m.QUERY_HISTORY(constraint=constraint, projection=projection, limit=0) \
            if history else m.QUERY_JOB_ADS(constraint=constraint, projection=projection)
        reply = await self.ask("schedd", msg)
        if not isinstance(reply, m.QUERY_RESULT):
            raise PoolError(f"the schedd answered {reply}")
        return sorted((int(a.evaluate("ClusterId")), int(a.evaluate("ProcId")),
                       int(a.evaluate("JobStatus"))) for a in reply.ads)

    async def wait_completed(self, cluster: int, seconds: float) -> bool:
        """Whether every job of ``cluster`` is in the history, Completed, within ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            done = await self.jobs(f"ClusterId == {cluster}", history=True)
            left = await self.jobs(f"ClusterId == {cluster}")
            if done and not left and all(status == 4 for _, _, status in done):
                return True
            await trio.sleep(0.5)
        return False


def with_pool(body: Callable[[LivePool], Awaitable[R]], ok: Callable[[R], bool]) -> R:
    """Start a pool, run ``body`` on it (one trio run) and stop it. Its directory is removed
    when ``ok`` of the result, else kept (and named) for a look at the logs."""
    pool = LivePool()
    try:
        pool.up()
        result = trio.run(body, pool)
    except BaseException:
        pool.down()
        print(f"the pool's directory is kept: {pool.home}")
        raise
    pool.down()
    if ok(result):
        pool.remove()
    else:
        print(f"the pool's directory is kept: {pool.home}")
    return result
