"""Connections a daemon keeps open between messages.

How this works
--------------
A :class:`KeptConnection` is HTCondor's DCCollector update socket (``update_rsock``): a
daemon's updates to the collector go down one connection it opens at the first update and
keeps. Before each use it looks whether the collector has closed it (it restarted: over TCP
a message written into such a connection is lost without an error, HTCondor's
``condor_write`` makes the same check), and opens a new one if so; a message that fails on
the kept connection is sent once more on a new one (``sendTCPUpdate``), and only a failure
on a new connection is logged and dropped, left to the next update.

A :class:`RequestPipe` keeps one connection to a daemon and sends every request down it as
it is made, without waiting for the replies of those before it (pipelining). The server
handles a connection's messages one after the other and answers each before it reads the
next (``Endpoint.serve``), so the replies come back in the order the requests went out:
a reader task hands each reply to the request at the head of the queue of those waiting.

Who uses it, and why: condorsim's one shadow process hosts every shadow of a schedd, where
HTCondor runs a shadow process per job, each opening its own connection to the schedd for
each queue update. The messages are the same either way (a connection's SIM_HELLO is not a
pool message in the trace); what one connection saves is the connect, accept, handshake
and pool-key check per update, and what pipelining saves is a round trip of both
processes per update when thousands of shadows push at one instant (docs/shadow.md).

Failures: a connection that breaks (the peer closed it, reset it, sent something that is
not a frame) fails every request waiting on it with the same error, the error a request
over a connection of its own would have raised; the next request opens a new connection.
A cancelled send leaves a frame half written, so it breaks the connection too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from condorsim.wire import ConnectionClosed, Message, ProtocolError

from .network import Conn

Connect = Callable[[str, str], Awaitable[Conn]]

_SEND_ERRORS = (OSError, LookupError, ConnectionClosed, ProtocolError, trio.BrokenResourceError,
                trio.ClosedResourceError)
"""What a send to a daemon may fail with: it cannot be reached (OSError; LookupError: no
address configured), it went away, or the connection broke."""


class KeptConnection:
    """One-way messages to the daemon named ``peer`` at ``where()``, over a connection kept
    between them. A failure is logged as ``failed_event`` (with the error) and the rest of
    that call's messages are dropped."""

    def __init__(self, connect: Connect, where: Callable[[], str], peer: str, log: Any,
                 failed_event: str = "send_failed",
                 reconnect_event: str = "reconnect") -> None:
        self._connect = connect
        self._where = where
        self._peer = peer
        self._log = log
        self._failed_event = failed_event
        self._reconnect_event = reconnect_event
        self._conn: Conn | None = None
        self._address = ""
        self._lock = trio.Lock()

    async def send(self, *msgs: Message) -> bool:
        """Send ``msgs`` in order; True when all of them went out."""
        lock = self._lock  # two tasks' batches never interleave on the connection
        if lock.locked():
            await lock.acquire()
        else:  # free: taken without a trip through trio's scheduler (the startd: per ad)
            lock.acquire_nowait()
        try:
            for msg in msgs:
                if not await self._send_one(msg):
                    return False
            return True
        finally:
            lock.release()

    async def _send_one(self, msg: Message) -> bool:
        conn = self._conn
        if conn is not None and conn.peer_closed():
            self._log.info(self._reconnect_event, to=self._peer,
                           reason="the peer closed the cached connection")
            await self.close()
        for _attempt in range(2):
            fresh = self._conn is None
            try:
                address = self._where()
                if self._conn is not None and address != self._address:
                    await self.close()  # the daemon moved (a restart at another port)
                    fresh = True
                if self._conn is None:
                    self._conn = await self._connect(address, self._peer)
                    self._address = address
                await self._conn.send(msg)
                return True
            except _SEND_ERRORS as e:
                await self.close()
                if fresh:
                    self._log.warning(self._failed_event, to=self._peer, cmd=msg.command,
                                      error=str(e))
                    return False
        return False  # not reached: a second attempt is always on a fresh connection

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with trio.CancelScope(shield=True):
                try:
                    await conn.aclose()
                except _SEND_ERRORS:
                    pass

    async def __aenter__(self) -> KeptConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _Waiter:
    __slots__ = ("error", "event", "reply")

    def __init__(self) -> None:
        self.event = trio.Event()
        self.reply: Message | None = None
        self.error: BaseException | None = None


