"""The simulator's own limits on what a scenario asks for, refused when the file is loaded.

How this works
--------------
HTCondor has no such limits: a real pool is as big as its machines. A simulated pool runs
on one computer, so a scenario that asks for more than it can hold would fill the memory
or never finish (``count = 100000000`` machines used to hang ``condorsim replay``).
Each limit is named (``MAX_SIM_SLOTS``...) in the message that refuses it, with the file,
line and field, before anything starts. They are generous: issue 16's largest workload,
500 machines x 20 slots (10,000 slots) with 100,000 queued jobs, is a tenth of them.

* ``MAX_SIM_SLOTS`` -- 100,000 slots: the sum of ``count x slots`` over every
  ``[[machine]]`` (each slot is an ad in the startd, the collector and the negotiator:
  ten times issue 16's 10,000), and a ``[[site]]``'s ``slots``.
* ``MAX_SIM_JOBS`` -- 1,000,000 jobs queued by all ``[[submit]]`` entries together
  (``condorsim.submit``: the schedd holds at most as many).
* ``MAX_SIM_DURATION`` -- 10 years of simulated time for any duration (``until``, ``max``,
  ``start_delay``, ``clock_offset``, ``first``, ``every``, ``intervals``): enough for a
  year of cron schedules and deferral windows with room to spare, while a run that long
  already takes hours of wall time at the daemons' periodic rates (a negotiation cycle a
  minute is half a million cycles a year); beyond it, times soon leave the calendar.
* ``MAX_SIM_START`` -- ``start`` before 9000-01-01T00:00:00Z, so that every moment of a run
  (start + max) is a date the logs can print (Python's calendar ends with 9999).
* ``MAX_SIM_SPEED`` -- a wall clock's ``speed`` of at most 1,000,000 simulated seconds a
  real second (more reaches the end of the calendar within hours); ``MAX_SIM_SEED`` -- a
  ``seed`` that fits a 64-bit integer, as the knobs that carry it to the daemons must.
* ``MAX_SIM_MACHINE_CPUS`` 100,000 cpus, ``MAX_SIM_MACHINE_MEMORY`` 1 PiB (1,073,741,824
  MB) and ``MAX_SIM_MACHINE_DISK`` 1 EiB (2**50 KB) per machine: far above any real
  machine, and inside the integers a ClassAd and the wire carry.
"""

from __future__ import annotations

import datetime as _dt
from typing import Final

from condorsim.submit import MAX_SIM_JOBS

from ._times import MAX_SIM_DURATION

__all__ = ["MACHINE_LIMITS", "MAX_SIM_DURATION", "MAX_SIM_JOBS", "MAX_SIM_SEED",
           "MAX_SIM_SLOTS", "MAX_SIM_SPEED", "MAX_SIM_START", "limit_text"]

MAX_SIM_SLOTS: Final = 100_000
MAX_SIM_SPEED: Final = 1_000_000.0
MAX_SIM_SEED: Final = 2**63 - 1
MAX_SIM_START: Final = int(_dt.datetime(9000, 1, 1, tzinfo=_dt.UTC).timestamp())
MACHINE_LIMITS: Final = {
    "cpus": (100_000, "cpus", "MAX_SIM_MACHINE_CPUS"),
    "memory": (2**30, "MB (1 PiB)", "MAX_SIM_MACHINE_MEMORY"),
    "disk": (2**50, "KB (1 EiB)", "MAX_SIM_MACHINE_DISK"),
}
"""Field -> (most per machine, unit, name of the limit)."""


def limit_text(what: str, value: int, limit: int, unit: str, name: str) -> str:
    """``machines x slots = 2,000,000,000 exceeds the limit of 100,000 slots
    (MAX_SIM_SLOTS)``."""
    return f"{what} = {value:,} exceeds the limit of {limit:,} {unit} ({name})"
