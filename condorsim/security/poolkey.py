"""The pool key: what a daemon proves it holds (HTCondor's IDTOKENS pool signing key).

How this works
--------------
``condorsim up`` (and every replay, in its own run directory) creates the key once: 32
random bytes in ``SEC_TOKEN_POOL_SIGNING_KEY_FILE`` (default
``$(SEC_PASSWORD_DIRECTORY)/POOL``, the directory ``passwords.d`` under the pool's
``LOCAL_DIR``), the file mode 0600 and its directory 0700, as HTCondor keeps
``passwords.d/POOL``. Every daemon reads it at start; a key file that others may read is
refused.

On each connection the server sends a fresh random nonce; a client that holds the key
answers with ``HMAC-SHA256(key, nonce | its name)`` (:func:`proof`), and the server checks it
(:func:`verify`). The key never travels.
"""

from __future__ import annotations

import hashlib
import hmac
import os
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


def proof(key: bytes, nonce: str, name: str) -> str:
    """What a key holder answers to ``nonce``, introducing itself as ``name``."""
    return hmac.new(key, f"{nonce}|{name}".encode(), hashlib.sha256).hexdigest()


def verify(key: bytes, nonce: str, name: str, answer: str) -> bool:
    return hmac.compare_digest(proof(key, nonce, name), answer)
