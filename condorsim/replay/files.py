"""Writing a scenario's ``[[file]]`` entries into the run directory, before any daemon starts.

How this works
--------------
Each entry's content goes to ``<run dir>/<path>`` with mode 0755 (``executable``) or
0644, its directories made as needed (0755). The scenario parser has already refused paths
that leave the run directory; here the real location is checked once more (a symbolic
link in a kept directory could point elsewhere), and a file that cannot be written is a
:class:`ScenarioError` naming the entry, so the replay stops before the pool starts.
"""

from __future__ import annotations

import os
from pathlib import Path

from condorsim.scenario import FileSpec, Scenario, ScenarioError


def write_files(scenario: Scenario, run_dir: Path) -> list[Path]:
    """Write every ``[[file]]`` of ``scenario`` under ``run_dir``; return the paths written."""
    root = run_dir.resolve()
    written: list[Path] = []
    for spec in scenario.files:
        written.append(_write(scenario, spec, root))
    return written


def _write(scenario: Scenario, spec: FileSpec, root: Path) -> Path:
    target = root / spec.path

    def refuse(why: str) -> ScenarioError:
        return ScenarioError(why, source=scenario.source, where=spec.label, field="path")

    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        real_parent = target.parent.resolve()
        if real_parent != root and root not in real_parent.parents:
            raise refuse(f"'{spec.path}' leaves the run directory ({real_parent})")
        if target.is_symlink() or target.is_dir():
            raise refuse(f"'{spec.path}' already exists in the run directory and is not a "
                         "plain file")
        target.write_bytes(spec.content)
        os.chmod(target, spec.mode)
    except OSError as e:
        raise refuse(f"cannot write {target}: {e.strerror or e}") from None
    return target
