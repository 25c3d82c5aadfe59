"""Virtual time over sockets: the coordinator's host (in the master) and each process's link.

How this works
--------------
The master runs :class:`CoordinatorHost`: it listens for participant links, feeds what they
say (hello, idle reports, holds) to the sans-I/O :class:`~.coordinator.Coordinator`, and
carries out the actions it returns. The master's own process is a participant too, served
directly (no socket). Every other process runs :func:`run_participant_link`: it says hello,
then on each RUN moves its :class:`~.clock.VirtualClock`, runs end-of-instant work if asked,
thaws, and once idle freezes and reports. A pool message that reaches it frozen thaws it
(the message's stamp says the time), and it reports again once idle; only a message without
a stamp makes it send HOLD and wait for a RUN.

The link is a loopback TCP socket carrying msgpack tuples back to back (msgpack delimits
them itself), written with a plain non-blocking ``send`` from wherever the decision is made
(no task switch, no framing): a RUN or a report is some 20 bytes. Only if the kernel
refuses part of a write does a task flush the rest. Coordination messages are not pool
messages: they are neither counted nor traced.

A pool with a key (every pool condorsim starts) authenticates the link as it does daemon
connections (docs/security.md): HELLO carries the proof a daemon's SIM_HELLO does
(:func:`condorsim.security.poolkey.proof`, made for the coordinator's address), and a host
given the key closes, and logs, a link whose HELLO does not prove it -- before the name in
it counts for anything, so a process without the key can neither join nor push out a
daemon's link under its name.

=========  ======================  ==================================================
message    direction               fields
=========  ======================  ==================================================
HELLO      participant -> coord.   name, pid, proof -- the proof of the pool key (below)
RUN        coord. -> participant   now, eoi, round -- move to now, run end-of-instant
                                   work if eoi, thaw, report once idle
REPORT     participant -> coord.   sent, received, next_deadline (or nil), eoi_pending,
                                   runs, channels -- RUNs had so far; per channel, pool
                                   messages sent minus handled since the last REPORT
                                   (without the last two: sent and received are totals,
                                   counted on one channel shared by the pool)
HOLD       participant -> coord.   (a pool message without a stamp waits for a thaw)
FINISH     coord. -> participant   thaw for good: the run is over
=========  ======================  ==================================================
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio

from condorsim.security.poolkey import ProofChecker, proof

from .clock import VirtualClock
from .coordinator import Action, Advance, Coordinator, Finished, Run
from .network import Network, parse_sinful, sinful
from .participant import Participant
from .sched import restore, set_batch

HELLO, RUN, REPORT, HOLD, FINISH = range(5)

_pack = msgpack.Packer().pack
"""``msgpack.packb`` without making a packer per message (it resets after each one)."""

STALL_CHECK = 0.25
"""Real seconds between looks for a stall: every process frozen, the sums unbalanced and no
HOLD coming. Two looks in a row with nothing heard in between mean a message was lost."""


class LinkClosed(Exception):
    """The other end of a clock link is gone (or broke the protocol)."""


class _Link:
    """One clock link: msgpack tuples over a non-blocking loopback socket."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._unpacker = msgpack.Unpacker(use_list=False)
        self._out = bytearray()
        self._pending = trio.Event()
        self._drained = False  # the last read emptied the socket (as far as it knows)
        self.closed = False

    def send(self, obj: tuple[Any, ...]) -> None:
        """Write one message now (never blocks; what the kernel refuses waits in order)."""
        self.send_packed(_pack(obj))

    def send_packed(self, data: bytes) -> None:
        """:meth:`send` for a message already packed (a RUN to many links is packed once)."""
        if self.closed:
            return
        if not self._out:
            try:
                sent = self.sock.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.closed = True
                return
            if sent == len(data):
                return
            data = data[sent:]
        self._out += data
        self._pending.set()

    async def flush_forever(self) -> None:
        """Write what :meth:`send` could not, as the socket takes it."""
        while True:
            await self._pending.wait()
            self._pending = trio.Event()
            while self._out and not self.closed:
                try:
                    await trio.lowlevel.wait_writable(self.sock)
                except trio.ClosedResourceError:
                    return
                try:
                    sent = self.sock.send(self._out)
                except BlockingIOError:
                    continue
                except OSError:
                    self.closed = True
                    return
                del self._out[:sent]

    async def receive(self) -> list[tuple[Any, ...]]:
        """The next messages from the other end (at least one).

        The other end sends one message and waits for an answer, so after a batch the
        socket is almost always empty: wait until it is readable before reading, rather
        than trying a read that fails first."""
        wait = self._drained
        while True:
            if wait:
                try:
                    await trio.lowlevel.wait_readable(self.sock)
                except trio.ClosedResourceError:
                    raise LinkClosed("the link was closed here") from None
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                wait = True
                continue
            except OSError as e:
                raise LinkClosed(str(e)) from None
            if not data:
                raise LinkClosed("the other end closed the link")
            self._unpacker.feed(data)
            try:
                batch = [msg for msg in self._unpacker]
            except (ValueError, msgpack.ExtraData) as e:
                raise LinkClosed(f"not a clock message: {e}") from None
            # a full read may have left more in the socket: try it at once next time
            self._drained = len(data) < 65536
            if batch:
                for msg in batch:
                    if not isinstance(msg, tuple) or not msg or not isinstance(msg[0], int):
                        raise LinkClosed(f"not a clock message: {msg!r}")
                return batch
            wait = self._drained

    def close(self) -> None:
        if self.sock.fileno() >= 0:
            trio.lowlevel.notify_closing(self.sock)
            self.sock.close()
        self.closed = True


