"""Load: many concurrent tool clients against a live pool (``make load``).

How this works
--------------
Each client is a trio task that loops, for ``seconds`` of wall time, over the four commands
a user runs most, in turn from a different starting point: ``q`` (the schedd found through
the collector, as the tools find it, then QUERY_JOB_ADS), ``submit`` (SUBMIT_JOBS of a short
simulated job), ``status`` (QUERY_STARTD_ADS to the collector) and ``qedit`` (QEDIT of an
attribute of the client's own last job). Each command opens its own connections as the
tools do and must end within the tools' timeout (20 s): answered (the reply the tool
expects), refused (FAILED with a reason, which the tool prints), or an error (no answer, a
closed connection, a wrong reply) -- which fails the run.

Afterwards no daemon may have exited (the master's log), and every job a submit was told
about must be in the queue or in the history.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import trio

from condorsim.runtime.network import Endpoint, TcpNetwork
from condorsim.tools.common import TIMEOUT
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

from .livepool import LivePool, with_pool

OPS = ("q", "submit", "status", "qedit")
JOB = "executable = /bin/sleep\narguments = 5\nqueue\n"
Q_COLUMNS = ["ClusterId", "ProcId", "Owner", "QDate", "RemoteUserCpu", "JobStatus",
             "JobPrio", "ImageSize", "Cmd", "Args"]


@dataclass
class LoadReport:
    clients: int
    seconds: float
    answered: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")
    latencies: list[float] = field(default_factory=list)
    submitted: set[int] = field(default_factory=set)
    missing: list[int] = field(default_factory=list)
    deaths: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(self.answered.values()) + sum(self.refused.values()) + len(self.errors)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.missing and not self.deaths and self.requests > 0

    def text(self) -> str:
        lat = sorted(self.latencies) or [0.0]
        p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        lines = [f"load: {self.clients} clients for {self.seconds:.0f} s: {self.requests} "
                 f"requests, {self.requests / self.seconds:.1f} per second"]
        for op in OPS:
            lines.append(f"  {op:<7} answered {self.answered[op]:>6}  refused "
                         f"{self.refused[op]:>4}")
        lines.append(f"  answer times: median {p50 * 1000:.0f} ms, 99th percentile "
                     f"{p99 * 1000:.0f} ms, slowest {self.slowest[0] * 1000:.0f} ms "
                     f"({self.slowest[1]})")
        lines.append(f"  errors (no answer, or not the answer a tool expects): "
                     f"{len(self.errors)}" + "".join(f"\n    {e}" for e in self.errors[:10]))
        lines.append(f"  jobs submitted {len(self.submitted)}, lost {len(self.missing)}"
                     f"{' ' + str(self.missing[:10]) if self.missing else ''}; daemons that "
                     f"died: {', '.join(self.deaths) or 'none'}")
        return "\n".join(lines)


class _Client:
    def __init__(self, pool: LivePool, n: int, report: LoadReport) -> None:
        self.pool, self.n, self.report = pool, n, report
        self.owner = f"user{n}"
        self.last: int | None = None
        self.endpoint = Endpoint(name="tool", network=TcpNetwork())

    async def _ask(self, address: str, peer: str, msg: Message) -> Message:
        async with await self.endpoint.connect(address, peer) as conn:
            return await conn.request(msg)

    async def _schedd(self) -> str:
        reply = await self._ask(self.pool.addresses["collector"], "collector",
                                m.QUERY_SCHEDD_ADS(constraint="", projection=["MyAddress"]))
        if isinstance(reply, m.QUERY_RESULT):
            for ad in reply.ads:
                addr = ad.evaluate("MyAddress")
                if isinstance(addr, str):
                    return addr
        raise LookupError(f"no schedd in the collector (it answered {reply.command})")

    async def op(self, op: str) -> Message:
        if op == "status":
            return await self._ask(self.pool.addresses["collector"], "collector",
                                   m.QUERY_STARTD_ADS(constraint="", projection=[]))
        schedd = await self._schedd()
        if op == "q":
            return await self._ask(schedd, "schedd",
                                   m.QUERY_JOB_ADS(constraint="", projection=Q_COLUMNS))
        if op == "submit":
            reply = await self._ask(schedd, "schedd", m.SUBMIT_JOBS(
                owner=self.owner, text=JOB, iwd=str(self.pool.home), source="load.sub"))
            if isinstance(reply, m.SUBMIT_RESULT):
                self.last = reply.cluster
                self.report.submitted.add(reply.cluster)
            return reply
        ids = [f"{self.last}.0"] if self.last is not None else []
        return await self._ask(schedd, "schedd", m.QEDIT(
            ids=ids, constraint="" if ids else f'Owner == "{self.owner}"', attr="LoadTag",
            value=str(self.n), owner=self.owner))

    async def run(self, until: float) -> None:
        i = self.n
        while time.monotonic() < until:
            op = OPS[i % len(OPS)]
            i += 1
            began = time.monotonic()
            outcome = "error"
            why = ""
            try:
                with trio.fail_after(TIMEOUT):
                    reply = await self.op(op)
                expected = {"q": m.QUERY_RESULT, "status": m.QUERY_RESULT,
                            "submit": m.SUBMIT_RESULT, "qedit": m.ACT_RESULT}[op]
                if isinstance(reply, expected):
                    outcome = "answered"
                elif isinstance(reply, m.FAILED) and reply.reason:
                    outcome = "refused"
                else:
                    why = f"answered {reply.command}"
            except trio.TooSlowError:
                why = f"no answer within {TIMEOUT:.0f} s"
            except (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError,
                    LookupError) as e:
                why = f"{type(e).__name__}: {e}"
            took = time.monotonic() - began
            r = self.report
            r.latencies.append(took)
            if took > r.slowest[0]:
                r.slowest = (took, op)
            if outcome == "answered":
                r.answered[op] += 1
            elif outcome == "refused":
                r.refused[op] += 1
            else:
                r.errors.append(f"client {self.n} {op}: {why}")


async def load_pool(pool: LivePool, clients: int, seconds: float) -> LoadReport:
    report = LoadReport(clients, seconds)
    began = time.monotonic()
    until = began + seconds
    async with trio.open_nursery() as nursery:
        for n in range(clients):
            nursery.start_soon(_Client(pool, n, report).run, until)
    report.seconds = time.monotonic() - began
    in_queue = {c for c, _, _ in await pool.jobs()}
    done = {c for c, _, _ in await pool.jobs(history=True)}
    report.missing = sorted(report.submitted - in_queue - done)
    report.deaths = pool.deaths()
    return report


def run_load(clients: int, seconds: float) -> LoadReport:
    """Start a pool, load it, check it, stop it."""
    return with_pool(lambda pool: load_pool(pool, clients, seconds),
                     lambda report: report.ok)
