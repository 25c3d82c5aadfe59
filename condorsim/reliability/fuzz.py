"""Fuzz a live pool: mutated frames to every daemon, then check the pool still runs and lost
nothing (``make fuzz``).

How this works
--------------
:func:`random_message` builds a valid message of any registered command from its field
types (values drawn from a small set of awkward ones: empty strings, job ids, addresses,
expressions, huge and negative numbers, ClassAds with odd attributes). :class:`Mutator`
turns one into a frame payload: unchanged, a field dropped or added or given a value of the
wrong type, an unknown command, bytes flipped, inserted or cut, or plain garbage.

Each connection to a daemon carries a HELLO and a batch of frames: up to six payloads that
decode (the daemon handles them), then one that does not (the daemon refuses it and closes
the connection; nothing after it would be read). The client then half-closes
and reads the answers until the daemon closes. Commands that legitimately stop a daemon or
change the queue (condor_off, condor_restart, condor_rm/qedit of everything) are left out:
authorization is the security model's business, not the fuzzer's; the in-process handler
fuzz (tests/reliability/test_handler_fuzz.py) sends them too.

Counts per daemon: frames sent, refused (did not decode: the daemon must close the
connection), handled (decoded), answered (reply frames read back). Afterwards: no daemon
exited (the master's log), a job queued before the fuzz is still there, and a job
submitted after it runs to completion.
"""

from __future__ import annotations

import os
import pwd
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio

from condorsim.classad import ClassAd
from condorsim.security.identity import fs_make_dir, fs_remove
from condorsim.wire import (
    FrameDecoder,
    Message,
    ProtocolError,
    decode,
    encode,
    encode_frame,
    registered_messages,
)
from condorsim.wire import messages as m

from .livepool import DAEMONS, LivePool, with_pool

# Commands a fuzzer must not send even well-formed: they stop daemons or edit every job.
LEFT_OUT = {"DC_OFF_GRACEFUL", "DC_OFF_FAST", "DAEMONS_OFF", "DAEMON_OFF", "RESTART",
            "ACT_ON_JOBS", "QEDIT", "QMGMT_SET_ATTRIBUTES", "QMGMT_CLAIM_JOB",
            "QMGMT_YIELD_JOB", "INVALIDATE_ADS_GENERIC"}
STRINGS = ["", "1.0", "2.0", "999.0", "-1.-1", "alice", "condor", "x" * 300, "<127.0.0.1:1>",
           "<127.0.0.1:0>", "<nonsense>", "ClusterId == 1", "TARGET.Memory > ", "true",
           "\u00e9\u4e2d\U0001f600", "\x00\x01", "slot1@exec1", "batch slurm", "../../etc",
           "$(FOO)", "queue 1000000000\n", "executable=/bin/sleep\narguments=1\nqueue\n"]
AD_STRINGS = [s for s in STRINGS if "\x00" not in s]  # a ClassAd string holds no NUL
INTS = [0, 1, -1, 2, 100, 2**31, -(2**31), 2**63 - 1, -(2**63), 2**64 - 1]
ATTRS = ["MyType", "Name", "MyAddress", "Requirements", "ClusterId", "ProcId", "JobStatus",
         "Owner", "Machine", "State", "Activity", "Cpus", "Memory", "ClaimId", "Rank",
         "START", "Foo", "NumJobStarts", "RemoteHost", "GridResource"]


def _value(rng: random.Random, tp: Any, depth: int = 0) -> Any:
    import types
    import typing

    if tp is str:
        return rng.choice(STRINGS)
    if tp is int:
        return rng.choice(INTS)
    if tp is float:
        return rng.choice([0.0, -1.5, 1e308, 3.25])
    if tp is bool:
        return rng.random() < 0.5
    if tp is bytes:
        return rng.randbytes(rng.randint(0, 16))
    if tp is ClassAd:
        return _classad(rng)
    if tp is Message:
        return m.OK()
    if isinstance(tp, type) and issubclass(tp, Message):
        return random_message(rng, tp, depth + 1)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        return _value(rng, rng.choice(args), depth) if depth < 3 else None
    if origin in (list, tuple):
        n = rng.randint(0, 3) if depth < 3 else 0
        items = [_value(rng, args[0], depth + 1) for _ in range(n)] if origin is list or \
            args[-1] is Ellipsis else [_value(rng, a, depth + 1) for a in args]
        return items if origin is list else tuple(items)
    if origin is dict:
        return {rng.choice(STRINGS): _value(rng, args[1], depth + 1)
                for _ in range(rng.randint(0, 2))}
    if tp is type(None):
        return None
    raise TypeError(f"no value for {tp!r}")


def _classad(rng: random.Random) -> ClassAd:
    ad = ClassAd()
    for name in rng.sample(ATTRS, rng.randint(0, 6)):
        kind = rng.randrange(4)
        ad[name] = (rng.choice(AD_STRINGS) if kind == 0 else rng.choice(INTS[:-1])
                    if kind == 1 else rng.random() < 0.5 if kind == 2 else 1.5)
    return ad


