"""Finding and reaching a local pool: ``$CONDORSIM_HOME`` and what lives there.

How this works
--------------
A pool started by ``condorsim up`` lives in ``$CONDORSIM_HOME`` (default ``~/.condorsim``):
``condor_config`` (written on first use), ``log/`` (daemon logs and each daemon's
``.<name>_address`` file, as HTCondor's ``*_ADDRESS_FILE``), ``spool/``, ``execute/`` and
``master.pid``. Every tool finds the pool through this directory: the collector's address
file first, then the collector's ads for everything else.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

DEFAULT_CONFIG = """\
# condor_config for a condorsim mini-pool, written by `condorsim up`.
# HTCondor's configuration language; `condorsim config_val -verbose NAME` shows any value.
LOCAL_DIR = {home}
LOG = $(LOCAL_DIR)/log
SPOOL = $(LOCAL_DIR)/spool
EXECUTE = $(LOCAL_DIR)/execute
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD
# Port 0: the collector takes any free port and the master tells the other daemons.
COLLECTOR_HOST = 127.0.0.1:0
NUM_CPUS = 4
# Simulated time runs this many times faster than real time.
SIM_SPEED = 1
# Jobs run their real executables, in a scratch directory under EXECUTE, their output
# brought back (replays simulate run times instead: +SimRuntime, SIM_DEFAULT_RUNTIME).
SIM_EXECUTE_REAL_JOBS = True
# condor_status -negotiator shows each cycle at once (HTCondor's default is false).
NEGOTIATOR_UPDATE_AFTER_CYCLE = True
"""


def clock_file(home: Path) -> Path:
    """Where ``condorsim up`` writes the pool's clock: simulated start, wall start, speed."""
    return home / "log" / ".clock"


def write_clock(home: Path, start: float, speed: float) -> None:
    """Record the live pool's clock so tools can tell its time (simulated = start + elapsed x speed)."""
    clock_file(home).write_text(json.dumps({"start": start, "wall": start, "speed": speed}) + "\n")


def pool_time(home: Path | None = None) -> int:
    """The pool's current (simulated) time in epoch seconds, as the daemons see it.

    A live pool's clock runs ``SIM_SPEED`` times real time from when it was started; with no
    pool (or a pool that left no clock), the host's clock, as HTCondor's tools use.
    """
    home = pool_home() if home is None else home
    now = time.time()
    try:
        clock = json.loads(clock_file(home).read_text())
        start, wall, speed = float(clock["start"]), float(clock["wall"]), float(clock["speed"])
    except (OSError, ValueError, KeyError, TypeError):
        return int(now)
    if master_pid(home) is None:
        return int(now)
    return int(start + (now - wall) * speed)


class PoolNotRunning(RuntimeError):
    """No pool answers at $CONDORSIM_HOME."""


def pool_home(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    value = env.get("CONDORSIM_HOME")
    return Path(value).expanduser() if value else Path.home() / ".condorsim"


def ensure_home(home: Path) -> Path:
    """Create the pool directory and its condor_config if missing; return the config path."""
    home.mkdir(parents=True, exist_ok=True)
    for sub in ("log", "spool", "execute"):
        (home / sub).mkdir(exist_ok=True)
    config = home / "condor_config"
    if not config.exists():
        config.write_text(DEFAULT_CONFIG.format(home=home))
    return config


def address_file(home: Path, daemon: str) -> Path:
    return home / "log" / f".{daemon}_address"


def read_address(home: Path, daemon: str) -> str:
    """The listening address a running daemon wrote, or PoolNotRunning."""
    path = address_file(home, daemon)
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        raise PoolNotRunning(
            f"no pool is running at {home} (no {daemon} address in {path.parent}); "
            "start one with `condorsim up`"
        ) from None
    if not text:
        raise PoolNotRunning(f"the {daemon} at {home} has not written its address yet")
    return text


def master_pid(home: Path) -> int | None:
    """The pid of the pool's running master, or None."""
    try:
        pid = int((home / "master.pid").read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return pid if process_alive(pid) else None


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs. A zombie -- dead, not yet reaped by its parent
    (a master left to init is reaped when init gets to it) -- does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (not Linux): kill(0) is all we can tell
