"""The codec: one table of (message, bytes) read both ways, then every way decoding refuses."""

from __future__ import annotations

import re
import struct
from typing import Any

import msgpack
import pytest
from _sample_messages import TEST_ALL_TYPES, TEST_INNER, TEST_NESTED

from condorsim.classad import ClassAd, ad_from_wire
from condorsim.wire import Message, ProtocolError, decode, encode, message, registered_messages
from condorsim.wire.codec import decode_stamped
from condorsim.wire.messages import (
    ALIVE,
    FAILED,
    OK,
    QUERY_RESULT,
    QUERY_STARTD_ADS,
    REJECTED_WITH_REASON,
    SEND_RESOURCE_REQUEST_LIST,
    SIM_CLOCK_ADVANCE,
    SIM_CLOCK_IDLE,
    SIM_HELLO,
    UPDATE_STARTD_AD,
)


def ad(attrs: dict[str, Any]) -> ClassAd:
    return ad_from_wire(attrs)


CMD = b"\xa3cmd"  # the key "cmd" (fixstr of 3)

# (message, its payload). Bytes are msgpack written out by hand: 0x8N = map of N,
# 0xaN / 0xbN = string of N bytes, 0x9N = array of N, 0xc0 nil, 0xc2 false, 0xc3 true,
# 0xcc uint8, 0xce uint32, 0xcb float64, 0xff = -1.
TABLE: list[tuple[Message, bytes]] = [
    (OK(), b"\x81" + CMD + b"\xa2OK"),
    (FAILED(reason="no slot"), b"\x82" + CMD + b"\xa6FAILED" + b"\xa6reason\xa7no slot"),
    (ALIVE(claim_id="c1"), b"\x82" + CMD + b"\xa5ALIVE" + b"\xa8claim_id\xa2c1"),
    (SIM_HELLO(name="schedd", method="FS", proof=""),
     b"\x84" + CMD + b"\xa9SIM_HELLO" + b"\xa4name\xa6schedd" + b"\xa6method\xa2FS"
     + b"\xa5proof\xa0"),
    (
        SEND_RESOURCE_REQUEST_LIST(count=200),
        b"\x82" + CMD + b"\xbaSEND_RESOURCE_REQUEST_LIST" + b"\xa5count\xcc\xc8",
    ),
    (
        REJECTED_WITH_REASON(reason="", request_index=-1),
        b"\x83" + CMD + b"\xb4REJECTED_WITH_REASON" + b"\xa6reason\xa0" + b"\xadrequest_index\xff",
    ),
    (
        SIM_CLOCK_IDLE(round=3, sent=70000, received=69999, next_deadline=None, eoi_pending=True),
        b"\x86" + CMD + b"\xaeSIM_CLOCK_IDLE"
        b"\xa5round\x03"
        b"\xa4sent\xce\x00\x01\x11\x70"
        b"\xa8received\xce\x00\x01\x11\x6f"
        b"\xadnext_deadline\xc0"
        b"\xabeoi_pending\xc3",
    ),
    (
        SIM_CLOCK_IDLE(round=0, sent=0, received=0, next_deadline=1.7e9, eoi_pending=False),
        b"\x86" + CMD + b"\xaeSIM_CLOCK_IDLE"
        b"\xa5round\x00\xa4sent\x00\xa8received\x00"
        b"\xadnext_deadline\xcb" + struct.pack(">d", 1.7e9) + b"\xabeoi_pending\xc2",
    ),
    (
        SIM_CLOCK_ADVANCE(now=1.5),
        b"\x82" + CMD + b"\xb1SIM_CLOCK_ADVANCE" + b"\xa3now\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00",
    ),
    (
        QUERY_STARTD_ADS(constraint="Cpus > 1", projection=["Name", "Cpus"]),
        b"\x83" + CMD + b"\xb0QUERY_STARTD_ADS"
        b"\xaaconstraint\xa8Cpus > 1"
        b"\xaaprojection\x92\xa4Name\xa4Cpus",
    ),
    (
        UPDATE_STARTD_AD(ad=ad({"Name": "slot1@node1", "Cpus": 4, "Busy": False})),
        b"\x82" + CMD + b"\xb0UPDATE_STARTD_AD"
        b"\xa2ad\x83\xa4Name\xabslot1@node1\xa4Cpus\x04\xa4Busy\xc2",
    ),
    (QUERY_RESULT(ads=[]), b"\x82" + CMD + b"\xacQUERY_RESULT" + b"\xa3ads\x90"),
    (
        TEST_NESTED(inner=TEST_INNER(n=1), inners=[], anything=OK()),
        b"\x84" + CMD + b"\xabTEST_NESTED"
        b"\xa5inner\x82" + CMD + b"\xaaTEST_INNER\xa1n\x01"
        b"\xa6inners\x90"
        b"\xa8anything\x81" + CMD + b"\xa2OK",
    ),
]


