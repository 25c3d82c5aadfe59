"""Wire round trips per second over one loopback TCP connection, against a raw msgpack echo.

The reference (a) is the least a length-framed msgpack protocol can cost from Python: the
client packs a plain dict the size of an UPDATE_STARTD_AD (the same 60-attribute slot ad in
its wire form), prefixes the length and sends it; the server cuts the frame, unpacks it,
packs it again and sends it back; the client unpacks the echo. Ours (b) is MessageStream
carrying real daemon commands: UPDATE_STARTD_AD answered by OK, and QUERY_STARTD_ADS
answered by a QUERY_RESULT of that one ad -- with every field validated and the ad converted
from and to a ClassAd (expressions parsed, or taken from the wire form's caches: the same ad
again, as a startd's updates mostly are) on the way. Everything runs on ONE TCP connection
pair in one run, the same number of round trips each, so the ratios hold on a noisy machine.
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from typing import Any

import msgpack
import trio

from condorsim.classad import ClassAd, _wire, ad_from_wire, ad_to_wire
from condorsim.wire import ConnectionClosed, MessageStream, decode, encode, request
from condorsim.wire.messages import OK, QUERY_RESULT, QUERY_STARTD_ADS, UPDATE_STARTD_AD

ROUND_TRIPS = 3000
WARMUP = 200

# A partitionable-slot ad as condor_status -l shows one: 60 attributes, a few expressions.
SLOT_AD_TEXT = """\
MyType = "Machine"
TargetType = "Job"
Name = "slot1@node0042.pool.example.org"
Machine = "node0042.pool.example.org"
MyAddress = "<10.0.0.42:9618?addrs=10.0.0.42-9618&alias=node0042.pool.example.org>"
StartdIpAddr = "<10.0.0.42:9618>"
SlotID = 1
SlotType = "Partitionable"
PartitionableSlot = true
State = "Unclaimed"
Activity = "Idle"
EnteredCurrentState = 1700000000
EnteredCurrentActivity = 1700000000
Cpus = 32
TotalCpus = 32.0
Memory = 128000
TotalMemory = 128000
Disk = 900000000
TotalDisk = 900000000
Gpus = 0
DetectedCpus = 32
DetectedMemory = 128000
OpSys = "LINUX"
OpSysAndVer = "AlmaLinux9"
OpSysMajorVer = 9
Arch = "X86_64"
CondorVersion = "$CondorVersion: 24.0.24 2026-01-01 BuildID: 0 $"
CondorPlatform = "$CondorPlatform: x86_64_AlmaLinux9 $"
HasFileTransfer = true
HasJobDeferral = true
HasVM = false
HasDocker = false
FileSystemDomain = "pool.example.org"
UidDomain = "pool.example.org"
KFlops = 1816427
Mips = 42000
LoadAvg = 0.0
CondorLoadAvg = 0.0
TotalLoadAvg = 0.18
KeyboardIdle = 98765
ConsoleIdle = 98765
LastHeardFrom = 1700000300
UpdateSequenceNumber = 17
UpdatesTotal = 18
UpdatesLost = 0
DaemonStartTime = 1699990000
ClockMin = 605
ClockDay = 3
IsWakeAble = false
NumDynamicSlots = 0
ChildCpus = {}
ChildMemory = {}
AcceptedWhileDraining = false
MachineResources = "Cpus Memory Disk Swap Gpus"
CurrentRank = 0.0
Rank = 0.0
Start = true
Requirements = START && (WithinResourceLimits)
WithinResourceLimits = (MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory && TARGET.RequestDisk <= MY.Disk)
IsOwner = (START =?= false)
"""


def slot_ad() -> ClassAd:
    ad = ClassAd.parse_old(SLOT_AD_TEXT)
    assert len(ad) == 60, len(ad)
    return ad


class _RawFrames:
    """The simplest length-prefix reader: a buffer, receive_some until a frame is whole."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.buf = bytearray()

    async def read(self) -> bytes:
        while len(self.buf) < 4:
            self.buf += await self.stream.receive_some(65536)
        end = 4 + int.from_bytes(self.buf[:4], "big")
        while len(self.buf) < end:
            self.buf += await self.stream.receive_some(65536)
        payload = bytes(self.buf[4:end])
        del self.buf[:end]
        return payload

    async def write(self, payload: bytes) -> None:
        await self.stream.send_all(len(payload).to_bytes(4, "big") + payload)