@dataclass
class CoordinatorHost:
    """Hosts the pool's coordinator; the process it runs in is participant ``local_name``."""

    coordinator: Coordinator
    clock: VirtualClock
    local: Participant
    local_name: str = "master"
    log: object = None
    key: bytes | None = None
    """The pool key a participant must prove it holds (None: any process may join)."""
    finished: trio.Event = field(default_factory=trio.Event)
    finish_reason: str = ""
    _links: dict[str, _Link] = field(default_factory=dict)
    _nursery: trio.Nursery | None = None
    _heard: int = 0  # inputs to the coordinator so far
    _heard_at_last_look: int = -1
    _checker: ProofChecker | None = None

    async def run(self, network: Network, *, task_status: trio.TaskStatus[str]) -> None:
        """Listen for participants and coordinate until cancelled.

        The clock link is always a loopback socket (``network`` is the pool's, for its host).
        """
        host = getattr(network, "host", "127.0.0.1")
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        policy = set_batch()  # the host's process is one of the pool's (runtime/sched.py)
        try:
            listener.bind((host, 0))
            listener.listen(128)
            listener.setblocking(False)
            address = sinful(host, listener.getsockname()[1])
            if self.key is not None:
                self._checker = ProofChecker(self.key, address)
            self.coordinator.local = self.local_name
            self.local.on_hold = self._local_hold
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._report_local_when_idle)
                self._apply(self.coordinator.join(self.local_name))
                stop_watch = _start_stall_watch(self._look_for_stall)
                nursery.start_soon(_set_when_cancelled, stop_watch)
                task_status.started(address)
                while True:
                    await trio.lowlevel.wait_readable(listener)
                    try:
                        sock, _ = listener.accept()
                    except BlockingIOError:
                        continue
                    nursery.start_soon(self._serve_link, _Link(sock))
        finally:
            self.local.on_hold = None
            trio.lowlevel.notify_closing(listener)
            listener.close()
            restore(policy)

    async def _serve_link(self, link: _Link) -> None:
        name: str | None = None
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(link.flush_forever)
                try:
                    batch = await link.receive()
                    hello = batch[0]
                    if hello[0] != HELLO or len(hello) < 2 or not isinstance(hello[1], str):
                        raise LinkClosed(f"expected HELLO, got {hello!r}")
                    self._authenticate(hello)
                    name = hello[1]
                    old = self._links.pop(name, None)
                    if old is not None:  # a restarted process said hello before its EOF came
                        old.close()
                        self._apply(self.coordinator.leave(name))
                    self._links[name] = link
                    self._apply(self.coordinator.join(name))
                    rest = batch[1:]
                    while True:
                        for msg in rest:
                            self._take(name, msg)
                        rest = await link.receive()
                except LinkClosed:
                    pass
                nursery.cancel_scope.cancel()
        finally:
            link.close()
            if name is not None and self._links.get(name) is link:
                del self._links[name]
                self._apply(self.coordinator.leave(name))

    def _authenticate(self, hello: tuple[Any, ...]) -> None:
        """Refuse (LinkClosed, logged) a HELLO that does not prove the pool key."""
        if self._checker is None:
            return
        answer = hello[3] if len(hello) > 3 else None
        why = self._checker.check(hello[1], answer) if isinstance(answer, str) and answer \
            else "the process did not prove the pool key"
        if why:
            warn = getattr(self.log, "warning", None)
            if warn is not None:
                warn("clock_link_refused", peer=hello[1], reason=why)
            raise LinkClosed(f"clock link of {hello[1]!r} refused: {why}")

    def _take(self, name: str, msg: tuple[Any, ...]) -> None:
        op = msg[0]
        if op == REPORT and len(msg) == 7 and isinstance(msg[6], dict):
            _, sent, received, deadline, eoi, runs, channels = msg
            coordinator = self.coordinator
            self._apply(coordinator.report(
                name, coordinator.round, sent, received, deadline, bool(eoi), channels, runs))
        elif op == REPORT and len(msg) == 5:  # totals only: one shared channel
            _, sent, received, deadline, eoi = msg
            self._apply(self.coordinator.report(
                name, self.coordinator.round, sent, received, deadline, bool(eoi)))
        elif op == HOLD:
            self._apply(self.coordinator.hold(name))
        else:
            raise LinkClosed(f"unexpected {msg!r} on a clock link")

    def _look_for_stall(self) -> None:
        """Called every :data:`STALL_CHECK` real seconds (from the trio thread)."""
        if self.coordinator.stalled() and self._heard == self._heard_at_last_look:
            self._apply(self.coordinator.suspect_loss())
        self._heard_at_last_look = self._heard

    def _apply(self, actions: list[Action]) -> None:
        self._heard += 1
        for action in actions:
            if isinstance(action, Run):
                # RUN goes to the other processes first, packed once: the host's own run
                # (its end-of-instant work) is done while they work, not before they start
                data = _pack((RUN, action.now, action.eoi, action.round))
                local = False
                links = self._links
                for name in action.names:
                    if name == self.local_name:
                        local = True
                    elif (link := links.get(name)) is not None:
                        link.send_packed(data)
                if local:
                    self._run_local(action.now, action.eoi, action.round)
            elif isinstance(action, Advance):
                self.clock.advance(action.now)
            elif isinstance(action, Finished):
                self.finish_reason = action.reason
                for link in list(self._links.values()):
                    link.send((FINISH,))
                self.local.finish()
                self.finished.set()

    def _run_local(self, now: float, eoi: bool, round: int) -> None:
        self.clock.advance(now)  # (the local participant may have been given no clock)
        self.local.run(now, round, eoi)  # a report is due: _report_local_when_idle sends it

    async def _report_local_when_idle(self) -> None:
        """The host's own process: whenever it was run, once it is idle, freeze and report
        (one task for the whole run, rather than one started at each RUN)."""
        local = self.local
        finished = self.finished
        while not finished.is_set():
            await local.wait_report_due()
            if finished.is_set():
                return
            await local.wait_idle()
            if finished.is_set():
                return
            rep = local.freeze()
            self._apply(self.coordinator.report(
                self.local_name, self.coordinator.round, rep.sent, rep.received,
                rep.next_deadline, rep.eoi_pending, rep.channels))

    def _local_hold(self) -> None:
        self._apply(self.coordinator.hold(self.local_name))


