"""Fuzzing the receiving side: whatever a peer sends, only ProtocolError ever comes out."""

from __future__ import annotations

from typing import Any

import _sample_messages  # noqa: F401  (registers the TEST_* messages: every field type)
import msgpack
from _strategies import messages_of, msgpack_leaves
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.wire import (
    FrameDecoder,
    Message,
    ProtocolError,
    decode,
    encode,
    encode_frame,
    registered_messages,
)

COMMANDS = sorted(registered_messages())


def decode_or_refuse(payload: bytes) -> Message | None:
    """Decode; a ProtocolError is a fine answer, any other exception fails the test."""
    try:
        msg = decode(payload)
    except ProtocolError as e:
        assert str(e)
        return None
    assert isinstance(msg, Message)
    assert decode(encode(msg)) == msg  # what was accepted is a well-formed message
    return msg


@settings(deadline=None, max_examples=500)
@given(st.binary(max_size=200))
def test_random_bytes(payload: bytes) -> None:
    decode_or_refuse(payload)


# Any msgpack value, extension types and odd map keys included.
msgpack_values = st.recursive(
    msgpack_leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.binary(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(deadline=None, max_examples=300)
@given(msgpack_values)
def test_valid_msgpack_of_any_shape(value: Any) -> None:
    decode_or_refuse(msgpack.packb(value, use_bin_type=True))


@st.composite
def mutated_messages(draw: st.DrawFn) -> bytes:
    """A real message map with a field dropped, added, or given a random value."""
    cls = registered_messages()[draw(st.sampled_from(COMMANDS))]
    obj = msgpack.unpackb(encode(draw(messages_of(cls))))
    keys = sorted(k for k in obj if k != "cmd")
    how = draw(st.sampled_from(["drop", "add", "replace", "replace_cmd"]))
    if how == "drop" and keys:
        del obj[draw(st.sampled_from(keys))]
    elif how == "add":
        obj[draw(st.text(max_size=8))] = draw(msgpack_values)
    elif how == "replace" and keys:
        obj[draw(st.sampled_from(keys))] = draw(msgpack_values)
    elif how == "replace_cmd":
        obj["cmd"] = draw(st.sampled_from(COMMANDS) | msgpack_values)
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    return payload


@settings(deadline=None, max_examples=500)
@given(mutated_messages())
def test_messages_with_the_wrong_shape(payload: bytes) -> None:
    decode_or_refuse(payload)


@settings(deadline=None, max_examples=300)
@given(mutated_messages(), st.data())
def test_truncated_and_corrupted_payloads(payload: bytes, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(payload)))
    decode_or_refuse(payload[:cut])
    if payload:
        i = data.draw(st.integers(0, len(payload) - 1))
        flipped = (
            payload[:i] + bytes([payload[i] ^ data.draw(st.integers(1, 255))]) + payload[i + 1 :]
        )
        decode_or_refuse(flipped)


@settings(deadline=None, max_examples=150)
@given(
    st.lists(mutated_messages(), max_size=4),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=1, max_value=50),
)
def test_a_frame_stream_with_an_oversized_header(
    payloads: list[bytes], announced: int, chunk: int
) -> None:
    cap = 4096
    data = b"".join(encode_frame(p) for p in payloads) + announced.to_bytes(4, "big") + b"xx"
    d = FrameDecoder(max_frame=cap)
    failed = False
    try:
        for pos in range(0, len(data), chunk):
            d.feed(data[pos : pos + chunk])
            for frame in d:
                decode_or_refuse(frame)
    except ProtocolError:
        failed = True
    # An over-cap header is refused as soon as its four bytes are in; a legal one just waits.
    assert failed == (announced > cap or any(len(p) > cap for p in payloads))
