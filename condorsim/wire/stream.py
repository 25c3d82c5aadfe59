"""Messages over a trio byte stream: the thin I/O layer over ``framing`` and ``codec``.

How this works
--------------
:class:`MessageStream` wraps any ``trio.abc.Stream`` (a TCP connection, one end of
``trio.testing.memory_stream_pair()``). ``send`` encodes a message, frames it and writes
it with one ``send_all``. ``receive`` hands out the next frame already buffered, or reads
more bytes with ``receive_some`` and feeds them to a :class:`FrameDecoder`; a payload is
decoded only when it is handed out.

What can come out of ``receive``:

* a :class:`~condorsim.wire.codec.Message`;
* :class:`ProtocolError` -- the peer broke the protocol (an over-cap frame, bytes that are
  no message, a connection that ends in the middle of a frame). The stream is then dead:
  the caller logs it and calls ``aclose()``;
* :class:`ConnectionClosed` -- the peer is gone: ``clean`` is True when it closed between
  two messages, False when the connection broke (reset). ``send`` raises it too.

Like a trio stream, a MessageStream takes one sender and one receiver at a time (trio
raises ``BusyResourceError`` otherwise). The optional ``on_sent`` / ``on_received``
callbacks see every message after it was written / decoded (the runtime counts pool
messages for virtual time and writes the trace from them); unset, they cost one ``is None``
test per message.
"""

from __future__ import annotations

import errno
import select
import socket
from collections.abc import Callable

import trio

from condorsim.wire.codec import Message, Stamp, decode_stamped, encode
from condorsim.wire.errors import MessageTooLarge, ProtocolError
from condorsim.wire.framing import DEFAULT_MAX_FRAME, FrameDecoder, encode_frame

RECEIVE_SIZE = 64 * 1024
"""Most bytes asked of the underlying stream per ``receive_some``."""

MessageCallback = Callable[[Message], object]

_YIELD_EVERY = 64
"""Frames :meth:`MessageStream.receive` may return without a schedule point (the fast paths
take a buffered or at-once frame without one); then it makes one."""

_CLOSED_ERRNOS = (errno.EBADF, errno.ENOTSOCK)
"""What trio's SocketStream reads as "this socket was already closed" (ClosedResourceError)."""


def _raw_socket(stream: trio.abc.Stream) -> socket.socket | None:
    """The stdlib socket under a trio TCP stream, for the fast paths of :class:`MessageStream`
    (None for any other stream: memory streams keep trio's own calls)."""
    if type(stream) is not trio.SocketStream:
        return None
    raw = getattr(stream.socket, "_sock", None)
    return raw if isinstance(raw, socket.socket) else None


def _os_error(e: OSError, doing: str) -> Exception:
    """The error trio's SocketStream would raise for ``e`` (as MessageStream turns it)."""
    if e.errno in _CLOSED_ERRNOS:
        return trio.ClosedResourceError("this socket was already closed")
    return ConnectionClosed(
        f"connection broken while {doing}: socket connection broken: {e}", clean=False)


class ConnectionClosed(trio.EndOfChannel):
    """The peer closed the connection (``clean``) or it broke under us (not ``clean``)."""

    def __init__(self, reason: str, *, clean: bool) -> None:
        super().__init__(reason)
        self.clean = clean


class MessageCounter:
    """Counts messages; hand its methods to a stream as ``on_sent`` / ``on_received``."""

    __slots__ = ("received", "sent")

    def __init__(self) -> None:
        self.sent = 0
        self.received = 0

    def on_sent(self, msg: Message) -> None:
        self.sent += 1

    def on_received(self, msg: Message) -> None:
        self.received += 1


