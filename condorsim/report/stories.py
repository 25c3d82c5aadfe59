"""Each job's story, put together from what a run kept: runs, slots, states, marks.

How this works
--------------
A job's life is put together from what the run kept, best source first:

* **runs** -- a stay on a slot (or at the schedd, for the local and scheduler universes):
  from the schedd's ``shadow_started`` / ``local_job_started`` to its ``shadow_exited`` /
  ``local_job_exited`` / ``local_job_stopped`` (whose ``outcome`` / ``became`` says what
  became of the job). Without those records, from each user-log EXECUTE to the event that
  ended it. A grid-universe job's runs are at a site: from each GRID_SUBMIT (its
  ``GridResource``) to the event that ended it;
* **execution began** at the run's EXECUTE event, or the starter's ``job_started`` (the
  schedd's ``local_job_executing``). Before it the job is Running but not executing
  yet: its deferral wait (or input transfer) -- ``waiting``;
* **the slot** of a run: the EXECUTE event's SlotName, else the startd's history entry
  for that run (``spool/startd_history``: RemoteHost, JobCurrentStartDate), else the
  schedd's ``match_received``, else the final ad's RemoteHost / LastRemoteHost;
* **holds** from JOB_HELD to JOB_RELEASED (or JOB_ABORTED); suspensions from
  JOB_SUSPENDED to JOB_UNSUSPENDED; the end at JOB_TERMINATED (completed) or JOB_ABORTED
  (removed). Without a user log: a run's outcome, a hold lasting until the next run.

The states are then painted over the job's life, from its submit to the report's end
(:func:`.timeline.paint`): one list of spans per job with no gap and no overlap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from condorsim.eventlog import Event

from .rundata import Ad, ad_value
from .timeline import JobStory, Mark, Run, StartdRun, paint

RUN_START = frozenset({"shadow_started", "local_job_started"})
RUN_END = frozenset({"shadow_exited", "local_job_exited", "local_job_stopped"})
EXEC_BEGIN = frozenset({"job_started", "local_job_executing"})
_ENDING = {"JOB_TERMINATED": "completed", "JOB_ABORTED": "removed", "JOB_HELD": "held",
           "JOB_EVICTED": "evicted", "SHADOW_EXCEPTION": "shadow exception"}
_UNIVERSE_PLACE = {12: "schedd: local universe", 7: "schedd: scheduler universe"}


def build_stories(events: Mapping[str, Sequence[Event]], logs: Iterable[Mapping[str, Any]],
                  ads: Mapping[str, Ad], end: float,
                  startd_runs: Iterable[StartdRun] = ()) -> dict[str, JobStory]:
    """Every job's story (see the module's docstring), by job id."""
    logs = list(logs)
    by_job: dict[str, list[Mapping[str, Any]]] = {}
    submitted: dict[int, tuple[float, str]] = {}
    for r in sorted(logs, key=lambda r: (r["sim_time"], r.get("wall_time") or 0)):
        if r.get("daemon") == "schedd" and r.get("event") == "submitted" and \
                isinstance(r.get("cluster"), int):
            submitted.setdefault(r["cluster"], (float(r["sim_time"]), str(r.get("owner", ""))))
        elif isinstance(r.get("job"), str):
            by_job.setdefault(r["job"], []).append(r)
    history: dict[str, list[StartdRun]] = {}
    for h in startd_runs:
        history.setdefault(h.job, []).append(h)
    jobs = set(ads) | set(events) | {j for j, rs in by_job.items()
                                     if any(r.get("event") in RUN_START for r in rs)}
    for r in logs:
        if r.get("event") == "submitted" and isinstance(r.get("procs"), int) and \
                isinstance(r.get("cluster"), int):
            jobs |= {f"{r['cluster']}.{p}" for p in range(r["procs"])}
    stories = {}
    for job in sorted(jobs, key=job_sort_key):
        cluster = int(job.split(".")[0])
        stories[job] = _story(job, list(events.get(job, ())), by_job.get(job, []),
                              ads.get(job, {}), end, history.get(job, []),
                              submitted.get(cluster))
    return stories


def job_sort_key(job: str) -> tuple[int, int]:
    cluster, _, proc = job.partition(".")
    return (int(cluster), int(proc or 0)) if cluster.isdigit() and proc.isdigit() else (0, 0)


def _story(job: str, events: list[Event], records: list[Mapping[str, Any]], ad: Ad,
           end: float, history: list[StartdRun],
           submitted: tuple[float, str] | None) -> JobStory:
    owner = ad_value(ad, "Owner") or (submitted[1] if submitted else "") or "?"
    submit = next((e.timestamp for e in events if e.type == "SUBMIT"), None)
    if submit is None:
        qdate = ad_value(ad, "QDate")
        submit = submitted[0] if submitted else float(qdate) if isinstance(qdate, int) else \
            min([*(e.timestamp for e in events), *(float(r["sim_time"]) for r in records)],
                default=end)
    grid = any(e.type == "GRID_SUBMIT" for e in events) or ad_value(ad, "JobUniverse") == 9
    runs = _grid_runs(job, events, ad, end) if grid else _runs(job, events, records, end)
    for run in runs:
        if not run.grid:
            _place(run, events, records, history, ad, last=run is runs[-1])
        _suspensions(run, events)
    marks = _marks(events, runs)
    intervals = [(s.state, s.start, s.end) for run in runs for s in run.spans()]
    intervals += _holds(events, runs, end)
    terminal = _terminal(events, runs, ad)
    if terminal is not None:
        intervals.append((terminal[0], terminal[1], end))
    return JobStory(job, str(owner), submit, runs, paint(intervals, submit, end), marks)


def _runs(job: str, events: list[Event], records: list[Mapping[str, Any]],
          end: float) -> list[Run]:
    runs: list[Run] = []
    open_run: Run | None = None
    for r in records:
        event, t = r.get("event"), float(r["sim_time"])
        if event in RUN_START:
            if open_run is not None:
                open_run.end = t
            universe = r.get("universe")
            place = _UNIVERSE_PLACE.get(universe, "") if isinstance(universe, int) else ""
            open_run = Run(job, place, t, end)
            runs.append(open_run)
        elif event in RUN_END and open_run is not None:
            open_run.end = t
            open_run.outcome = str(r.get("outcome") or r.get("became") or "")
            open_run = None
    if not runs:  # no schedd records: each EXECUTE to the event that ended it
        for e in events:
            if e.type == "EXECUTE":
                if open_run is not None:
                    open_run.end = e.timestamp
                open_run = Run(job, "", e.timestamp, end, executing=e.timestamp)
                runs.append(open_run)
            elif e.type in _ENDING and open_run is not None:
                open_run.end, open_run.outcome = e.timestamp, _ENDING[e.type]
                open_run = None
    # execution began: the first EXECUTE or starter's job_started within the run (the
    # starter may log it before the schedd logs the shadow's start, in the same second)
    began = sorted([e.timestamp for e in events if e.type == "EXECUTE"] +
                   [float(r["sim_time"]) for r in records if r.get("event") in EXEC_BEGIN])
    for run in runs:
        if run.executing is None:
            run.executing = next((t for t in began if run.start <= t <= run.end), None)
        _refine_outcome(run, events)
    return runs


def _refine_outcome(run: Run, events: list[Event]) -> None:
    """The user log tells a requeue on exit from an eviction, and a shadow exception."""
    at_end = [e for e in events if e.type in _ENDING and abs(e.timestamp - run.end) < 1]
    if not at_end:
        if run.outcome == "requeued":
            run.outcome = "evicted"  # no log to tell: the job went back to idle
        return
    kinds = {e.type for e in at_end}
    if "JOB_ABORTED" in kinds:
        run.outcome = "removed"
    elif "JOB_HELD" in kinds:
        run.outcome = "held"
    elif "JOB_TERMINATED" in kinds:
        run.outcome = "completed"
    elif "JOB_EVICTED" in kinds:
        evicted = next(e for e in at_end if e.type == "JOB_EVICTED")
        run.outcome = "requeued" if evicted.fields.get("TerminatedAndRequeued") else "evicted"
    elif "SHADOW_EXCEPTION" in kinds:
        run.outcome = "shadow exception"


def _grid_runs(job: str, events: list[Event], ad: Ad, end: float) -> list[Run]:
    runs: list[Run] = []
    open_run: Run | None = None
    default = ad_value(ad, "GridResource") or "?"
    for e in events:
        if e.type == "GRID_SUBMIT":
            if open_run is not None:
                open_run.end, open_run.outcome = e.timestamp, "resubmitted"
            resource = e.fields.get("GridResource") or default
            open_run = Run(job, f"site: {resource}", e.timestamp, end, grid=True)
            runs.append(open_run)
        elif open_run is None:
            continue
        elif e.type == "EXECUTE" and open_run.executing is None:
            open_run.executing = e.timestamp
        elif e.type in _ENDING:
            open_run.end = e.timestamp
            _refine_outcome(open_run, events)
            open_run = None
    return runs


def _place(run: Run, events: list[Event], records: list[Mapping[str, Any]],
           history: list[StartdRun], ad: Ad, *, last: bool) -> None:
    if run.place:
        return
    execute = next((e for e in events if e.type == "EXECUTE" and e.fields.get("SlotName")
                    and run.start <= e.timestamp <= run.end), None)
    if execute is not None:
        run.place = str(execute.fields["SlotName"])
        return
    entry = next((h for h in history if abs(h.start - run.start) < 1), None) or \
        next((h for h in history if abs(h.end - run.end) < 1), None)
    if entry is not None:
        run.place = entry.slot
        return
    match = [r for r in records if r.get("event") == "match_received"
             and float(r["sim_time"]) <= run.start and r.get("slot")]
    if match:
        run.place = str(match[-1]["slot"])
    elif last:
        host = ad_value(ad, "RemoteHost") or ad_value(ad, "LastRemoteHost")
        run.place = host if isinstance(host, str) else ""


def _suspensions(run: Run, events: list[Event]) -> None:
    since: float | None = None
    for e in events:
        if not run.start <= e.timestamp <= run.end:
            continue
        if e.type == "JOB_SUSPENDED" and since is None:
            since = e.timestamp
        elif e.type == "JOB_UNSUSPENDED" and since is not None:
            run.suspended.append((since, e.timestamp))
            since = None
    if since is not None:
        run.suspended.append((since, run.end))


def _holds(events: list[Event], runs: list[Run], end: float) -> list[tuple[str, float, float]]:
    holds: list[tuple[str, float, float]] = []
    since: float | None = None
    for e in events:
        if e.type == "JOB_HELD" and since is None:
            since = e.timestamp
        elif e.type in ("JOB_RELEASED", "JOB_ABORTED") and since is not None:
            holds.append(("held", since, e.timestamp))
            since = None
    if since is not None:
        holds.append(("held", since, end))
    if not any(e.type == "JOB_HELD" for e in events):  # no user log: until the next run
        starts = [r.start for r in runs]
        for run in runs:
            if run.outcome == "held":
                holds.append(("held", run.end, min((s for s in starts if s >= run.end),
                                                   default=end)))
    return holds


def _terminal(events: list[Event], runs: list[Run], ad: Ad) -> tuple[str, float] | None:
    for e in events:
        if e.type in ("JOB_TERMINATED", "JOB_ABORTED"):
            return _ENDING[e.type], e.timestamp
    for run in runs:
        if run.outcome in ("completed", "removed"):
            return run.outcome, run.end
    status = ad_value(ad, "JobStatus")
    when = ad_value(ad, "CompletionDate") if status == 4 else ad_value(ad, "EnteredCurrentStatus")
    if status in (3, 4) and isinstance(when, int) and when > 0:
        return ("completed" if status == 4 else "removed"), float(when)
    return None


def _marks(events: list[Event], runs: list[Run]) -> list[Mark]:
    """A mark per run's end, and per hold, release, removal, completion or shadow exception
    of the user log; the log's event of a run's end (within a second: on the wall clock
    the shadow's and the schedd's clocks differ by a fraction) gives that mark its detail."""
    marks = {(run.end, run.outcome): Mark(run.end, run.outcome) for run in runs
             if run.outcome and run.outcome != "resubmitted"}
    kinds = {"JOB_HELD": "held", "JOB_RELEASED": "released", "JOB_ABORTED": "removed",
             "JOB_TERMINATED": "completed", "SHADOW_EXCEPTION": "shadow exception"}

    def near(t: float, kind: str) -> tuple[float, str] | None:
        return next((k for k in marks if k[1] == kind and abs(k[0] - t) < 1), None)

    for e in events:
        kind = kinds.get(e.type)
        detail = str(e.fields.get("HoldReason") or e.fields.get("Reason") or "")
        if e.type == "JOB_TERMINATED":
            detail = f"exit code {e.fields.get('ReturnValue', '?')}"
        if kind is not None:
            key = near(e.timestamp, kind) or (e.timestamp, kind)
            marks[key] = Mark(key[0], kind, detail)
        elif e.type == "JOB_EVICTED":
            for key in filter(None, (near(e.timestamp, "requeued"), near(e.timestamp, "evicted"))):
                marks[key] = Mark(key[0], key[1], detail)
    return sorted(marks.values(), key=lambda m: m.t)