async def _server(stream: trio.abc.Stream, raw_round_trips: int, ad: ClassAd) -> None:
    raw = _RawFrames(stream)
    for _ in range(raw_round_trips):
        obj = msgpack.unpackb(await raw.read(), raw=False, strict_map_key=True)
        await raw.write(msgpack.packb(obj, use_bin_type=True))
    assert not raw.buf  # the client waits for every echo, so nothing is left over
    ms = MessageStream(stream)
    while True:
        try:
            msg = await ms.receive()
        except ConnectionClosed:
            return
        if isinstance(msg, UPDATE_STARTD_AD):
            await ms.send(OK())
        elif isinstance(msg, QUERY_STARTD_ADS):
            await ms.send(QUERY_RESULT(ads=[ad]))
        else:
            raise AssertionError(f"unexpected {msg!r}")


async def _client(stream: trio.abc.Stream, ad: ClassAd) -> dict[str, float]:
    timings: dict[str, float] = {}
    raw = _RawFrames(stream)
    plain: dict[str, Any] = {"cmd": "UPDATE_STARTD_AD", "ad": ad_to_wire(ad)}
    for label, count in (("warmup", WARMUP), ("raw", ROUND_TRIPS)):
        t0 = time.perf_counter()
        for _ in range(count):
            await raw.write(msgpack.packb(plain, use_bin_type=True))
            msgpack.unpackb(await raw.read(), raw=False, strict_map_key=True)
        timings[label] = time.perf_counter() - t0

    ms = MessageStream(stream)
    update = UPDATE_STARTD_AD(ad=ad)
    query = QUERY_STARTD_ADS(constraint='Name == "slot1@node0042.pool.example.org"', projection=[])
    for label, msg, count in (
        ("warmup", update, WARMUP),
        ("update", update, ROUND_TRIPS),
        ("warmup", query, WARMUP),
        ("query", query, ROUND_TRIPS),
    ):
        t0 = time.perf_counter()
        for _ in range(count):
            reply = await request(ms, msg)
        timings[label] = time.perf_counter() - t0
        assert isinstance(reply, OK | QUERY_RESULT)
    await ms.aclose()
    return timings


async def _run() -> dict[str, float]:
    ad = slot_ad()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        client = await trio.open_tcp_stream("127.0.0.1", port)
        server = await listeners[0].accept()
        await listeners[0].aclose()
        nursery.start_soon(_server, server, WARMUP + ROUND_TRIPS, ad)
        timings = await _client(client, ad)
    return timings


def _clear_caches() -> None:
    """Empty the ClassAd wire form's caches (docs/wire.md, "Speed")."""
    _wire._literal.cache_clear()
    _wire._expression.cache_clear()
    _wire._TEXTS.clear()


def _cold_ad_from_wire(wire_ad: dict[str, Any]) -> ClassAd:
    _clear_caches()
    return ad_from_wire(wire_ad)


def _per_call_us(func: Callable[[], object], number: int = 300) -> float:
    return min(timeit.repeat(func, number=number, repeat=3)) / number * 1e6


def main() -> list[str]:
    timings = trio.run(_run)
    ad = slot_ad()
    msg = UPDATE_STARTD_AD(ad=ad)
    payload = encode(msg)
    size = len(payload)
    wire_ad = ad_to_wire(ad)
    costs = {
        "encode": _per_call_us(lambda: encode(msg)),
        "decode": _per_call_us(lambda: decode(payload)),
        "ad_to_wire": _per_call_us(lambda: ad_to_wire(ad)),
        "ad_from_wire": _per_call_us(lambda: ad_from_wire(wire_ad)),
        "cold": _per_call_us(lambda: _cold_ad_from_wire(wire_ad)),
    }
    raw = ROUND_TRIPS / timings["raw"]
    update = ROUND_TRIPS / timings["update"]
    query = ROUND_TRIPS / timings["query"]
    return [
        f"one loopback TCP connection, {ROUND_TRIPS} round trips each, a 60-attribute slot ad"
        f" ({size} bytes as UPDATE_STARTD_AD)",
        f"(a) raw msgpack echo of that dict:          {raw:8,.0f} round trips/s",
        f"(b) UPDATE_STARTD_AD -> OK:                  {update:8,.0f} round trips/s"
        f"  = {update / raw:.2f} x raw",
        f"(b) QUERY_STARTD_ADS -> QUERY_RESULT(1 ad):  {query:8,.0f} round trips/s"
        f"  = {query / raw:.2f} x raw",
        f"codec alone per UPDATE_STARTD_AD: encode {costs['encode']:.0f} us"
        f" (ad_to_wire {costs['ad_to_wire']:.0f} us), decode {costs['decode']:.0f} us"
        f" (ad_from_wire {costs['ad_from_wire']:.0f} us; {costs['cold']:.0f} us with its"
        " caches emptied first, as for an ad never seen before)",
    ]


if __name__ == "__main__":
    print("\n".join(main()))
