"""Running a job's real executable (wall-clock pools with SIM_EXECUTE_REAL_JOBS = true).

How this works
--------------
:func:`command_line` builds the argument vector from ``Cmd`` and ``Arguments`` (new
syntax, shell-like quoting) or ``Args`` (old syntax, split on white space);
:func:`job_paths` resolves ``Iwd`` and the ``In``/``Out``/``Err`` files against it (and
``Iwd`` itself against the run directory). :func:`spawn` starts the process with those;
a failure to start is a :class:`SpawnError` with HTCondor's hold text. Suspension is
SIGSTOP/SIGCONT, a hold or remove SIGTERM, as the starter does by default.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import trio

from condorsim.classad import ClassAd


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


async def spawn(job_ad: ClassAd, run_dir: Path) -> trio.Process:
    """Start the job's executable in its Iwd with its standard files."""
    argv = command_line(job_ad)
    paths = job_paths(job_ad, run_dir)
    try:
        with open(paths.stdin, "rb") as stdin, open(paths.stdout, "ab") as stdout, \
                open(paths.stderr, "ab") as stderr:
            return await trio.lowlevel.open_process(
                argv, cwd=paths.iwd, stdin=stdin, stdout=stdout, stderr=stderr)
    except OSError as e:
        raise SpawnError(f"Failed to execute '{argv[0]}': {e.strerror or e}") from None