def random_message(rng: random.Random, cls: type[Message], depth: int = 0) -> Message:
    import dataclasses
    import typing

    hints = typing.get_type_hints(cls)
    values = {f.name: _value(rng, hints[f.name], depth)
              for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**values)


@dataclass
class Mutator:
    """Frame payloads: a corpus of valid messages of every command (built once), each
    payload one of them unchanged or mutated."""

    rng: random.Random
    corpus_size: int = 3000
    corpus: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        commands = [cls for name, cls in sorted(registered_messages().items())
                    if name not in LEFT_OUT and not name.startswith("TEST_")]
        self.corpus = [encode(random_message(self.rng, self.rng.choice(commands)))
                       for _ in range(self.corpus_size)]

    def payload(self) -> bytes:
        rng = self.rng
        how = rng.randrange(10)
        if how == 0:
            return rng.randbytes(rng.randint(0, 64))
        base = rng.choice(self.corpus)
        if how <= 3:
            return base
        if how <= 6:  # structural: drop, add, retype a field, or an unknown command
            obj = msgpack.unpackb(base)
            keys = [k for k in obj if k != "cmd"]
            what = rng.randrange(4)
            if what == 0 and keys:
                del obj[rng.choice(keys)]
            elif what == 1:
                obj[rng.choice(STRINGS)] = rng.choice(INTS)
            elif what == 2 and keys:
                obj[rng.choice(keys)] = rng.choice([None, 1, "x", [1], {"a": 1}, b"\x00", 1.5])
            else:
                obj["cmd"] = rng.choice(["NO_SUCH_COMMAND", "", 7, None, "ok"])
            packed: bytes = msgpack.packb(obj, use_bin_type=True)
            return packed
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):  # byte-level: flip, insert, cut
            what = rng.randrange(3)
            if what == 0 and data:
                data[rng.randrange(len(data))] ^= rng.randint(1, 255)
            elif what == 1:
                data.insert(rng.randint(0, len(data)), rng.randrange(256))
            elif data:
                del data[rng.randrange(len(data)):]
        return bytes(data)


def classify(payload: bytes) -> str | None:
    """"refused" (it does not decode: the daemon must close the connection), "handled", or
    None for a command left out (:data:`LEFT_OUT`)."""
    try:
        command = decode(payload).command
    except ProtocolError:
        return "refused"
    return None if command in LEFT_OUT else "handled"


@dataclass
class Counts:
    sent: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    handled: Counter[str] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)
    connections: Counter[str] = field(default_factory=Counter)
    unanswered_connections: Counter[str] = field(default_factory=Counter)  # not closed in time
    connect_failures: Counter[str] = field(default_factory=Counter)


HELLO = encode_frame(encode(m.SIM_HELLO(name="fuzzer", method="FS", proof="")))


