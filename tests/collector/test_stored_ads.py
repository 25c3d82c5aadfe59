"""The ads of the updates a collector stores are decoded lazily and keep the map they came
in as their wire form (issue 16): checked on receipt as before (the same error for a bad
ad), they are the ads the plain way makes -- equal ads, the same values read, the same wire
form and packed bytes, the same answers to queries -- whatever the map holds (expressions
in any spelling, nested ads, times packed other than msgpack's own way, names twice in
different case)."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from condorsim.classad import (
    ClassAd,
    ClassAdWireError,
    LazyAd,
    SealedAd,
    StoredAd,
    ad_from_wire,
    ad_to_wire,
    sealed_bytes,
)
from condorsim.wire import ProtocolError, codec
from condorsim.wire import messages as m
from daemons.collector.keys import CollectorError, adtype_for_command
from daemons.collector.logic import CollectorState

SETTINGS = settings(deadline=None, max_examples=300,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

UPDATES = ["UPDATE_STARTD_AD", "UPDATE_SCHEDD_AD", "UPDATE_SUBMITTOR_AD", "UPDATE_MASTER_AD",
           "UPDATE_NEGOTIATOR_AD", "UPDATE_COLLECTOR_AD", "UPDATE_GRID_AD", "UPDATE_AD_GENERIC"]

names = st.sampled_from(["Name", "name", "MyAddress", "MyType", "mytype", "Cpus", "State",
                         "LastHeardFrom", "lastHeardFrom", "UpdateSequenceNumber",
                         "DaemonStartTime", "ClassAdLifetime", "ScheddName", "Machine", "Req",
                         "RunningJobs", "IdleJobs"])
strings = st.sampled_from(["slot1@m", "Machine", "Scheduler", "Submitter", "Foo", "Claimed",
                           "Unclaimed", "<127.0.0.1:9618?sock=x>", "<10.0.0.2:1>", "", "é",
                           "x" * 1025]) | st.text(st.characters(exclude_categories=["Cs"],
                                                                exclude_characters="\0"),
                                                 max_size=4)
# expressions as any peer may spell them: not always as the ClassAd package unparses them
expressions = st.sampled_from([b"Cpus * 2", b"Cpus*2", b"( Cpus )", b"MY.Cpus > 2", b"10",
                               b'"Machine"', b"[a = 1; b = a  + 1]", b"{1, x}", b"time()",
                               b"strcat(Name, \"x\")", b"-0.0", b"ClassAdLifetime",
                               b"real(3)", b"State  ==  \"Claimed\""])
E = msgpack.ExtType
# what a full decode refuses
bad = st.sampled_from([E(9, b""), E(1, b"x"), E(3, b"Cpus >"), E(3, b"\xff"), E(3, b""),
                       E(5, b"\x91\x01"), E(6, b"\x01"), "a\0b", 2**63, 2**64 - 1])


def _exts(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(E, st.sampled_from([1, 2]), st.just(b"")),
        st.builds(E, st.just(3), expressions),
        st.builds(E, st.just(3), expressions),
        # a nested ad, and times: packed by msgpack, or with wider integers than it packs
        st.builds(lambda d: E(4, msgpack.packb(d)), st.dictionaries(names, inner, max_size=2)),
        st.builds(lambda s, o: E(5, msgpack.packb([s, o])), st.integers(0, 2**40),
                  st.integers(-50000, 50000)),
        st.builds(lambda s: E(5, b"\x92\xd3" + struct.pack(">q", s) + b"\x00"),
                  st.integers(0, 2**40)),
        st.builds(lambda f: E(6, msgpack.packb(f)), st.floats(allow_nan=False)),
        st.builds(lambda f: E(6, b"\xca" + struct.pack(">f", f)), st.sampled_from([1.5, 0.25])),
    )


scalars = st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats() | strings | \
    st.integers(0, 20)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | _exts(inner),
                      max_leaves=6)
# now and then a value a full decode refuses
maybe_bad = st.one_of(*[values] * 15, bad)
BASE = {"Name": "slot1@m", "MyAddress": "<10.0.0.1:9618>", "MyType": "Machine"}
ad_maps = st.tuples(st.booleans(), st.lists(st.tuples(names, maybe_bad), max_size=8)).map(
    lambda b_p: {**(BASE if b_p[0] else {}), **dict(b_p[1])})


def _payload(command: str, wire: dict[str, Any]) -> bytes:
    try:
        payload: bytes = msgpack.packb({"cmd": command, "ad": wire}, use_bin_type=True)
    except (OverflowError, ValueError, TypeError):
        assume(False)
    return payload


def _plain(payload: bytes) -> ClassAd:
    """The ad of an update's payload as decoded in full (raises ClassAdWireError)."""
    return ad_from_wire(msgpack.unpackb(payload, raw=False, strict_map_key=True)["ad"])


