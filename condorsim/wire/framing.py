"""Length-prefixed frames: the byte stream between two daemons cut into message payloads.

How this works
--------------
A frame is a 4-byte big-endian unsigned length followed by that many payload bytes (the
payload is one msgpack message; see ``codec.py``)::

    +----------------+---------------------------+
    | length (u32 BE)| payload (length bytes)    |
    +----------------+---------------------------+

:class:`FrameDecoder` is sans-I/O: ``feed()`` it whatever bytes arrived, then take complete
payloads with ``next_frame()`` or by iterating it. It never buffers a frame that is bigger
than its cap: the moment a header announcing more than ``max_frame`` bytes is complete,
``feed()`` raises :class:`ProtocolError`, before any of that frame's payload is kept. After
a ProtocolError the decoder is dead (every later call raises again): the connection it
served must be closed.

Bytes are kept in one ``bytearray`` with a read offset; consumed bytes are dropped in one
slice when the offset passes half the buffer, so a stream of small frames costs no
quadratic copying.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from condorsim.wire.errors import MessageTooLarge, ProtocolError

HEADER_SIZE: Final = 4
DEFAULT_MAX_FRAME: Final = 64 * 1024 * 1024
"""Largest payload accepted by default: 64 MiB (about 30,000 full job ads, 45,000 slot ads).

The issue's day of 5,000 jobs ends with a query of the whole history: 9.6 MB of job ads,
more than the 4 MiB this once was."""

_U32_MAX: Final = 2**32 - 1


def encode_frame(payload: bytes) -> bytes:
    """Return ``payload`` with its 4-byte big-endian length header in front."""
    n = len(payload)
    if n > _U32_MAX:
        raise MessageTooLarge(f"a payload of {n} bytes does not fit a 32-bit frame length")
    return n.to_bytes(4, "big") + payload


class FrameDecoder:
    """A streaming decoder of length-prefixed frames with a size cap.

    ``max_frame`` is the largest payload accepted, in bytes.
    """

    __slots__ = ("_broken", "_buf", "_max_frame", "_pos", "_scan")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not 0 <= max_frame <= _U32_MAX:
            raise ValueError(f"max_frame must be between 0 and {_U32_MAX}, not {max_frame}")
        self._max_frame = max_frame
        self._buf = bytearray()
        self._pos = 0  # start of the first unconsumed byte in _buf
        self._scan = 0  # start of the first frame whose header is not checked yet
        self._broken: ProtocolError | None = None

    @property
    def max_frame(self) -> int:
        return self._max_frame

    @property
    def buffered(self) -> int:
        """Bytes received but not yet handed out as a payload (a partial frame, or whole ones)."""
        return len(self._buf) - self._pos

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Add bytes that arrived from the peer.

        Raises :class:`ProtocolError` at once if a complete header in the buffer announces
        a frame longer than ``max_frame``.
        """
        if self._broken is not None:
            raise self._broken
        self._buf += data
        self._check_headers()

    def next_frame(self) -> bytes | None:
        """Return the next complete payload, or ``None`` if no whole frame is buffered yet."""
        if self._broken is not None:
            raise self._broken
        buf = self._buf
        pos = self._pos
        end_of_header = pos + HEADER_SIZE
        if len(buf) < end_of_header:
            return None
        end = end_of_header + int.from_bytes(buf[pos:end_of_header], "big")
        if len(buf) < end:
            return None
        payload = bytes(buf[end_of_header:end])
        if end == len(buf):
            buf.clear()
            self._pos = self._scan = 0
        elif end > len(buf) // 2:
            del buf[:end]
            self._pos = 0
            self._scan -= end
        else:
            self._pos = end
        return payload

    def __iter__(self) -> Iterator[bytes]:
        """Yield every complete payload buffered now."""
        while (payload := self.next_frame()) is not None:
            yield payload

    def _check_headers(self) -> None:
        # Walk the headers of the frames that start inside the buffer and were not checked
        # before; the payloads are not touched.
        buf = self._buf
        pos = self._scan
        limit = self._max_frame
        while len(buf) >= pos + HEADER_SIZE:
            n = int.from_bytes(buf[pos : pos + HEADER_SIZE], "big")
            if n > limit:
                self._broken = ProtocolError(
                    f"frame header announces {n} bytes, more than the {limit}-byte limit"
                )
                self._buf = bytearray()
                self._pos = self._scan = 0
                raise self._broken
            pos += HEADER_SIZE + n
        self._scan = pos