def _start_stall_watch(look: Callable[[], None]) -> threading.Event:
    """Call ``look`` in this trio run every :data:`STALL_CHECK` real seconds, until the
    returned event is set (or the run ends).

    Virtual time stands still while the pool is stalled, so the pause is a real one, kept
    by a thread of its own.
    """
    token = trio.lowlevel.current_trio_token()
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(STALL_CHECK):
            try:
                token.run_sync_soon(look)
            except trio.RunFinishedError:
                return

    threading.Thread(target=watch, name="clock-stall-watch", daemon=True).start()
    return stop


async def _set_when_cancelled(stop: threading.Event) -> None:
    try:
        await trio.sleep_forever()
    finally:
        stop.set()


async def run_participant_link(
    network: Network, address: str, name: str, participant: Participant, clock: VirtualClock,
    key: bytes | None = None,
) -> None:
    """This process's side of virtual time: runs until the coordinator goes away (or
    refuses the link). ``key``: the pool key, proven in HELLO."""
    host, port = parse_sinful(address)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.connect((host, port))  # loopback: done (or refused) at once
    except OSError:
        sock.close()
        return
    link = _Link(sock)
    link.send((HELLO, name, os.getpid(), proof(key, address, name) if key is not None else ""))
    participant.on_hold = lambda: link.send((HOLD,))
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link.flush_forever)
            try:
                await _follow(link, participant, clock)
            except LinkClosed:
                pass
            nursery.cancel_scope.cancel()
    finally:
        participant.on_hold = None
        participant.thaw()
        link.close()


async def _follow(link: _Link, participant: Participant, clock: VirtualClock) -> None:
    participant.on_self_thaw = _nothing  # the reporter below sends the report it owes
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_report_when_idle, link, participant)
            while True:
                for msg in await link.receive():
                    if msg[0] == RUN and len(msg) == 4:
                        participant.run(msg[1], msg[3], bool(msg[2]))
                    elif msg[0] == FINISH:
                        participant.finish()
                    else:
                        raise LinkClosed(f"unexpected {msg!r} on a clock link")
    finally:
        participant.on_self_thaw = None


async def _report_when_idle(link: _Link, participant: Participant) -> None:
    """Whenever the process was thawed (a RUN, or a message that reached it frozen): once
    it is idle, freeze and report."""
    while not participant.finished:
        await participant.wait_report_due()
        if participant.finished:
            return
        await participant.wait_idle()
        if participant.finished:
            return
        link.send((REPORT, *participant.freeze_fields()))


def _nothing() -> None:
    pass