@pytest.mark.parametrize(("msg", "payload"), TABLE, ids=lambda x: getattr(x, "command", ""))
def test_the_table_encodes_and_decodes(msg: Message, payload: bytes) -> None:
    assert encode(msg) == payload
    assert decode(payload) == msg


def test_every_field_type_round_trips() -> None:
    msg = TEST_ALL_TYPES(
        i=-(2**63),
        f=2.5,
        b=False,
        s="héllo",
        raw=b"\x00\xff",
        maybe=None,
        names=["a", "b"],
        pair=(7, "x"),
        many=(1.0, -0.5),
        table={"k": [1, 2], "": []},
        ad=ad({"A": 1, "B": [1, "x", 2.5]}),
        ads=[ad({}), ad({"C": "c"})],
        maybe_ad=ad({"D": True}),
    )
    back = decode(encode(msg))
    assert back == msg
    assert isinstance(back, TEST_ALL_TYPES)
    assert type(back.pair) is tuple and type(back.many) is tuple


def test_an_integer_is_accepted_for_a_float_field_and_decodes_as_a_float() -> None:
    got = decode(msgpack.packb({"cmd": "SIM_CLOCK_ADVANCE", "now": 12}))
    assert got == SIM_CLOCK_ADVANCE(now=12.0)
    assert isinstance(got, SIM_CLOCK_ADVANCE) and type(got.now) is float
    assert encode(SIM_CLOCK_ADVANCE(now=12)) == encode(SIM_CLOCK_ADVANCE(now=12.0))


def test_messages_are_frozen_and_keyword_only() -> None:
    msg = ALIVE(claim_id="c1")
    with pytest.raises(AttributeError):
        msg.claim_id = "c2"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ALIVE("c1")  # type: ignore[call-arg]
    assert ALIVE.command == "ALIVE" and msg.command == "ALIVE"


def packed(obj: Any) -> bytes:
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    return payload


ALL = {
    "i": 1, "f": 1.0, "b": True, "s": "", "raw": b"", "maybe": None, "names": [],
    "pair": [1, "a"], "many": [], "table": {}, "ad": {}, "ads": [], "maybe_ad": None,
}  # fmt: skip


def all_types(**changes: Any) -> bytes:
    return packed({"cmd": "TEST_ALL_TYPES", **ALL, **changes})


