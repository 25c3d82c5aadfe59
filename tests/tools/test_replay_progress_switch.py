"""``condorsim replay``'s progress bar is on only on a terminal, and never with ``--quiet``.

The replay itself is replaced by a stand-in that records what it was asked: the switch is
the command line's business (the bar's drawing is the runner's, tests/replay).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from condorsim.replay import runner
from condorsim.tools.replay import main as replay_main


class _Stderr(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class _Asked(Exception):
    pass


@pytest.mark.parametrize(("tty", "quiet", "bar"), [
    (True, False, True), (True, True, False), (False, False, False), (False, True, False)])
def test_the_bar_is_drawn_on_a_terminal_only(tty: bool, quiet: bool, bar: bool,
                                             tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    asked: dict[str, Any] = {}

    def stand_in(file: Path, **kw: Any) -> None:
        asked.update(kw)
        raise _Asked

    monkeypatch.setattr(runner, "replay", stand_in)
    monkeypatch.setattr("sys.stderr", _Stderr(tty))
    with pytest.raises(_Asked):
        replay_main([str(tmp_path / "s.toml"), *(["--quiet"] if quiet else [])])
    assert asked["progress"] is bar
