"""The wire between daemons: length-framed msgpack messages over trio streams.

``framing`` cuts a byte stream into frames, ``codec`` turns a frame's payload into a
message dataclass and back, ``messages`` is the catalogue of commands, ``stream`` runs it
all over a ``trio.abc.Stream``. See docs/wire.md.
"""

from condorsim.wire.codec import Message, decode, encode, message, registered_messages
from condorsim.wire.errors import MessageTooLarge, ProtocolError
from condorsim.wire.framing import DEFAULT_MAX_FRAME, FrameDecoder, encode_frame
from condorsim.wire.stream import (
    ConnectionClosed,
    MessageCallback,
    MessageCounter,
    MessageStream,
    request,
)

__all__ = [
    "DEFAULT_MAX_FRAME",
    "ConnectionClosed",
    "FrameDecoder",
    "Message",
    "MessageCallback",
    "MessageCounter",
    "MessageStream",
    "MessageTooLarge",
    "ProtocolError",
    "decode",
    "encode",
    "encode_frame",
    "message",
    "registered_messages",
    "request",
]
