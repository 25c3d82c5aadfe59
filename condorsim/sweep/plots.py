"""The sweep's charts: each metric against each axis (bokeh, as the run report).

How this works
--------------
:func:`metric_figures` draws one small chart per (metric, axis). The variants that ran
are points: x the axis's value, y the metric. They are grouped by the values of the
*other* axes, replicate axes left out (an axis of ``[scenario] seed`` repeats a variant,
it does not change it): each group is one colour, with a line through its mean at each x.
With more than :data:`MAX_LINES` groups, one line (the mean over every variant) is
drawn and the points stay grey. A numeric axis is a numeric x axis; any other (strings,
booleans, values of mixed types) is categorical, in the order of the axis's values.
Hovering a point names the variant and its value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from bokeh.models import ColumnDataSource, FixedTicker, HoverTool, Range1d
from bokeh.palettes import Category10_10
from bokeh.plotting import figure

from ._model import Axis, Sweep

__all__ = ["MAX_LINES", "UNITS", "metric_figures"]

MAX_LINES: Final = 8
UNITS: Final = {
    "makespan": "simulated seconds", "wait_mean": "simulated seconds",
    "wait_p95": "simulated seconds", "turnaround_mean": "simulated seconds",
    "turnaround_p95": "simulated seconds", "throughput": "jobs per simulated hour",
    "utilization": "share of slot time", "routed_share": "share of jobs", "holds": "holds",
}
TOOLS: Final = "pan,wheel_zoom,box_zoom,reset,save"


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _value(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(value) else float(value)


def _axis_values(axis: Axis, rows: list[dict[str, Any]]) -> list[Any]:
    seen: list[Any] = list(axis.values or ())
    for row in rows:
        if row.get(axis.name) not in seen:
            seen.append(row.get(axis.name))
    return seen


def _padded(values: Sequence[float]) -> Range1d:
    """A range around ``values`` with a margin, so that no point sits on the frame."""
    low, high = min(values, default=0.0), max(values, default=1.0)
    margin = (high - low) * 0.08 or abs(high) * 0.1 or 1.0
    return Range1d(start=low - margin, end=high + margin)


def _groups(sweep: Sweep, axis: Axis, rows: list[dict[str, Any]]) -> list[tuple[str, list[
        dict[str, Any]]]]:
    others = [a for a in sweep.axes if a is not axis and
              not (a.target == "scenario" and a.field == "seed")]
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        label = " ".join(f"{a.name}={row.get(a.name)}" for a in others) or "all"
        groups.setdefault(label, []).append(row)
    if len(groups) > MAX_LINES:
        return [("mean of all", rows)]
    return list(groups.items())


def metric_figures(sweep: Sweep, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """metric -> axis name -> figure, for the metrics that have a value somewhere; ``rows``
    are the variants that ran (their rows as :func:`.task.run_variant` returns them)."""
    done = [r for r in rows if r.get("status") == "ok"]
    charts: dict[str, dict[str, Any]] = {}
    for metric in sweep.metrics:
        if not any(_value(r.get(metric)) is not None for r in done):
            continue
        charts[metric] = {axis.name: _figure(sweep, axis, metric, done) for axis in sweep.axes}
    return charts


def _figure(sweep: Sweep, axis: Axis, metric: str, rows: list[dict[str, Any]]) -> Any:
    values = _axis_values(axis, rows)
    numeric = _numeric(values)
    factors = [str(v) for v in values]
    ranges: dict[str, Any] = {} if numeric else {"x_range": factors}
    p: Any = figure(width=400, height=270, tools=TOOLS, toolbar_location="above",
               title=f"{metric} against {axis.name}", x_axis_label=axis.name,
               y_axis_label=UNITS.get(metric, metric), **ranges)
    p.toolbar.logo = None
    p.title.text_font_size = "13px"
    if numeric and len(values) <= 12:
        p.xaxis.ticker = FixedTicker(ticks=[float(v) for v in values])
    groups = _groups(sweep, axis, rows)
    single = len(groups) == 1
    for i, (label, members) in enumerate(groups):
        colour = "#2f7ed8" if single else Category10_10[i % 10]

        def x_of(v: Any) -> Any:
            return v if numeric else str(v)

        points = [(x_of(r.get(axis.name)), y, r) for r in members
                  if (y := _value(r.get(metric))) is not None]
        source = ColumnDataSource({
            "x": [x for x, _, _ in points], "y": [y for _, y, _ in points],
            "variant": [str(r.get("variant", "")) for _, _, r in points],
            "group": [label] * len(points)})
        dots = p.scatter("x", "y", source=source, size=7, alpha=0.55,
                         color="#8a99a8" if single and len(rows) > 40 else colour)
        p.add_tools(HoverTool(renderers=[dots], tooltips=[
            ("variant", "@variant"), (axis.name, "@x"), (metric, "@y{0.[000]}"),
            ("group", "@group")]))
        means: list[tuple[Any, float]] = []
        for v in values:
            ys = [y for x, y, _ in points if x == x_of(v)]
            if ys:
                means.append((x_of(v), sum(ys) / len(ys)))
        if means:
            line = p.line([x for x, _ in means], [y for _, y in means], color=colour,
                          line_width=2, legend_label=label if not single else "mean")
            line.level = "underlay"
    if p.legend:
        legend = p.legend[0]
        legend.label_text_font_size = "10px"
        legend.click_policy = "hide"
        legend.border_line_alpha = 0
        legend.padding = legend.margin = 2
        legend.spacing = 0
        p.add_layout(legend, "below")
        p.height += 18 * len(groups)
    ys = [y for r in rows if (y := _value(r.get(metric))) is not None]
    p.y_range = _padded(ys)
    if numeric:
        p.x_range = _padded([float(v) for v in values])
    return p
