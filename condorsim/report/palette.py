"""The report's colours, markers and words, shared by every chart and table, and the
simulated clock as the charts show it (in the run's time zone)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

STATE_LABEL = {
    "idle": "Idle",
    "site_queued": "Idle, queued at a grid site",
    "waiting": "Running, not yet executing (deferral wait)",
    "running": "Running, executing",
    "suspended": "Suspended",
    "held": "Held",
    "completed": "Completed",
    "removed": "Removed",
}
STATE_COLOUR = {
    "idle": "#cdd6e0",
    "site_queued": "#c7b5e8",
    "waiting": "#f2b447",
    "running": "#2f7ed8",
    "suspended": "#8e7cc3",
    "held": "#d9534f",
    "completed": "#4cae4c",
    "removed": "#7f8c8d",
}
STATE_HATCH = {"waiting": "/", "site_queued": "/"}

STATUS_LABEL = {"idle": "Idle", "running": "Running", "suspended": "Suspended",
                "held": "Held", "completed": "Completed", "removed": "Removed"}
STATUS_COLOUR = {"idle": "#a9b8c9", "running": "#2f7ed8", "suspended": "#8e7cc3",
                 "held": "#d9534f", "completed": "#4cae4c", "removed": "#7f8c8d"}

SLOT_COLOUR = {"Claimed/Busy": "#2f7ed8", "Claimed/Suspended": "#8e7cc3",
               "Claimed/Idle": "#93c2ef", "Matched": "#f2b447", "Preempting": "#e67e22",
               "Unclaimed": "#d5dde6", "Owner": "#aab4bf", "Drained": "#5d6d7e",
               "Backfill": "#a3d9a5"}
OTHER_COLOURS = ("#16a085", "#b5651d", "#6c3483", "#1f618d", "#7d6608")

# what befell a job: (bokeh marker, colour, words, the symbol the page's legend shows)
MARK_STYLE = {
    "completed": ("circle", "#2e7d32", "completed", "●"),
    "requeued": ("triangle", "#e67e22", "exited and requeued (stays in the queue)", "▲"),
    "evicted": ("inverted_triangle", "#e67e22", "evicted: back to idle", "▼"),
    "held": ("square", "#b71c1c", "held", "■"),
    "released": ("diamond", "#16a085", "released", "◆"),
    "removed": ("x", "#263238", "removed", "✕"),
    "shadow exception": ("asterisk", "#6c3483", "shadow exception", "✱"),
}


def colour_of(category: str, table: dict[str, str], index: int) -> str:
    return table.get(category) or OTHER_COLOURS[index % len(OTHER_COLOURS)]


@lru_cache(maxsize=8)
def _zone(tz: str) -> ZoneInfo:
    return ZoneInfo(tz)


def chart_ms(t: float, tz: str) -> float:
    """Simulated epoch seconds as a chart's datetime axis shows them: milliseconds of the
    wall-clock time in ``tz`` (the axis formats them as if in UTC)."""
    offset = datetime.fromtimestamp(t, _zone(tz)).utcoffset()
    return (t + (offset.total_seconds() if offset is not None else 0.0)) * 1000.0


def clock(t: float, tz: str, *, date: bool = True) -> str:
    """``2026-01-05 09:15:00`` (or ``09:15:00``) in ``tz``."""
    moment = datetime.fromtimestamp(int(t), _zone(tz))
    return moment.strftime("%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S")


def duration(seconds: float) -> str:
    """``1h 05m``, ``9m 40s``, ``30s``."""
    s = round(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d {hours}h {minutes:02d}m"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {s:02d}s" if minutes else f"{s}s"
