"""A small base scenario for the sweep tests, written next to each test's sweep file."""

from __future__ import annotations

from pathlib import Path

import pytest
from _sweep_base import BASE, BOB


@pytest.fixture
def base_dir(tmp_path: Path) -> Path:
    """A directory holding base.toml (and the submit file it names)."""
    (tmp_path / "base.toml").write_text(BASE, encoding="utf-8")
    (tmp_path / "bob.sub").write_text(BOB, encoding="utf-8")
    return tmp_path
