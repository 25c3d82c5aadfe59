"""Running a job's real executable (SIM_EXECUTE_REAL_JOBS = true; the mini-pool's default).

How this works
--------------
:func:`command_line` builds the argument vector from ``Cmd`` and ``Arguments`` (new
syntax, shell-like quoting) or ``Args`` (old syntax, split on white space);
:func:`job_paths` resolves ``Iwd`` and the ``In``/``Out``/``Err`` files against it (and
``Iwd`` itself against the run directory). :func:`spawn` starts the process in a scratch
directory under EXECUTE with the job's input files (:mod:`.sandbox`), and
:func:`finished` brings its output back once it has exited; a failure to start is a
:class:`SpawnError` with HTCondor's hold text. Suspension is SIGSTOP/SIGCONT, a hold or
remove SIGTERM, as the starter does by default.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import trio

from condorsim.classad import ClassAd

from .sandbox import STDERR, STDOUT, Sandbox, SandboxError, bring_back, prepare


class SpawnError(Exception):
    """The job's executable could not be started."""


@dataclass(frozen=True)
class JobPaths:
    iwd: Path
    stdin: Path
    stdout: Path
    stderr: Path


def command_line(job_ad: ClassAd) -> list[str]:
    """``Cmd`` followed by the job's arguments."""
    cmd = job_ad.evaluate("Cmd")
    if not isinstance(cmd, str) or not cmd:
        raise SpawnError("the job ad has no Cmd")
    arguments = job_ad.evaluate("Arguments")
    if isinstance(arguments, str):
        try:
            return [cmd, *shlex.split(arguments)]
        except ValueError as e:
            raise SpawnError(f"cannot split Arguments {arguments!r}: {e}") from None
    args = job_ad.evaluate("Args")
    return [cmd, *(args.split() if isinstance(args, str) else [])]


def job_paths(job_ad: ClassAd, run_dir: Path) -> JobPaths:
    """The job's working directory and standard files."""
    iwd_value = job_ad.evaluate("Iwd")
    iwd = run_dir / iwd_value if isinstance(iwd_value, str) and iwd_value else run_dir

    def file(attr: str) -> Path:
        value = job_ad.evaluate(attr)
        return iwd / value if isinstance(value, str) and value else Path(os.devnull)

    return JobPaths(iwd, file("In"), file("Out"), file("Err"))


_SANDBOXES: dict[int, Sandbox] = {}  # pid -> the scratch directory of a running job


async def spawn(job_ad: ClassAd, run_dir: Path, execute: Path | None = None) -> trio.Process:
    """Start the job's executable in a scratch directory under ``execute`` (the run
    directory's ``execute/`` by default) with its input files; stdin is ``In`` in Iwd."""
    argv = command_line(job_ad)
    paths = job_paths(job_ad, run_dir)
    cluster, proc = job_ad.evaluate("ClusterId"), job_ad.evaluate("ProcId")
    tag = f"dir_{os.getpid()}_{cluster}_{proc}"
    try:
        sandbox, executable = prepare(job_ad, paths.iwd, execute or run_dir / "execute", tag)
    except SandboxError as e:
        raise SpawnError(str(e)) from None
    argv[0] = executable
    try:
        with open(paths.stdin, "rb") as stdin, open(sandbox.path / STDOUT, "wb") as stdout, \
                open(sandbox.path / STDERR, "wb") as stderr:
            process = await trio.lowlevel.open_process(
                argv, cwd=sandbox.path, stdin=stdin, stdout=stdout, stderr=stderr,
                env=sandbox.environment(job_ad))
    except OSError as e:
        bring_back(sandbox, exited=False)
        raise SpawnError(f"Failed to execute '{argv[0]}': {e.strerror or e}") from None
    _SANDBOXES[process.pid] = sandbox
    return process


def finished(process: trio.Process, exited: bool) -> list[str]:
    """After the process is gone: its outputs back to Iwd when it ``exited`` of its own
    accord (not held, removed or vacated), its scratch directory removed."""
    sandbox = _SANDBOXES.pop(process.pid, None)
    return bring_back(sandbox, exited) if sandbox is not None else []