class _Link:
    """One connection of a pipe and the requests waiting for its replies, oldest first."""

    def __init__(self, conn: Conn, address: str) -> None:
        self.conn = conn
        self.address = address
        self.waiting: deque[_Waiter] = deque()
        self.broken: BaseException | None = None
        self.sending = trio.Lock()

    def usable(self, address: str) -> bool:
        return self.broken is None and self.address == address and not self.conn.peer_closed()

    def fail(self, error: BaseException) -> None:
        if self.broken is None:
            self.broken = error
        while self.waiting:
            waiter = self.waiting.popleft()
            waiter.error = error
            waiter.event.set()


class RequestPipe:
    """Requests to the daemon named ``peer``, pipelined over one kept connection.

    ``connect`` opens an authenticated connection (``DaemonContext.connect``);
    ``start_soon`` starts the reader task of each connection (a nursery's).
    """

    def __init__(self, connect: Connect, start_soon: Callable[..., object], peer: str) -> None:
        self._connect = connect
        self._start_soon = start_soon
        self._peer = peer
        self._link: _Link | None = None
        self._opening = trio.Lock()

    async def request(self, address: str, msg: Message) -> Message:
        """Send ``msg`` to the daemon at ``address`` and return its reply. Raises what a
        request over a connection of its own raises when the peer cannot be reached, goes
        away or breaks the protocol."""
        link = await self._usable_link(address)
        waiter = _Waiter()
        async with link.sending:
            if link.broken is not None:
                raise link.broken
            link.waiting.append(waiter)  # in the order the requests go down the connection
            try:
                await link.conn.send(msg)
            except BaseException as e:
                link.fail(e if isinstance(e, Exception) else
                          ConnectionClosed("a request was cancelled while being sent",
                                           clean=False))
                await self._close(link)
                raise
        await waiter.event.wait()
        if waiter.error is not None:
            raise waiter.error
        assert waiter.reply is not None
        return waiter.reply

    async def _usable_link(self, address: str) -> _Link:
        link = self._link
        if link is not None and link.usable(address):
            return link
        async with self._opening:  # the first of many requests at once opens it for all
            link = self._link
            if link is not None and link.usable(address):
                return link
            if link is not None:
                link.fail(ConnectionClosed("the connection was replaced", clean=True))
                await self._close(link)
            conn = await self._connect(address, self._peer)
            link = self._link = _Link(conn, address)
            self._start_soon(self._read, link)
            return link

    async def _read(self, link: _Link) -> None:
        """Hand each reply to the oldest request waiting; fail them all when it breaks."""
        try:
            while True:
                reply = await link.conn.receive()
                if not link.waiting:
                    raise ProtocolError(f"the {self._peer} sent {reply.command}, "
                                        f"which no request asked for")
                waiter = link.waiting.popleft()
                waiter.reply = reply
                waiter.event.set()
        except (ConnectionClosed, ProtocolError, OSError, trio.BrokenResourceError,
                trio.ClosedResourceError) as e:
            link.fail(e)
        finally:
            link.fail(ConnectionClosed("the connection was closed", clean=True))
            if self._link is link:
                self._link = None
            await self._close(link)

    @staticmethod
    async def _close(link: _Link) -> None:
        with trio.CancelScope(shield=True):
            await link.conn.aclose()

    async def aclose(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.fail(ConnectionClosed("the connection was closed", clean=True))
            await self._close(link)
