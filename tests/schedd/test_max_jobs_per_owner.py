"""MAX_JOBS_PER_OWNER in a replay (real processes, virtual time): the schedd refuses a
submission that would give its owner more jobs in the queue than the limit, with
condor_submit's words, counts the owner's jobs still in the queue, not another owner's, and
takes the owner's jobs again once some have left."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.replay.runner import replay

pytestmark = pytest.mark.pool

SCENARIO = """
[scenario]
name = "max jobs per owner"
description = "alice may have 3 jobs in the queue"
start = 2026-01-05T09:00:00Z
until = "quiet"
max = "2h"

[config]
MAX_JOBS_PER_OWNER = 3
NEGOTIATOR_INTERVAL = 60

[[machine]]
name = "exec"
slots = 4

[[submit]]
owner = "alice"
text = '''
executable = /bin/sleep
arguments  = 600
queue 2
'''

[[submit]]
at = "1m"
owner = "alice"
expect_error = "Number of submitted jobs would exceed MAX_JOBS_PER_OWNER (3)"
text = '''
executable = /bin/sleep
arguments  = 600
queue 2
'''

[[submit]]
at = "1m"
owner = "bob"
text = '''
executable = /bin/sleep
arguments  = 600
queue 3
'''

[[submit]]
at = "20m"
owner = "alice"
text = '''
executable = /bin/sleep
arguments  = 60
queue 3
'''

[[expect]]
at = "2m"
constraint = 'Owner == "alice"'
count = 2
description = "nothing of alice's refused submission was queued"

[[expect]]
constraint = "JobStatus == 4"
count = 8
description = "alice's 2 + 3 and bob's 3 jobs all ran"
"""


def test_a_submission_over_max_jobs_per_owner_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "per-owner.toml"
    path.write_text(SCENARIO)
    outcome = replay(path)
    assert [r.line for r in outcome.results if not r.ok] == []
    assert outcome.finish_reason == "until reached"
