"""The same scenario with the same seed gives the same run: per-job user-log events with
their timestamps, and the same messages about jobs at the same simulated times."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from condorsim.eventlog import read_events
from condorsim.replay import replay
from condorsim.runtime.trace import read_trace

pytestmark = pytest.mark.pool

SCENARIO = '''
[scenario]
name = "determinism"
until = "15m"
seed = 3

[config]
NEGOTIATOR_INTERVAL = 20

[[machine]]
name = "exec"
count = 2

[[submit]]
owner = "alice"
text = """
executable = /bin/sleep
arguments  = 120
log        = alice.log
queue 3
"""

[[submit]]
at = "1m"
owner = "bob"
text = """
executable = /bin/sleep
arguments  = 60
log        = bob.log
queue
"""

[[action]]
at = "2m"
do = "hold"
job = "1.2"

[[action]]
at = "3m"
do = "release"
job = "1.2"

[[expect]]
constraint = "true"
count = 4
'''


def _run(tmp_path: Path, name: str) -> tuple[dict[str, list[tuple[str, float]]], Counter[tuple]]:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    keep = tmp_path / name
    outcome = replay(scenario, keep=keep)
    assert outcome.exit_code == 0, outcome.results
    events: dict[str, list[tuple[str, float]]] = {}
    for log in ("alice.log", "bob.log"):
        for event in read_events(keep / log):
            events.setdefault(f"{event.cluster}.{event.proc}", []).append(
                (event.type, event.timestamp))
    messages = Counter((r["t"], r["from"], r["to"], r["cmd"], r["job"])
                       for r in read_trace(keep / "trace.jsonl") if r["job"] is not None)
    return events, messages


def test_two_replays_give_the_same_job_events_and_messages(tmp_path: Path) -> None:
    events1, messages1 = _run(tmp_path, "one")
    events2, messages2 = _run(tmp_path, "two")
    assert sorted(events1) == ["1.0", "1.1", "1.2", "2.0"]
    assert [name for name, _ in events1["1.2"]] == [
        "SUBMIT", "JOB_HELD", "JOB_RELEASED", "EXECUTE", "IMAGE_SIZE", "JOB_TERMINATED"]
    assert events1 == events2
    assert messages1 == messages2
