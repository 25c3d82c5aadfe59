"""The charts over time: jobs by status, slots by state, the negotiation cycles.

How this works
--------------
Every chart over time shares one x range (:func:`time_range`): zooming or panning one
moves them all. A :class:`.series.StepSeries` is drawn as stacked areas with vertical
steps (each change time repeated, so a count holds until the next change); its hover
gives the counts at the step. Negotiation cycles are a strip of ticks, one per cycle,
as tall as the matches it made (a short grey tick: none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bokeh.models import (
    BasicTicker,
    ColumnDataSource,
    CompositeTicker,
    DataRange1d,
    DatetimeTickFormatter,
    HoverTool,
    Range1d,
    SingleIntervalTicker,
)
from bokeh.plotting import figure

from .palette import SLOT_COLOUR, STATUS_COLOUR, STATUS_LABEL, chart_ms, clock, colour_of
from .series import Cycle, StepSeries

TOOLS = "xpan,xwheel_zoom,xbox_zoom,reset,save"
# tick spacings a clock reads well: seconds, minutes, hours, days (in milliseconds)
_NICE_MS = [n * 1000 for n in (1, 2, 5, 10, 15, 30)] + \
    [n * 60_000 for n in (1, 2, 5, 10, 15, 30)] + \
    [n * 3_600_000 for n in (1, 2, 3, 6, 12)] + [n * 86_400_000 for n in (1, 2, 7, 14, 28)]


def time_range(start: float, end: float, tz: str) -> Range1d:
    """The x range every chart over time shares: the run, from start to end."""
    a, b = chart_ms(start, tz), chart_ms(end, tz)
    pad = (b - a) * 0.01
    return Range1d(start=a - pad, end=b + pad, bounds=(a - pad, b + pad))


def time_axis(p: Any) -> None:
    """A datetime x axis that reads as the run's wall clock (date under the first tick)."""
    p.xaxis.formatter = DatetimeTickFormatter(
        seconds="%H:%M:%S", minsec="%H:%M:%S", minutes="%H:%M", hourmin="%H:%M",
        hours="%H:%M", days="%a %d %b", months="%b %Y", years="%Y",
        context=DatetimeTickFormatter(seconds="%a %d %b %Y", minsec="%a %d %b %Y",
                                      minutes="%a %d %b %Y", hourmin="%a %d %b %Y",
                                      hours="%a %d %b %Y", days="%Y", months="", years=""),
        context_which="start")
    p.xaxis.ticker = CompositeTicker(
        tickers=[SingleIntervalTicker(interval=ms, num_minor_ticks=0) for ms in _NICE_MS],
        desired_num_ticks=10)
    p.toolbar.logo = None
    p.title.text_font_size = "13px"


def _stacked(series: StepSeries, end: float, tz: str, colours: dict[str, str],
             labels: dict[str, str]) -> tuple[ColumnDataSource, list[str], list[str], list[str]]:
    categories = list(series.counts)
    xs: list[float] = []
    cols: dict[str, list[Any]] = {c: [] for c in categories}
    when: list[str] = []
    for i, t in enumerate(series.times):
        following = series.times[i + 1] if i + 1 < len(series.times) else end
        for x in (t, following):
            xs.append(chart_ms(x, tz))
            when.append(clock(t, tz))
            for c in categories:
                cols[c].append(series.counts[c][i])
    data: dict[str, list[Any]] = {"x": xs, "when": when, **{f"c_{c}": v for c, v in cols.items()}}
    names = [f"c_{c}" for c in categories]
    colour_list = [colour_of(c, colours, i) for i, c in enumerate(categories)]
    label_list = [labels.get(c, c) for c in categories]
    return ColumnDataSource(data), names, colour_list, label_list


def stacked_chart(title: str, series: StepSeries, end: float, tz: str, x_range: Range1d,
                  colours: dict[str, str], labels: dict[str, str], unit: str) -> Any:
    """Stacked step areas of ``series`` (jobs by status, slots by state)."""
    p = figure(title=title, x_range=x_range, y_range=DataRange1d(start=0), height=260,
               sizing_mode="stretch_width", tools=TOOLS, toolbar_location="above",
               y_axis_label=unit)
    time_axis(p)
    p.outline_line_color = None
    if not series.times:
        return p
    source, names, colour_list, label_list = _stacked(series, end, tz, colours, labels)
    p.varea_stack(stackers=names, x="x", color=colour_list, source=source,
                          legend_label=label_list, fill_alpha=0.9)
    lines = p.vline_stack(stackers=names, x="x", color="white", line_width=0.6, source=source)
    tooltips = [("at", "@when"), *[(lab, f"@{n}") for lab, n in zip(label_list, names,
                                                                     strict=True)][::-1]]
    p.add_tools(HoverTool(renderers=[lines[-1]], tooltips=tooltips, mode="vline",
                          line_policy="nearest"))
    p.yaxis.ticker = BasicTicker(min_interval=1, num_minor_ticks=0)  # counts: whole numbers
    p.legend.orientation = "horizontal"
    p.legend.label_text_font_size = "11px"
    p.legend.location = "top_left"
    p.legend.border_line_alpha = 0
    p.add_layout(p.legend[0], "below")
    return p


def jobs_chart(series: StepSeries, end: float, tz: str, x_range: Range1d) -> Any:
    return stacked_chart("Jobs by status", series, end, tz, x_range, STATUS_COLOUR,
                         STATUS_LABEL, "jobs")


def slots_chart(series: StepSeries, end: float, tz: str, x_range: Range1d) -> Any:
    return stacked_chart("Slots by state", series, end, tz, x_range, SLOT_COLOUR, {}, "slots")


def cycles_chart(cycles: Sequence[Cycle], tz: str, x_range: Range1d) -> Any:
    """One tick per negotiation cycle, as tall as its matches."""
    p = figure(title="Negotiation cycles (matches per cycle)", x_range=x_range,
               y_range=DataRange1d(start=0), height=150,
               sizing_mode="stretch_width", tools=TOOLS, toolbar_location="above",
               y_axis_label="matches")
    time_axis(p)
    p.outline_line_color = None
    xs = [chart_ms(c.t, tz) for c in cycles]
    tops = [c.matches if c.matches else 0.15 for c in cycles]
    source = ColumnDataSource({
        "x": xs, "top": tops, "zero": [0] * len(xs), "n": [c.number for c in cycles],
        "matches": [c.matches for c in cycles], "slots": [c.slots for c in cycles],
        "submitters": [c.submitters for c in cycles], "when": [clock(c.t, tz) for c in cycles],
        "colour": ["#2f7ed8" if c.matches else "#c3cad3" for c in cycles],
        "size": [6 if c.matches else 3 for c in cycles]})
    p.yaxis.ticker = BasicTicker(min_interval=1, num_minor_ticks=0)
    p.segment(x0="x", y0="zero", x1="x", y1="top", color="colour", line_width=2, source=source)
    dots = p.scatter(x="x", y="top", size="size", color="colour", source=source)
    p.add_tools(HoverTool(renderers=[dots], tooltips=[
        ("cycle", "@n at @when"), ("matches", "@matches"), ("slots", "@slots"),
        ("submitters", "@submitters")]))
    return p
