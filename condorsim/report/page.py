"""The report page: the charts' bokeh components and the tables, put together by a jinja2
template (``templates/report.html.j2``) into one self-contained HTML file.

How this works
--------------
:func:`build_report` loads the run (:mod:`.rundata`), tells each job's story
(:mod:`.timeline`), counts the pool over time (:mod:`.series`), reads the flows of a few
jobs (:mod:`.flows`), builds the figures and renders the template. BokehJS is inlined
(:data:`RESOURCES`, ``mode="inline"``), so the page loads nothing from anywhere: it opens
from disk on a machine with no network. At scale the page stays small by aggregating:
the per-job Gantt is drawn up to :data:`JOB_GANTT_MAX` jobs, the full final ad and event
list of a job up to :data:`DETAIL_MAX` jobs, the job table lists at most :data:`TABLE_MAX`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bokeh.core.validation import silence
from bokeh.core.validation.warnings import MISSING_RENDERERS
from bokeh.embed import components
from bokeh.resources import Resources
from jinja2 import Environment, PackageLoader, select_autoescape

from .charts import cycles_chart, jobs_chart, slots_chart, time_range
from .flowchart import flow_chart, flow_columns
from .flows import choose_jobs, read_flows, read_light_trace
from .gantt import job_gantt, slot_gantt
from .palette import MARK_STYLE, STATE_COLOUR, STATE_HATCH, STATE_LABEL, clock, duration
from .rundata import RunData, load_run
from .series import (
    JOB_STATUS,
    job_status_series,
    negotiation_cycles,
    read_startd_history,
    route_counts,
    slot_state_series,
)
from .stories import build_stories
from .timeline import JobStory

# BokehJS itself, inlined; the widgets for the flow's menu. (bokeh.resources.INLINE also
# inlines MathJax, tables and WebGL: 2.3 MB more that no chart here uses.)
RESOURCES = Resources(mode="inline", components=["bokeh", "bokeh-widgets"])
silence(MISSING_RENDERERS, True)  # a run without slots or cycles draws empty charts
JOB_GANTT_MAX = 300
DETAIL_MAX = 300
TABLE_MAX = 10_000
UNIVERSE = {1: "standard", 5: "vanilla", 7: "scheduler", 9: "grid", 10: "java",
            11: "parallel", 12: "local", 13: "vm", 14: "container"}


@dataclass
class ReportSummary:
    """What :func:`build_report` wrote."""

    path: Path
    size: int
    jobs: int
    slots: int
    flows: list[str]


def build_report(run_dir: Path, out: Path, jobs: Sequence[str] = ()) -> ReportSummary:
    """Write the report of the run in ``run_dir`` to ``out``; ``jobs``: jobs whose ClassAd
    flow must be among those drawn. Raises :class:`.rundata.ReportError`."""
    data = load_run(run_dir)
    records = read_light_trace(data.trace_path)
    stories = list(build_stories(data.events, data.logs, data.ads, data.end,
                                 read_startd_history(run_dir / "spool" / "startd_history"))
                   .values())
    slot_series, slots = slot_state_series(data.logs)
    cycles = negotiation_cycles(data.logs)
    x_range = time_range(data.start, data.end, data.tz)
    figures: dict[str, Any] = {
        "slot_gantt": slot_gantt(stories, slots, data.tz, x_range),
        "jobs_chart": jobs_chart(job_status_series(stories), data.end, data.tz, x_range),
        "slots_chart": slots_chart(slot_series, data.end, data.tz, x_range),
        "cycles_chart": cycles_chart(cycles, data.tz, x_range),
    }
    if 0 < len(stories) <= JOB_GANTT_MAX:
        figures["job_gantt"] = job_gantt(stories, data.tz, x_range)
    unknown = [j for j in jobs if j not in {s.job for s in stories}]
    chosen = choose_jobs(stories, jobs)
    flows = read_flows(run_dir, chosen, data.logs, records)
    by_job = {s.job: s for s in stories}
    drawn = {j: flow_columns(j, f, data.tz, _flow_summary(by_job[j], data)) for j, f in
             flows.items() if f}
    if drawn:
        figures["flow"] = flow_chart(drawn, {j: _flow_label(by_job[j], data) for j in drawn})
    script, divs = components(figures)
    states = {"idle", "waiting", "running"} | {x.state for s in stories for x in s.spans}
    kinds = {m.kind for s in stories for m in s.marks}
    html = _template().render(
        title=data.name, run=_run_facts(data, stories, slots, cycles), result=data.result,
        results=(data.result or {}).get("results") or [], divs=divs, script=script,
        resources=RESOURCES.render_js(), css=RESOURCES.render_css(),
        legend=[(STATE_LABEL[s], STATE_COLOUR[s], s in STATE_HATCH) for s in STATE_LABEL
                if s in states and s not in ("completed", "removed")],
        marks=[(words, colour, symbol) for kind, (_, colour, words, symbol) in
               MARK_STYLE.items() if kind in kinds],
        routes=route_counts(data.ads), jobs=_job_rows(stories, data)[:TABLE_MAX],
        total_jobs=len(stories), table_max=TABLE_MAX, detail_max=DETAIL_MAX,
        job_gantt_max=JOB_GANTT_MAX, unknown_jobs=unknown, problems=data.problems,
        flow_jobs=list(drawn), state_colours=STATE_COLOUR)
    out.write_text(html, encoding="utf-8")
    return ReportSummary(out, out.stat().st_size, len(stories), len(slots), list(drawn))


def _template() -> Any:
    env = Environment(loader=PackageLoader("condorsim.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                      lstrip_blocks=True)
    return env.get_template("report.html.j2")


def _run_facts(data: RunData, stories: list[JobStory], slots: list[str],
               cycles: list[Any]) -> dict[str, Any]:
    run = (data.result or {}).get("run") or {}
    sites = {r.place for s in stories for r in s.runs if r.grid}
    left = run.get("jobs_left") or []
    return {
        "dir": str(data.run_dir), "tz": data.tz, "file": (data.result or {}).get("file"),
        "description": run.get("description") or "",
        "start": clock(data.start, data.tz), "end": clock(data.end, data.tz),
        "length": duration(data.end - data.start), "jobs": len(stories), "slots": len(slots),
        "sites": len(sites), "cycles": len(cycles),
        "matches": sum(c.matches for c in cycles),
        "finish": _finish(run), "stopped_at_max": bool(run.get("stopped_at_max")),
        "max": duration(float(run["max"])) if isinstance(run.get("max"), int | float) else "",
        "jobs_left": left,
    }


def _finish(run: dict[str, Any]) -> str:
    """Why the run stopped, in words (empty when no result file tells)."""
    if run.get("stopped_at_max"):
        return "at its max, jobs left"
    if run.get("until") == "quiet":
        return "the queue emptied"
    if isinstance(run.get("until"), int | float):
        return f"after until ({duration(float(run['until']))})"
    return ""


def _flow_label(story: JobStory, data: RunData) -> str:
    kinds = [k for k in ("waiting", "held", "suspended") if any(s.state == k for s in
                                                                 story.spans)]
    kinds += sorted({m.kind for m in story.marks} - {"completed", "released"})
    words = {"waiting": "deferral wait"}
    extra = ", ".join(words.get(k, k) for k in kinds)
    return f"{story.job}  {story.owner}  {_status(story, data)}" + (f"  ({extra})" if extra
                                                                      else "")


def _flow_summary(story: JobStory, data: RunData) -> str:
    return f"Job {story.job} of {story.owner}, {_status(story, data).lower()} at the end:"


def _status(story: JobStory, data: RunData) -> str:
    status = data.value(story.job, "JobStatus")
    if isinstance(status, int) and status in JOB_STATUS:
        return JOB_STATUS[status]
    return {"waiting": "Running", "site_queued": "Idle"}.get(story.final,
                                                              story.final.capitalize())


def _events_summary(types: list[str]) -> str:
    """The event names in order, IMAGE_SIZE left out, repeats in a row counted."""
    out: list[list[Any]] = []
    for t in types:
        if t == "IMAGE_SIZE":
            continue
        if out and out[-1][0] == t:
            out[-1][1] += 1
        else:
            out.append([t, 1])
    return ", ".join(t if n == 1 else f"{t} ×{n}" for t, n in out)


def _job_rows(stories: list[JobStory], data: RunData) -> list[dict[str, Any]]:
    rows = []
    one_day = clock(data.start, data.tz)[:10] == clock(data.end, data.tz)[:10]

    def when(t: float) -> str:  # the time alone while the whole run is one day
        return clock(t, data.tz, date=not one_day)

    for i, story in enumerate(stories):
        events = data.events.get(story.job, [])
        ad = data.ads.get(story.job, {})
        universe = data.value(story.job, "JobUniverse")
        exit_code = data.value(story.job, "ExitCode")
        starts = [r.start for r in story.runs]
        end = next((s.start for s in story.spans if s.state in ("completed", "removed")), None)
        rows.append({
            "job": story.job, "owner": story.owner, "status": _status(story, data),
            "state": story.final,
            "universe": UNIVERSE.get(universe, str(universe or "")),
            "where": next((r.place for r in reversed(story.runs) if r.place), ""),
            "submitted": when(story.submitted),
            "started": when(starts[0]) if starts else "",
            "ended": when(end) if end is not None else "",
            "runs": len(story.runs),
            "exit": "" if exit_code is None else str(exit_code),
            "hold": str(data.value(story.job, "HoldReason") or ""),
            "route": str(data.value(story.job, "RouteName") or ""),
            "events": _events_summary([e.type for e in events]),
            "ad": sorted(ad.items(), key=lambda kv: kv[0].lower()) if i < DETAIL_MAX else None,
            "log": [(clock(e.timestamp, data.tz), e.type, _event_detail(e)) for e in events]
            if i < DETAIL_MAX else None,
        })
    return rows


def _event_detail(event: Any) -> str:
    fields = event.fields
    for name in ("SlotName", "HoldReason", "Reason", "GridResource"):
        if fields.get(name):
            return f"{name}: {fields[name]}"
    if "ReturnValue" in fields:
        return f"return value {fields['ReturnValue']}"
    return ""
