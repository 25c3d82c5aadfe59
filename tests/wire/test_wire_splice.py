"""A listed message's payload spliced from its ads' kept bytes, and cut into them again,
is msgpack's own: the same bytes out, the same maps in (or the plain way's error)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from _strategies import classads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd, SealedAd, ad_to_wire, parse_expr, sealed_bytes
from condorsim.wire import Message, ProtocolError, codec
from condorsim.wire import messages as m

SETTINGS = settings(deadline=None, max_examples=200,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

stamps = st.none() | st.tuples(st.floats(allow_nan=False, allow_infinity=False),
                               st.integers(0, 2**40), st.text(max_size=8))


def _plain_encode(msg: Any, stamp: Any) -> bytes:
    obj = codec._encode_map(msg)
    if stamp is not None:
        obj[codec.STAMP_KEY] = stamp
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed


def _plain_unpack(payload: bytes) -> Any:
    try:
        return msgpack.unpackb(payload, raw=False, strict_map_key=True, **codec.UNPACK_LIMITS)
    except Exception as err:  # msgpack raises several unrelated types
        return err


def _sealed(ad: ClassAd) -> ClassAd:
    return SealedAd.of(ad)


@SETTINGS
@given(st.lists(classads().map(_sealed), max_size=20), stamps, st.data())
def test_a_spliced_payload_is_the_packed_one(ads: list[ClassAd], stamp: Any,
                                             data: st.DataObject) -> None:
    for msg in (m.QUERY_RESULT(ads=ads), m.RESOURCE_REQUEST_LIST(requests=list(ads))):
        assert codec.encode(msg, stamp) == _plain_encode(msg, stamp)
    if ads:  # a stored ad changed after its bytes were kept: they follow it
        ad = data.draw(st.sampled_from(ads))
        assert isinstance(ad, SealedAd)
        sealed_bytes(ad)
        ad[data.draw(st.sampled_from(["Cpus", "Name", *ad]))] = data.draw(st.integers(-(2**63), 2**63 - 1))
        msg = m.QUERY_RESULT(ads=ads)
        assert codec.encode(msg, stamp) == _plain_encode(msg, stamp)
        # and a list with any other ad is packed whole, as before
        msg = m.QUERY_RESULT(ads=[*ads, ClassAd({"A": 1})])
        assert codec.encode(msg, stamp) == _plain_encode(msg, stamp)


def test_kept_bytes_follow_every_change() -> None:
    ad = SealedAd.of(ClassAd({"Name": "slot1@m", "Cpus": 1}))
    before = sealed_bytes(ad)
    assert before == msgpack.packb({"Name": "slot1@m", "Cpus": 1})
    for step in range(4):
        if step == 0:
            ad["Cpus"] = 2
        elif step == 1:
            ad.update({"X": 1})
        elif step == 2:
            del ad["X"]
        else:
            ad.clear()
        assert sealed_bytes(ad) == msgpack.packb(ad_to_wire(ClassAd(ad)))


# ---- cutting a payload into its ads ---------------------------------------------------------

_pool = st.lists(classads().map(lambda ad: msgpack.packb(ad_to_wire(ad))), min_size=1,
                 max_size=6)

_bad_blobs = st.sampled_from([
    msgpack.packb({1: 2}),  # strict_map_key refuses it
    msgpack.packb([1, 2]), msgpack.packb(7), msgpack.packb(None), b"\xc1",  # never used
    b"\x81",  # a map cut short
    msgpack.packb({"A": b"x" * 3}, use_bin_type=True),
])


@st.composite
def payloads(draw: st.DrawFn, pool: list[bytes]) -> bytes:
    heads: list[type[Message]] = [m.QUERY_RESULT, m.RESOURCE_REQUEST_LIST]
    spec = codec._BY_CLASS[draw(st.sampled_from(heads))]
    blobs = draw(st.lists(st.sampled_from(pool), max_size=8))
    stamp = draw(stamps)
    parts = [b"\x83" if stamp is not None else b"\x82", spec.head, None, *blobs]
    if stamp is not None:
        parts += [msgpack.packb("@"), msgpack.packb(stamp)]
    count = len(blobs)
    flaw = draw(st.integers(0, 8))
    if flaw == 1 and blobs:  # one ad is no ad
        parts[3 + draw(st.integers(0, len(blobs) - 1))] = draw(_bad_blobs)
    elif flaw == 2:  # the array says one more or one less
        count = max(0, count + draw(st.sampled_from([-1, 1])))
    elif flaw == 3 and stamp is not None:  # the stamp's key is no string
        parts[-2] = draw(st.sampled_from([msgpack.packb(1), msgpack.packb(b"@"),
                                          msgpack.packb([1])]))
    elif flaw == 4:  # a map of one more entry
        parts[0] = b"\x84" if stamp is not None else b"\x83"
        parts.append(msgpack.packb("x") + msgpack.packb(1))
    parts[2] = msgpack.Packer().pack_array_header(count)
    payload = b"".join(parts)  # type: ignore[arg-type]
    if flaw == 5:
        payload = payload[:draw(st.integers(0, len(payload)))]
    elif flaw == 6:
        payload += draw(st.binary(min_size=1, max_size=3))
    elif flaw == 7 and payload:
        i = draw(st.integers(0, len(payload) - 1))
        payload = payload[:i] + bytes([draw(st.integers(0, 255))]) + payload[i + 1:]
    return payload


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types throughout (1, 1.0 and true; 0.0 and -0.0 differ)."""
    same: bool = msgpack.packb(a, use_bin_type=True) == msgpack.packb(b, use_bin_type=True)
    return same


