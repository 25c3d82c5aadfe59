"""Noticing that a peer process died, as HTCondor's parent/child checks do.

How this works
--------------
The startd and its starter are separate processes in condorsim (in HTCondor the starter
is the startd's child). Each holds one connection to the other open, on which nothing is
sent after the greeting; :func:`wait_until_gone` returns once that connection ends --
the peer process died (or could not be reached at all).
"""

from __future__ import annotations

import trio

from condorsim.runtime.daemon import DaemonContext
from condorsim.wire import ConnectionClosed, ProtocolError

PEER_ERRORS = (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError,
               trio.ClosedResourceError)


async def wait_until_gone(ctx: DaemonContext, address: str, peer: str) -> str:
    """Hold a connection to ``peer`` at ``address`` until it ends; why it ended.

    A death is news from outside the pool (no message brings it): under virtual time a
    frozen process asks to be thawed at the current instant first, so what it does about
    the death happens then, with its clock caught up.
    """
    try:
        async with await ctx.connect(address, peer) as conn:
            while True:  # the peer sends nothing here; anything it does is ignored
                await conn.receive()
    except PEER_ERRORS as e:
        why = str(e)
    participant = ctx.participant
    if participant is not None and participant.frozen:
        participant.wake()
        await participant.wait_thawed()
    return why
