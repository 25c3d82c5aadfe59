"""The Gantt charts: every run over the slots and grid sites, and each job's whole life.

How this works
--------------
:func:`slot_gantt` draws one row per slot (every slot the startd reported, in natural
order), then one per grid site and per other place a job ran (the schedd, for the local
universe); each run of a job is a bar on its row, cut into its states (waiting for its
deferral time hatched in amber, executing in blue, suspended in violet) and ended by a
mark of what became of the job (completed, requeued, evicted, held, removed).
:func:`job_gantt` draws one row per job, from its submit to the end of the run: idle,
running, held ..., with the same marks, so a hold or a requeue of an idle job shows too.
Every bar's hover names the job, its owner, the state, the place and the times.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bokeh.models import ColumnDataSource, FactorRange, HoverTool, Range1d
from bokeh.plotting import figure

from .charts import time_axis
from .palette import MARK_STYLE, STATE_COLOUR, STATE_HATCH, STATE_LABEL, chart_ms, clock
from .series import natural_key
from .timeline import JobStory, Mark, Run, Span

LABELS_MAX = 80  # bars labelled with their job id when there are at most this many
COMPLETED_MARKS_MAX = 400  # above this many runs, a completion is the bar's end alone
_OUTCOME_WORDS = {"completed": "completed", "requeued": "exited, requeued",
                  "evicted": "evicted, back to idle", "held": "held", "removed": "removed",
                  "shadow exception": "shadow exception", "": "still there at the end",
                  "resubmitted": "resubmitted"}


def slot_rows(stories: Iterable[JobStory], slots: Sequence[str]) -> tuple[list[str],
                                                                         dict[int, str]]:
    """The rows -- the slots, then the other places runs were at (sites, the schedd,
    unknown) -- and each run's row (by ``id(run)``). A place that holds several runs at
    once (a grid site with several slots, the schedd's local universe) gets a row per
    lane: ``site: batch slurm · 1``, ``· 2`` ...; a run takes the first lane free."""
    by_place: dict[str, list[Run]] = {}
    for story in stories:
        for run in story.runs:
            by_place.setdefault(run.place or "(slot not known)", []).append(run)
    lanes_of: dict[str, list[list[Run]]] = {}
    for place, runs in by_place.items():
        lanes: list[list[Run]] = []
        for run in sorted(runs, key=lambda r: (r.start, r.end)):
            lane = next((ln for ln in lanes if ln[-1].end <= run.start), None)
            if lane is None:
                lanes.append([run])
            else:
                lane.append(run)
        lanes_of[place] = lanes
    others = sorted(set(by_place) - set(slots), key=lambda p: (p.startswith("("), natural_key(p)))
    rows: list[str] = []
    row_of: dict[int, str] = {}
    for place in [*slots, *others]:
        lanes = lanes_of.get(place, [[]])
        names = [place] if len(lanes) == 1 else [f"{place} · {i}" for i in
                                                 range(1, len(lanes) + 1)]
        rows += names
        for name, lane in zip(names, lanes, strict=True):
            row_of.update({id(run): name for run in lane})
    return rows, row_of


def _bars() -> dict[str, list[Any]]:
    return {k: [] for k in ("y", "left", "right", "colour", "hatch", "state", "job", "owner",
                            "place", "t0", "t1", "then", "label")}


def _add_bar(cols: dict[str, list[Any]], y: str, span: Span, story: JobStory, place: str,
             then: str, tz: str, *, label: bool = False) -> None:
    left, right = chart_ms(span.start, tz), chart_ms(span.end, tz)
    cols["y"].append(y)
    cols["left"].append(left)
    cols["right"].append(right)
    cols["label"].append(story.job if label else "")
    cols["colour"].append(STATE_COLOUR[span.state])
    cols["hatch"].append(STATE_HATCH.get(span.state, " "))
    cols["state"].append(STATE_LABEL[span.state])
    cols["job"].append(story.job)
    cols["owner"].append(story.owner)
    cols["place"].append(place)
    cols["t0"].append(clock(span.start, tz))
    cols["t1"].append(clock(span.end, tz))
    cols["then"].append(then)


def _marks_source(items: Iterable[tuple[str, Mark, JobStory]], tz: str) -> ColumnDataSource:
    cols: dict[str, list[Any]] = {k: [] for k in ("y", "x", "marker", "colour", "what", "job",
                                                  "owner", "t0", "detail")}
    for y, mark, story in items:
        marker, colour, words, _ = MARK_STYLE.get(mark.kind, ("circle", "#555", mark.kind, ""))
        cols["y"].append(y)
        cols["x"].append(chart_ms(mark.t, tz))
        cols["marker"].append(marker)
        cols["colour"].append(colour)
        cols["what"].append(words)
        cols["job"].append(story.job)
        cols["owner"].append(story.owner)
        cols["t0"].append(clock(mark.t, tz))
        cols["detail"].append(mark.detail or "-")
    return ColumnDataSource(cols)


def _gantt_figure(rows: list[str], x_range: Range1d, row_px: int) -> Any:
    height = max(150, 60 + len(rows) * row_px)
    p = figure(y_range=FactorRange(factors=list(reversed(rows))), x_range=x_range,
               height=height, sizing_mode="stretch_width",
               tools="xpan,xwheel_zoom,xbox_zoom,reset,save", toolbar_location="above")
    time_axis(p)
    p.ygrid.grid_line_color = None
    p.yaxis.major_label_text_font_size = "11px" if row_px >= 14 else "8px"
    p.outline_line_color = None
    return p


def _split(bars: dict[str, list[Any]]) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(plain bars, hatched bars): a hatch costs the browser much more to draw, so only
    the bars that need one get it."""
    hatched = [i for i, h in enumerate(bars["hatch"]) if h.strip()]
    chosen = set(hatched)
    plain = [i for i in range(len(bars["hatch"])) if i not in chosen]
    return ({k: [v[i] for i in plain] for k, v in bars.items()},
            {k: [v[i] for i in hatched] for k, v in bars.items()})


def _draw(p: Any, bars: dict[str, list[Any]], marks: ColumnDataSource, *,
          labels: bool, mark_px: int) -> None:
    plain, hatched = _split(bars)
    style = {"y": "y", "left": "left", "right": "right", "height": 0.72,
             "fill_color": "colour", "line_color": "white", "line_width": 0.5}
    renderers = [p.hbar(source=ColumnDataSource(plain), **style)]
    if hatched["y"]:
        renderers.append(p.hbar(source=ColumnDataSource(hatched), hatch_pattern="/",
                                hatch_color="#8a5a00", hatch_alpha=0.35, hatch_scale=8,
                                **style))
    p.add_tools(HoverTool(renderers=renderers, tooltips=[
        ("job", "@job (@owner)"), ("state", "@state"), ("on", "@place"),
        ("from", "@t0"), ("to", "@t1"), ("then", "@then")]))
    if labels:
        p.text(x="left", y="y", text="label", source=ColumnDataSource(bars), x_offset=9,
               text_font_size="10px", text_baseline="middle", text_color="#1b2631")
    if marks.data["x"]:
        dots = p.scatter(x="x", y="y", marker="marker", size=mark_px, source=marks,
                         fill_color="colour", line_color="white", line_width=1)
        p.add_tools(HoverTool(renderers=[dots], tooltips=[
            ("job", "@job (@owner)"), ("", "@what at @t0"), ("why", "@detail")]))


def slot_gantt(stories: Sequence[JobStory], slots: Sequence[str], tz: str,
               x_range: Range1d) -> Any:
    """Every run of every job on its slot (or site) over time."""
    rows, row_of = slot_rows(stories, slots)
    bars = _bars()
    marks: list[tuple[str, Mark, JobStory]] = []
    for story in stories:
        for run in story.runs:
            row = row_of[id(run)]
            then = _OUTCOME_WORDS.get(run.outcome, run.outcome)
            for i, span in enumerate(run.spans()):
                _add_bar(bars, row, span, story, run.place or "?", then, tz, label=i == 0)
            mark = next((m for m in story.marks if m.t == run.end and m.kind == run.outcome),
                        None)
            if mark is not None:
                marks.append((row, mark, story))
    if len(marks) > COMPLETED_MARKS_MAX:
        marks = [m for m in marks if m[1].kind != "completed"]
    row_px = max(8, min(26, 900 // max(len(rows), 1)))
    p = _gantt_figure(rows, x_range, row_px)
    _draw(p, bars, _marks_source(marks, tz), labels=len(bars["y"]) <= LABELS_MAX,
          mark_px=min(10, row_px))
    return p


def job_gantt(stories: Sequence[JobStory], tz: str, x_range: Range1d) -> Any:
    """Each job's life, one row per job: idle, running, held ... until it left."""
    rows = [s.job for s in stories]
    bars = _bars()
    marks: list[tuple[str, Mark, JobStory]] = []
    for story in stories:
        place_of = {(run.start, run.end): run.place for run in story.runs}
        for span in story.spans:
            if span.state in ("completed", "removed"):
                continue
            place = next((p for (a, b), p in place_of.items() if a <= span.start < b), "")
            _add_bar(bars, story.job, span, story, place or "-", "", tz)
        marks += [(story.job, m, story) for m in story.marks]
    row_px = max(10, min(24, 700 // max(len(rows), 1)))
    p = _gantt_figure(rows, x_range, row_px)
    _draw(p, bars, _marks_source(marks, tz), labels=False, mark_px=min(10, row_px))
    p.yaxis.axis_label = "job"
    return p
