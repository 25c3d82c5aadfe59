"""The library's replays are forked by the session's replay zygote (tests/_library_runs.py):
what a test reads of one -- exit status, output, errors -- is what the exec'd
`condorsim replay` gives. Checked on `--check`, which starts no pool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _library_runs import REPLAY_ZYGOTE_ENV, forked

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scenario", ["scenarios/tour.toml", "scenarios/no-such.toml"])
def test_a_forked_replay_gives_what_the_execd_one_gives(scenario: str) -> None:
    assert os.environ.get(REPLAY_ZYGOTE_ENV), "the session has no replay zygote"
    argv = [sys.executable, "-m", "condorsim.cli", "replay", scenario, "--check"]
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    done = forked(argv, env, ROOT)
    assert done is not None, "the zygote did not fork it"
    execd = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env,
                           cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (
        execd.returncode, execd.stdout, execd.stderr)
    assert done.stdout or done.stderr  # each says something: a valid file, or why not


def test_without_the_zygote_nothing_is_forked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REPLAY_ZYGOTE_ENV, raising=False)
    assert forked([sys.executable, "-m", "condorsim.cli", "replay", "x", "--check"],
                  dict(os.environ), ROOT) is None
