"""Where a replay's throwaway run directory goes.

A replay without ``--keep`` runs in a directory it removes afterwards: its job queue log,
user logs, daemon logs and trace (some 200 MB for the bench day) are never read again once
the replay has its results. The schedd makes its queue log durable as HTCondor does
(CONDOR_FSYNC, default true: an ``fdatasync`` per durable transaction, about 1.5 ms of wall
time each on the project's machine, on the critical path of every instant that commits).
For a directory nobody keeps, that durability buys nothing, so it goes on a memory
filesystem where one is there and roomy: the queue log is still written and synced in the
same order, the sync just costs nothing.

The choice, first that applies:

1. ``CONDORSIM_SCRATCH``: a directory named by the user (it must exist);
2. ``TMPDIR`` set by the user: the temporary directory, as every program would use;
3. ``/dev/shm`` when it is a writable directory with at least :data:`MIN_FREE` bytes free;
4. the temporary directory.

``--keep DIR`` is unaffected: a kept run directory is wherever the user says.
"""

from __future__ import annotations

import os
import tempfile

SCRATCH_ENV = "CONDORSIM_SCRATCH"
MEMORY_FS = "/dev/shm"
MIN_FREE = 4 << 30
"""Free bytes /dev/shm must have: the bench day's run directory is ~200 MB, a week of a
large pool's trace some GB; a memory filesystem that fills up would fail the run."""


def scratch_parent(env: dict[str, str] | None = None, memory_fs: str = MEMORY_FS) -> str:
    """The directory a throwaway run directory is made in (see the module's docstring)."""
    env = dict(os.environ) if env is None else env
    named = env.get(SCRATCH_ENV, "")
    if named:
        if not os.path.isdir(named):
            raise FileNotFoundError(f"{SCRATCH_ENV}={named}: not a directory")
        return named
    if env.get("TMPDIR"):
        return tempfile.gettempdir()
    try:
        st = os.statvfs(memory_fs)
    except OSError:
        return tempfile.gettempdir()
    if st.f_bavail * st.f_frsize >= MIN_FREE and os.access(memory_fs, os.W_OK | os.X_OK):
        return memory_fs
    return tempfile.gettempdir()


def scratch_dir(prefix: str) -> str:
    """A new, empty, private directory for a run nobody keeps (``mkdtemp`` there)."""
    return tempfile.mkdtemp(prefix=prefix, dir=scratch_parent())
