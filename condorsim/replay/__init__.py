"""Scenario replay: build the pool a scenario file describes, run it on simulated time and
check its expectations (docs/replay.md; the file format is docs/scenarios.md).

Public API::

    outcome = replay("scenarios/tour.toml", keep=None, json_out=None, explain=False,
                     progress=False)
    outcome.results, outcome.exit_code      # ExpectResult list; 0 all passed, 1 not
    print_outcome(outcome)                  # PASS/FAIL lines and the summary
    narrate(run_dir, tz)                    # the --explain timeline of a kept run

A bad scenario file raises :class:`condorsim.scenario.ScenarioError` before any daemon
starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .explain import narrate

if TYPE_CHECKING:
    from .runner import ReplayOutcome, print_outcome, replay

__all__ = ["ReplayOutcome", "narrate", "print_outcome", "replay"]

_RUNNER = ("ReplayOutcome", "print_outcome", "replay")


def __getattr__(name: str) -> Any:
    """The runner is imported when first asked for (PEP 562), so that the teaching views
    (``condorsim trace``, :mod:`.jobflow`) do not load the pool's runtime."""
    if name in _RUNNER:
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
