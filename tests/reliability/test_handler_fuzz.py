"""Every daemon's handler under fuzzed frames: garbage bytes, valid frames of any command
(wrong daemon, nonsense values), messages with a field dropped, added or of the wrong type,
unknown commands. The daemon (and the pool around it) stays alive, answers the next
request, logs no handler failure (a traceback), and keeps the job it had.

Each example is a whole in-process pool (every daemon, a queued job, a route, a site) on
trio's MockClock: the frames go to one daemon, then simulated time runs on (a bad ad taken
now could break a negotiation cycle later), then the daemon is asked something it answers.
tests/wire covers decoding alone; this covers what each daemon does with what decodes.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.config import Config
from condorsim.runtime.inproc import InProcessPool, open_inprocess_pool
from condorsim.runtime.network import InProcessNetwork, TcpNetwork
from condorsim.wire import (
    ConnectionClosed,
    Message,
    ProtocolError,
    decode,
    encode,
    encode_frame,
    registered_messages,
)
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.gridmanager.daemon import Gridmanager
from daemons.job_router.daemon import JobRouter
from daemons.negotiator.daemon import Negotiator
from daemons.schedd.daemon import Schedd
from daemons.shadow.daemon import Shadow
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "wire"))
from _strategies import messages_of

T0 = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9500
SIM_MACHINES = exec1
NEGOTIATOR_INTERVAL = 20
UID_DOMAIN = example.org
JOB_ROUTER_ROUTE_NAMES = Site1
JOB_ROUTER_ROUTE_Site1 @=end
REQUIREMENTS WantJobRouter is true
GridResource = "batch slurm"
@end
JOB_ROUTER_POLLING_PERIOD = 10
SIM_GRID_SITES = [ Resource = "batch slurm"; Slots = 2; StartDelay = 30 ]
"""
DAEMONS: list[tuple[str, Any]] = [
    ("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
    ("shadow", Shadow), ("startd", Startd), ("starter", Starter),
    ("job_router", JobRouter), ("gridmanager", Gridmanager)]
# Commands that legitimately end or stop a daemon (condor_off); authorization is the
# security model's business, not the fuzzer's.
STOPPING = {"DC_OFF_GRACEFUL", "DC_OFF_FAST", "DAEMONS_OFF", "DAEMON_OFF", "RESTART"}
COMMANDS = sorted(c for c in registered_messages() if c not in STOPPING and
                  not c.startswith("TEST_"))
# A request each daemon answers (its own query, or FAILED for a command it does not take).
PROBES: dict[str, Message] = {
    "collector": m.QUERY_STARTD_ADS(constraint="", projection=["Name"]),
    "schedd": m.QUERY_JOB_ADS(constraint="", projection=["ClusterId", "ProcId"]),
    "shadow": m.SHADOW_RECONNECT(job="999.0", claim_id="none", reconnect=True),
    "startd": m.ALIVE(claim_id="none"),
    "starter": m.STARTER_SUSPEND(job="999.0"),
}
JOB = "executable = /bin/sleep\narguments = 100000\nlog = job.log\nqueue\n"

any_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats()
    | st.text(max_size=10) | st.binary(max_size=10)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=6)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8)


@st.composite
def payloads(draw: st.DrawFn) -> bytes:
    """One frame's payload: garbage, a valid message of any command, a mutated one, or an
    unknown command."""
    how = draw(st.sampled_from(["garbage", "valid", "valid", "drop", "add", "retype",
                                "unknown", "cut"]))
    if how == "garbage":
        return draw(st.binary(max_size=80))
    cls = registered_messages()[draw(st.sampled_from(COMMANDS))]
    obj = msgpack.unpackb(encode(draw(messages_of(cls))))
    keys = sorted(k for k in obj if k != "cmd")
    if how == "drop" and keys:
        del obj[draw(st.sampled_from(keys))]
    elif how == "add":
        obj[draw(st.text(max_size=8))] = draw(any_values)
    elif how == "retype" and keys:
        obj[draw(st.sampled_from(keys))] = draw(any_values)
    elif how == "unknown":
        obj["cmd"] = draw(st.text(max_size=12) | any_values)
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    if how == "cut":
        payload = payload[: draw(st.integers(0, max(0, len(payload) - 1)))]
    return payload


def _stopping(payload: bytes) -> bool:
    try:
        return decode(payload).command in STOPPING
    except ProtocolError:
        return False


