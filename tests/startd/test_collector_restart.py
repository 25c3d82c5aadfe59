"""A collector that dies and comes back (real processes on loopback TCP, virtual time): the
startd's next update reaches the new collector.

HTCondor's condor_write notices that the peer closed a cached connection (a readable socket
whose MSG_PEEK reads nothing: "Socket closed when trying to write") and fails the write;
DCCollector::sendTCPUpdate then sends the update again on a new connection ("Couldn't reuse
TCP socket to update collector, starting new connection"). Over TCP a write into a
connection whose peer is gone succeeds locally, so without that check the update is lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.replay.runner import replay

pytestmark = pytest.mark.pool

SCENARIO = """
[scenario]
name = "collector restarted"
description = "two slots, no jobs; the collector is killed at 3 minutes"
start = 2026-01-05T09:00:00Z
until = "5m30s"

[[machine]]
name = "exec"
slots = 2

[[expect]]
at = "2m"
ads = "Machine"
count = 2
description = "both slots are advertised"

[[action]]
at = "3m"
do = "kill"
daemon = "collector"

[[expect]]
at = "4m"
ads = "Machine"
count = 0
description = "the restarted collector knows no slot yet"

[[expect]]
at = "5m10s"
ads = "Machine"
count = 2
description = "the startd's first update after the restart (at 5m) reached the new collector"
"""


def test_the_first_update_after_a_collector_restart_reaches_the_new_collector(
    tmp_path: Path,
) -> None:
    path = tmp_path / "collector-restart.toml"
    path.write_text(SCENARIO)
    outcome = replay(path)
    failed = [r.line for r in outcome.results if not r.ok]
    assert failed == []
    assert len(outcome.results) == 3
