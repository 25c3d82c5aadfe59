"""The pool key: what a daemon proves it holds (HTCondor's IDTOKENS pool signing key).

How this works
--------------
``condorsim up`` (and every replay, in its own run directory) creates the key once: 32
random bytes in ``SEC_TOKEN_POOL_SIGNING_KEY_FILE`` (default
``$(SEC_PASSWORD_DIRECTORY)/POOL``, the directory ``passwords.d`` under the pool's
``LOCAL_DIR``), the file mode 0600 and its directory 0700, as HTCondor keeps
``passwords.d/POOL``. Every daemon reads it at start; a key file that others may read is
refused.

A daemon's first message on a connection carries its proof (:func:`proof`): the wall time,
a fresh random nonce and ``HMAC-SHA256(key, name | server address | time | nonce)``. The
server (:class:`ProofChecker`) accepts it only if the HMAC matches, the time is within
:data:`FRESH_SECONDS` of its own and the nonce was not seen before: a proof read off the
wire cannot be used again, nor against another daemon. The key never travels, and a daemon
connection costs no round trip more than before.
"""

from __future__ import annotations

import heapq
import hmac
import os
import secrets
import time
from pathlib import Path

from condorsim.config import Config

KEY_BYTES = 32


class PoolKeyError(Exception):
    """The pool key is missing, unreadable or not private."""


def key_path(config: Config, run_dir: Path) -> Path:
    """SEC_TOKEN_POOL_SIGNING_KEY_FILE of ``config``, when set; else the run directory's."""
    explicit = any(config.where(knob) not in ("<default>", "<undefined>")
                   for knob in ("SEC_TOKEN_POOL_SIGNING_KEY_FILE", "SEC_PASSWORD_DIRECTORY"))
    value = config.get("SEC_TOKEN_POOL_SIGNING_KEY_FILE") if explicit else None
    # Unset, the key is the run directory's (the pool's home, a replay's run directory),
    # which is $(LOCAL_DIR) for every pool condorsim starts.
    p = Path(value or "passwords.d/POOL")
    return p if p.is_absolute() else run_dir / p


def create_key(path: Path) -> bool:
    """Create the key at ``path`` (mode 0600, its directory 0700) unless it exists.

    Returns True when it was created. An existing key is kept: daemons that outlive a
    restart of the master keep proving the same key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as f:
        f.write(os.urandom(KEY_BYTES))
    os.chmod(path, 0o600)
    return True


def load_key(path: Path) -> bytes:
    """Read the key at ``path``; refused if missing, empty, or readable by group or others."""
    try:
        st = os.stat(path)
        data = path.read_bytes()
    except OSError as e:
        raise PoolKeyError(f"cannot read the pool key {path}: {e.strerror or e}") from None
    if st.st_mode & 0o077:
        raise PoolKeyError(f"the pool key {path} has mode {st.st_mode & 0o777:04o}: "
                           "it must be readable by its owner only (0600)")
    if not data:
        raise PoolKeyError(f"the pool key {path} is empty")
    return data


FRESH_SECONDS = 120
"""How old (wall clock) a daemon's proof may be; its nonce is remembered that long."""


def proof(key: bytes, server: str, name: str, *, now: float | None = None,
          nonce: str | None = None) -> str:
    """A key holder's proof, introducing itself as ``name`` to the daemon at ``server``:
    ``<wall time>:<fresh nonce>:<HMAC-SHA256 of name, server, time and nonce>``."""
    stamp = f"{time.time() if now is None else now:.3f}"
    nonce = secrets.token_hex(12) if nonce is None else nonce
    mac = hmac.digest(key, f"{name}|{server}|{stamp}|{nonce}".encode(), "sha256")
    return f"{stamp}:{nonce}:{mac.hex()}"


class ProofChecker:
    """A daemon's side: checks proofs made for ``server`` (its own address), each at most
    once and while fresh, so that a proof seen on the wire cannot be used again."""

    def __init__(self, key: bytes, server: str) -> None:
        self.key, self.server = key, server
        self._seen: set[str] = set()
        self._expiry: list[tuple[float, str]] = []  # (the proof's time, nonce): a heap

    def check(self, name: str, answer: str, *, now: float | None = None) -> str:
        """"" when ``answer`` proves the key, else why not."""
        now = time.time() if now is None else now
        try:
            stamp, nonce, mac = answer.split(":")
            when = float(stamp)
        except ValueError:
            return "the peer's proof is malformed"
        expected = hmac.digest(self.key, f"{name}|{self.server}|{stamp}|{nonce}".encode(),
                               "sha256").hex()
        if not hmac.compare_digest(expected, mac):
            return "the peer does not hold the pool key (its proof does not match)"
        if abs(now - when) > FRESH_SECONDS:
            return f"the peer's proof is {now - when:.0f} s old (more than {FRESH_SECONDS} s)"
        # A nonce is remembered while a proof made with it is fresh; older ones are
        # forgotten oldest first (a proof of that age is refused as stale anyway).
        expiry, seen = self._expiry, self._seen
        while expiry and now - expiry[0][0] > FRESH_SECONDS:
            seen.discard(heapq.heappop(expiry)[1])
        if nonce in seen:
            return "the peer's proof was used before (a replay)"
        seen.add(nonce)
        heapq.heappush(expiry, (when, nonce))
        return ""