@SETTINGS
@given(st.data())
def test_cutting_a_payload_unpacks_what_msgpack_does(data: st.DataObject) -> None:
    pool = data.draw(_pool)
    for _ in range(4):  # the same ads' bytes again: their maps are taken from before
        payload = data.draw(payloads(pool))
        plain = _plain_unpack(payload)
        cut = codec._split_unpack(payload)
        if isinstance(plain, Exception):
            assert cut is None
        elif cut is not None:
            assert _same(cut, plain)


@SETTINGS
@given(st.lists(classads().map(_sealed), min_size=1, max_size=10), stamps)
def test_a_well_formed_payload_is_cut(ads: list[ClassAd], stamp: Any) -> None:
    payload = codec.encode(m.QUERY_RESULT(ads=ads), stamp)
    for _ in range(2):
        cut = codec._split_unpack(payload)
        assert cut is not None and _same(cut, _plain_unpack(payload))


def test_other_payloads_are_not_cut() -> None:
    assert codec._split_unpack(codec.encode(m.OK())) is None
    assert codec._split_unpack(codec.encode(m.QUERY_STARTD_ADS(constraint="", projection=[]),
                                            (1.0, 2, "c"))) is None


def _outcome(payload: bytes, cut: bool) -> Any:
    """decode_stamped's answer, with the payload cut into its ads or (the plain way) not."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(codec, "SPLIT_MIN_BYTES", 0)
        if not cut:
            mp.setattr(codec, "_split_unpack", lambda payload: None)
        try:
            return codec.decode_stamped(payload)
        except ProtocolError as err:
            return ("error", str(err))


@SETTINGS
@given(st.data())
def test_decoding_a_cut_payload_gives_the_same_message(data: st.DataObject) -> None:
    pool = data.draw(_pool)
    for _ in range(4):
        payload = data.draw(payloads(pool))
        want, got = _outcome(payload, cut=False), _outcome(payload, cut=True)
        if want[0] == "error":
            assert got == want
            continue
        assert got[1] == want[1]
        assert type(got[0]) is type(want[0])
        field = codec._BY_CLASS[type(got[0])].listed
        assert field is not None
        got_ads, want_ads = getattr(got[0], field), getattr(want[0], field)
        assert got_ads == want_ads
        for a, b in zip(got_ads, want_ads, strict=True):
            assert a.names() == b.names()
            assert _same(ad_to_wire(a), ad_to_wire(b))
            a["Changed"] = 1  # a decoded ad is the caller's own: nothing else changes
            assert "Changed" not in b


def test_slot_ads_again_decode_to_equal_independent_ads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codec, "SPLIT_MIN_BYTES", 0)
    ads: list[ClassAd] = [SealedAd.of(ClassAd({"Name": f"slot{i}@m", "Cpus": i, "State": "Unclaimed",
                            "Requirements": parse_expr("START && TARGET.Cpus <= MY.Cpus")}))
           for i in range(5)]
    payload = codec.encode(m.QUERY_RESULT(ads=ads), (5.0, 1, "c"))
    one, stamp = codec.decode_stamped(payload)
    two, _ = codec.decode_stamped(payload)
    assert stamp == (5.0, 1, "c")
    assert one == two == m.QUERY_RESULT(ads=ads)
    assert isinstance(one, m.QUERY_RESULT) and isinstance(two, m.QUERY_RESULT)
    one.ads[0]["Cpus"] = 99
    assert two.ads[0]["Cpus"].literal_value == 0
    assert codec.decode_stamped(payload)[0] == m.QUERY_RESULT(ads=ads)


def test_the_ads_of_the_last_two_payloads_are_kept() -> None:
    def payload(names: list[str]) -> bytes:
        ads: list[ClassAd] = [SealedAd.of(ClassAd({"Name": n, "Cpus": 1})) for n in names]
        return codec.encode(m.QUERY_RESULT(ads=ads), (1.0, 1, "c"))

    slots, submitters, other = payload(["s1", "s2"]), payload(["u1"]), payload(["o1"])
    first = codec._split_unpack(slots)
    codec._split_unpack(submitters)
    again = codec._split_unpack(slots)  # the cycle after: the slot ads' maps are taken
    assert first is not None and again is not None
    assert [a is b for a, b in zip(first["ads"], again["ads"], strict=True)] == [True, True]
    codec._split_unpack(submitters)
    codec._split_unpack(other)
    assert len(codec._SEEN["QUERY_RESULT"]) == 2  # no more than two payloads' worth
    third = codec._split_unpack(slots)
    assert third is not None and third["ads"][0] is not first["ads"][0]
    assert third == first
