"""Authorization: HTCondor's access levels, ``ALLOW_*`` / ``DENY_*``, and who needs to authenticate.

How this works
--------------
Every command has an access level (the table ``COMMAND_LEVELS`` beside the messages in
:mod:`condorsim.wire.messages`). A peer may run a command of level L when

* it authenticated, or L does not require it (``SEC_<L>_AUTHENTICATION``, else
  ``SEC_DEFAULT_AUTHENTICATION``; ``use security:recommended_v9_0`` makes READ optional and
  everything else required);
* its identity (``user@domain``) matches no ``DENY_<L>`` entry; and
* it matches an ``ALLOW_*`` entry of L or of a level that implies L, as HTCondor's
  permission hierarchy has it: WRITE implies READ, ADMINISTRATOR and DAEMON imply WRITE,
  NEGOTIATOR implies READ.

An entry is ``user@domain`` with ``*`` wildcards, optionally followed by ``/host``; ``*``
matches everyone. An entry with no ``@`` names hosts only: every peer of a condorsim pool is
on this machine, so it matches every user. ``condor`` in an entry's user part also stands
for the personal pool's own account (:func:`~.identity.condor_names`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from condorsim.config import Config

from .identity import condor_names

READ, WRITE, ADMINISTRATOR, DAEMON, NEGOTIATOR = (
    "READ", "WRITE", "ADMINISTRATOR", "DAEMON", "NEGOTIATOR")
LEVELS = (READ, WRITE, ADMINISTRATOR, DAEMON, NEGOTIATOR)

IMPLIED_BY: dict[str, tuple[str, ...]] = {
    READ: (READ, WRITE, NEGOTIATOR, ADMINISTRATOR, DAEMON),
    WRITE: (WRITE, ADMINISTRATOR, DAEMON),
    ADMINISTRATOR: (ADMINISTRATOR,),
    DAEMON: (DAEMON,),
    NEGOTIATOR: (NEGOTIATOR,),
}
"""The levels whose ALLOW entries grant each level (the level itself first)."""

RECOMMENDED_V9_0 = {
    "ALLOW_READ": "*",
    "ALLOW_WRITE": "*",
    "ALLOW_ADMINISTRATOR": "condor@* condor_pool@* root@*",
    "ALLOW_DAEMON": "condor@* condor_pool@*",
    "ALLOW_NEGOTIATOR": "condor@* condor_pool@*",
    "SEC_DEFAULT_AUTHENTICATION": "REQUIRED",
    "SEC_READ_AUTHENTICATION": "OPTIONAL",
}
"""What ``use security:recommended_v9_0`` sets (HTCondor's default security model)."""

HOST = "127.0.0.1"


def _split(text: str | None) -> list[str]:
    return [e for e in (text or "").replace(",", " ").split() if e]


@dataclass
class Policy:
    """Who may do what (see the module comment)."""

    allow: dict[str, list[str]] = field(
        default_factory=lambda: {lvl: _split(RECOMMENDED_V9_0.get(f"ALLOW_{lvl}"))
                                 for lvl in LEVELS})
    deny: dict[str, list[str]] = field(default_factory=lambda: {lvl: [] for lvl in LEVELS})
    required: dict[str, bool] = field(
        default_factory=lambda: {lvl: lvl != READ for lvl in LEVELS})
    methods: tuple[str, ...] = ("FS", "TOKEN")
    fs_local_dir: str = "/tmp"
    fs_allow_unsafe: bool = False
    uid_domain: str = "localhost"
    condor: frozenset[str] = frozenset({"condor"})
    _cache: dict[tuple[str, str], str | None] = field(default_factory=dict, repr=False)

    @classmethod
    def from_config(cls, config: Config) -> Policy:
        """The policy of a daemon's configuration."""
        get = config.get

        def knob(name: str) -> str | None:
            value = get(name)
            return value if value is not None else RECOMMENDED_V9_0.get(name)

        default_required = (knob("SEC_DEFAULT_AUTHENTICATION") or "REQUIRED").upper()
        required = {}
        for lvl in LEVELS:
            how = (knob(f"SEC_{lvl}_AUTHENTICATION") or default_required).upper()
            required[lvl] = how == "REQUIRED"
        methods = tuple(m.upper() for m in _split(get("SEC_DEFAULT_AUTHENTICATION_METHODS")))
        unsafe = (get("FS_ALLOW_UNSAFE") or "false").strip().lower() in ("true", "1", "yes", "t")
        return cls(
            allow={lvl: _split(knob(f"ALLOW_{lvl}")) for lvl in LEVELS},
            deny={lvl: _split(get(f"DENY_{lvl}")) for lvl in LEVELS},
            required=required,
            methods=methods or ("FS", "TOKEN"),
            fs_local_dir=get("FS_LOCAL_DIR") or "/tmp",
            fs_allow_unsafe=unsafe,
            uid_domain=get("UID_DOMAIN") or "localhost",
            condor=condor_names(get("CONDOR_IDS")),
        )

    def identity(self, user: str) -> str:
        return f"{user}@{self.uid_domain}"

    def _matches(self, identity: str, entries: list[str]) -> bool:
        user, _, domain = identity.partition("@")
        for entry in entries:
            if entry == "*":
                return True
            who = entry.split("/", 1)[0]
            if "@" not in entry:
                return True  # a host entry: every peer is on this machine
            e_user, _, e_domain = who.partition("@")
            if not fnmatchcase(domain, e_domain or "*"):
                continue
            if fnmatchcase(user, e_user) or (e_user == "condor" and user in self.condor):
                return True
        return False

    def check(self, identity: str, level: str) -> str | None:
        """None if ``identity`` may use ``level``, else HTCondor's reason."""
        key = (identity, level)
        if key in self._cache:
            return self._cache[key]
        reason: str | None
        if self._matches(identity, self.deny[level]):
            reason = f"{level} authorization policy denies this request (DENY_{level})"
        elif any(self._matches(identity, self.allow[lvl]) and
                 not self._matches(identity, self.deny[lvl]) for lvl in IMPLIED_BY[level]):
            reason = None
        else:
            reason = f"{level} authorization policy contains no matching ALLOW entry for this request"
        self._cache[key] = reason
        return reason

    def refusal(self, identity: str, authenticated: bool, command: str,
                level: str | None) -> str | None:
        """None if the peer may run ``command`` (of access ``level``), else why not, worded as
        HTCondor's daemons log it."""
        if level is None:
            return None
        if not authenticated and self.required[level]:
            why = (f"{level} requires authentication (SEC_DEFAULT_AUTHENTICATION = REQUIRED) "
                   "and the peer did not authenticate")
        else:
            why = self.check(identity, level)  # type: ignore[assignment]
            if why is None:
                return None
        return (f"PERMISSION DENIED to {identity} from host {HOST} for command {command}, "
                f"access level {level}: reason: {why}")


def allow_everything() -> Policy:
    """A policy that lets every authenticated or unauthenticated peer do anything (tests)."""
    p = Policy(allow={lvl: ["*"] for lvl in LEVELS},
               required={lvl: False for lvl in LEVELS})
    return p
