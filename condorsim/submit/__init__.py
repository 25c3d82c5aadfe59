"""The submit language of condor_submit: submit descriptions to job ClassAds.

Public API (mirrors ``htcondor.Submit`` of HTCondor 24.0)::

    sub = Submit(text, source="job.sub", vars=None)
    for ad in sub.jobs(count=0, clusterid=1, procid=0, qdate=0, owner="condor",
                       itemdata=None, iwd=None, env=None, config=None): ...
    sub.procs(...)        # the same, as a list
    sub.expand(key)       # macro-expanded value of a submit command
    sub[key]              # its raw value

``sub.jobs(..., limits=submission_limits(config, queued))`` refuses a queue statement
that would pass the schedd's MAX_JOBS_PER_SUBMISSION (or MAX_JOBS_SUBMITTED, or the
simulator's MAX_SIM_JOBS) before building its jobs.

Bad input raises ``SubmitError`` (message, source, line, command). See docs/submit.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._errors import SubmitError
    from ._limits import MAX_SIM_JOBS, JobLimit, first_exceeded, submission_limits
    from ._submit import Submit, effective_config

__all__ = ["MAX_SIM_JOBS", "JobLimit", "Submit", "SubmitError", "effective_config",
           "first_exceeded", "submission_limits"]

# The public names are imported where they live on first use: daemons that only need a
# helper module of this package (the startd's, starter's and shadow's hooks read arguments
# with ._argsenv) then do not import the whole submit language (20 ms of CPU each, as every
# daemon process of every pool starts).
_HOMES = {
    "SubmitError": "._errors",
    "MAX_SIM_JOBS": "._limits",
    "JobLimit": "._limits",
    "submission_limits": "._limits",
    "first_exceeded": "._limits",
    "Submit": "._submit",
    "effective_config": "._submit",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
