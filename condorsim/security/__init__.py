"""HTCondor's security model for condorsim: who a peer is, and what it may do.

* :mod:`.identity` -- the FS method (a local tool proves its OS user) and the condor user;
* :mod:`.poolkey` -- the pool key daemons prove they hold (HTCondor's IDTOKENS pool key);
* :mod:`.authz` -- access levels, ``ALLOW_*`` / ``DENY_*``, required authentication.

The connection handshake that uses them is in :mod:`condorsim.runtime.network`; the table
of each command's access level is ``COMMAND_LEVELS`` in :mod:`condorsim.wire.messages`.
docs/security.md says what is promised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from condorsim.config import Config

from .authz import (
    ADMINISTRATOR,
    DAEMON,
    LEVELS,
    NEGOTIATOR,
    READ,
    RECOMMENDED_V9_0,
    WRITE,
    Policy,
    allow_everything,
)
from .identity import (
    CONDOR,
    UNAUTHENTICATED,
    FSAuthError,
    condor_names,
    fs_check,
    my_user_name,
    user_name,
)
from .poolkey import PoolKeyError, ProofChecker, create_key, key_path, load_key, proof

__all__ = [
    "ADMINISTRATOR",
    "CONDOR",
    "DAEMON",
    "LEVELS",
    "NEGOTIATOR",
    "READ",
    "RECOMMENDED_V9_0",
    "UNAUTHENTICATED",
    "WRITE",
    "FSAuthError",
    "Policy",
    "PoolKeyError",
    "ProofChecker",
    "Security",
    "allow_everything",
    "condor_names",
    "create_key",
    "fs_check",
    "key_path",
    "load_key",
    "my_user_name",
    "proof",
    "user_name",
]


@dataclass
class Security:
    """What an endpoint authenticates with (``key``: a daemon's; None: a tool, by FS) and,
    serving, the ``policy`` it authorizes commands by."""

    key: bytes | None = None
    policy: Policy = field(default_factory=Policy)

    @classmethod
    def for_daemon(cls, config: Config, run_dir: Path, *, create: bool = False) -> Security:
        """A daemon's: the pool key of ``config`` (created first when ``create``: the master,
        a replay) and the policy of ``config``. Raises PoolKeyError."""
        path = key_path(config, run_dir)
        if create:
            create_key(path)
        return cls(key=load_key(path), policy=Policy.from_config(config))
