"""``condorsim q -better-analyze JOB``: why an idle job does or does not match, in plain words.

How this works
--------------
:func:`analyze` is pure: a job ad, the slot ads and ``now`` in, text out. It does what
condor_q -better-analyze does: it splits the job's Requirements into its top-level ``&&``
clauses and counts, for each, how many slots satisfy it (the job as MY, the slot as
TARGET); then it looks at the other side: which slots' own Requirements (their START)
reject the job. It ends with the summary of the machines: rejected by the job, rejecting the
job, already running the user's jobs, serving other users, able to run it.
"""

from __future__ import annotations

from collections.abc import Sequence

from condorsim import pool as poolmod
from condorsim.classad import ClassAd, EvalContext
from condorsim.wire import messages as m

from .common import ToolError, query_collector


def _fmt(v: object) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if v is True:
        return "true"
    if v is False:
        return "false"
    return str(v)


def analyze(job: ClassAd, slots: Sequence[ClassAd], now: int) -> str:
    """The -better-analyze report for one job against the pool's slot ads."""
    ctx = EvalContext(now=now)
    cluster, proc = job.evaluate("ClusterId"), job.evaluate("ProcId")
    jid = f"{cluster}.{proc}"
    padded = f"{int(cluster):03d}.{int(proc):03d}" if isinstance(cluster, int) and isinstance(proc, int) else jid
    req = job.lookup("Requirements")
    out: list[str] = []
    if req is None:
        out.append(f"Job {jid} has no Requirements expression: it matches any slot that takes it.")
        clauses = []
    else:
        out.append(f"The Requirements expression for job {padded} is\n\n    {req}\n")
        refs = sorted(
            {name for scope, name in req.references() if scope is None or scope.lower() == "my"},
            key=str.lower,
        )
        shown = [(r, job.evaluate(r, ctx=ctx)) for r in refs if job.lookup(r) is not None]
        if shown:
            out.append(f"Job {padded} defines the following attributes:\n")
            out.extend(f"    {name} = {_fmt(value)}" for name, value in shown)
            out.append("")
        clauses = req.conjuncts()
        out.append(f"The Requirements expression for job {padded} reduces to these conditions:\n")
        out.append("         Slots")
        out.append("Step    Matched  Condition")
        out.append("-----  --------  ---------")
        for i, clause in enumerate(clauses):
            n = sum(1 for s in slots if clause.evaluate(my=job, target=s, ctx=ctx) is True)
            out.append(f"[{i}]  {n:>9}  {clause}")
        out.append("")
    rejected_by_job: list[str] = []
    rejecting_job: list[tuple[str, str]] = []
    own, others, willing = 0, 0, []
    owner = job.evaluate("Owner")
    for slot in slots:
        name = str(slot.evaluate("Name"))
        if req is not None and req.evaluate(my=job, target=slot, ctx=ctx) is not True:
            failing = [str(c) for c in clauses if c.evaluate(my=job, target=slot, ctx=ctx) is not True]
            rejected_by_job.append(f"{name}: {' && '.join(failing) or req}")
            continue
        slot_req = slot.lookup("Requirements") or slot.lookup("START")
        if slot_req is not None and slot_req.evaluate(my=slot, target=job, ctx=ctx) is not True:
            start = slot.lookup("START")
            rejecting_job.append((name, str(start if start is not None else slot_req)))
            continue
        remote = slot.evaluate("RemoteOwner")
        if isinstance(remote, str) and remote:
            if remote.split("@")[0] == owner:
                own += 1
            else:
                others += 1
            continue
        willing.append(name)
    status = job.evaluate("JobStatus")
    out.append(f"{padded}:  Run analysis summary ignoring user priority.  Of {len(slots)} slots,")
    out.append(f"  {len(rejected_by_job):>5} are rejected by your job's requirements")
    out.append(f"  {len(rejecting_job):>5} reject your job because of their own requirements")
    out.append(f"  {own:>5} match and are already running your jobs")
    out.append(f"  {others:>5} match but are serving other users")
    out.append(f"  {len(willing):>5} are able to run your job")
    last = job.evaluate("LastRejMatchReason")
    if isinstance(last, str):
        out.append(f"\n  The last time the negotiator considered it, it said: {last}")
    if rejected_by_job:
        out.append("\nSlots your job's Requirements reject (and the conditions that fail):")
        out.extend(f"    {line}" for line in rejected_by_job)
    if rejecting_job:
        out.append("\nSlots whose START rejects your job:")
        out.extend(f"    {name}: START = {start}" for name, start in rejecting_job)
    if status != 1:
        words = {2: "running", 3: "removed", 4: "completed", 5: "held", 7: "suspended"}
        out.append(f"\nNote: job {jid} is {words.get(status, 'not idle')}, not waiting for a match.")
    elif not willing and not own and not others:
        out.append(f"\nNo slot in the pool can run job {jid} now.")
    return "\n".join(out) + "\n"


def report(source: str, jobs: Sequence[ClassAd]) -> str:
    """``condorsim q -better-analyze``: the analysis of each job against the pool's slots
    (asked of the collector; none when no pool runs)."""
    try:
        slots = query_collector(poolmod.pool_home(), m.QUERY_STARTD_ADS(constraint="",
                                                                        projection=[]))
    except (ToolError, poolmod.PoolNotRunning):
        slots = []
    now = max((int(s.evaluate("LastHeardFrom")) for s in slots
               if isinstance(s.evaluate("LastHeardFrom"), int)), default=poolmod.pool_time())
    out = f"\n-- {source}\n"
    for job in jobs:
        out += analyze(job, slots, now) + "\n"
    return out
