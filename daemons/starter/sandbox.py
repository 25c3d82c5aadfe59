"""A real job's scratch directory and its file transfer, as HTCondor's starter does it.

How this works
--------------
With SIM_EXECUTE_REAL_JOBS the job runs in a directory of its own under EXECUTE,
``dir_<starter pid>_<cluster>_<proc>`` (HTCondor's ``dir_<pid>``), not in its submit
directory:

* in: the files of ``TransferInput`` (comma separated, relative to ``Iwd``; a directory
  is copied whole, ``dir/`` copies what it holds) and, when ``Cmd`` is relative to
  ``Iwd``, the executable itself, keeping its mode. An absolute ``Cmd`` (``/bin/echo``)
  is run where it is. Standard input is ``In`` read from ``Iwd``.
* the job's standard output and error go to ``_condor_stdout`` and ``_condor_stderr`` in
  the scratch directory; its environment is the starter's plus ``Environment`` (new
  syntax, ``"A=1 B='x y'"``) and ``_CONDOR_SCRATCH_DIR``.
* out, when the job exits of its own accord (WhenToTransferOutput ON_EXIT): the standard
  output and error to ``Out`` and ``Err`` (relative to ``Iwd``, replaced, not appended),
  then the files of ``TransferOutput`` if it is set, else every file at the top of the
  scratch directory that the job created or changed (not the inputs it left alone).
  A job that is held, removed or vacated brings nothing back.

The scratch directory is removed afterwards. A file that cannot be brought back is
reported to the caller; the job's exit stands.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from condorsim.classad import ClassAd

STDOUT, STDERR = "_condor_stdout", "_condor_stderr"


class SandboxError(Exception):
    """A scratch directory that cannot be made or filled."""


def _string(ad: ClassAd, attr: str) -> str | None:
    value = ad.evaluate(attr) if ad.lookup(attr) is not None else None
    return value if isinstance(value, str) and value else None


def _list(text: str | None) -> list[str]:
    return [item.strip() for item in (text or "").split(",") if item.strip()]


@dataclass
class Sandbox:
    """One job's scratch directory and what goes back to its Iwd."""

    path: Path
    iwd: Path
    out: Path | None
    err: Path | None
    outputs: list[str] | None  # TransferOutput, None: whatever the job made
    inputs: dict[str, float] = field(default_factory=dict)  # name -> mtime after transfer

    def environment(self, job_ad: ClassAd) -> dict[str, str]:
        env = dict(os.environ)
        text = _string(job_ad, "Environment")
        if text:
            try:
                for word in shlex.split(text):
                    name, sep, value = word.partition("=")
                    if sep and name:
                        env[name] = value
            except ValueError:
                pass  # an environment that does not split is left out
        env["_CONDOR_SCRATCH_DIR"] = str(self.path)
        return env


def prepare(job_ad: ClassAd, iwd: Path, execute: Path, tag: str) -> tuple[Sandbox, str]:
    """Make the scratch directory, transfer the inputs in; returns it and the path of the
    executable to run."""
    path = execute / tag
    try:
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
    except OSError as e:
        raise SandboxError(f"cannot make the scratch directory {path}: {e.strerror}") from None
    sandbox = Sandbox(path, iwd,
                      iwd / out if (out := _string(job_ad, "Out")) and out != os.devnull else None,
                      iwd / err if (err := _string(job_ad, "Err")) and err != os.devnull else None,
                      _list(_string(job_ad, "TransferOutput")) or None)
    for name in _list(_string(job_ad, "TransferInput")):
        source = Path(name) if os.path.isabs(name) else iwd / name
        try:
            if source.is_dir():
                target = path if name.endswith("/") else path / source.name
                shutil.copytree(source, target, dirs_exist_ok=True)
            else:
                shutil.copy2(source, path / source.name)
        except OSError as e:
            raise SandboxError(f"Transfer input files failure: cannot copy {source}: "
                               f"{e.strerror}") from None
    cmd = _string(job_ad, "Cmd") or ""
    executable = cmd
    if cmd and not os.path.isabs(cmd):
        source = iwd / cmd
        try:
            shutil.copy2(source, path / source.name)
        except OSError as e:
            raise SandboxError(f"cannot copy the executable {source}: {e.strerror}") from None
        executable = str(path / source.name)
    for child in path.iterdir():
        sandbox.inputs[child.name] = child.stat().st_mtime
    return sandbox, executable


def bring_back(sandbox: Sandbox, exited: bool) -> list[str]:
    """Transfer the outputs back (only when the job ``exited`` of its own accord), then
    remove the scratch directory; returns the problems met."""
    problems: list[str] = []
    if exited:
        for name, target in ((STDOUT, sandbox.out), (STDERR, sandbox.err)):
            if target is not None and (sandbox.path / name).exists():
                problems += _copy(sandbox.path / name, target)
        if sandbox.outputs is not None:
            names = sandbox.outputs
        else:
            names = [p.name for p in sorted(sandbox.path.iterdir())
                     if p.is_file() and p.name not in (STDOUT, STDERR)
                     and sandbox.inputs.get(p.name) != p.stat().st_mtime]
        for name in names:
            source = sandbox.path / name
            if not source.exists():
                problems.append(f"the output file {name} does not exist")
                continue
            problems += _copy(source, sandbox.iwd / os.path.basename(name.rstrip("/")))
    shutil.rmtree(sandbox.path, ignore_errors=True)
    return problems


def _copy(source: Path, target: Path) -> list[str]:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(source, target)
    except OSError as e:
        return [f"cannot bring {source.name} back to {target}: {e.strerror}"]
    return []
