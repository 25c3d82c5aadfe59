"""What a run directory holds, read once for the report.

How this works
--------------
:func:`load_run` checks that a directory is a run (a kept replay's, or a pool's
``$CONDORSIM_HOME``: ``condor_config`` or ``log/``) with a ``trace.jsonl``, then reads:

* ``result.json`` (written by ``condorsim replay`` into every kept run): the scenario's
  name, its expectations and their results, each job's final ad, when the run started
  and stopped and why. Without it (a pool's directory), the final ads come from
  ``spool/job_queue.log`` and ``spool/history``;
* the daemons' logs, through :func:`condorsim.replay.explain.read_log_records` (the one
  place that knows their file names and format);
* the user event logs: those the jobs' ``UserLog`` names, and any other ``*.log`` of
  the run directory, each job's events taken from the first file that has them.

The trace itself is read later, by :mod:`.flows`, only for the jobs whose flow is drawn.
Every problem is a :class:`ReportError` with a one-line message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condorsim.classad import ClassAdError, parse_expr
from condorsim.eventlog import Event, EventLogError, read_events
from condorsim.jobqueue import JobQueueLogError, job_attrs, parse_key, replay_file
from condorsim.replay.explain import read_log_records
from condorsim.replay.jobflow import history_ads, job_id
from condorsim.tools.trace import run_timezone

Ad = dict[str, str]  # attribute -> ClassAd expression text, as result.json keeps it


class ReportError(Exception):
    """The directory cannot give a report (the message is one line)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class RunData:
    """Everything the report shows, but the trace."""

    run_dir: Path
    tz: str
    start: float
    end: float
    result: dict[str, Any] | None
    ads: dict[str, Ad]
    events: dict[str, list[Event]]
    logs: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)

    @property
    def trace_path(self) -> Path:
        return self.run_dir / "trace.jsonl"

    @property
    def name(self) -> str:
        if self.result is not None:
            return str(self.result.get("scenario") or self.run_dir.name)
        return f"the pool at {self.run_dir}"

    def value(self, job: str, attr: str) -> Any:
        """The value of a literal attribute of a job's final ad (None when absent)."""
        return ad_value(self.ads.get(job, {}), attr)


def ad_value(ad: Ad, attr: str) -> Any:
    """The value of ``attr`` in an ad of expression texts, evaluated alone (None when
    absent or not a literal: strings, numbers and booleans are what the report shows)."""
    text = next((v for k, v in ad.items() if k.lower() == attr.lower()), None)
    if text is None:
        return None
    try:
        value = parse_expr(text).evaluate()
    except (ClassAdError, ValueError):
        return None
    return value if isinstance(value, str | int | float | bool) else None


def check_run_dir(run_dir: Path) -> None:
    """Raise :class:`ReportError` unless ``run_dir`` is a run with a trace."""
    if not run_dir.exists():
        raise ReportError(f"{run_dir}: no such directory", 2)
    if not run_dir.is_dir():
        raise ReportError(f"{run_dir}: not a directory", 2)
    if not (run_dir / "condor_config").is_file() and not (run_dir / "log").is_dir():
        raise ReportError(f"{run_dir} is not a run directory (it has no condor_config and no "
                          "log/): give one kept by `condorsim replay FILE --keep DIR`, or a "
                          "pool's $CONDORSIM_HOME", 2)
    if not (run_dir / "trace.jsonl").is_file():
        raise ReportError(f"{run_dir} has no trace.jsonl: the run was not traced (replay "
                          "a scenario with `--keep DIR`, or start a pool with `condorsim up`)")


def load_run(run_dir: Path) -> RunData:
    """Read a run directory (see the module's docstring)."""
    check_run_dir(run_dir)
    problems: list[str] = []
    result = _read_result(run_dir, problems)
    ads = final_ads(run_dir, result, problems)
    tz = run_timezone(run_dir)
    logs = read_log_records(run_dir / "log") if (run_dir / "log").is_dir() else []
    events = _user_events(run_dir, ads, tz, problems)
    start, end = _span(result, logs, events)
    return RunData(run_dir, tz, start, end, result, ads, events, logs, problems)


def _read_result(run_dir: Path, problems: list[str]) -> dict[str, Any] | None:
    path = run_dir / "result.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        problems.append(f"{path}: not readable as JSON ({e}); expectations not shown")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path}: not a JSON object; expectations not shown")
        return None
    return data


def final_ads(run_dir: Path, result: dict[str, Any] | None, problems: list[str]) -> dict[str, Ad]:
    """Each job's final ad: ``result.json``'s, else the history's and the queue log's (what
    cannot be read is added to ``problems``). Also what a sweep's figures are made of."""
    if result is not None and isinstance(result.get("jobs"), dict):
        return {str(j): {str(k): str(v) for k, v in ad.items()}
                for j, ad in result["jobs"].items() if isinstance(ad, dict)}
    ads: dict[str, Ad] = {}
    for ad in history_ads(run_dir):
        key = job_id(ad)
        if key is not None:
            ads[key] = {name: str(tree) for name, tree in ad.pairs()}
    queue_log = run_dir / "spool" / "job_queue.log"
    if queue_log.is_file():
        try:
            state = replay_file(queue_log, now=0).state
        except (JobQueueLogError, OSError) as e:
            problems.append(f"{queue_log}: {e}")
            return ads
        for key in state:
            try:
                cluster, proc = parse_key(key)
            except JobQueueLogError:
                continue
            attrs = job_attrs(state, cluster, proc) if cluster > 0 and proc >= 0 else None
            if attrs is not None:
                ads[f"{cluster}.{proc}"] = dict(attrs)
    return ads


def _user_logs(run_dir: Path, ads: dict[str, Ad]) -> list[Path]:
    paths: list[Path] = []
    for ad in ads.values():
        name = ad_value(ad, "UserLog")
        if isinstance(name, str) and name:
            iwd = ad_value(ad, "Iwd")
            path = Path(name) if Path(name).is_absolute() or not isinstance(iwd, str) \
                else Path(iwd) / name
            paths.append(path)
    paths += sorted(p for p in run_dir.rglob("*.log") if "log" not in p.relative_to(run_dir).parts[:-1])
    seen: set[Path] = set()
    unique = []
    for path in paths:
        resolved = path.resolve()
        if resolved not in seen and path.is_file():
            seen.add(resolved)
            unique.append(path)
    return unique


def _user_events(run_dir: Path, ads: dict[str, Ad], tz: str,
                 problems: list[str]) -> dict[str, list[Event]]:
    by_job: dict[str, list[Event]] = {}
    for path in _user_logs(run_dir, ads):
        try:
            events = read_events(path, tz=tz)
        except EventLogError as e:
            problems.append(str(e))
            continue
        mine: dict[str, list[Event]] = {}
        for event in events:
            mine.setdefault(f"{event.cluster}.{event.proc}", []).append(event)
        for job, evs in mine.items():
            by_job.setdefault(job, evs)  # a job's events come from one log
    return by_job


def _span(result: dict[str, Any] | None, logs: list[dict[str, Any]],
          events: dict[str, list[Event]]) -> tuple[float, float]:
    """(start, end) of the run in simulated epoch seconds."""
    run = (result or {}).get("run") or {}
    times = [float(r["sim_time"]) for r in logs]
    times += [e.timestamp for evs in events.values() for e in evs]
    start = float(run["start"]) if isinstance(run.get("start"), int | float) else \
        min(times, default=0.0)
    end = float(run["end"]) if isinstance(run.get("end"), int | float) else \
        max(times, default=start)
    return start, max(end, start + 1)
