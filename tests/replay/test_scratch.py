"""A replay's throwaway run directory: on a roomy memory filesystem unless the user says
otherwise (condorsim/replay/scratch.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from condorsim.replay import scratch
from condorsim.replay.runner import replay
from condorsim.replay.scratch import scratch_parent
from condorsim.scenario import parse_scenario


def test_the_users_choice_comes_first(tmp_path: Path) -> None:
    assert scratch_parent({"CONDORSIM_SCRATCH": str(tmp_path), "TMPDIR": "/x"}) == str(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"CONDORSIM_SCRATCH=.*not a directory"):
        scratch_parent({"CONDORSIM_SCRATCH": str(tmp_path / "missing")})
    # TMPDIR set: the temporary directory, as for any program
    assert scratch_parent({"TMPDIR": str(tmp_path)}, memory_fs=str(tmp_path)) \
        == tempfile.gettempdir()


def test_a_memory_filesystem_only_when_it_is_there_and_roomy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert scratch_parent({}, memory_fs=str(tmp_path / "none")) == tempfile.gettempdir()
    monkeypatch.setattr(scratch, "MIN_FREE", 0)
    assert scratch_parent({}, memory_fs=str(tmp_path)) == str(tmp_path)
    monkeypatch.setattr(scratch, "MIN_FREE", 1 << 60)  # more than any disk has
    assert scratch_parent({}, memory_fs=str(tmp_path)) == tempfile.gettempdir()


def test_a_replay_without_keep_runs_there_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONDORSIM_SCRATCH", str(tmp_path))
    text = """
[scenario]
name = "scratch"
start = 2026-01-05T00:00:00Z
until = "10m"

[[machine]]
name = "exec"
"""
    outcome = replay(parse_scenario(text, source="<t>", base_dir=tmp_path), explain=True)
    assert outcome.run_dir is not None and outcome.run_dir.parent == tmp_path
    assert (outcome.run_dir / "trace.jsonl").is_file()
    outcome2 = replay(parse_scenario(text, source="<t>", base_dir=tmp_path))
    assert outcome2.run_dir is None
    assert [p for p in tmp_path.iterdir() if p != outcome.run_dir] == []  # removed after
