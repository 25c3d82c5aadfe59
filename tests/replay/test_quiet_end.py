"""``until = "quiet"`` ends at the first instant the queue is empty, whatever the replay
process's own timers: the driver, woken when the clock moves, looks at the queue at that
instant (the coordinator runs the replay's process at every jump while a task of it waits
for the clock to move; run only at its own timers, the look came at the next of them, up
to the master's update interval later)."""

from __future__ import annotations

from pathlib import Path

from condorsim.replay.runner import replay
from condorsim.scenario import parse_scenario

SCENARIO = '''
[scenario]
name = "quiet end"
start = 2026-01-05T09:00:00Z
until = "quiet"
max = "2h"

[[machine]]
name = "exec1"

[[submit]]
text = """
executable = /bin/sleep
arguments  = 130
queue 1
"""
'''


def test_a_quiet_run_ends_when_the_last_job_leaves_the_queue(tmp_path: Path) -> None:
    scenario = parse_scenario(SCENARIO, source="<quiet>", base_dir=tmp_path)
    outcome = replay(scenario)
    assert outcome.ok
    (job,) = outcome.job_ads
    completed = job.evaluate("CompletionDate")
    assert isinstance(completed, int) and completed > scenario.start
    assert int(outcome.final_time) == completed
