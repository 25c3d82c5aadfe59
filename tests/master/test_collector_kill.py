"""A collector SIGKILLed in the middle of a replay, with jobs idle and running: the master
restarts it on the same port, what was lost with it is written off, and the pool -- and
virtual time -- carry on to the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.replay.runner import replay

pytestmark = pytest.mark.pool

SCENARIO = """
[scenario]
name = "collector killed"
description = "one slot, three 5-minute jobs; the collector is killed while one runs"
start = 2026-01-05T09:00:00Z
until = "quiet"
max = "3h"

[config]
NEGOTIATOR_INTERVAL = 60

[[machine]]
name = "exec"

[[submit]]
owner = "alice"
text = '''
executable = /bin/sleep
arguments  = 300
log        = kill.log
queue 3
'''

[[expect]]
at = "2m"
constraint = "JobStatus == 2"
count = 1
description = "one job runs, two are idle"

[[action]]
at = "{kill_at}"
do = "kill"
daemon = "collector"

[[expect]]
at = "{check_at}"
ads = "Machine"
count = 1
description = "the restarted collector has the startd's ad again"

[[expect]]
constraint = "JobStatus == 4 && NumJobCompletions == 1"
count = 3
description = "every job ran to completion exactly once"
"""


@pytest.mark.parametrize(("kill_at", "check_at"), [("3m", "20m"), ("5m", "20m")])
def test_a_replay_survives_its_collector_being_killed(
    tmp_path: Path, kill_at: str, check_at: str
) -> None:
    path = tmp_path / "collector-kill.toml"
    path.write_text(SCENARIO.format(kill_at=kill_at, check_at=check_at))
    outcome = replay(path)
    failed = [r.line for r in outcome.results if not r.ok]
    assert failed == []
    assert outcome.finish_reason == "until reached"  # the queue emptied; no limit hit
    assert outcome.final_time - outcome.scenario.start < 3 * 3600
