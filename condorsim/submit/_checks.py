"""condor_submit's own checks, beyond building the job ad (``check_sub_file`` and
``SubmitHash::warn_unused`` in HTCondor).

How this works
--------------
condor_submit (not the Python bindings) looks at the executable it is about to send:
when the executable is transferred (and has no ``$$()`` in its name), it must exist,
must not be empty, and must not be a ``#!`` script with DOS (CRLF) line endings. The
name is taken as written, relative to the directory condor_submit runs in.
``skip_filechecks = warn`` turns these refusals into warnings.

At its first queue statement condor_submit decides whether to submit a job factory
(late materialization): ``max_materialize`` (or else ``max_idle`` /
``materialize_max_idle``) asks for one, and must be an integer. condorsim reads them
as it does (a bad value is refused with its message) but submits the jobs at once:
late materialization is not modelled.

After a submission that queued jobs, condor_submit warns about every command that
nothing looked at -- probably a typo -- unless ``WARN_ON_UNUSED_SUBMIT_FILE_MACROS`` is
false or ``-unused`` is given: "the line 'request_memroy = 100' was unused by
condor_submit. Is it a typo?". ``+Attr``/``MY.Attr`` and other names with a dot are
never reported; an unused queue loop variable is reported as such.
"""

from __future__ import annotations

import os

from ._commands import int_command
from ._job import JobInput
from ._macros import MacroTable

# Names condor_submit never reports (set by templates but used only sometimes).
_SUPPRESSED = frozenset(
    "dag_status failed_count job retry submitwarnemptymatches submitfailemptymatches "
    "submitwarnduplicatematches submitfailemptyfields submitwarnemptyfields".split()
)


def check_executable(job: JobInput) -> None:
    """``check_sub_file`` for the executable; raises SubmitError or warns."""
    if job.executable is None:
        return
    name, transfer = job.executable
    if name is None or not transfer or "$$" in name:
        return
    path = name if os.path.isabs(name) else os.path.join(job.cwd, name)
    problem = None
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        problem = f"Executable file {name} does not exist"
    else:
        if size == 0:
            problem = (f"Executable file {name}  has zero length" if job.checks_warn
                       else f"Executable file {name} has zero length")  # fmt: skip
        elif _crlf_script(path):
            problem = f"Executable file {name} is a script with CRLF (DOS/Windows) line endings."
            if not job.checks_warn:
                problem += (
                    "\nThis generally doesn't work, and you should probably run "
                    f"'dos2unix {name}' -- or a similar tool -- before you resubmit."
                )
    if problem is None:
        return
    if job.checks_warn:
        job.warn(problem)
        return
    raise job.error(problem, "executable", "Cmd")


def want_factory(job: JobInput) -> bool:
    """``want_factory_submit``: whether the description asks for late materialization
    (raises SubmitError for a value that is not an integer)."""
    if int_command(job, "max_materialize", "JobMaterializeLimit", int_range=True, strict=True) \
            is not None:  # fmt: skip
        return True
    return any(
        int_command(job, key, "JobMaterializeMaxIdle", int_range=True, strict=True) is not None
        for key in ("max_idle", "materialize_max_idle")
    )


def _crlf_script(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            first = fh.readline(127)
    except OSError:
        return False
    return first.startswith(b"#!") and len(first) > 2 and first.endswith(b"\r\n")


def unused_warnings(table: MacroTable, variables: dict[str, str]) -> list[str]:
    """The unused-line warnings of a finished submission (``variables``: the queue loop
    variables, lower-cased name to spelling)."""
    out = []
    names = {lower: (key, value) for lower, (key, value) in table.user.items()}
    for lower, spelling in variables.items():
        names.setdefault(lower, (spelling, ""))
    for lower, (key, value) in sorted(names.items()):
        if lower in table.used or lower in _SUPPRESSED or key.startswith("+") or "." in key:
            continue
        if lower in variables and lower not in table.user:
            out.append(f"the Queue variable '{key}' was unused by condor_submit. Is it a typo?")
        else:
            out.append(f"the line '{key} = {value}' was unused by condor_submit. Is it a typo?")
    return out
