"""Whether a configured hook path may be used (HTCondor's ``validateHookPath``).

How this works
--------------
HTCondor refuses a hook whose path it cannot ``stat()``, a world-writable file, a file
without the owner's execute bit, and a file in a world-writable directory; each refusal
is logged (``ERROR: ...``) and the hook counts as not configured. :func:`check_hook_path`
returns the path, or the message HTCondor would log (``src/condor_utils/hook_utils.cpp``).
A relative path is taken relative to ``base`` (the run directory); HTCondor's daemons
would resolve it against their working directory.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PathCheck:
    """``path`` when the hook may be run, else ``error`` (HTCondor's message)."""

    knob: str
    path: str | None
    error: str | None = None


def check_hook_path(knob: str, value: str, base: Path | None = None) -> PathCheck:
    """Check the hook ``value`` configured by ``knob``."""
    path = value.strip()
    if base is not None and not os.path.isabs(path):
        path = str(base / path)
    try:
        st = os.stat(path)
    except OSError as e:
        return PathCheck(knob, None, f"invalid path specified for {knob} ({path}): stat() "
                                     f"failed with errno {e.errno} ({e.strerror})")
    if st.st_mode & stat.S_IWOTH:
        return PathCheck(knob, None, f"path specified for {knob} ({path}) is world-writable! "
                                     "Refusing to use.")
    if not st.st_mode & stat.S_IXUSR:
        return PathCheck(knob, None, f"path specified for {knob} ({path}) is not executable.")
    try:
        parent = os.stat(os.path.dirname(path) or ".")
    except OSError:
        parent = None
    if parent is not None and parent.st_mode & stat.S_IWOTH:
        return PathCheck(knob, None, f"path specified for {knob} ({path}) is a world-writable "
                                     "directory! Refusing to use.")
    return PathCheck(knob, path)
