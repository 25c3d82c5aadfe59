"""Who a local process is: HTCondor's FS authentication method, and the condor user.

How this works
--------------
A server that wants to know which OS user a local client runs as makes up a directory
name nobody can guess, ``<FS_LOCAL_DIR>/FS_<ip>_<port>_<random>_`` (:func:`fs_challenge_dir`),
and sends it. The client creates that directory with mode 0700 (:func:`fs_make_dir`); the
server then ``lstat``-s it (:func:`fs_check`): only a real directory (not a symbolic link),
with mode exactly 0700 and a link count of 1 or 2 is accepted (with ``FS_ALLOW_UNSAFE`` a
plain file with one link is accepted too), and the uid that owns it names the user. The
server removes it (:func:`fs_remove`); the client tries too, for a server that may not.

*The condor user* is the account the pool runs as: the uid of ``CONDOR_IDS`` (``uid.gid``)
when set, else the uid running the daemon. As in HTCondor, root is mapped to the condor
user, named ``condor``; when the pool runs as an ordinary account (a personal pool), that
account's name is what ``condor`` stands for in ``QUEUE_SUPER_USERS`` and the ``ALLOW_*``
lists (:func:`condor_names`).
"""

from __future__ import annotations

import os
import pwd
import secrets
import stat
from pathlib import Path

CONDOR = "condor"
"""The name of the condor user (what root authenticates as)."""

UNAUTHENTICATED = "unauthenticated"
"""HTCondor's user name for a peer that did not authenticate (``unauthenticated@unmapped``)."""


class FSAuthError(Exception):
    """The FS method refused: the message says why (HTCondor's FS errors)."""


def user_name(uid: int) -> str:
    """The name the FS method gives to ``uid``: root is the condor user, others their login."""
    if uid == 0:
        return CONDOR
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        raise FSAuthError(f"Unable to lookup uid {uid}") from None


def my_user_name() -> str:
    """The user this process authenticates as (its effective uid; $USER plays no part)."""
    return user_name(os.geteuid())


def condor_uid(condor_ids: str | None) -> int:
    """The condor user's uid: ``CONDOR_IDS`` (``uid.gid``) if set, else this process's."""
    if condor_ids:
        head = condor_ids.strip().split(".", 1)[0]
        if head.isdigit():
            return int(head)
    return os.geteuid()


def condor_names(condor_ids: str | None = None) -> frozenset[str]:
    """Every name ``condor`` stands for: itself, and a personal pool's own account."""
    uid = condor_uid(condor_ids)
    if uid == 0:
        return frozenset({CONDOR})
    try:
        return frozenset({CONDOR, pwd.getpwuid(uid).pw_name})
    except KeyError:
        return frozenset({CONDOR})


def fs_challenge_dir(fs_local_dir: str | None, address: str) -> str:
    """A fresh directory name for one FS authentication of a client of ``address``."""
    base = fs_local_dir or "/tmp"
    host_port = address.strip("<>").split("?", 1)[0].replace(":", "_")
    return os.path.join(base, f"FS_{host_port}_{secrets.token_hex(6)}_")


def fs_make_dir(path: str) -> None:
    """The client's part: create ``path`` with mode 0700 (whatever the umask)."""
    try:
        os.mkdir(path, 0o700)
        os.chmod(path, 0o700)
    except OSError as e:
        raise FSAuthError(f"cannot create the FS authentication directory {path}: "
                          f"{e.strerror or e}") from None


def fs_check(path: str, *, allow_unsafe: bool = False) -> str:
    """The server's part: the user name that owns ``path``, if it is what was asked for."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise FSAuthError(f"Unable to lstat({path}): {e.strerror or e}") from None
    mode = st.st_mode
    ok = (st.st_nlink in (1, 2) and not stat.S_ISLNK(mode) and stat.S_ISDIR(mode)
          and stat.S_IMODE(mode) == 0o700)
    if not ok and allow_unsafe:
        ok = st.st_nlink == 1 and stat.S_ISREG(mode)
    if not ok:
        raise FSAuthError(f"Bad attributes on ({path})")
    return user_name(st.st_uid)


def fs_remove(path: str) -> None:
    """Remove the challenge directory (or, with FS_ALLOW_UNSAFE, file); never raises."""
    p = Path(path)
    try:
        if p.is_dir() and not p.is_symlink():
            p.rmdir()
        else:
            p.unlink()
    except OSError:
        pass
