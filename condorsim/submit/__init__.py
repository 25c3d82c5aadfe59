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

from ._errors import SubmitError
from ._limits import MAX_SIM_JOBS, JobLimit, submission_limits
from ._submit import Submit, effective_config

__all__ = ["MAX_SIM_JOBS", "JobLimit", "Submit", "SubmitError", "effective_config",
           "submission_limits"]
