"""``condorsim q -better-analyze``: why a job does or does not match, as condor_q says it.

How this works
--------------
:func:`analyze` is pure (a job ad, the slot ads, ``now``, the console width and the time
zone in; text out) and writes what HTCondor 24's ``printJobRunAnalysis``
(src/condor_q.V6/jobmatch.cpp) writes for -better-analyze:

1. ``The Requirements expression for job C.PPP is``, the expression folded to the console
   width (:func:`condorsim.tools.exprsteps.pretty_expr`);
2. ``Job C.PPP defines the following attributes:``, each job attribute the expression
   uses (followed through the job's own attributes), unevaluated, sorted by name;
   RequestDisk and RequestMemory carry HTCondor's ``(kb)``/``(mb)``;
3. ``... reduces to these conditions:`` and the table of steps
   (:func:`condorsim.tools.exprsteps.step_table`);
4. the job's state (``Job is running.``, ``Job is held.`` and its hold reason ...) and its
   last match times, under ``CCC.PPP:``;
5. the run analysis summary over the slots (dynamic slots left out): rejected by the job's
   Requirements, rejecting the job by their own Requirements, already running the job's
   user's jobs (a slot's RemoteUser is the job's User), serving other users, able to run
   it; then HTCondor's warning when no slot matches.

Differences: a partitionable slot is matched as it is advertised (HTCondor matches one
whose WithinResourceLimits is false as if it were whole again), and user priorities are
not considered (as condor_q without ``-userprio``). A scheduler or local universe job gets
HTCondor's warning that a schedd ad is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from condorsim import pool as poolmod
from condorsim.classad import ClassAd, EvalContext
from condorsim.wire import messages as m

from .common import ToolError, query_collector
from .exprsteps import internal_refs, pretty_expr, step_table
from .fmt import local_time

_STATE = {2: "Job is running.", 6: "Job is running.", 7: "Job is running.",
          5: "Job is held.", 3: "Job is removed.", 4: "Job is completed."}


def _int(ad: ClassAd, name: str, ctx: EvalContext) -> int:
    value = ad.evaluate(name, ctx=ctx) if ad.lookup(name) is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str(ad: ClassAd, name: str, ctx: EvalContext) -> str:
    value = ad.evaluate(name, ctx=ctx) if ad.lookup(name) is not None else None
    return value if isinstance(value, str) else ""


def _ctime(t: int, tz: str) -> str:
    """C's ``ctime``: ``Wed Nov 25 06:18:23 2026`` and a newline."""
    when: datetime = local_time(t, tz)
    return f"{when:%a %b} {when.day:2d} {when:%H:%M:%S %Y}\n"


def _requirements(job: ClassAd, slots: Sequence[ClassAd], rid: str, width: int,
                  ctx: EvalContext) -> str:
    req = job.lookup("Requirements")
    out = ""
    if req is not None:
        out += f"The Requirements expression for job {rid} is\n\n    "
        out += pretty_expr(str(req), 4, width) + "\n\n"
    out += f"Job {rid} defines the following attributes:\n\n"
    refs = internal_refs(req, job) if req is not None else {}
    refs.pop("requirements", None)
    for _, name in sorted(refs.items()):
        unit = {"RequestDisk": " (kb)", "RequestMemory": " (mb)"}.get(name, "")
        out += f"    {name} = {job.lookup(name)}{unit}\n"
    out += "\n"
    out += f"The Requirements expression for job {rid} reduces to these conditions:\n\n"
    return out + (step_table(job, req, slots, ctx) if req is not None else "")


def _status(job: ClassAd, ctx: EvalContext, now: int, tz: str, jid: str) -> str:
    if job.lookup("Owner") is None:
        return f"\n{jid}:  Nothing here.\n\n"
    status = _int(job, "JobStatus", ctx)
    text = _STATE.get(status, "")
    if status == 5 and _str(job, "HoldReason", ctx):
        text += "\n\nHold reason: " + _str(job, "HoldReason", ctx)
    if status == 1 and _int(job, "JobCoolDownExpiration", ctx) > now:
        text = "Job is in cool down."
    if _int(job, "JobUniverse", ctx) in (7, 12):
        text += ("\n\n" if text else "") + ("WARNING: A schedd ClassAd is needed to do "
                                            "analysis for scheduler or Local universe jobs.\n")
    out = f"\n{jid}:  {text}\n\n" if text else ""
    last, rej = _int(job, "LastMatchTime", ctx), _int(job, "LastRejMatchTime", ctx)
    if last:
        out += "Last successful match: " + _ctime(last, tz) + "\n"
    elif rej:
        out += "No successful match recorded.\n"
    if rej > last:
        out += "Last failed match: " + _ctime(rej, tz) + "\n"
        if _str(job, "LastRejMatchReason", ctx):
            out += "Reason for last match failure: " + _str(job, "LastRejMatchReason", ctx) + "\n"
    return out


