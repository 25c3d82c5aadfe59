"""tools/pick_python.py: the interpreter `make setup` makes the venv from."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "pick_python.py"


@pytest.fixture
def picker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pick_python", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake(picker: ModuleType, monkeypatch: pytest.MonkeyPatch,
          times: dict[str, float | None], on_path: str = "/a/python3",
          versions: dict[str, str] | None = None) -> None:
    def probe(path: str) -> tuple[str, float] | None:
        took = times[path]
        return None if took is None else ((versions or {}).get(path, "3.11"), took)

    monkeypatch.setattr(picker, "candidates", lambda version: list(times))
    monkeypatch.setattr(picker, "probe", probe)
    monkeypatch.setattr(picker.shutil, "which", lambda name: on_path)


def test_a_clearly_faster_build_is_chosen(picker: ModuleType,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(picker, monkeypatch, {"/a/python3": 0.023, "/usr/bin/python3.11": 0.014})
    assert picker.pick() == "/usr/bin/python3.11"


def test_python3_stays_unless_another_is_clearly_faster(
        picker: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(picker, monkeypatch, {"/a/python3": 0.020, "/usr/bin/python3.11": 0.0195})
    assert picker.pick() == "python3"


def test_only_builds_of_python3s_version_compete(picker: ModuleType,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # a faster interpreter of another version is not the one the dependencies were chosen for
    _fake(picker, monkeypatch, {"/a/python3": 0.02, "/usr/bin/python3.12": 0.01},
          versions={"/usr/bin/python3.12": "3.12"})
    assert picker.pick() == "python3"


def test_each_candidate_keeps_its_best_turn(picker: ModuleType,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # the faster build measured slow once (the machine busy for a moment) still wins
    turns = {"/a/python3": iter([0.020, 0.021, 0.020]),
             "/usr/bin/python3.11": iter([0.050, 0.012, 0.013])}
    monkeypatch.setattr(picker, "candidates", lambda version: list(turns))
    monkeypatch.setattr(picker, "probe", lambda path: ("3.11", next(turns[path], 0.02)))
    monkeypatch.setattr(picker.shutil, "which", lambda name: "/a/python3")
    assert picker.pick() == "/usr/bin/python3.11"


def test_unusable_candidates_are_skipped(picker: ModuleType,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # a faster interpreter that cannot make a venv (no ensurepip) is not chosen
    _fake(picker, monkeypatch, {"/a/python3": 0.02, "/opt/py/python3.11": None})
    assert picker.pick() == "python3"
    _fake(picker, monkeypatch, {"/a/python3": None, "/opt/py/python3.11": None})
    assert picker.pick() == "python3"


def test_the_probe_times_a_real_interpreter_and_refuses_a_broken_one(
        picker: ModuleType, tmp_path: Path) -> None:
    found = picker.probe(sys.executable)
    assert found is not None
    version, took = found
    assert version == f"{sys.version_info[0]}.{sys.version_info[1]}" and 0 < took < 5
    broken = tmp_path / "python3.11"
    broken.write_text("#!/bin/sh\necho True 3.11 nonsense\nexit 0\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    assert picker.probe(str(broken)) is None
    old = tmp_path / "python3"
    old.write_text("#!/bin/sh\necho False 3.10 None\n")
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    assert picker.probe(str(old)) is None
    assert picker.probe(str(tmp_path / "absent")) is None


def test_the_script_prints_one_interpreter_that_runs(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                         check=True, timeout=120, env={**os.environ})
    chosen = out.stdout.strip()
    assert chosen and "\n" not in chosen
    version = subprocess.run([chosen, "-c", "import sys; print(sys.version_info[:2] >= (3, 11))"],
                             capture_output=True, text=True, check=True, timeout=60)
    assert version.stdout.strip() == "True"
