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

from .explain import narrate
from .runner import ReplayOutcome, print_outcome, replay

__all__ = ["ReplayOutcome", "narrate", "print_outcome", "replay"]