# (payload, expected error text, command, field) -- decoding must refuse each one.
REFUSED: list[tuple[bytes, str, str | None, str | None]] = [
    (b"", "payload is not a valid msgpack value: Unpack failed: incomplete input", None, None),
    (packed({"cmd": "OK"})[:-1], "not a valid msgpack value", None, None),
    (packed({"cmd": "OK"}) + b"\x00", "not a valid msgpack value", None, None),
    (b"\xc1", "not a valid msgpack value", None, None),  # 0xc1 is never used
    (b"\x81\xa3cmd\xa2\xff\xfe", "not a valid msgpack value", None, None),  # bad UTF-8
    (packed({1: 2}), "not a valid msgpack value", None, None),  # strict_map_key
    (packed([1, 2]), "a message must be a msgpack map, not an array", None, None),
    (packed("OK"), "a message must be a msgpack map, not a string", None, None),
    (packed({"x": 1}), "message has no 'cmd' string (got nil)", None, None),
    (packed({"cmd": 7}), "message has no 'cmd' string (got an integer)", None, None),
    (packed({"cmd": "NOPE"}), "unknown command 'NOPE'", "NOPE", None),
    (packed({"cmd": "N" * 500}), "unknown command 'NNNN", "N" * 77 + "...", None),
    (packed({"cmd": "ALIVE"}), "ALIVE: missing field(s) claim_id", "ALIVE", "claim_id"),
    (packed({"cmd": "OK", "x": 1}), "OK: unknown field(s) 'x'", "OK", None),
    (packed({"cmd": "OK", b"x": 1}), "OK: unknown field(s) b'x'", "OK", None),
    (
        packed({"cmd": "ALIVE", "claim": "c"}),
        "ALIVE: missing field(s) claim_id; unknown field(s) 'claim'",
        "ALIVE",
        "claim_id",
    ),
    (
        packed({"cmd": "ALIVE", "claim_id": 1}),
        "ALIVE: field claim_id: expected a string, got an integer",
        "ALIVE",
        "claim_id",
    ),
    (
        packed({"cmd": "SEND_RESOURCE_REQUEST_LIST", "count": True}),
        "SEND_RESOURCE_REQUEST_LIST: field count: expected an integer, got a boolean",
        "SEND_RESOURCE_REQUEST_LIST",
        "count",
    ),
    (all_types(b=1), "field b: expected a boolean, got an integer", "TEST_ALL_TYPES", "b"),
    (all_types(f=True), "field f: expected a float, got a boolean", "TEST_ALL_TYPES", "f"),
    (all_types(f="1.0"), "field f: expected a float, got a string", "TEST_ALL_TYPES", "f"),
    (all_types(raw="x"), "field raw: expected bytes, got a string", "TEST_ALL_TYPES", "raw"),
    (all_types(s=b"x"), "field s: expected a string, got bytes", "TEST_ALL_TYPES", "s"),
    (all_types(maybe="x"), "field maybe: expected an integer", "TEST_ALL_TYPES", "maybe"),
    (
        all_types(names=["a", 2]),
        "field names[1]: expected a string, got an integer",
        "TEST_ALL_TYPES",
        "names",
    ),
    (all_types(names={}), "field names: expected an array, got a map", "TEST_ALL_TYPES", "names"),
    (all_types(pair=[1]), "field pair: expected an array of 2", "TEST_ALL_TYPES", "pair"),
    (all_types(pair=[1, 2]), "field pair[1]: expected a string", "TEST_ALL_TYPES", "pair"),
    (all_types(many=[1.0, None]), "field many[1]: expected a float", "TEST_ALL_TYPES", "many"),
    (
        all_types(table={"k": [1, "2"]}),
        "field table['k'][1]: expected an integer, got a string",
        "TEST_ALL_TYPES",
        "table",
    ),
    (all_types(table={b"k": []}), "field table: expected string keys", "TEST_ALL_TYPES", "table"),
    (all_types(ad=[]), "field ad: expected a ClassAd map, got an array", "TEST_ALL_TYPES", "ad"),
    (
        all_types(ad={"A": msgpack.ExtType(42, b"?")}),
        "field ad: bad ClassAd: ",
        "TEST_ALL_TYPES",
        "ad",
    ),
    (all_types(ads=[{}, 3]), "field ads[1]: expected a ClassAd map", "TEST_ALL_TYPES", "ads"),
    (
        all_types(s=msgpack.ExtType(5, b"")),
        "field s: expected a string, got msgpack extension type 5",
        "TEST_ALL_TYPES",
        "s",
    ),
    (
        packed({"cmd": "TEST_INNER", "n": msgpack.Timestamp(0)}),
        "field n: expected an integer, got Timestamp",
        "TEST_INNER",
        "n",
    ),
    (
        packed({"cmd": "TEST_NESTED", "inner": {"cmd": "OK"}, "inners": [], "anything": {}}),
        "TEST_NESTED: field inner: expected a TEST_INNER message, got OK",
        "TEST_NESTED",
        "inner",
    ),
    (
        packed(
            {
                "cmd": "TEST_NESTED",
                "inner": {"cmd": "TEST_INNER", "n": 1},
                "inners": [],
                "anything": {"cmd": "ALIVE", "claim_id": 5},
            }
        ),
        "TEST_NESTED: field anything: ALIVE: field claim_id: expected a string",
        "TEST_NESTED",
        "anything",
    ),
]


