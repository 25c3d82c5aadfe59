"""The slot Gantt's rows: every slot, then the other places, in lanes where runs overlap."""

from __future__ import annotations

from condorsim.report.gantt import slot_rows
from condorsim.report.timeline import JobStory, Run


def story(job: str, *runs: tuple[str, float, float]) -> JobStory:
    return JobStory(job, "alice", 0.0, [Run(job, place, a, b) for place, a, b in runs], [], [])


def test_a_site_running_jobs_at_once_gets_a_lane_each_and_a_slot_one_row() -> None:
    stories = [story("1.0", ("slot1@e", 0, 50), ("site: batch slurm", 60, 120)),
               story("1.1", ("slot1@e", 50, 90)),  # starts as 1.0 leaves: the same row
               story("1.2", ("site: batch slurm", 70, 100), ("site: batch slurm", 120, 130)),
               story("1.3", ("", 10, 20))]
    rows, row_of = slot_rows(stories, ["slot1@e", "slot2@e"])
    assert rows == ["slot1@e", "slot2@e", "site: batch slurm · 1", "site: batch slurm · 2",
                    "(slot not known)"]
    lanes = {(s.job, r.start): row_of[id(r)] for s in stories for r in s.runs}
    assert lanes == {("1.0", 0): "slot1@e", ("1.1", 50): "slot1@e",
                     ("1.0", 60): "site: batch slurm · 1", ("1.2", 70): "site: batch slurm · 2",
                     ("1.2", 120): "site: batch slurm · 1", ("1.3", 10): "(slot not known)"}
