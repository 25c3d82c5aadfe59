"""The codec's unpacking (msgspec where it cannot differ, msgpack for the rest) gives what
``msgpack.unpackb(payload, raw=False, strict_map_key=True, **UNPACK_LIMITS)`` gives, value
for value and error for error, for every payload whose nested maps have string (or bytes)
keys; a message whose nested map has other keys is refused either way, in other words
(codec.py says why). A differential test against msgpack itself."""

from __future__ import annotations

import math
from typing import Any

import _sample_messages  # noqa: F401  (registers the TEST_* messages: every field type)
import msgpack
import pytest
from _strategies import messages_of, msgpack_leaves
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.wire import ProtocolError, codec, decode, encode, registered_messages


def _outcome(unpack: Any, payload: bytes) -> tuple[str, Any]:
    try:
        return ("value", _comparable(unpack(payload)))
    except Exception as e:
        return ("error", f"{type(e).__name__}: {e}")


def _comparable(v: Any) -> Any:
    """NaN is not equal to itself; everything else compares as decoded (types too)."""
    if isinstance(v, float) and math.isnan(v):
        return ("nan",)
    if isinstance(v, list):
        return [_comparable(x) for x in v]
    if isinstance(v, dict):
        return {k: _comparable(x) for k, x in v.items()}
    return (type(v).__name__, v)


def _reference(payload: bytes) -> Any:
    return msgpack.unpackb(payload, raw=False, strict_map_key=True, **codec.UNPACK_LIMITS)


def _same(payload: bytes) -> None:
    assert _outcome(codec._unpack, payload) == _outcome(_reference, payload)


names = st.text(max_size=8) | st.binary(max_size=4)  # what strict_map_key lets through
odd_keys = names | st.integers(-5, 5) | st.booleans() | st.none() | st.floats()
leaves = (
    msgpack_leaves
    | st.floats(width=32)
    | st.builds(msgpack.Timestamp, st.integers(0, 2**33), st.integers(0, 999_999_999))
)


def _nested(key_strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(leaves, lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(key_strategy, inner, max_size=4)),
        max_leaves=12)


values = _nested(names)
anything = _nested(odd_keys)


def _pack(v: Any) -> bytes:
    payload: bytes = msgpack.packb(v, use_bin_type=True, use_single_float=False)
    return payload


@settings(deadline=None, max_examples=600)
@given(values)
def test_any_msgpack_value(value: Any) -> None:
    _same(_pack(value))


@settings(deadline=None, max_examples=300)
@given(st.dictionaries(odd_keys, values, max_size=6))
def test_any_map_as_a_message_would_be(value: dict[Any, Any]) -> None:
    _same(_pack(value))


def _decoded(payload: bytes) -> tuple[str, Any]:
    try:
        return ("message", decode(payload))
    except ProtocolError:
        return ("refused", None)


def _decoded_by_msgpack(payload: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    def refuse(_payload: bytes) -> Any:
        raise ValueError("msgspec is not asked")

    with monkeypatch.context() as m:
        m.setattr(codec, "_fast_decode", refuse)
        return _decoded(payload)


@st.composite
def odd_messages(draw: st.DrawFn) -> bytes:
    """A real message map, one field's value replaced by anything (odd keys nested too)."""
    cls = registered_messages()[draw(st.sampled_from(sorted(registered_messages())))]
    obj = msgpack.unpackb(encode(draw(messages_of(cls))))
    fields = sorted(k for k in obj if k != "cmd")
    if fields:
        obj[draw(st.sampled_from(fields))] = draw(anything)
    return _pack(obj)


@settings(deadline=None, max_examples=400)
@given(odd_messages() | anything.map(_pack))
def test_a_message_is_taken_or_refused_as_with_msgpack_alone(payload: bytes) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _decoded(payload) == _decoded_by_msgpack(payload, monkeypatch)


@settings(deadline=None, max_examples=400)
@given(st.binary(max_size=300))
def test_random_bytes(payload: bytes) -> None:
    _same_but_nested_keys(payload)  # random bytes may make a nested map's key anything


def _same_but_nested_keys(payload: bytes) -> None:
    """:func:`_same`, except that where msgpack refuses a nested map's key that msgspec
    takes, the message is refused either way."""
    ours, reference = _outcome(codec._unpack, payload), _outcome(_reference, payload)
    if ours != reference:
        assert reference[0] == "error" and "strict_map_key" in reference[1]
        with pytest.MonkeyPatch.context() as monkeypatch:
            assert _decoded(payload) == _decoded_by_msgpack(payload, monkeypatch) == \
                ("refused", None)


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(sorted(registered_messages())).flatmap(
    lambda c: messages_of(registered_messages()[c])), st.data())
def test_real_messages_whole_cut_and_flipped(msg: Any, data: st.DataObject) -> None:
    payload = encode(msg, (1767225600.5, 3, "ab12.1>"))
    _same(payload)
    cut = data.draw(st.integers(0, len(payload)))
    _same(payload[:cut])
    i = data.draw(st.integers(0, max(0, len(payload) - 1)))
    if payload:
        # A flipped byte may make a nested map's key something else than a string: the one
        # difference left (codec.py), refused either way.
        _same_but_nested_keys(payload[:i] + bytes([payload[i] ^ data.draw(st.integers(1, 255))])
                              + payload[i + 1:])
    _same(payload + b"\xc0")  # extra data after the message


@pytest.mark.parametrize("value", [
    {f"k{i}": i for i in range(10_001)},  # one entry over max_map_len
    list(range(100_001)),  # over max_array_len
    "x" * (1024 * 1024 + 1),  # over max_str_len
    # msgpack's Timestamp, not a datetime, in each of its three forms
    {"cmd": "OK", "t": msgpack.Timestamp(1, 0)},
    {"cmd": "OK", "t": msgpack.Timestamp(1, 2)},
    {"cmd": "OK", "t": msgpack.Timestamp(2**34, 5)},
    {1: 2},  # strict_map_key
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
])
def test_where_the_two_decoders_would_differ_msgpack_decides(value: Any) -> None:
    _same(_pack(value))


def test_a_deep_nesting_is_refused_as_msgpack_refuses_it() -> None:
    _same(b"\x91" * 5000 + b"\xc0")


def test_a_nested_map_with_an_odd_key_is_refused_either_way() -> None:
    # Found by the test above: one flipped byte makes an extension value a key of the ad.
    payload = (b"\x83\xa3cmd\xb0UPDATE_MASTER_AD\xa2ad\x87\xa4AA00\xc2\xa5AA000\xc2"
               b"\xa8AA000000\xd3\xff\xff\xff\xff\x7f\xff\xff\xff\xaaAA00000000\x91"
               b"\xc7\x00\x01\xd6AA0\x90\xa2AA\x90\xa2AB\x90\xa1@\x93\xcbA\xdaUn@ \x00"
               b"\x00\x03\xa7ab12.1>")
    assert _outcome(_reference, payload) == (
        "error", "ValueError: ExtType is not allowed for map key when strict_map_key=True")
    _same_but_nested_keys(payload)