async def _send_frames(pool: InProcessPool, daemon: str, frames: list[bytes]) -> int:
    """Send each frame on a connection of its own (after the HELLO); a frame that decodes
    goes through a counted connection (virtual time counts it), the rest raw. Returns how
    many were answered."""
    answered = 0
    for payload in frames:
        try:
            msg: Message | None = decode(payload)
        except ProtocolError:
            msg = None
        if msg is not None:
            async with await pool.connect(daemon, me="fuzzer") as conn:
                await conn.send(msg)
                with trio.move_on_after(30):
                    try:
                        await conn.receive()
                        answered += 1
                    except (ConnectionClosed, ProtocolError, trio.BrokenResourceError):
                        pass
            continue
        stream = await pool.network.connect(pool.addresses[daemon])
        async with stream:
            hello = encode_frame(encode(m.SIM_HELLO(name="fuzzer", method="NONE", proof="")))
            try:
                await stream.send_all(hello + encode_frame(payload))
                with trio.move_on_after(30):
                    await stream.receive_some()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
    return answered


def _handler_failures(log_dir: Path) -> list[str]:
    out = []
    for path in log_dir.glob("*.json"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("event") == "handler_failed":
                out.append(f"{path.name}: {record.get('error')}\n{record.get('traceback')}")
    return out


async def _fuzz_one(run_dir: Path, daemon: str, frames: list[bytes]) -> None:
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {run_dir}\n")
    log_dir = run_dir / "log"
    async with open_inprocess_pool(config, run_dir, DAEMONS, log_dir=log_dir) as pool:
        async with await pool.connect("schedd") as conn:
            reply = await conn.request(m.SUBMIT_JOBS(owner="alice", text=JOB,
                                                     iwd=str(run_dir), source="job.sub"))
        assert isinstance(reply, m.SUBMIT_RESULT)
        await trio.sleep(60)  # the job runs; the pool has state to break
        await _send_frames(pool, daemon, frames)
        await trio.sleep(120)  # cycles, updates and timers see whatever was taken
        probe = PROBES.get(daemon, m.OK())
        async with await pool.connect(daemon, me="prober") as conn:
            with trio.fail_after(60):
                answer = await conn.request(probe)
        assert isinstance(answer, Message)
        async with await pool.connect("schedd", me="prober") as conn:
            jobs = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=["ProcId"]))
        assert isinstance(jobs, m.QUERY_RESULT)
    failures = _handler_failures(log_dir)
    assert not failures, "\n".join(failures)


def run_fuzz(daemon: str, frames: list[bytes]) -> None:
    frames = [f for f in frames if not _stopping(f)]
    with tempfile.TemporaryDirectory(prefix="condorsim-fuzz-") as tmp:
        clock = trio.testing.MockClock(autojump_threshold=0)
        clock.jump(T0)
        trio.run(_fuzz_one, Path(tmp), daemon, frames, clock=clock)


@pytest.mark.parametrize("daemon", [name for name, _ in DAEMONS])
@settings(max_examples=int(os.environ.get("CONDORSIM_FUZZ_EXAMPLES", "8")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(frames=st.lists(payloads(), min_size=1, max_size=12))
def test_a_daemon_survives_fuzzed_frames(daemon: str, frames: list[bytes]) -> None:
    run_fuzz(daemon, frames)


@pytest.mark.parametrize("address", ["$(FOO)", "<nonsense>", "<127.0.0.1:99999>", ""])
async def test_a_bad_address_is_a_daemon_that_is_not_there(address: str) -> None:
    # Found by `make fuzz`: SHADOW_STARTED(address="$(FOO)") made the schedd's next shadow
    # start raise AddressError (a ValueError) out of its claim task, and the schedd died.
    for network in (TcpNetwork(), InProcessNetwork()):
        with pytest.raises(ConnectionRefusedError, match="not a daemon address"):
            await network.connect(address)


async def test_the_schedd_told_a_bad_shadow_address_still_runs_jobs(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    async with open_inprocess_pool(config, tmp_path, DAEMONS,
                                   log_dir=tmp_path / "log") as pool:
        await trio.sleep(10)
        async with await pool.connect("schedd", me="fuzzer") as conn:
            assert isinstance(await conn.request(m.SHADOW_STARTED(address="$(FOO)")), m.OK)
        async with await pool.connect("schedd") as conn:
            reply = await conn.request(m.SUBMIT_JOBS(
                owner="alice", text=JOB.replace("100000", "60"), iwd=str(tmp_path),
                source="job.sub"))
        assert isinstance(reply, m.SUBMIT_RESULT)
        await trio.sleep(900)
        async with await pool.connect("schedd") as conn:
            hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=["JobStatus"],
                                                      limit=0))
    assert isinstance(hist, m.QUERY_RESULT)
    assert [a.evaluate("JobStatus") for a in hist.ads] == [4]
    assert not _handler_failures(tmp_path / "log")
