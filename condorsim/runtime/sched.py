"""How the kernel schedules a pool's processes on virtual time: as batch jobs.

A pool on virtual time is a chain of hand-offs. A daemon sends a message and its peer wakes
to handle it while the sender finishes what it was doing (its log, its trace, its report to
the clock); a report wakes the coordinator's process. Under Linux's default policy
(SCHED_OTHER) the woken process preempts the one running on its core, so two processes of
one chain take turns at a core, each with the other's caches. A batch process
(SCHED_BATCH, ``sched(7)``) is not preempted by a wake-up: the sender finishes and blocks,
and its peer runs on the other core or right after it. Nothing a daemon does changes, only
when the kernel runs it. Measured (docs/performance.md, "the ninth session"): the bench
day in 0.96 of the wall time with every process of the pool a batch one; with the daemons
only, and not the coordinator's process (woken by every report), about none of that.

Any user may choose SCHED_BATCH and go back to SCHED_OTHER (no privilege is needed). Where
the platform has no such policy (not Linux) nothing is done. A pool on the wall clock is
left alone: its daemons wait on real time, and a human may be waiting on them. The zygote
(runtime/zygote.py), which a virtual-time pool's master may start from the coordinator's
batch thread and which outlives that pool, takes back the policy its process had
(:data:`ORIGINAL`, handed over in :data:`SCHED_ENV`), so that the daemons it forks for a
later pool on the wall clock keep it too.
"""

from __future__ import annotations

import os

SCHED_ENV = "CONDORSIM_SCHED_POLICY"
"""The policy a zygote takes as it starts: its starting process's :data:`ORIGINAL`."""


def set_batch() -> int | None:
    """Make the calling thread (and the processes it forks from now on) a batch one; return
    the policy it had, or None when it cannot (no SCHED_BATCH here, or refused)."""
    getter = getattr(os, "sched_getscheduler", None)
    setter = getattr(os, "sched_setscheduler", None)
    batch = getattr(os, "SCHED_BATCH", None)
    if getter is None or setter is None or batch is None:
        return None
    try:
        previous: int = getter(0)
        if previous != batch:
            setter(0, batch, os.sched_param(0))
    except OSError:
        return None
    return previous


def policy_name() -> str:
    """The calling thread's policy as the daemon's start record says it: ``batch``,
    ``other`` (Linux's default), or ``unknown`` where it cannot be asked."""
    getter = getattr(os, "sched_getscheduler", None)
    if getter is None:
        return "unknown"
    try:
        policy = getter(0)
    except OSError:
        return "unknown"
    names = {getattr(os, attr, None): attr.removeprefix("SCHED_").lower()
             for attr in ("SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE", "SCHED_FIFO", "SCHED_RR")}
    return names.get(policy, str(policy))


def restore(previous: int | None) -> None:
    """Give the calling thread back the policy :func:`set_batch` returned (the
    coordinator's host when its pool is over: a replay runs in the user's process, a test's
    in pytest's)."""
    setter = getattr(os, "sched_setscheduler", None)
    if previous is None or setter is None:
        return
    try:
        setter(0, previous, os.sched_param(0))
    except OSError:
        pass


def _current() -> int | None:
    getter = getattr(os, "sched_getscheduler", None)
    if getter is None:
        return None
    try:
        policy: int = getter(0)
    except OSError:
        return None
    return policy


ORIGINAL: int | None = _current()
"""The policy of the thread that first imported this module: the process's own, before any
:func:`set_batch` of ours (None where it cannot be asked)."""


def restore_from_env() -> None:
    """A zygote's first step: the policy :data:`SCHED_ENV` names, if any (runtime/zygote.py)."""
    text = os.environ.get(SCHED_ENV, "")
    if text.lstrip("-").isdigit():
        restore(int(text))
