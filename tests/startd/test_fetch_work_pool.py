"""Fetched work through the startd and the starter of an in-process pool (MockClock: the
hooks run inline, so no simulated time passes while they run either)."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.config import Config
from condorsim.runtime.inproc import open_inprocess_pool
from daemons.collector.daemon import Collector
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

EPOCH = 1_767_225_600

FETCH = """#!/bin/sh
dir=$(dirname "$0")
n=$(ls "$dir/calls" | wc -l)
cat > "$dir/calls/$n"
[ "$n" -ge 2 ] && exit 0
echo "ClusterId = 5"
echo "ProcId = $n"
echo 'Cmd = "/bin/sleep"'
echo 'Args = "100"'
"""


async def test_a_slot_fetches_runs_reuses_and_gives_up_its_claim(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    autojump_clock.jump(EPOCH)
    hooks = tmp_path / "hooks"
    (hooks / "calls").mkdir(parents=True)
    (hooks / "fetch.sh").write_text(FETCH)
    (hooks / "fetch.sh").chmod(0o755)
    config = Config.from_text(
        "COLLECTOR_HOST = 127.0.0.1:9000\nSIM_MACHINES = exec\n"
        f"STARTD_JOB_HOOK_KEYWORD = T\nT_HOOK_FETCH_WORK = {hooks}/fetch.sh\n"
        'FetchWorkDelay = ifThenElse(State == "Claimed" && Activity == "Idle", 0, 300)\n')
    async with open_inprocess_pool(config, tmp_path, [
            ("collector", Collector), ("startd", Startd), ("starter", Starter)]) as pool:
        await trio.sleep(400)
        startd = pool.daemons["startd"]
        slot = startd.state.slots[0]  # type: ignore[attr-defined]
        assert (slot.state.value, slot.activity.value) == ("Unclaimed", "Idle")
        starts = [int(r["t"]) - EPOCH for r in pool.trace if r["cmd"] == "STARTER_START"]
        assert starts == [5, 105]  # the first evaluation, then at once when 5.0 exited
    calls = sorted((hooks / "calls").iterdir(), key=lambda p: int(p.name))
    assert len(calls) == 3  # 5.0, 5.1, then no more work at 205 s
    history = (tmp_path / "spool" / "startd_history").read_text()
    assert history.count("*** Offset") == 2 and 'HookKeyword = "T"' in history