def _fuzzer_uid() -> tuple[int, int] | None:
    """Run as root, the fuzzer speaks as ``nobody``: root maps to the condor user, which
    holds DAEMON authorization (ALLOW_DAEMON = condor@*), and a daemon's word may rightly
    end a job. An ordinary user's frames, however mangled, must change nothing of another
    user's jobs."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


async def _authenticate(stream: trio.abc.Stream, decoder: FrameDecoder) -> bool:
    """Prove who we are as a tool does (HTCondor's FS method): the daemon names a directory,
    we make it with mode 0700 (owned by ``nobody`` when we are root), the daemon checks and
    removes it. False when it refuses."""

    async def next_message() -> Message:
        while True:
            for frame in decoder:
                return decode(frame)
            data = await stream.receive_some(65536)
            if not data:
                raise trio.BrokenResourceError("closed while authenticating")
            decoder.feed(data)

    await stream.send_all(HELLO)
    challenge = await next_message()
    if not isinstance(challenge, m.SIM_AUTH_CHALLENGE):
        return False
    try:
        fs_make_dir(challenge.fs_dir)
        ids = _fuzzer_uid()
        if ids is not None:
            os.chown(challenge.fs_dir, *ids)
        await stream.send_all(encode_frame(encode(m.SIM_AUTH_PROOF())))
        result = await next_message()
    finally:
        fs_remove(challenge.fs_dir)
    return isinstance(result, m.SIM_AUTH_RESULT) and not result.error


async def _one_connection(address: str, daemon: str, mutator: Mutator, counts: Counts,
                          budget: int) -> int:
    frames: list[bytes] = []
    handled = 0
    while handled < budget:  # frames the daemon handles, then one it must refuse
        payload = mutator.payload()
        if classify(payload) == "handled":
            frames.append(encode_frame(payload))
            handled += 1
    refused = 0
    while not refused:
        payload = mutator.payload()
        if classify(payload) == "refused":
            frames.append(encode_frame(payload))
            refused = 1
    try:
        stream = await trio.open_tcp_stream(*_host_port(address))
    except OSError:
        counts.connect_failures[daemon] += 1
        await trio.sleep(0.05)
        return 0
    answers = 0
    async with stream:
        try:
            decoder = FrameDecoder()
            with trio.fail_after(10):
                if not await _authenticate(stream, decoder):
                    counts.connect_failures[daemon] += 1
                    return 0
            await stream.send_all(b"".join(frames))
            await stream.send_eof()
            with trio.move_on_after(10) as scope:
                while True:
                    data = await stream.receive_some(65536)
                    if not data:
                        break
                    decoder.feed(data)
                    answers += sum(1 for _ in decoder)
            if scope.cancelled_caught:
                counts.unanswered_connections[daemon] += 1
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError,
                ProtocolError):
            pass
    counts.connections[daemon] += 1
    counts.sent[daemon] += len(frames)
    counts.refused[daemon] += refused
    counts.handled[daemon] += handled
    counts.answered[daemon] += answers
    return len(frames)


def _host_port(address: str) -> tuple[str, int]:
    host, port = address.strip("<>").split("?")[0].rsplit(":", 1)
    return host, int(port)


async def fuzz_pool(pool: LivePool, frames: int, seconds: float, seed: int = 0,
                    workers: int = 16, progress: bool = True) -> Counts:
    """Send about ``frames`` mutated frames (at most ``seconds`` of wall time) to the
    daemons of ``pool``, round robin."""
    counts = Counts()
    total = 0
    deadline = time.monotonic() + seconds
    targets = [d for d in DAEMONS if d in pool.addresses]
    last_print = time.monotonic()

    async def worker(n: int) -> None:
        nonlocal total, last_print
        mutator = Mutator(random.Random(seed * 1000 + n), corpus_size=300)
        i = n
        while total < frames and time.monotonic() < deadline:
            daemon = targets[i % len(targets)]
            i += 1
            sent = await _one_connection(pool.addresses[daemon], daemon, mutator, counts,
                                         budget=mutator.rng.randint(0, 6))
            total += sent
            if progress and time.monotonic() - last_print > 10:
                last_print = time.monotonic()
                print(f"  ... {total} frames sent", flush=True)

    async with trio.open_nursery() as nursery:
        for n in range(workers):
            nursery.start_soon(worker, n)
    return counts


SENTINEL = "executable = /bin/sleep\narguments = 1000000\nlog = sentinel.log\nqueue 2\n"
AFTER = "executable = /bin/sleep\narguments = 30\nlog = after.log\nqueue\n"


@dataclass
class FuzzReport:
    counts: Counts
    seconds: float
    deaths: list[str]
    sentinel_kept: bool
    after_completed: bool

    @property
    def ok(self) -> bool:
        return not self.deaths and self.sentinel_kept and self.after_completed

    def text(self) -> str:
        c = self.counts
        lines = [f"{'daemon':<12} {'sent':>9} {'refused':>9} {'handled':>9} {'answers':>9} "
                 f"{'conns':>8} {'timeouts':>8}"]
        for d in sorted(c.sent):
            lines.append(f"{d:<12} {c.sent[d]:>9} {c.refused[d]:>9} {c.handled[d]:>9} "
                         f"{c.answered[d]:>9} {c.connections[d]:>8} "
                         f"{c.unanswered_connections[d]:>8}")
        sent = sum(c.sent.values())
        lines.append(f"{'total':<12} {sent:>9} {sum(c.refused.values()):>9} "
                     f"{sum(c.handled.values()):>9} {sum(c.answered.values()):>9} "
                     f"{sum(c.connections.values()):>8} "
                     f"{sum(c.unanswered_connections.values()):>8}")
        lines.append(f"{sent} frames in {self.seconds:.0f} s ({sent / max(self.seconds, 1e-9):.0f}"
                     f" frames/s); connect failures: {sum(c.connect_failures.values())}")
        lines.append(f"daemons that died: {', '.join(self.deaths) or 'none'}; jobs queued "
                     f"before: {'kept' if self.sentinel_kept else 'LOST'}; a job submitted "
                     f"after: {'completed' if self.after_completed else 'DID NOT COMPLETE'}")
        return "\n".join(lines)


def run_fuzz(frames: int, seconds: float, seed: int = 0, workers: int = 16,
             progress: bool = True) -> FuzzReport:
    """Start a pool, fuzz it, check it, stop it."""
    async def body(pool: LivePool) -> FuzzReport:
        cluster = await pool.submit(SENTINEL)
        before = await pool.jobs(f"ClusterId == {cluster}")
        began = time.monotonic()
        counts = await fuzz_pool(pool, frames, seconds, seed, workers, progress)
        took = time.monotonic() - began
        after = await pool.jobs(f"ClusterId == {cluster}")
        kept = [(c, p) for c, p, _ in after] == [(c, p) for c, p, _ in before]
        done = await pool.wait_completed(await pool.submit(AFTER), 240)
        return FuzzReport(counts, took, pool.deaths(), kept, done)

    return with_pool(body, lambda report: report.ok)
