"""condor_master's decisions: which daemons to run, in what order, and when to restart one.

How this works
--------------
:func:`daemon_plan` turns DAEMON_LIST into the processes to start, in start order: the
collector first (everyone finds the pool through it), then the rest as listed;
:func:`start_after` says which must wait for which (the rest start at once). condorsim
runs one shadow process per schedd and one starter process per startd (each serving every
job of its parent as an instance), and one gridmanager per schedd (serving every grid job of
every owner), so the master starts SHADOW and GRIDMANAGER after SCHEDD and STARTER after
STARTD, although HTCondor's own DAEMON_LIST never names them (its schedd spawns shadows and
gridmanagers, its startd starters).

:class:`RestartPolicy` is HTCondor's back-off: after a daemon dies the master waits
``MASTER_BACKOFF_CONSTANT + ceil(MASTER_BACKOFF_FACTOR ** n)`` seconds, at most
``MASTER_BACKOFF_CEILING``, where ``n`` counts restarts since the daemon last stayed up for
``MASTER_RECOVER_FACTOR`` seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# DAEMON_LIST name -> (process name, python module)
KNOWN_DAEMONS: dict[str, tuple[str, str]] = {
    "COLLECTOR": ("collector", "daemons.collector"),
    "NEGOTIATOR": ("negotiator", "daemons.negotiator"),
    "SCHEDD": ("schedd", "daemons.schedd"),
    "SHADOW": ("shadow", "daemons.shadow"),
    "STARTD": ("startd", "daemons.startd"),
    "STARTER": ("starter", "daemons.starter"),
    "JOB_ROUTER": ("job_router", "daemons.job_router"),
    "GRIDMANAGER": ("gridmanager", "daemons.gridmanager"),
}

_COMPANIONS = {"SCHEDD": ("SHADOW", "GRIDMANAGER"), "STARTD": ("STARTER",)}


class DaemonListError(ValueError):
    """DAEMON_LIST names something condorsim cannot run."""


@dataclass(frozen=True)
class PlannedDaemon:
    key: str  # DAEMON_LIST name, e.g. "SCHEDD"
    name: str  # process name, e.g. "schedd"
    module: str  # e.g. "daemons.schedd"


def daemon_plan(daemon_list: list[str], available: set[str] | None = None) -> list[PlannedDaemon]:
    """The processes the master starts, in order, for a DAEMON_LIST."""
    keys: list[str] = []
    for raw in daemon_list:
        key = raw.strip().upper()
        if not key or key == "MASTER" or key in keys:
            continue
        if key not in KNOWN_DAEMONS:
            raise DaemonListError(
                f"DAEMON_LIST names {raw!r}, which condorsim does not simulate "
                f"(known: MASTER, {', '.join(sorted(KNOWN_DAEMONS))})"
            )
        keys.append(key)
        for companion in _COMPANIONS.get(key, ()):
            if companion not in keys:
                keys.append(companion)
    keys.sort(key=lambda k: 0 if k == "COLLECTOR" else 1)
    plan = []
    for key in keys:
        name, module = KNOWN_DAEMONS[key]
        if available is not None and module not in available:
            continue
        plan.append(PlannedDaemon(key, name, module))
    return plan


def start_after(plan: list[PlannedDaemon]) -> dict[str, str]:
    """Which daemon must be up before another starts (process names): SHADOW and
    GRIDMANAGER after their SCHEDD and STARTER after its STARTD, which they look up in the
    collector as they start.

    Everything else starts at once, as soon as the collector (always first) is up.
    """
    names = {p.key: p.name for p in plan}
    return {names[companion]: names[parent] for parent, companions in _COMPANIONS.items()
            for companion in companions if parent in names and companion in names}


@dataclass
class RestartPolicy:
    constant: float = 9
    factor: float = 2.0
    ceiling: float = 3600
    recover: float = 300
    _restarts: dict[str, int] = field(default_factory=dict)

    def delay_after_exit(self, name: str, started: float, exited: float) -> float:
        """Seconds to wait before restarting ``name``, which ran from ``started`` to ``exited``."""
        if exited - started >= self.recover:
            self._restarts[name] = 0
        n = self._restarts.get(name, 0)
        self._restarts[name] = n + 1
        return min(self.ceiling, self.constant + math.ceil(self.factor**n))