class MessageStream(trio.abc.AsyncResource):
    """Send and receive wire messages over ``stream``; frames above ``max_frame`` are refused."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        max_frame: int = DEFAULT_MAX_FRAME,
        on_sent: MessageCallback | None = None,
        on_received: MessageCallback | None = None,
    ) -> None:
        self._stream = stream
        self._max_frame = max_frame
        self._decoder = FrameDecoder(max_frame)
        self._on_sent = on_sent
        self._on_received = on_received
        self._broken: ProtocolError | None = None
        self._send_interrupted = False
        self._raw = _raw_socket(stream)
        self._sending = False  # a send is waiting for the socket to take the rest of a frame
        self._unyielded = 0  # frames received since the last trip through trio's scheduler
        self._poller: select.poll | None = None  # peer_closed's look at the raw socket
        self.stamp: Stamp | None = None
        """The virtual-time stamp of the message :meth:`receive` returned last, if it had one."""

    @property
    def stream(self) -> trio.abc.Stream:
        """The byte stream underneath (for its socket's peer address, say)."""
        return self._stream

    async def send(self, msg: Message, stamp: Stamp | None = None) -> None:
        """Encode, frame and write ``msg`` (with a virtual-time ``stamp``, if given).

        Raises :class:`MessageTooLarge` (our error) if its payload exceeds ``max_frame``,
        and :class:`ConnectionClosed` if the connection is broken.
        """
        payload = encode(msg, stamp)
        if len(payload) > self._max_frame:
            raise MessageTooLarge(
                f"{msg.command}: {len(payload)} bytes is more than the"
                f" {self._max_frame}-byte frame limit"
            )
        if self._send_interrupted:
            raise ConnectionClosed("an earlier send was interrupted mid-frame", clean=False)
        # Until send_all returns: a cancelled send_all may leave half a frame on the wire.
        self._send_interrupted = True
        frame = encode_frame(payload)
        raw = self._raw
        try:
            if raw is None or self._sending or self._stream.socket.did_shutdown_SHUT_WR:  # type: ignore[attr-defined]
                await self._stream.send_all(frame)
            else:
                # The fast path: the socket takes the whole frame at once (the common case
                # on loopback), with no trip through trio's scheduler; what it does not
                # take is written by trio's send_all, which waits for the socket.
                await trio.lowlevel.checkpoint_if_cancelled()
                try:
                    sent = raw.send(frame)
                except BlockingIOError:
                    sent = 0
                except OSError as e:
                    raise _os_error(e, "sending") from None
                if sent < len(frame):
                    self._sending = True
                    try:
                        await self._stream.send_all(memoryview(frame)[sent:])
                    finally:
                        self._sending = False
        except trio.BrokenResourceError as e:
            raise ConnectionClosed(f"connection broken while sending: {e}", clean=False) from e
        self._send_interrupted = False
        if self._on_sent is not None:
            self._on_sent(msg)

    async def receive(self) -> Message:
        """Return the next message from the peer.

        Raises :class:`ProtocolError` on a bad frame (and again on every later call: the
        connection must be closed) and :class:`ConnectionClosed` when the peer is gone.
        """
        if self._broken is not None:
            raise self._broken
        decoder = self._decoder
        # A cancel point first; a buffered frame is then taken without a trip through
        # trio's scheduler (nor is one made after a read the socket answered at once).
        await trio.lowlevel.checkpoint_if_cancelled()
        try:
            payload = decoder.next_frame()
            if payload is None:
                payload = await self._receive_frame()
            self._unyielded += 1
            if self._unyielded >= _YIELD_EVERY:
                # a peer that keeps the socket full must not starve the daemon's other
                # tasks: every so many frames, let them run (the frame is not lost)
                self._unyielded = 0
                await trio.lowlevel.cancel_shielded_checkpoint()
            msg, self.stamp = decode_stamped(payload)
        except ProtocolError as e:
            self._broken = e
            raise
        if self._on_received is not None:
            self._on_received(msg)
        return msg

    async def _receive_frame(self) -> bytes:
        decoder = self._decoder
        raw = self._raw
        while True:
            try:
                if raw is None:
                    data = await self._stream.receive_some(RECEIVE_SIZE)
                else:  # the fast path: read what is there; wait only when nothing is
                    try:
                        data = raw.recv(RECEIVE_SIZE)
                    except BlockingIOError:
                        await trio.lowlevel.wait_readable(raw)
                        continue
                    except OSError as e:
                        raise _os_error(e, "receiving") from None
            except trio.BrokenResourceError as e:
                raise ConnectionClosed(
                    f"connection broken while receiving: {e}", clean=False
                ) from e
            if not data:
                if decoder.buffered:
                    raise ProtocolError(
                        f"connection closed in the middle of a frame"
                        f" ({decoder.buffered} bytes of it received)"
                    )
                raise ConnectionClosed("the peer closed the connection", clean=True)
            decoder.feed(data)
            payload = decoder.next_frame()
            if payload is not None:
                return payload

    def peer_closed(self) -> bool:
        """True when the peer has closed (or reset) the connection and nothing it sent is
        left unread. HTCondor's ``condor_write`` makes this check before it writes (a
        readable socket whose ``MSG_PEEK`` reads 0 bytes: "Socket closed when trying to
        write"), so that a message is not written into a cached connection whose peer is
        gone: over TCP such a write succeeds locally and the message is lost. Only a TCP
        stream is checked; a write to a closed memory stream fails by itself."""
        if self._broken is not None or self._decoder.buffered:
            return self._broken is not None
        if not isinstance(self._stream, trio.SocketStream):
            return False
        raw = self._raw
        if raw is not None:  # the socket itself: no socket object made per look
            if raw.fileno() < 0:
                return True
            # A peek at a socket with nothing to read raises BlockingIOError, which costs
            # several times a poll: ask poll first. A socket it finds neither readable nor
            # hung up nor in error is one the peek finds nothing in (False); any other is
            # peeked at, as before.
            poller = self._poller
            if poller is None:
                poller = self._poller = select.poll()
                poller.register(raw, select.POLLIN)
            return bool(poller.poll(0)) and _reads_eof(raw)
        try:
            fd = self._stream.socket.fileno()
        except OSError:
            return True
        if fd < 0:
            return True
        sock = socket.socket(fileno=fd)
        try:
            return _reads_eof(sock)
        finally:
            sock.detach()

    async def aclose(self) -> None:
        """Close the underlying stream (gracefully for TCP; idempotent)."""
        if self._raw is not None:
            # what SocketStream.aclose does, without its trip through trio's scheduler
            self._stream.socket.close()  # type: ignore[attr-defined]
            return
        await self._stream.aclose()


def _reads_eof(sock: socket.socket) -> bool:
    """Whether a peek at ``sock`` finds the peer gone (closed, reset, not connected)."""
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:  # reset, or not connected any more
        return True


async def request(stream: MessageStream, msg: Message) -> Message:
    """Send ``msg`` and return the one reply that follows it."""
    await stream.send(msg)
    return await stream.receive()