def _store(state: CollectorState, command: str, ad: ClassAd, now: int) -> object:
    """What the collector's runner does with an update (daemon.py), as a comparable result."""
    try:
        return state.update(adtype_for_command(command, ad), ad, now)
    except CollectorError as e:
        return str(e)


def _answers(state: CollectorState, now: int) -> list[bytes]:
    """The payloads of a few queries' answers, as the runner sends them."""
    out = []
    for adtype, constraint, projection in [("Any", None, None), ("Machine", None, None),
                                           ("Any", "Cpus > 1 || State == \"Claimed\"", None),
                                           ("Any", None, ["Name", "Req"])]:
        ads = state.query(adtype, constraint, projection, now, shared=True)
        out.append(codec.encode(m.QUERY_RESULT(ads=ads), (float(now), 1, "c")))
    return out


def _stored(state: CollectorState) -> list[SealedAd]:
    ads = [entry.ad for entry in state._entries("Any")]
    assert all(isinstance(ad, SealedAd) for ad in ads)
    return ads  # type: ignore[return-value]


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(UPDATES), ad_maps), min_size=1, max_size=4),
       st.integers(0, 10**9), st.lists(names, max_size=4))
def test_stored_updates_are_the_plain_ways(updates: list[tuple[str, dict[str, Any]]],
                                           start: int, reads: list[str]) -> None:
    lazy, plain = CollectorState(), CollectorState()
    for i, (command, wire) in enumerate(updates):
        now = start + 10 * i
        payload = _payload(command, wire)
        try:
            want = _plain(payload)
        except ClassAdWireError as e:  # refused on receipt, with the plain way's error
            with pytest.raises(ProtocolError) as refused:
                codec.decode(payload)
            assert refused.value.reason == f"{command}: field ad: bad ClassAd: {codec._short(str(e))}"
            continue
        msg = codec.decode(payload)
        assert type(msg.ad) is LazyAd  # type: ignore[attr-defined]
        assert _store(lazy, command, msg.ad, now) == _store(plain, command, want, now)  # type: ignore[attr-defined]
    now = start + 10 * len(updates)
    got, want_ads = _stored(lazy), _stored(plain)
    assert len(got) == len(want_ads)
    for ad, want in zip(got, want_ads, strict=True):  # before any use as a whole...
        assert type(ad) in (SealedAd, StoredAd) and type(want) is SealedAd
        for name in reads:
            a, b = ad.evaluate(name), want.evaluate(name)
            assert type(a) is type(b) and str(a) == str(b)
            assert (name in ad) == (name in want)
        assert sealed_bytes(ad) == sealed_bytes(want) == msgpack.packb(ad_to_wire(want),
                                                                       use_bin_type=True)
        assert list(ad_to_wire(ad)) == list(ad_to_wire(want))
    assert lazy.stats() == plain.stats()
    assert _answers(lazy, now) == _answers(plain, now)
    for ad, want in zip(got, want_ads, strict=True):  # ... and after
        assert ad == want and list(ad) == list(want) and str(ad) == str(want)
        assert sealed_bytes(ad) == sealed_bytes(want)
    assert _answers(lazy, now) == _answers(plain, now)


