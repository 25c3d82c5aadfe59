"""What a sweep leaves in its output directory: the results as a table (CSV and Parquet,
one row per variant), each metric plotted against each axis, and ``index.html``.

How this works
--------------
:func:`results_frame` puts the rows in a pandas DataFrame with a fixed column order:
``variant``, the axes, ``status``, ``error``, the expectations ``passed`` and ``failed``,
the counts, the metrics, the metrics per owner (``wait_mean[alice]``), ``wall_seconds``,
``report`` and ``dir`` (paths relative to the output directory). An axis whose values
are of several types (``until``: ``"quiet"`` and ``3600``) is written as text, so the
Parquet column has one type. :func:`write_outputs` writes ``results.csv``,
``results.parquet`` and ``index.html``: the sweep's header, its axes, the variants that
failed and why, the charts (:mod:`.plots`, BokehJS inlined as in the run report: the
page opens from disk with no network) and a table of every variant with a link to its
own report, scenario and run directory.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ._model import Sweep
from .metrics import COUNTS
from .runner import VARIANTS

__all__ = ["CSV_FILE", "INDEX_FILE", "PARQUET_FILE", "results_frame", "write_outputs"]

CSV_FILE = "results.csv"
PARQUET_FILE = "results.parquet"
INDEX_FILE = "index.html"


def _columns(sweep: Sweep, rows: list[dict[str, Any]]) -> list[str]:
    owners = [c for r in rows for c in r if "[" in c and c.split("[")[0] in sweep.metrics]
    per_owner = sorted(set(owners), key=lambda c: (sweep.metrics.index(c.split("[")[0]), c))
    return ["variant", *(a.name for a in sweep.axes), "status", "error", "passed", "failed",
            *COUNTS, *sweep.metrics, *per_owner, "wall_seconds", "report", "dir"]


def results_frame(sweep: Sweep, rows: list[dict[str, Any]]) -> Any:
    """The rows as a DataFrame (see the module's docstring)."""
    import pandas as pd

    table = []
    for row in rows:
        directory = f"{VARIANTS}/{row['variant']}"
        report = row.get("report") or ""
        table.append({**row, "dir": directory,
                      "report": f"{directory}/{report}" if report else ""})
    frame = pd.DataFrame(table, columns=_columns(sweep, rows))
    for axis in sweep.axes:
        kinds = {type(v) for v in frame[axis.name].dropna()}
        if len(kinds) > 1 and not kinds <= {int, float}:
            frame[axis.name] = frame[axis.name].map(lambda v: "" if v is None else str(v))
    for name in ("error", "report", "status"):
        frame[name] = frame[name].fillna("")
    return frame


def write_outputs(sweep: Sweep, out: Path, rows: list[dict[str, Any]]) -> Any:
    """Write results.csv, results.parquet and index.html into ``out``; the frame."""
    frame = results_frame(sweep, rows)
    frame.to_csv(out / CSV_FILE, index=False)
    frame.to_parquet(out / PARQUET_FILE, engine="pyarrow", index=False)
    (out / INDEX_FILE).write_text(_index(sweep, rows, frame), encoding="utf-8")
    return frame


def _index(sweep: Sweep, rows: list[dict[str, Any]], frame: Any) -> str:
    from bokeh.embed import components
    from jinja2 import Environment, PackageLoader, select_autoescape

    from condorsim.report.page import RESOURCES

    from .plots import metric_figures

    charts = metric_figures(sweep, rows)
    flat = {f"{m}|{a}": fig for m, figs in charts.items() for a, fig in figs.items()}
    script, divs = components(flat) if flat else ("", {})
    env = Environment(loader=PackageLoader("condorsim.sweep", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                      lstrip_blocks=True)
    records = frame.to_dict("records")
    return env.get_template("index.html.j2").render(
        sweep=sweep, axes=sweep.axes, base=sweep.scenario_path, resources=RESOURCES.render_js(),
        script=script, charts=[(m, [(a.name, divs[f"{m}|{a.name}"]) for a in sweep.axes])
                               for m in charts],
        missing=[m for m in sweep.metrics if m not in charts], metrics=sweep.metrics,
        rows=records, failed=[r for r in records if r["status"] == "failed"],
        done=sum(r["status"] == "ok" for r in records), total=len(sweep.variants),
        fmt=_fmt, csv=CSV_FILE, parquet=PARQUET_FILE)


def _fmt(value: Any) -> str:
    """A figure as the table shows it: whole numbers plain, others to 3 significant
    digits; missing as a dash."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if math.isnan(value):
        return "–"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
