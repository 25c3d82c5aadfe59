"""A job's story over time: the data the report draws, and how states are painted.

How this works
--------------
A job's life is a list of :class:`Span` (state, from, to) from its submit to the end of
the run, with no gap and no overlap, its :class:`Run` s (each stay on a slot, at a site or
at the schedd) and its :class:`Mark` s (what befell it). :func:`paint` makes the spans:
where several states cover a moment, the strongest wins (:data:`PRIORITY`: removed and
completed over held, held over suspended, over running, over waiting, over queued at a
grid site, over idle). :mod:`.stories` builds the stories from what a run kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

# job states, weakest first
PRIORITY: dict[str, int] = {"idle": 0, "site_queued": 1, "waiting": 2, "running": 3,
                            "suspended": 4, "held": 5, "completed": 6, "removed": 6}


@dataclass(frozen=True)
class Span:
    """The job was in ``state`` from ``start`` to ``end`` (simulated epoch seconds)."""

    state: str
    start: float
    end: float


@dataclass(frozen=True)
class Mark:
    """Something that befell the job at ``t``: completed, requeued, evicted, held,
    released, removed, shadow exception; ``detail`` says more (a hold reason ...)."""

    t: float
    kind: str
    detail: str = ""


@dataclass
class Run:
    """One stay of a job on a slot (``place``), at a site or at the schedd."""

    job: str
    place: str
    start: float
    end: float
    executing: float | None = None
    outcome: str = ""  # completed, requeued, evicted, held, removed, ... ("" still there)
    grid: bool = False
    suspended: list[tuple[float, float]] = field(default_factory=list)

    def spans(self) -> list[Span]:
        """The run's states on its slot: waiting, running, suspended."""
        first = "site_queued" if self.grid else "waiting"
        began = self.end if self.executing is None else min(max(self.executing, self.start),
                                                             self.end)
        intervals = [("running", began, self.end), (first, self.start, began)]
        intervals += [("suspended", a, min(b, self.end)) for a, b in self.suspended]
        return paint(intervals, self.start, self.end)


@dataclass
class JobStory:
    job: str
    owner: str
    submitted: float
    runs: list[Run]
    spans: list[Span]
    marks: list[Mark]

    @property
    def final(self) -> str:
        return self.spans[-1].state if self.spans else "idle"

    def state_at(self, t: float) -> str | None:
        """The job's state at ``t`` (None before its submit)."""
        for span in self.spans:
            if span.start <= t < span.end:
                return span.state
        return self.spans[-1].state if self.spans and t >= self.spans[-1].end else None


def paint(intervals: Iterable[tuple[str, float, float]], start: float,
          end: float) -> list[Span]:
    """``[start, end)`` cut where ``intervals`` (state, from, to) begin and end, each piece
    in the strongest state covering it (idle where none does), equal neighbours merged."""
    chosen = [(s, max(a, start), min(b, end)) for s, a, b in intervals]
    chosen = [(s, a, b) for s, a, b in chosen if b > a]
    cuts = sorted({start, end, *(a for _, a, _ in chosen), *(b for _, _, b in chosen)})
    spans: list[Span] = []
    for a, b in pairwise(cuts):
        state = max((s for s, x, y in chosen if x <= a and b <= y),
                    key=PRIORITY.__getitem__, default="idle")
        if spans and spans[-1].state == state:
            spans[-1] = Span(state, spans[-1].start, b)
        else:
            spans.append(Span(state, a, b))
    return spans


@dataclass(frozen=True)
class StartdRun:
    """An entry of ``spool/startd_history``: the job ran on ``slot`` from ``start``."""

    job: str
    slot: str
    start: float
    end: float
