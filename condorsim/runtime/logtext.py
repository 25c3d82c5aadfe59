"""The daemons' logs in HTCondor's text form: one line per record, as dprintf writes it.

How this works
--------------
Every record a daemon logs (a structlog event dict: ``event``, ``sim_time``, fields) is
also written as one text line (:func:`text_line`): the simulated time in the pool's
time zone as ``DEBUG_TIME_FORMAT``'s default ``%m/%d/%y %H:%M:%S``, ``(pid:N)`` (D_PID,
the schedd's default and here every daemon's), then the message. The main events are
worded as HTCondor's daemons word them (dprintf strings of matchmaker.cpp, ResState.cpp,
schedd.cpp, masterDaemon.cpp, daemon_core_main.cpp, the starter's os_proc.cpp and
starter.cpp, baseshadow.cpp; see docs/runtime.md); any other record is ``event
key=value ...``, so nothing a daemon logs is left out of the text log. The JSON records
beside it (``<Log>.json``) are what the tools read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Record = Mapping[str, Any]


def _f(record: Record, name: str, default: str = "?") -> str:
    value = record.get(name)
    return default if value is None else str(value)


def _state_change(r: Record) -> str:
    """ResState.cpp: ``Changing state: A -> B``, ``Changing activity: ...`` or both."""
    slot = _f(r, "slot")
    was = str(r.get("was") or "")
    old_state, _, old_activity = was.partition("/")
    state, activity = _f(r, "state"), _f(r, "activity")
    if was and old_state == state:
        return f"{slot}: Changing activity: {old_activity} -> {activity}"
    if was and old_activity == activity:
        return f"{slot}: Changing state: {old_state} -> {state}"
    return (f"{slot}: Changing state and activity: {old_state or '?'}/{old_activity or '?'}"
            f" -> {state}/{activity}")


def _daemon_started(r: Record, own: str) -> str:
    if r.get("daemon", own) != own and own == "master":  # the master starting a child
        base = str(r.get("daemon", "?")).split("@", 1)[0]
        return f'Started DaemonCore process "condor_{base}", pid and pgroup = {_f(r, "pid")}'
    base = own.split("@", 1)[0]
    return f"** condor_{base} (CONDOR_{base.upper()}) STARTING UP"


def _daemon_exited(r: Record, own: str) -> str:
    name = str(r.get("daemon", "?")).split("@", 1)[0].upper()
    line = f"The {name} (pid {_f(r, 'pid')}) exited with status {_f(r, 'status')}"
    delay = r.get("restart_in")
    if delay:
        line += f"\nrestarting condor_{name.lower()} in {int(float(delay))} seconds"
    return line


def _matched(r: Record, own: str) -> str:
    """matchmaker.cpp: ``      Matched 1.0 alice@x <schedd> preempting none <startd> slot1@m``."""
    return (f"      Matched {_f(r, 'request')} {_f(r, 'submitter')} {_f(r, 'schedd_addr')} "
            f"preempting {_f(r, 'preempting', 'none')} {_f(r, 'startd_addr')} {_f(r, 'slot')}")


def _job_exited(r: Record, own: str) -> str:
    if r.get("signal") is not None:
        return f"Process exited, pid={_f(r, 'pid')}, signal={_f(r, 'signal')}"
    return f"Process exited, pid={_f(r, 'pid')}, status={_f(r, 'exit_code')}"


WORDS: dict[str, Callable[[Record, str], str]] = {
    "daemon_started": _daemon_started,
    "daemon_exited": _daemon_exited,
    "daemon_off": lambda r, own: f"The {str(r.get('daemon', '?')).split('@')[0].upper()} "
                                 f"(pid {_f(r, 'pid')}) exited with status {_f(r, 'status')}",
    "all_daemons_started": lambda r, own: "All daemons are started",
    "daemon_failed_to_start": lambda r, own: (
        f"The {str(r.get('daemon', '?')).upper()} (pid {_f(r, 'pid')}) exited with status "
        f"{_f(r, 'status')} before it started: {_f(r, 'reason')}"),
    "shutdown_requested": lambda r, own: (
        "Got SIGQUIT.  Performing fast shutdown." if r.get("how") == "fast"
        else "Got SIGTERM. Performing graceful shutdown."),
    "all_daemons_stopped": lambda r, own: "All daemons are gone.  Exiting.",
    "cycle_started": lambda r, own: "---------- Started Negotiation Cycle ----------",
    "cycle_finished": lambda r, own: "---------- Finished Negotiation Cycle ----------",
    "negotiating_with": lambda r, own: f"  Negotiating with {_f(r, 'submitter')} at "
                                       f"{_f(r, 'address')}",
    "matched": _matched,
    "slot_state_changed": lambda r, own: _state_change(r),
    "shadow_started": lambda r, own: f"Starting add_shadow_birthdate({_f(r, 'job')})",
    "shadow_exited": lambda r, own: ("Shadow " + (f"pid {r['pid']} " if r.get("pid") else "")
                                     + f"for job {_f(r, 'job')} exited with status "
                                     f"{_f(r, 'code')}"),
    "job_started": lambda r, own: f"Create_Process succeeded, pid={_f(r, 'pid')}",
    "job_exited": _job_exited,
    "job_deferred": lambda r, own: f"Job {_f(r, 'job')} deferred for {_f(r, 'seconds')} seconds",
    "stopping_job": lambda r, own: f"Job {_f(r, 'job')} is being evicted ({_f(r, 'why')})",
    "claim_released": lambda r, own: f"Match record ({_f(r, 'claim')}) deleted",
}


def _generic(record: Record) -> str:
    rest = " ".join(f"{k}={_value(v)}" for k, v in record.items()
                    if k not in ("event", "daemon", "sim_time", "wall_time", "level"))
    return f"{record.get('event', '?')}" + (f" {rest}" if rest else "")


def _value(v: Any) -> str:
    if isinstance(v, str):
        return v if v and " " not in v else json.dumps(v)
    return json.dumps(v, default=str)


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _prefix(t: float, pid: int, tz: ZoneInfo) -> str:
    """``%m/%d/%y %H:%M:%S (pid:N) `` of simulated time ``t``; the last one is kept, since
    the records of a daemon come many to an instant."""
    global _last_prefix
    key = (t, pid, tz)
    if _last_prefix[0] != key:
        stamp = datetime.fromtimestamp(t, tz)
        _last_prefix = (key, f"{stamp:%m/%d/%y %H:%M:%S} (pid:{pid}) ")
    return _last_prefix[1]


_last_prefix: tuple[object, str] = (None, "")


def text_line(record: Record, own: str, pid: int, tz: ZoneInfo) -> str:
    """The text line(s) of one record (a message of several lines gets the prefix on each)."""
    t = record.get("sim_time")
    prefix = _prefix(float(t) if isinstance(t, int | float) else 0.0, pid, tz)
    words = WORDS.get(str(record.get("event", "")))
    try:
        message = words(record, own) if words is not None else _generic(record)
    except (KeyError, TypeError, ValueError):
        message = _generic(record)
    return "".join(prefix + line + "\n" for line in message.split("\n"))
