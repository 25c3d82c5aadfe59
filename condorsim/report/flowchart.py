"""A job's ClassAd flow as a sequence diagram, drawn with bokeh; a menu picks the job.

How this works
--------------
The same facts as ``condorsim trace JOB --mermaid`` (:mod:`condorsim.replay.jobflow`):
one lifeline per daemon -- the submit side (the replay or a tool, the schedd, the
shadow), the central manager (negotiator, collector), the execute side (startd,
starter), the history files last -- and one arrow per message, top to bottom in the
order sent, labelled with its command; the simulated time is written in the left margin
each time it changes; a dashed grey arrow is a tool's request known only from its
reply. Hovering an arrow lists the attributes the message carried.

Every job's drawing is prepared here as plain columns (:func:`flow_columns`); the page
holds them all and a ``Select`` swaps them into the one figure (a few lines of
``CustomJS``), resizing it to the flow's length.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import pi
from typing import Any

from bokeh.layouts import column
from bokeh.models import ColumnDataSource, CustomJS, HoverTool, Range1d
from bokeh.models.widgets import Div, Select
from bokeh.plotting import figure

from .flows import FLOW_ROWS_MAX
from .palette import clock

ORDER = ("tool", "replay", "schedd", "shadow", "job_router", "gridmanager", "negotiator",
         "collector", "startd", "starter", "master", "history")
ROW_PX = 22
ATTRS_SHOWN = 12


def _rank(name: str) -> tuple[int, str]:
    base = name.split("@", 1)[0]
    return (ORDER.index(base) if base in ORDER else len(ORDER) - 1, name)


def flow_columns(job: str, flow: Sequence[Mapping[str, Any]], tz: str,
                 summary: str = "") -> dict[str, Any]:
    """What the figure draws for one job (the sources' columns and its size)."""
    shown = list(flow[:FLOW_ROWS_MAX])
    parts = sorted({str(r[k]) for r in shown for k in ("from", "to")}, key=_rank)
    x = {name: float(i) for i, name in enumerate(parts)}
    msgs: dict[str, list[Any]] = {k: [] for k in (
        "x0", "x1", "y", "mid", "width", "cmd", "when", "route", "attrs", "colour", "angle")}
    times: dict[str, list[Any]] = {"y": [], "text": []}
    last_day = last_time = ""
    for i, r in enumerate(shown):
        a, b = x[str(r["from"])], x[str(r["to"])]
        stamp = clock(float(r["t"]), tz)
        day, hms = stamp.split(" ")
        if stamp != last_time:
            times["y"].append(float(i))
            times["text"].append(hms if day == last_day else stamp)
            last_day, last_time = day, stamp
        attrs = [str(n) for n in r.get("attrs") or []]
        inferred = bool(r.get("inferred"))
        msgs["x0"].append(a)
        msgs["x1"].append(b if b != a else a + 0.3)
        msgs["y"].append(float(i))
        msgs["mid"].append((a + b) / 2 if b != a else a + 0.15)
        msgs["width"].append(max(abs(b - a), 0.3))
        msgs["cmd"].append(str(r["cmd"]))
        msgs["when"].append(stamp)
        msgs["route"].append(f"{r['from']} → {r['to']}")
        msgs["attrs"].append("(a tool's request: not traced, known from its reply)" if inferred
                             else _attrs_text(attrs))
        msgs["colour"].append("#9aa5b1" if inferred else
                              "#2e7d32" if r["cmd"] == "HISTORY" else "#1f3b57")
        msgs["angle"].append(-pi / 2 if b >= a else pi / 2)
    rows = len(shown)
    note = f"{summary} {len(flow)} messages" + \
        (f" (the first {FLOW_ROWS_MAX} drawn)" if len(flow) > FLOW_ROWS_MAX else "")
    return {
        "heads": {"x": [x[p] for p in parts], "name": parts, "y": [-1.0] * len(parts)},
        "life": {"x": [x[p] for p in parts], "y0": [-0.6] * len(parts),
                 "y1": [rows - 0.4] * len(parts)},
        "msgs": msgs, "times": times, "nparts": len(parts), "nrows": rows,
        "height": 90 + ROW_PX * (rows + 1), "note": note.strip(),
    }


def _attrs_text(attrs: list[str]) -> str:
    if not attrs:
        return "(none)"
    shown = ", ".join(attrs[:ATTRS_SHOWN])
    return shown if len(attrs) <= ATTRS_SHOWN else f"{shown} (+{len(attrs) - ATTRS_SHOWN} more)"


_SWAP = """
const f = flows[select.value];
heads.data = f.heads; life.data = f.life; msgs.data = f.msgs; times.data = f.times;
xr.start = -1.6; xr.end = f.nparts - 0.4;
yr.start = f.nrows + 0.2; yr.end = -1.6;
plot.height = f.height;
note.text = f.note;
"""


def flow_chart(flows: Mapping[str, dict[str, Any]], labels: Mapping[str, str]) -> Any:
    """The diagram of the first job of ``flows`` and a menu of them all (``labels``: the
    menu's words for each job)."""
    first = next(iter(flows))
    f = flows[first]
    heads, life = ColumnDataSource(f["heads"]), ColumnDataSource(f["life"])
    msgs, times = ColumnDataSource(f["msgs"]), ColumnDataSource(f["times"])
    xr = Range1d(start=-1.6, end=f["nparts"] - 0.4)
    yr = Range1d(start=f["nrows"] + 0.2, end=-1.6)
    p = figure(x_range=xr, y_range=yr, height=f["height"], sizing_mode="stretch_width",
               tools="ypan,ywheel_zoom,reset,save", toolbar_location="above")
    p.toolbar.logo = None
    p.axis.visible = False
    p.grid.visible = False
    p.outline_line_color = None
    p.segment(x0="x", y0="y0", x1="x", y1="y1", source=life, line_color="#b8c4d0",
              line_dash="dashed", line_width=1)
    p.rect(x="x", y="y", width=0.86, height=0.62, source=heads, fill_color="#eef3f8",
           line_color="#5b7590")
    p.text(x="x", y="y", text="name", source=heads, text_align="center",
           text_baseline="middle", text_font_size="11px", text_font_style="bold",
           text_color="#1f3b57")
    p.segment(x0="x0", y0="y", x1="x1", y1="y", source=msgs, line_color="colour",
              line_width=1.4)
    p.scatter(x="x1", y="y", source=msgs, marker="triangle", angle="angle", size=7,
              fill_color="colour", line_color="colour")
    p.text(x="mid", y="y", text="cmd", source=msgs, text_align="center",
           text_baseline="bottom", y_offset=-2, text_font_size="10px", text_color="#1b2631")
    p.text(x=-1.55, y="y", text="text", source=times, text_baseline="middle",
           text_font_size="10px", text_color="#566573")
    hits = p.rect(x="mid", y="y", width="width", height=0.9, source=msgs, fill_alpha=0,
                  line_alpha=0)
    p.add_tools(HoverTool(renderers=[hits], tooltips=[
        ("", "@when  @route"), ("command", "@cmd"), ("attributes", "@attrs")]))
    options: list[str | tuple[Any, str]] = [(j, labels.get(j, j)) for j in flows]
    select = Select(title="Job", value=first, options=options,
                    width=420)
    note = Div(text=f["note"], styles={"color": "#566573", "font-size": "12px"})
    select.js_on_change("value", CustomJS(
        args={"flows": dict(flows), "select": select, "heads": heads, "life": life,
              "msgs": msgs, "times": times, "xr": xr, "yr": yr, "plot": p, "note": note},
        code=_SWAP))
    return column(select, note, p, sizing_mode="stretch_width")
