"""A handler that fails on one message costs that connection, never the daemon."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import trio

from condorsim.config import Config
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.runtime.network import Conn
from condorsim.wire import ConnectionClosed, Message
from condorsim.wire import messages as m


class _Served:
    """A daemon that serves its ``_handle``."""

    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status)
            )
            task_status.started(address)

    async def _handle(self, msg: Message, conn: Conn) -> None:
        raise NotImplementedError


class Fragile(_Served):
    """Answers ALIVE with OK, and fails (a bug) on RELEASE_CLAIM."""

    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.RELEASE_CLAIM):
            raise KeyError(msg.claim_id)
        await conn.send(m.OK())


async def test_a_failing_handler_loses_its_connection_and_the_daemon_serves_on(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    async with open_inprocess_pool(
        Config.from_text(""), tmp_path, [("fragile", Fragile)], log_dir=tmp_path / "log"
    ) as pool:
        async with await pool.connect("fragile") as conn:
            await conn.send(m.RELEASE_CLAIM(claim_id="nope"))
            try:
                reply = await conn.receive()
            except ConnectionClosed:
                reply = None
            assert reply is None
        async with await pool.connect("fragile") as conn:
            assert isinstance(await conn.request(m.ALIVE(claim_id="x")), m.OK)
    records = [json.loads(line) for line in (tmp_path / "log" / "FragileLog.json").read_text().splitlines()]
    failed = [r for r in records if r["event"] == "handler_failed"]
    assert len(failed) == 1 and failed[0]["error"] == "KeyError: 'nope'"


class Watcher(_Served):
    """Notes, for each connection, when the daemon's side of it closes."""

    def __init__(self) -> None:
        self.closed: list[str] = []

    async def _handle(self, msg: Message, conn: Conn) -> None:
        if isinstance(msg, m.ALIVE):
            conn.at_close(lambda: self.closed.append(msg.claim_id))
        if isinstance(msg, m.RELEASE_CLAIM):
            raise KeyError(msg.claim_id)  # a bug: the daemon drops the connection
        await conn.send(m.OK())


async def test_a_connection_runs_its_close_callbacks_once_however_it_ends(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    watcher = Watcher()
    async with open_inprocess_pool(
        Config.from_text(""), tmp_path, [("watcher", lambda: watcher)], log_dir=tmp_path / "log"
    ) as pool:
        async with await pool.connect("watcher") as conn:
            assert isinstance(await conn.request(m.ALIVE(claim_id="a")), m.OK)
            assert watcher.closed == []
        async with await pool.connect("watcher") as conn:  # the daemon's side drops it
            assert isinstance(await conn.request(m.ALIVE(claim_id="b")), m.OK)
            await conn.send(m.RELEASE_CLAIM(claim_id="b"))
            with contextlib.suppress(ConnectionClosed):
                await conn.receive()
            assert watcher.closed == ["a", "b"]
        await trio.sleep(1)
    assert watcher.closed == ["a", "b"]
