"""``condorsim report``: one self-contained HTML page that shows a whole run at a glance.

A Gantt chart of every job over the slots and grid sites, each job's life, jobs by status
and slots by state over time with the negotiation cycles, one job's ClassAd flow as a
sequence diagram, the scenario's expectations, the routes, and every job's final ad and
user-log events. docs/report.md describes the page and what it aggregates at scale.
"""

from .page import ReportSummary, build_report
from .rundata import ReportError

__all__ = ["ReportError", "ReportSummary", "build_report"]