def _summary(job: ClassAd, slots: Sequence[ClassAd], jid: str, ctx: EvalContext) -> str:
    req = job.lookup("Requirements")
    user = _str(job, "User", ctx)
    total = rejected = rejecting = mine = busy = available = offline = 0
    for slot in slots:
        if slot.evaluate("DynamicSlot", ctx=ctx) is True and \
                slot.evaluate("PartitionableSlot", ctx=ctx) is not True:
            continue
        total += 1
        if req is None or req.evaluate(my=job, target=slot, ctx=ctx) is not True:
            rejected += 1
            continue
        own = slot.lookup("Requirements")
        if own is None or own.evaluate(my=slot, target=job, ctx=ctx) is not True:
            rejecting += 1
            continue
        offline += slot.evaluate("Offline", ctx=ctx) is True
        remote = slot.evaluate("RemoteUser", ctx=ctx) if slot.lookup("RemoteUser") is not None \
            else None
        if not isinstance(remote, str):
            available += 1
            continue
        busy += 1
        mine += remote == user
    if total == 0:
        return ""
    out = (f"\n{jid}:  Run analysis summary ignoring user priority.  Of {total} machines,\n"
           f"  {rejected:5d} are rejected by your job's requirements\n"
           f"  {rejecting:5d} reject your job because of their own requirements\n"
           f"  {mine:5d} match and are already running your jobs\n"
           f"  {busy - mine:5d} match but are serving other users\n")
    if offline:
        out += f"  {offline:5d} match but are currently offline\n"
    out += f"  {available:5d} are able to run your job\n"
    if rejected == total:
        out += "\nWARNING:  Be advised:\n   No machines matched the jobs's constraints\n"
    elif rejected + rejecting == total:
        out += ("\nWARNING:  Be advised:\n   Job did not match any machines's constraints\n"
                "   To see why, pick a machine that you think should match and add\n"
                "     -reverse -machine <name>\n   to your query.\n")
    return out


def analyze(job: ClassAd, slots: Sequence[ClassAd], now: int, width: int = 80,
            tz: str = "UTC") -> str:
    """The -better-analyze text of one job against the pool's slot ads."""
    ctx = EvalContext(now=now)
    cluster, proc = _int(job, "ClusterId", ctx), _int(job, "ProcId", ctx)
    out = _requirements(job, slots, f"{cluster}.{proc:03d}", width, ctx)
    universe = _int(job, "JobUniverse", ctx)
    if universe == 9 and "$$" not in _str(job, "GridResource", ctx):
        out += "\nWARNING: Analysis is only meaningful for Grid universe jobs using matchmaking.\n"
    elif universe == 7:
        out += "\nWARNING: Analysis is meaningless for Scheduler universe jobs.\n"
    elif universe == 8:
        out += "\nWARNING: Analysis is meaningless for MPI universe jobs.\n"
    elif universe not in (5, 9, 10, 11, 13):
        out += "\nWARNING: Job universe unknown.  Analysis may not be meaningful.\n"
    out += "\n"
    jid = f"{cluster:03d}.{proc:03d}"
    out += _status(job, ctx, now, tz, jid)
    if universe not in (7, 12) and job.lookup("Owner") is not None:
        out += _summary(job, slots, jid, ctx)
    return out + "\n"


def report(source: str, jobs: Sequence[ClassAd], width: int = 80, tz: str = "UTC") -> str:
    """``condorsim q -better-analyze``: the banner, then each job against the pool's slots
    (asked of the collector; none when no pool runs)."""
    try:
        slots = query_collector(poolmod.pool_home(), m.QUERY_STARTD_ADS(constraint="",
                                                                        projection=[]))
    except (ToolError, poolmod.PoolNotRunning):
        slots = []
    now = max((int(s.evaluate("LastHeardFrom")) for s in slots
               if isinstance(s.evaluate("LastHeardFrom"), int)), default=poolmod.pool_time())
    out = f"\n\n-- {source}\n"
    for job in sorted(jobs, key=lambda j: (_int(j, "ClusterId", EvalContext(now=now)),
                                           _int(j, "ProcId", EvalContext(now=now)))):
        out += analyze(job, slots, now, width, tz)
    return out
