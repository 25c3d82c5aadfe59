"""FrameDecoder and encode_frame: frames come out whole, however the bytes are cut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.wire import FrameDecoder, MessageTooLarge, ProtocolError, encode_frame


def test_encode_frame_puts_a_big_endian_length_first() -> None:
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert encode_frame(b"") == b"\x00\x00\x00\x00"
    assert encode_frame(b"x" * 258)[:4] == b"\x00\x00\x01\x02"


def test_frames_come_out_whole_and_in_order() -> None:
    d = FrameDecoder()
    d.feed(encode_frame(b"one") + encode_frame(b"") + encode_frame(b"three")[:5])
    assert list(d) == [b"one", b""]
    assert d.next_frame() is None
    d.feed(b"hree")
    assert d.next_frame() == b"three"
    assert d.next_frame() is None
    assert d.buffered == 0


def test_a_header_over_the_cap_fails_at_once_before_its_payload_arrives() -> None:
    d = FrameDecoder(max_frame=100)
    d.feed(encode_frame(b"ok"))
    with pytest.raises(ProtocolError, match="announces 101 bytes, more than the 100-byte limit"):
        d.feed((101).to_bytes(4, "big"))
    assert d.buffered == 0  # nothing of the bad frame was kept


def test_a_header_over_the_cap_is_seen_even_split_across_feeds() -> None:
    d = FrameDecoder(max_frame=10)
    d.feed(b"\x00\x00")
    with pytest.raises(ProtocolError):
        d.feed(b"\x01\x00")


def test_a_frame_of_exactly_the_cap_is_accepted() -> None:
    d = FrameDecoder(max_frame=5)
    d.feed(encode_frame(b"12345"))
    assert d.next_frame() == b"12345"


def test_a_broken_decoder_stays_broken() -> None:
    d = FrameDecoder(max_frame=1)
    with pytest.raises(ProtocolError):
        d.feed(encode_frame(b"xy"))
    with pytest.raises(ProtocolError):
        d.feed(encode_frame(b"x"))
    with pytest.raises(ProtocolError):
        d.next_frame()


def test_our_own_bad_arguments_are_not_protocol_errors() -> None:
    with pytest.raises(ValueError, match="max_frame"):
        FrameDecoder(max_frame=-1)
    assert not issubclass(MessageTooLarge, ProtocolError)


payloads = st.lists(st.binary(max_size=300), max_size=20)


@settings(deadline=None, max_examples=200)
@given(payloads, st.lists(st.integers(min_value=1, max_value=97), min_size=1), st.booleans())
def test_any_cutting_of_the_stream_gives_back_the_same_frames(
    frames: list[bytes], cuts: list[int], drain_each_time: bool
) -> None:
    data = b"".join(encode_frame(p) for p in frames)
    d = FrameDecoder(max_frame=300)
    out: list[bytes] = []
    pos = 0
    i = 0
    while pos < len(data):
        step = cuts[i % len(cuts)]
        d.feed(data[pos : pos + step])
        pos += step
        i += 1
        if drain_each_time:
            out.extend(d)
    out.extend(d)
    assert out == frames
    assert d.buffered == 0


@settings(deadline=None, max_examples=300)
@given(st.lists(st.binary(max_size=64), max_size=8), st.integers(min_value=0, max_value=64))
def test_random_bytes_give_frames_or_a_protocol_error_only(chunks: list[bytes], cap: int) -> None:
    d = FrameDecoder(max_frame=cap)
    try:
        for chunk in chunks:
            d.feed(chunk)
            for frame in d:
                assert len(frame) <= cap
    except ProtocolError:
        pass
