"""Where daemons listen and how they reach each other: TCP on loopback, or memory streams.

How this works
--------------
A :class:`Network` hands out listening addresses and connects to them. Addresses are
HTCondor "sinful strings", ``<127.0.0.1:PORT>``. :class:`TcpNetwork` uses real loopback
sockets (one pool, many processes); :class:`InProcessNetwork` uses trio memory streams and
made-up ports (one pool inside one trio run, for tests), so daemon code cannot tell them
apart.

A :class:`Conn` is one connection between two named daemons: it counts every pool message
for virtual time, per direction of the connection (a *channel*, named by the side that
connected), stamps what it sends with the sender's simulated time, round and channel, and
thaws a frozen process at a received message's stamp (see :mod:`.participant`); and it
writes every message to the trace.

Every connection starts with authentication (docs/security.md); the client speaks first, so
a connection is a counted message from its first moment (virtual time). A daemon's SIM_HELLO
carries its proof of the pool key (``TOKEN``: an HMAC over its name, the server's address,
the time and a fresh nonce; :mod:`condorsim.security.poolkey`) and its command follows at
once: no round trip more than before. A tool says ``FS``: the server answers
SIM_AUTH_CHALLENGE with a fresh directory name, the tool creates it with mode 0700 and says
SIM_AUTH_PROOF, the server checks it, removes it and answers SIM_AUTH_RESULT. ``NONE`` is
anonymous (READ commands only, by default). The server sets ``conn.identity``
(``user@domain``) and then checks every command against its access level
(``COMMAND_LEVELS``) and the policy; a refused command is answered FAILED with HTCondor's
"PERMISSION DENIED" reason, logged, and the connection closed. A wrong proof is logged and
the connection closed.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import socket
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from condorsim.security import UNAUTHENTICATED, FSAuthError, Security, allow_everything
from condorsim.security.identity import fs_challenge_dir, fs_check, fs_make_dir, fs_remove
from condorsim.security.poolkey import ProofChecker, proof
from condorsim.wire import (
    DEFAULT_MAX_FRAME,
    ConnectionClosed,
    Message,
    MessageStream,
    ProtocolError,
)
from condorsim.wire.messages import (
    FAILED,
    SIM_AUTH_CHALLENGE,
    SIM_AUTH_PROOF,
    SIM_AUTH_RESULT,
    SIM_HELLO,
    command_level,
)

from .coordinator import SHARED
from .participant import Participant
from .trace import Tracer

_SINFUL = re.compile(r"^<([0-9.]+|[A-Za-z0-9_.-]+):(\d+)(\?.*)?>$")


class AddressError(ConnectionRefusedError):
    """An address is not a sinful string ``<host:port>``. A connection to it is refused as
    one to a daemon that is not there: an address comes from ads and messages a peer sent,
    and every caller already copes with a peer it cannot reach (a daemon never dies of a
    bad address it was told)."""


class AuthenticationError(ConnectionRefusedError):
    """The server refused our proof of identity (the message says why)."""


def parse_sinful(address: str) -> tuple[str, int]:
    m = _SINFUL.match(address.strip()) if isinstance(address, str) else None
    if not m or int(m.group(2)) > 65535:
        raise AddressError(f"not a daemon address (expected <host:port>): {address!r}")
    return m.group(1), int(m.group(2))


def sinful(host: str, port: int) -> str:
    return f"<{host}:{port}>"


class Listener(Protocol):
    async def accept(self) -> trio.abc.Stream: ...

    async def aclose(self) -> None: ...


class Network(Protocol):
    async def listen(self, port: int = 0) -> tuple[str, Listener]: ...

    async def connect(self, address: str) -> trio.abc.Stream: ...


# What trio's SocketListener.accept passes over (a connection that went away while queued,
# a firewall's refusal ...) and what it takes for a closed listener: the same here.
_ACCEPT_IGNORED = frozenset(
    getattr(errno, name) for name in (
        "EPERM", "ECONNABORTED", "EPROTO", "ENETDOWN", "ENOPROTOOPT", "EHOSTDOWN", "ENONET",
        "EHOSTUNREACH", "EOPNOTSUPP", "ENETUNREACH", "ENOSR", "ESOCKTNOSUPPORT",
        "EPROTONOSUPPORT", "ETIMEDOUT", "ECONNRESET") if hasattr(errno, name))
_ACCEPT_CLOSED = frozenset((errno.EBADF, errno.ENOTSOCK))
_ACCEPT_YIELD_EVERY = 16


class _TcpListener:
    """trio's ``SocketListener`` accepting the way a daemon's serve loop uses it: a
    connection already queued is taken at once, and only an empty queue waits (for the
    socket to be readable). trio's ``accept`` passes through its run loop after every
    connection it takes (a cancel point), and tries the socket once before waiting
    through an async context manager: per connection, a pass of the loop and a few
    Python calls more. The serve loop still yields whenever the queue is empty, and
    after every ``_ACCEPT_YIELD_EVERY`` connections taken without a wait (a burst, as a
    storm of claims makes, is not all accepted before its first connection is served:
    each holds a file descriptor)."""

    def __init__(self, listener: trio.SocketListener) -> None:
        self._listener = listener
        self._raw: socket.socket = listener.socket._sock  # type: ignore[attr-defined]
        self._taken = 0  # connections taken since the last trip through trio's scheduler

    async def accept(self) -> trio.abc.Stream:
        raw = self._raw
        while True:
            if self._taken >= _ACCEPT_YIELD_EVERY:
                self._taken = 0
                await trio.lowlevel.checkpoint()
            try:
                sock, _ = raw.accept()
            except BlockingIOError:
                self._taken = 0
                await trio.lowlevel.wait_readable(raw)  # raises ClosedResourceError if closed
            except OSError as exc:
                if exc.errno in _ACCEPT_CLOSED:
                    raise trio.ClosedResourceError from None
                if exc.errno not in _ACCEPT_IGNORED:
                    raise
            else:
                self._taken += 1
                return trio.SocketStream(trio.socket.from_stdlib_socket(sock))

    async def aclose(self) -> None:
        await self._listener.aclose()


class TcpNetwork:
    """Real loopback sockets."""

    host = "127.0.0.1"

    async def listen(self, port: int = 0) -> tuple[str, Listener]:
        listeners = await trio.open_tcp_listeners(port, host=self.host)
        listener = listeners[0]
        bound = listener.socket.getsockname()[1]
        return sinful(self.host, bound), _TcpListener(listener)

    async def connect(self, address: str) -> trio.abc.Stream:
        host, port = parse_sinful(address)
        try:
            if _IPV4.match(host):
                return await _connect_ipv4(host, port)
            return await trio.open_tcp_stream(host, port)
        except OSError as e:
            raise ConnectionRefusedError(f"cannot connect to {address}: {e.strerror or e}") from e


_IPV4 = re.compile(r"^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$")


async def _connect_ipv4(host: str, port: int) -> trio.SocketStream:
    """One socket and one connect to a numeric IPv4 address: what ``open_tcp_stream``
    comes to for it, without its name look-up and happy-eyeballs nursery (some 5% of the
    pool's CPU in the bench's profile went to those)."""
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    try:
        await _connect_now(sock, (host, port))
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


async def _connect_now(sock: trio.socket.SocketType, address: tuple[str, int]) -> None:
    """``await sock.connect(address)`` for a numeric address, without a pass of trio's
    loop when the connection is made at once, as a loopback connection to a listener with
    room in its queue is (the kernel completes the handshake inside the ``connect`` call,
    which still answers EINPROGRESS): ``getpeername`` answers only for a connected socket.
    Anything else (a full accept queue, a refusal, a far address) waits for the socket to
    be writable and reads its error, as trio does. Still a cancel point."""
    await trio.lowlevel.checkpoint_if_cancelled()
    raw = sock._sock  # type: ignore[attr-defined]  # trio's socket wraps the stdlib one
    err = raw.connect_ex(address)
    if err == 0:
        return
    if err != errno.EINPROGRESS:
        raise OSError(err, os.strerror(err))
    try:
        raw.getpeername()
        return
    except OSError:
        pass
    await trio.lowlevel.wait_writable(raw)
    err = raw.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if err != 0:
        raise OSError(err, f"Error connecting to {address!r}: {os.strerror(err)}")


@dataclass
class _MemoryListener:
    send: trio.MemorySendChannel[trio.abc.Stream]
    receive: trio.MemoryReceiveChannel[trio.abc.Stream]

    async def accept(self) -> trio.abc.Stream:
        return await self.receive.receive()

    async def aclose(self) -> None:
        await self.receive.aclose()


@dataclass
class InProcessNetwork:
    """Memory streams inside one trio run; ports are handed out from 9618 upwards."""

    _listeners: dict[str, _MemoryListener] = field(default_factory=dict)
    _ports: itertools.count[int] = field(default_factory=lambda: itertools.count(9618))

    async def listen(self, port: int = 0) -> tuple[str, Listener]:
        if port == 0:
            port = next(self._ports)
            while sinful("127.0.0.1", port) in self._listeners:
                port = next(self._ports)
        address = sinful("127.0.0.1", port)
        if address in self._listeners:
            raise OSError(f"address already in use: {address}")
        send, receive = trio.open_memory_channel[trio.abc.Stream](1000)
        listener = _MemoryListener(send, receive)
        self._listeners[address] = listener
        return address, listener

    async def connect(self, address: str) -> trio.abc.Stream:
        parse_sinful(address)
        listener = self._listeners.get(address)
        if listener is None:
            raise ConnectionRefusedError(f"cannot connect to {address}: nothing listens there")
        import trio.testing  # only in-process pools need it (and it imports pytest)

        ours, theirs = trio.testing.memory_stream_pair()
        try:
            listener.send.send_nowait(theirs)
        except (trio.ClosedResourceError, trio.BrokenResourceError) as e:
            del self._listeners[address]
            raise ConnectionRefusedError(f"cannot connect to {address}: listener closed") from e
        return ours

    def forget(self, address: str) -> None:
        self._listeners.pop(address, None)


class Conn:
    """A connection between two daemons: counted, traced, introduced."""

    def __init__(
        self,
        stream: MessageStream,
        *,
        me: str,
        peer: str,
        participant: Participant | None,
        tracer: Tracer | None,
    ) -> None:
        self._stream = stream
        self.me = me
        self.peer = peer
        self._participant = participant
        self._tracer = tracer
        self._out = SHARED  # the channels this side sends and receives on (virtual time)
        self._in = SHARED
        self.trusted = False
        """The peer proved the pool key (or we did, connecting): its stamps are believed."""
        self.identity = ""
        """The peer's authenticated identity, ``user@domain`` (set by the server's handshake)."""
        self.method = ""
        """How it authenticated: TOKEN (the pool key), FS or NONE."""
        self._at_close: list[Callable[[], None]] = []

    @property
    def user(self) -> str:
        """The user part of :attr:`identity` (``condor`` for the daemons and root)."""
        return self.identity.partition("@")[0]

    @property
    def authenticated(self) -> bool:
        return self.method in ("TOKEN", "FS")

    async def send(self, msg: Message) -> None:
        if self._tracer is not None:
            self._tracer.record(self.me, self.peer, msg)
        participant = self._participant
        if participant is None:
            await self._stream.send(msg)
            return
        channel = self._out
        participant.message_sent(channel)
        delivered = False
        try:
            await self._stream.send(msg, participant.stamp(channel))
            delivered = True
        finally:
            # A send that failed (or was cancelled) did not deliver a whole message: the
            # peer will never handle it, so it must not be counted as sent.
            participant.send_done(delivered, channel)

    async def receive(self) -> Message:
        msg = await self._stream.receive()
        await self.admit(self.trusted)
        return msg

    async def receive_unadmitted(self) -> Message:
        """The next message, not yet handled as far as virtual time is concerned: the
        caller checks it (without changing anything) and calls :meth:`admit` at once."""
        return await self._stream.receive()

    async def admit(self, trusted: bool) -> None:
        """Count the message just received; if the process is frozen, thaw at its stamp
        (believed only from a ``trusted`` peer: a stamp moves the process's clock) or wait
        for the coordinator's RUN."""
        participant = self._participant
        if participant is None:
            return
        stamp = self._stream.stamp if trusted else None
        if stamp is not None:
            channel = self._in = stamp[2]
            if self._out == SHARED and channel.endswith(">"):
                self._out = channel[:-1] + "<"  # we accepted: ours is the other way
        elif self._in == SHARED and participant.clock is not None:
            self._in = participant.new_channel() + "?"  # the peer counts nothing
        if participant.frozen:  # virtual time: thaw at the stamp, or wait for a RUN
            await participant.wait_thawed(stamp)
        participant.message_received(self._in)

    def connected(self) -> None:
        """This side opened the connection: it names the connection's two channels."""
        participant = self._participant
        if participant is not None and participant.clock is not None:
            name = participant.new_channel()
            self._out, self._in = name + ">", name + "<"

    def peer_closed(self) -> bool:
        """The peer closed the connection (:meth:`MessageStream.peer_closed`): a cached
        connection that says so is to be replaced before the next message goes down it."""
        return self._stream.peer_closed()

    async def request(self, msg: Message) -> Message:
        await self.send(msg)
        return await self.receive()

    def at_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once when this connection closes, however it ends."""
        self._at_close.append(callback)

    async def aclose(self) -> None:
        callbacks, self._at_close = self._at_close, []
        try:
            for callback in callbacks:
                callback()
        finally:
            await self._stream.aclose()

    async def __aenter__(self) -> Conn:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


Handler = Callable[[Message, Conn], Awaitable[None]]


@dataclass
class Endpoint:
    """What a daemon needs to talk: its name, the network, counting and tracing."""

    name: str
    network: Network
    participant: Participant | None = None
    tracer: Tracer | None = None
    log: Any = None
    max_frame: int = DEFAULT_MAX_FRAME
    security: Security | None = None
    """A daemon's pool key and policy. None: prove who we are by FS (a tool), and serve
    every authenticated or anonymous peer (a test's bare endpoint)."""

    def __post_init__(self) -> None:
        self._policy = self.security.policy if self.security is not None else allow_everything()
        self._key = self.security.key if self.security is not None else None

    async def connect(self, address: str, peer: str) -> Conn:
        """Open a connection to the daemon at ``address`` (named ``peer`` in the trace) and
        authenticate: with the pool key if we hold it, else by FS."""
        stream = await self.network.connect(address)
        conn = Conn(
            MessageStream(stream, max_frame=self.max_frame),
            me=self.name,
            peer=peer,
            participant=self.participant,
            tracer=None,
        )
        conn.connected()
        try:
            await self._authenticate(conn, address, peer)
        except BaseException:
            with trio.CancelScope(shield=True):
                await conn.aclose()
            raise
        conn._tracer = self.tracer
        return conn

    async def _authenticate(self, conn: Conn, address: str, peer: str) -> None:
        key = self._key
        if key is not None:
            await conn.send(SIM_HELLO(name=self.name, method="TOKEN",
                                      proof=proof(key, address, self.name)))
            conn.trusted = True  # a daemon of the pool, at an address the pool gave us
            return
        await conn.send(SIM_HELLO(name=self.name, method="FS", proof=""))
        try:
            challenge = await conn.receive()
            if not isinstance(challenge, SIM_AUTH_CHALLENGE):
                raise ProtocolError(f"expected SIM_AUTH_CHALLENGE, got {challenge.command}")
            try:
                fs_make_dir(challenge.fs_dir)
                await conn.send(SIM_AUTH_PROOF())
                result = await conn.receive()
            finally:
                fs_remove(challenge.fs_dir)
        except FSAuthError as e:
            raise AuthenticationError(f"AUTHENTICATE:1003:Failed to authenticate with the "
                                      f"{peer} using FS: {e}") from None
        except ConnectionClosed as e:
            raise AuthenticationError(f"the {peer} closed the connection while "
                                      f"authenticating: {e}") from None
        if not isinstance(result, SIM_AUTH_RESULT):
            raise ProtocolError(f"expected SIM_AUTH_RESULT, got {result.command}")
        if result.error:
            raise AuthenticationError(
                f"AUTHENTICATE:1003:Failed to authenticate with the {peer} using FS: "
                f"{result.error}")

    async def serve(
        self, handler: Handler, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
        port: int = 0,
    ) -> None:
        """Listen and hand every message of every connection to ``handler``, for ever.

        A peer that breaks the protocol loses its connection and a log record; the daemon
        carries on. ``task_status.started`` receives the listening address.
        """
        address, listener = await self.network.listen(port)
        checker = ProofChecker(self._key, address) if self._key is not None else None
        try:
            async with trio.open_nursery() as nursery:
                task_status.started(address)
                while True:
                    try:
                        stream = await listener.accept()
                    except (trio.ClosedResourceError, trio.EndOfChannel):
                        return
                    nursery.start_soon(self._serve_one, stream, handler, address, checker)
        finally:
            with trio.CancelScope(shield=True):
                await listener.aclose()

    async def _accept(self, conn: Conn, address: str, checker: ProofChecker | None) -> bool:
        """The server's side of the handshake; False when the peer is refused (logged)."""
        policy = self._policy
        # Under virtual time the HELLO's stamp may move this process's clock: it is believed
        # only once the proof in it is checked (the check changes nothing the pool can see).
        hello = await conn.receive_unadmitted()
        error = ""
        if isinstance(hello, SIM_HELLO) and hello.method == "TOKEN":
            if checker is None:
                error = "this daemon holds no pool key to check the peer's proof against"
            else:
                error = checker.check(hello.name, hello.proof)
        conn.trusted = isinstance(hello, SIM_HELLO) and hello.method == "TOKEN" and not error
        await conn.admit(conn.trusted)
        if not isinstance(hello, SIM_HELLO):
            raise ProtocolError(f"expected SIM_HELLO first, got {type(hello).__name__}")
        conn.peer, method = hello.name, hello.method
        if method == "NONE":
            conn.identity, conn.method = f"{UNAUTHENTICATED}@unmapped", method
            return True
        if method not in ("TOKEN", "FS"):
            raise ProtocolError(f"SIM_HELLO: unknown authentication method {method!r}")
        if method == "TOKEN":
            conn.identity = "" if error else policy.identity("condor")
        else:
            fs_dir = fs_challenge_dir(policy.fs_local_dir, address)
            await conn.send(SIM_AUTH_CHALLENGE(fs_dir=fs_dir))
            answer = await conn.receive()
            if not isinstance(answer, SIM_AUTH_PROOF):
                raise ProtocolError(f"expected SIM_AUTH_PROOF, got {type(answer).__name__}")
            try:
                conn.identity = policy.identity(
                    fs_check(fs_dir, allow_unsafe=policy.fs_allow_unsafe))
            except FSAuthError as e:
                error = str(e)
            finally:
                fs_remove(fs_dir)
        if not error and method not in policy.methods:
            error = (f"method {method} is not in SEC_DEFAULT_AUTHENTICATION_METHODS "
                     f"({', '.join(policy.methods)})")
            conn.identity = ""
        if method == "FS":
            await conn.send(SIM_AUTH_RESULT(user=conn.identity, error=error))
        if error:
            if self.log is not None:
                self.log.warning("authentication_failed", peer=hello.name, method=method,
                                 error=error)
            return False
        conn.method = method
        return True

    async def _serve_one(self, stream: trio.abc.Stream, handler: Handler,
                         address: str = "<127.0.0.1:0>",
                         checker: ProofChecker | None = None) -> None:
        conn = Conn(
            MessageStream(stream, max_frame=self.max_frame),
            me=self.name,
            peer="?",
            participant=self.participant,
            tracer=None,
        )
        policy = self._policy
        try:
            if not await self._accept(conn, address, checker):
                return
            conn._tracer = self.tracer
            while True:
                msg = await conn.receive()
                command = msg.command
                refused = policy.refusal(conn.identity, conn.authenticated, command,
                                         command_level(command))
                if refused is not None:
                    if self.log is not None:
                        self.log.warning("permission_denied", peer=conn.peer,
                                         identity=conn.identity, cmd=command, error=refused)
                    await conn.send(FAILED(reason=refused))
                    return
                await handler(msg, conn)
        except ConnectionClosed:
            pass
        except ProtocolError as e:
            if self.log is not None:
                self.log.warning("bad_peer", peer=conn.peer, error=str(e))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            if self.log is not None:
                self.log.info("connection_lost", peer=conn.peer, error=str(e))
        except Exception as e:  # a handler's bug: lose this connection, never the daemon
            if self.log is not None:
                self.log.error(
                    "handler_failed", peer=conn.peer, error=f"{type(e).__name__}: {e}",
                    traceback="".join(traceback.format_exception(e)),
                )
        finally:
            with trio.CancelScope(shield=True):
                await conn.aclose()
