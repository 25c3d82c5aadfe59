"""What every tool does: find the pool, send a command, wait for the answer.

Tools are short-lived and talk to daemons over TCP with the real clock. A daemon that does
not answer within :data:`TIMEOUT` seconds is reported, not waited on for ever.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import trio

from condorsim import pool as poolmod
from condorsim.classad import ClassAd
from condorsim.runtime.network import AuthenticationError, Endpoint, TcpNetwork
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

TIMEOUT = 20.0


class ToolError(RuntimeError):
    """A daemon refused a command or did not answer."""


async def _exchange(address: str, peer: str, msgs: Sequence[Message], want_reply: bool) -> Message | None:
    endpoint = Endpoint(name="tool", network=TcpNetwork())
    with trio.fail_after(TIMEOUT):
        try:
            conn = await endpoint.connect(address, peer)
        except AuthenticationError as e:
            raise ToolError(str(e)) from None
        except ConnectionRefusedError as e:
            raise poolmod.PoolNotRunning(f"the {peer} does not answer at {address}: {e}") from None
        async with conn:
            for msg in msgs:
                await conn.send(msg)
            if not want_reply:
                return None
            try:
                return await conn.receive()
            except (ConnectionClosed, ProtocolError) as e:
                raise ToolError(f"the {peer} closed the connection: {e}") from None


def send_command(address: str, peer: str, msg: Message, *, want_reply: bool = True) -> Message | None:
    """Send one command to the daemon at ``address`` and return its reply."""
    try:
        return trio.run(_exchange, address, peer, [msg], want_reply)
    except trio.TooSlowError:
        raise ToolError(f"the {peer} at {address} did not answer within {TIMEOUT:.0f} s") from None


def query_collector(home: Path, msg: Message) -> list[ClassAd]:
    """Ask the pool's collector a QUERY_* and return the ads."""
    address = poolmod.read_address(home, "collector")
    reply = send_command(address, "collector", msg)
    if isinstance(reply, m.FAILED):
        raise ToolError(f"the collector refused the query: {reply.reason}")
    if not isinstance(reply, m.QUERY_RESULT):
        raise ToolError(f"the collector answered {type(reply).__name__}, not QUERY_RESULT")
    return list(reply.ads)