@SETTINGS
@given(ad_maps, st.integers(0, 10**9), st.lists(st.tuples(names, values), max_size=3))
def test_a_stored_ad_changed_follows_the_plain_way(wire: dict[str, Any], now: int,
                                                   changes: list[tuple[str, Any]]) -> None:
    """Set to trees while lazy (as the collector sets LastHeardFrom), then anyhow: the wire
    form and kept bytes follow, as a SealedAd's."""
    payload = _payload("UPDATE_STARTD_AD", wire)
    try:
        want = SealedAd.of(_plain(payload))
    except ClassAdWireError:
        return
    ad = SealedAd.of(codec.decode(payload).ad)  # type: ignore[attr-defined]
    assert type(ad) is (StoredAd if len({n.lower() for n in wire}) == len(wire) else SealedAd)
    for name, value in changes:
        try:
            tree = ad_from_wire({name: value})[name]
        except ClassAdWireError:
            continue
        sealed_bytes(ad)
        sealed_bytes(want)
        ad[name] = want[name] = tree
        assert sealed_bytes(ad) == sealed_bytes(want)
    ad["Cpus"] = want["Cpus"] = 7
    assert sealed_bytes(ad) == sealed_bytes(want)
    assert ad == want and list(ad) == list(want)


def test_a_stored_slot_ad_is_answered_from_the_map_it_came_in() -> None:
    """A slot ad stored and sent in a query's answer is never made into trees: the map of
    the update is its wire form, with LastHeardFrom (and MyType when missing) added."""
    state = CollectorState()
    wire = {"Name": "slot1@m", "MyAddress": "<10.0.0.1:9618>", "Cpus": 4, "LoadAvg": 0.5,
            "Start": msgpack.ExtType(3, b"Cpus  >  2"), "UpdateSequenceNumber": 3,
            "DaemonStartTime": 100}
    msg = codec.decode(msgpack.packb({"cmd": "UPDATE_STARTD_AD", "ad": wire}))
    assert state.update("Machine", msg.ad, 1000) is True  # type: ignore[attr-defined]
    [stored] = _stored(state)
    assert type(stored) is StoredAd
    payload = codec.encode(m.QUERY_RESULT(ads=state.query("Machine", now=1000, shared=True)))
    assert stored._pending is not None
    [ad] = msgpack.unpackb(payload)["ads"]
    assert list(ad) == [*wire, "LastHeardFrom", "MyType"]
    assert ad["Start"] == msgpack.ExtType(3, b"Cpus > 2")  # as ad_to_wire spells it
    assert ad["LastHeardFrom"] == 1000 and ad["MyType"] == "Machine"
    assert stored.evaluate("Start") is True and stored._pending is None


def test_only_the_collectors_updates_keep_their_map() -> None:
    ad = {"Name": "slot1@m", "Cpus": 4}
    update = codec.decode(msgpack.packb({"cmd": "UPDATE_STARTD_AD", "ad": ad}))
    assert type(SealedAd.of(update.ad)) is StoredAd  # type: ignore[attr-defined]
    match = codec.decode(msgpack.packb({"cmd": "PERMISSION_AND_AD", "claim_id": "c", "request_index": 0,
                                        "slot_ad": ad}))
    assert type(match.slot_ad) is LazyAd  # type: ignore[attr-defined]
    assert type(SealedAd.of(match.slot_ad)) is SealedAd  # type: ignore[attr-defined]
    twice = codec.decode(msgpack.packb({"cmd": "UPDATE_STARTD_AD",
                                        "ad": {"Name": "a", "name": "b"}}))
    assert type(SealedAd.of(twice.ad)) is SealedAd  # type: ignore[attr-defined]


def test_a_lazy_ads_names_are_read_without_its_trees() -> None:
    """A trace record names the attributes of every ad sent: read from the pending names."""
    wire = {"Name": "slot1@m", "cpus": 4, "Start": msgpack.ExtType(3, b"Cpus > 2")}
    update = codec.decode(msgpack.packb({"cmd": "UPDATE_STARTD_AD", "ad": wire}))
    stored = SealedAd.of(update.ad)  # type: ignore[attr-defined]
    for ad in (update.ad, stored):  # type: ignore[attr-defined]
        assert ad.names() == ("Name", "cpus", "Start") and ad._pending is not None  # type: ignore[union-attr]
        assert ad.names() == ad_from_wire(wire).names() == tuple(ad)