@pytest.mark.parametrize(("payload", "text", "command", "field"), REFUSED)
def test_decoding_refuses_with_a_protocol_error_naming_command_and_field(
    payload: bytes, text: str, command: str | None, field: str | None
) -> None:
    with pytest.raises(ProtocolError, match=re.escape(text)) as info:
        decode(payload)
    assert info.value.command == command
    assert info.value.field == field
    assert len(str(info.value)) < 300  # peer-chosen text is cut short


def test_encoding_a_wrong_field_type_is_our_bug_not_a_protocol_error() -> None:
    with pytest.raises(TypeError, match="ALIVE: field claim_id: expected a string, got an int"):
        encode(ALIVE(claim_id=5))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=re.escape("field projection[0]: expected a string")):
        encode(QUERY_STARTD_ADS(constraint="", projection=[None]))  # type: ignore[list-item]
    with pytest.raises(TypeError, match="field ad: expected a ClassAd, got a map"):
        encode(UPDATE_STARTD_AD(ad={"A": 1}))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="field count: expected an integer, got a boolean"):
        encode(SEND_RESOURCE_REQUEST_LIST(count=True))
    with pytest.raises(TypeError, match="is not a registered message"):
        encode(Message())
    with pytest.raises(TypeError):  # a payload that is no bytes at all is our bug too
        decode("OK")  # type: ignore[arg-type]


def test_registration_mistakes_fail_at_import() -> None:
    with pytest.raises(TypeError, match="registered twice"):

        @message("OK")
        class OK2(Message):
            pass

    with pytest.raises(TypeError, match="may not be named 'cmd'"):

        @message("TEST_BAD_FIELD_NAME")
        class Bad1(Message):
            cmd: str

    with pytest.raises(TypeError, match="cannot carry a field of type"):

        @message("TEST_BAD_FIELD_TYPE")
        class Bad2(Message):
            s: set[int]

    with pytest.raises(TypeError, match="needs a subclass of Message"):

        class Bad3:
            pass

        message("TEST_NOT_A_MESSAGE")(Bad3)  # type: ignore[type-var]

    with pytest.raises(TypeError, match="not an upper-case identifier"):
        message("lower_case")
    assert not {"TEST_BAD_FIELD_NAME", "TEST_BAD_FIELD_TYPE", "TEST_NOT_A_MESSAGE"} & set(
        registered_messages()
    )


def test_a_stamp_travels_beside_the_message_and_a_bad_one_is_refused() -> None:
    msg = OK()
    assert decode_stamped(encode(msg)) == (msg, None)
    assert encode(msg, None) == encode(msg)  # no stamp: the same bytes as ever
    assert decode_stamped(encode(msg, (120.5, 3, "ab12.7>"))) == (msg, (120.5, 3, "ab12.7>"))
    assert decode_stamped(encode(msg, (120, 3, "c>")))[1] == (120.0, 3, "c>")
    for bad in ([1.0, 2], [1.0, "2", "c"], "now", [True, 1, "c"], [1.0, 1, 5],
                [float("inf"), 1, "c"], [float("nan"), 1, "c"]):
        payload = msgpack.packb({"cmd": "OK", "@": bad})
        with pytest.raises(ProtocolError, match="stamp"):
            decode_stamped(payload)
