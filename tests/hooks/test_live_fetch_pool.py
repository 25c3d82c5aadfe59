"""A live pool (`condorsim up`, wall clock) runs a fetch-work hook from its condor_config.

The hook pops jobs from a queue file and records the slot ad it is given; the test waits
(conditions with deadlines, no fixed sleeps) until both jobs ran and the queue is dry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _pool_cli import run_cli, wait_for

from condorsim.classad import ClassAd

pytestmark = pytest.mark.pool

HOOK = """#!/bin/sh
dir=$(dirname "$0")
n=$(ls "$dir/calls" | wc -l)
cat > "$dir/calls/fetch.$n"
line=$(grep -v '^$' "$dir/queue" | head -n 1)
[ -z "$line" ] && exit 0
grep -v '^$' "$dir/queue" | tail -n +2 > "$dir/queue.new" && mv "$dir/queue.new" "$dir/queue"
echo "$line" | tr ';' '\\n' | sed 's/^ *//'
"""


def test_a_live_pool_fetches_work_with_its_hook(tmp_path: Path) -> None:
    home = tmp_path / "pool"
    hooks = home / "hooks"
    (hooks / "calls").mkdir(parents=True)
    hook = hooks / "fetch_work.sh"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    (hooks / "queue").write_text(
        'ClusterId = 7; ProcId = 0; Cmd = "/bin/sleep"; Args = "30"; StarterUserLog = "live.log"\n'
        'ClusterId = 7; ProcId = 1; Cmd = "/bin/sleep"; Args = "30"; StarterUserLog = "live.log"\n')
    (home / "condor_config").write_text(
        f"LOCAL_DIR = {home}\nDAEMON_LIST = MASTER, COLLECTOR, STARTD\n"
        "COLLECTOR_HOST = 127.0.0.1:0\nNUM_CPUS = 1\nPOLLING_INTERVAL = 1\n"
        # 30 simulated seconds a job: half a real second
        "SIM_SPEED = 60\n"
        "STARTD_JOB_HOOK_KEYWORD = LIVE\n"
        "LIVE_HOOK_FETCH_WORK = $(LOCAL_DIR)/hooks/fetch_work.sh\n"
        'FetchWorkDelay = ifThenElse(State == "Claimed" && Activity == "Idle", 0, 60)\n')
    up = run_cli(home, "up")
    assert up.returncode == 0, up.stderr
    try:
        history = home / "spool" / "startd_history"
        wait_for(lambda: history.exists() and history.read_text().count("*** Offset") == 2,
                 "the two fetched jobs to run", seconds=60)
        wait_for(lambda: len(list((hooks / "calls").iterdir())) >= 3,
                 "the fetch that finds the queue dry", seconds=60)
    finally:
        down = run_cli(home, "down")
    assert down.returncode == 0, down.stderr
    first = ClassAd.parse_old((hooks / "calls" / "fetch.0").read_text())
    assert (first.evaluate("MyType"), first.evaluate("Name"), first.evaluate("State")) == (
        "Machine", "slot1@localhost", "Unclaimed")
    assert "ClusterId = 7" in history.read_text() and 'HookKeyword = "LIVE"' in history.read_text()
    events = (home / "live.log").read_text()
    assert events.count("Job executing on host") == 2 and events.count("Job terminated.") == 2
    startd = [json.loads(line) for line in (home / "log" / "StartLog").read_text().splitlines()]
    assert [r["job"] for r in startd if r["event"] == "fetched_work"] == ["7.0", "7.1"]
    assert any(r["event"] == "fetched_claim_evicted" for r in startd)
