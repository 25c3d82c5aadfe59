"""What `condorsim up` and `down` say while they wait, off a terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

from condorsim.tools.waiting import Waiting, awaited, daemon_pids


def test_the_line_names_what_is_awaited_and_what_is_done() -> None:
    names = ["master", "collector", "schedd"]
    assert awaited(names, ["master"], "start", "up") == \
        "waiting for collector, schedd to start (up: master)"
    assert awaited(names, [], "stop", "stopped") == "waiting for master, collector, schedd to stop"
    assert awaited(names, names, "start", "up") == ""


def test_off_a_terminal_a_line_when_the_wait_begins_then_not_more_than_every_2_s() -> None:
    out = io.StringIO()
    with Waiting("condorsim up", out) as waiting:
        waiting.show("waiting for collector to start")
        waiting.show("waiting for collector to start")
        waiting.show("")  # nothing left to wait for
        waiting.show("waiting for schedd to start (up: collector)")  # too soon after the first
    assert out.getvalue() == "condorsim up: waiting for collector to start\n"


def test_the_daemons_pids_come_from_the_master_s_log(tmp_path: Path) -> None:
    (tmp_path / "log").mkdir()
    records = [{"daemon": "master", "pid": 10, "event": "daemon_started", "sim_time": 1.0},
               {"daemon": "collector", "pid": 11, "event": "daemon_started", "sim_time": 1.0},
               {"daemon": "collector", "pid": 12, "event": "daemon_started", "sim_time": 9.0},
               {"daemon": "schedd", "pid": 13, "event": "daemon_started", "sim_time": 1.0}]
    (tmp_path / "log" / "MasterLog").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert daemon_pids(tmp_path) == {"collector": 12, "schedd": 13}
