"""The progress bar's job counts: read from the user logs incrementally, complete events only."""

from __future__ import annotations

from pathlib import Path

from condorsim.eventlog import EventLogWriter
from condorsim.replay.progress import UserLogTally

T0 = 1_767_225_600


def test_only_what_was_appended_is_read_and_a_half_written_event_waits(tmp_path: Path) -> None:
    log = EventLogWriter(tmp_path / "a.log")
    for proc in range(3):
        log.submit(1, proc, T0, "<schedd>")
    tally = UserLogTally(tmp_path, "UTC")
    assert tally.update() == (3, 0)
    log.terminated(1, 0, T0 + 60, return_value=0)
    with open(tmp_path / "a.log", "a") as f:
        f.write("009 (001.001.000) 2026-01-01T00:02:00Z Job was aborted.\n")  # no "..." yet
    assert tally.update() == (3, 1)
    with open(tmp_path / "a.log", "a") as f:
        f.write("\tvia condor_rm\n...\n")
    (tmp_path / "sub").mkdir()  # another job's log, deeper in the run directory
    EventLogWriter(tmp_path / "sub" / "b.log").submit(2, 0, T0, "<schedd>")
    assert tally.update() == (4, 2)
    assert tally.update() == (4, 2)  # nothing new: nothing counted twice
