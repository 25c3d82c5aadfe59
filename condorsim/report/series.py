"""The pool over time: jobs by status, slots by state, negotiation cycles, routes.

How this works
--------------
Each count over time is a step function kept as a :class:`StepSeries`: the times at which
some count changed and, per category, the count from that time to the next. Jobs by status
come from the painted job stories (:mod:`.timeline`): a waiting job is Running (JobStatus
2) in HTCondor's eyes, a job queued at a grid site Idle. Slots by state come from the
startd's ``slot_state_changed`` records (``Claimed/Busy``, ``Claimed/Idle``, then the
other states by name); negotiation cycles from the negotiator's ``cycle_started`` and
``cycle_finished``; routes from the final ads' ``RouteName``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rundata import Ad, ad_value
from .timeline import JobStory, StartdRun

STATUS_OF = {"idle": "idle", "site_queued": "idle", "waiting": "running",
             "running": "running", "suspended": "suspended", "held": "held",
             "completed": "completed", "removed": "removed"}
STATUS_ORDER = ("running", "suspended", "idle", "held", "completed", "removed")
SLOT_ORDER = ("Claimed/Busy", "Claimed/Suspended", "Claimed/Idle", "Matched", "Preempting",
              "Unclaimed", "Owner", "Drained", "Backfill")
JOB_STATUS = {1: "Idle", 2: "Running", 3: "Removed", 4: "Completed", 5: "Held",
              6: "Transferring Output", 7: "Suspended"}


@dataclass
class StepSeries:
    """Counts that change at ``times``: ``counts[c][i]`` holds from ``times[i]`` on."""

    times: list[float]
    counts: dict[str, list[int]]

    def at(self, category: str, t: float) -> int:
        value = 0
        for when, count in zip(self.times, self.counts.get(category, []), strict=False):
            if when > t:
                break
            value = count
        return value


def _steps(deltas: Mapping[float, Mapping[str, int]], order: Iterable[str]) -> StepSeries:
    categories = [c for c in order if any(d.get(c) for d in deltas.values())]
    categories += sorted({c for d in deltas.values() for c, n in d.items() if n} - set(categories))
    times = sorted(deltas)
    current = dict.fromkeys(categories, 0)
    counts: dict[str, list[int]] = {c: [] for c in categories}
    for t in times:
        for c, n in deltas[t].items():
            if c in current:
                current[c] += n
        for c in categories:
            counts[c].append(current[c])
    return StepSeries(times, counts)


def job_status_series(stories: Iterable[JobStory]) -> StepSeries:
    """How many jobs were idle, running, held, completed ... at each moment."""
    deltas: dict[float, dict[str, int]] = {}
    for story in stories:
        for span in story.spans:
            status = STATUS_OF[span.state]
            deltas.setdefault(span.start, {}).setdefault(status, 0)
            deltas[span.start][status] += 1
            if span is not story.spans[-1]:
                deltas.setdefault(span.end, {}).setdefault(status, 0)
                deltas[span.end][status] -= 1
    return _steps(deltas, STATUS_ORDER)


def slot_label(state: str, activity: str) -> str:
    return f"Claimed/{activity}" if state == "Claimed" else state


def slot_state_series(logs: Iterable[Mapping[str, Any]]) -> tuple[StepSeries, list[str]]:
    """Slots by state over time, and every slot's name (in natural order)."""
    deltas: dict[float, dict[str, int]] = {}
    current: dict[str, str] = {}
    changes = [r for r in logs if r.get("event") == "slot_state_changed" and r.get("slot")]
    changes.sort(key=lambda r: (r["sim_time"], r.get("wall_time") or 0))
    for r in changes:
        slot, label = str(r["slot"]), slot_label(str(r.get("state")), str(r.get("activity")))
        t = float(r["sim_time"])
        before = current.get(slot)
        if before == label:
            continue
        step = deltas.setdefault(t, {})
        if before is not None:
            step[before] = step.get(before, 0) - 1
        step[label] = step.get(label, 0) + 1
        current[slot] = label
    return _steps(deltas, SLOT_ORDER), sorted(current, key=natural_key)


def natural_key(name: str) -> tuple[Any, ...]:
    """``slot2@exec10`` after ``slot2@exec9``: the machine, then the slot, numbers as numbers."""
    slot, _, machine = name.partition("@")
    def parts(text: str) -> tuple[Any, ...]:
        return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))
    return (parts(machine), parts(slot))


@dataclass(frozen=True)
class Cycle:
    t: float
    number: int
    matches: int
    slots: int
    submitters: int


def negotiation_cycles(logs: Iterable[Mapping[str, Any]]) -> list[Cycle]:
    """Every negotiation cycle, with its matches."""
    started: dict[int, Mapping[str, Any]] = {}
    finished: dict[int, Mapping[str, Any]] = {}
    for r in logs:
        if r.get("daemon") != "negotiator" or not isinstance(r.get("cycle"), int):
            continue
        if r.get("event") == "cycle_started":
            started[r["cycle"]] = r
        elif r.get("event") == "cycle_finished":
            finished[r["cycle"]] = r
    return [Cycle(float(r["sim_time"]), n, int(finished.get(n, {}).get("matches") or 0),
                  int(r.get("slots") or 0), int(r.get("submitters") or 0))
            for n, r in sorted(started.items(), key=lambda kv: kv[1]["sim_time"])]


def route_counts(ads: Mapping[str, Ad]) -> tuple[list[str], list[tuple[str, dict[str, int]]]]:
    """(statuses, [(RouteName, {status: jobs})]) of the routed copies; empty without any."""
    table: dict[str, dict[str, int]] = {}
    for ad in ads.values():
        route = ad_value(ad, "RouteName")
        if not isinstance(route, str):
            continue
        code = ad_value(ad, "JobStatus")
        status = JOB_STATUS.get(code, "?") if isinstance(code, int) else "?"
        row = table.setdefault(route, {})
        row[status] = row.get(status, 0) + 1
    statuses = [s for s in JOB_STATUS.values() if any(s in row for row in table.values())]
    return statuses, sorted(table.items())


def read_startd_history(path: Path) -> list[StartdRun]:
    """Each run the startd recorded (job, RemoteHost, JobCurrentStartDate, banner time)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    runs: list[StartdRun] = []
    slot, start = "", -1.0
    for line in text.splitlines():
        if line.startswith("*** "):
            words = line.split()
            fields = {words[i]: words[i + 2] for i in range(1, len(words) - 2)
                      if words[i + 1] == "="}
            cluster, proc = fields.get("ClusterId", ""), fields.get("ProcId", "")
            when = fields.get("CompletionDate", "")
            if cluster.isdigit() and proc.isdigit() and slot:
                runs.append(StartdRun(f"{cluster}.{proc}", slot, start,
                                      float(when) if when.isdigit() else -1.0))
            slot, start = "", -1.0
        elif line.startswith("RemoteHost = "):
            slot = line.split("=", 1)[1].strip().strip('"')
        elif line.startswith("JobCurrentStartDate = "):
            value = line.split("=", 1)[1].strip()
            start = float(value) if value.isdigit() else -1.0
    return runs
