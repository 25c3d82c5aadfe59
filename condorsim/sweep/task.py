"""One variant, as one Dask task runs it: an ordinary replay in a run directory of its own,
then its figures (and its report) from what the run left on disk.

How this works
--------------
:func:`run_variant` is a plain function of a :class:`VariantJob` (plain data: the
variant's scenario text and where its directory is), so any Dask worker that has
condorsim installed and sees the output directory can run it. It replays the scenario
with ``condorsim.replay.replay(keep=...)`` -- nothing in the replay knows who called it --
reads the figures from the kept run (:func:`.metrics.run_metrics`), writes the run's
report (``condorsim report``'s page) when asked, and writes the row to ``row.json`` in the
variant's directory last: a directory with a ``row.json`` of the same ``key`` is a variant
done, which ``--resume`` skips. A replay that cannot run raises :class:`VariantFailed`.

Directory of a variant: ``scenario.toml`` (written by the sweep before the task runs),
``run/`` (the kept run, with ``report.html``), ``row.json``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ROW_FILE", "RUN_DIR", "SCENARIO_FILE", "VariantFailed", "VariantJob",
           "read_row", "run_variant"]

SCENARIO_FILE = "scenario.toml"
RUN_DIR = "run"
ROW_FILE = "row.json"
REPORT_FILE = "report.html"


class VariantFailed(Exception):
    """The variant's replay did not run (its pool did not start, say)."""


@dataclass(frozen=True)
class VariantJob:
    """What a worker needs to run one variant: all plain data."""

    key: str
    directory: str
    text: str
    base_dir: str
    slots: int
    metrics: tuple[str, ...]
    per_owner: bool = True
    report: bool = True
    settings: dict[str, Any] = field(default_factory=dict)


def run_variant(job: VariantJob) -> dict[str, Any]:
    """Replay one variant and return its row (settings, counts, figures, how it went)."""
    from condorsim.replay.runner import replay
    from condorsim.scenario import parse_scenario

    from .metrics import run_metrics

    directory = Path(job.directory)
    scenario = parse_scenario(job.text, source=str(directory / SCENARIO_FILE),
                              base_dir=Path(job.base_dir))
    run_dir = directory / RUN_DIR
    began = time.perf_counter()
    outcome = replay(scenario, keep=run_dir)
    wall = time.perf_counter() - began
    unstarted = [r for r in outcome.results if r.entry == "pool" and not r.ok]
    if unstarted:
        raise VariantFailed(unstarted[0].line)
    row: dict[str, Any] = {
        **job.settings, "variant": directory.name, "status": "ok", "error": "",
        "passed": sum(r.ok for r in outcome.results),
        "failed": sum(not r.ok for r in outcome.results),
        **run_metrics(run_dir, job.slots, job.metrics, job.per_owner),
        "wall_seconds": round(wall, 3),
    }
    row["report"] = _report(run_dir) if job.report else ""
    (directory / ROW_FILE).write_text(json.dumps({"key": job.key, "row": row}, indent=1) + "\n",
                                      encoding="utf-8")
    return row


def _report(run_dir: Path) -> str:
    """The run's report page, relative to the variant's directory ('' when it fails: the
    variant's figures do not depend on it)."""
    from condorsim.report import ReportError, build_report

    try:
        build_report(run_dir, run_dir / REPORT_FILE)
    except (ReportError, OSError):
        return ""
    return f"{RUN_DIR}/{REPORT_FILE}"


def read_row(directory: Path, key: str) -> dict[str, Any] | None:
    """The row of a variant done earlier in ``directory`` with this ``key``, or None."""
    try:
        data = json.loads((directory / ROW_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("row"),
                                                                              dict):
        return None
    row: dict[str, Any] = data["row"]
    return row
