"""The wire's error classes, sorted by whose fault the error is.

* :class:`ProtocolError` -- the PEER broke the protocol (a bad frame, an unknown command, a
  field of the wrong type, a malformed ClassAd). The receiver logs it and closes that one
  connection; the daemon carries on.
* :class:`MessageTooLarge` -- WE tried to send a message bigger than the frame cap. This is
  our own error, so it is a ``ValueError`` and is never caught as a ProtocolError.
* Everything else (a ``TypeError`` from :func:`~condorsim.wire.codec.encode` on a field of
  the wrong type, a duplicate registration) is a bug in our code and fails loudly.

:class:`~condorsim.wire.stream.ConnectionClosed` (the peer went away) lives in
``stream.py`` because it is a trio ``EndOfChannel``; this module stays free of I/O.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """The peer sent something that breaks the wire protocol; its connection must be closed.

    ``command`` and ``field`` name where the problem is when it is known (``None`` for a
    frame or payload that never got as far as naming a command).
    """

    def __init__(self, reason: str, *, command: str | None = None, field: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.command = command
        self.field = field


class MessageTooLarge(ValueError):
    """A message we are about to send is bigger than the frame cap (our error, not the peer's)."""
