"""Cluster ids of a scenario's submits, and the check of their submit descriptions.

How this works
--------------
condor_submit gets a cluster id from the schedd (``NewCluster``) when it reaches a
``queue`` statement, before it builds the job ads; when building them fails, the
submit's transaction is aborted but the schedd's next-cluster counter is not given
back. So every ``[[submit]]`` takes the next cluster id, refused or not: the n-th
submit in time order (declaration order at equal moments) is cluster n.
:func:`expected_cluster_ids` says which id each submit gets when nothing else takes
ids in between (routed copies do: the replay runner's numbering is the real one).

:func:`check_submits` builds every submit description that has no ``expect_error``
with ``condorsim.submit`` (no pool involved), in an empty directory and environment,
and refuses the scenario if condor_submit would refuse it -- a queue count over the
schedd's MAX_JOBS_PER_SUBMISSION (``[config]``, default 20000) or MAX_JOBS_PER_OWNER
(default 100000) included -- or if all the
submits together would queue more than MAX_SIM_JOBS (1,000,000) jobs; both before a
queue statement's jobs are built. Only the first BUILT_AT_LOAD jobs of a submit are built. A submit with ``expect_error`` is not built here: that it is refused
with that text is checked when the scenario runs.
"""

from __future__ import annotations

import itertools
import tempfile
from typing import Any, Final

from condorsim.submit import MAX_SIM_JOBS, JobLimit, Submit, SubmitError, submission_limits

from ._fields import FileContext
from ._model import Scenario

__all__ = ["BUILT_AT_LOAD", "check_submits", "expected_cluster_ids"]

BUILT_AT_LOAD: Final = 1000
"""The jobs of one submit built at load; the rest are counted (their queue statements and
items read), not built: building 100,000 jobs would take minutes before the run starts.
Jobs past the first thousand differ from them only in $(Process) and their item."""


def expected_cluster_ids(scenario: Scenario) -> list[int]:
    """The cluster id of each ``[[submit]]``, in the order of ``scenario.submits``."""
    in_time = sorted(scenario.submits, key=lambda s: (s.at, s.index))
    by_index = {submit.index: cluster for cluster, submit in enumerate(in_time, start=1)}
    return [by_index[submit.index] for submit in scenario.submits]


def check_submits(ctx: FileContext, scenario: Scenario) -> None:
    """Refuse a submit description (without expect_error) that condor_submit would.

    Each is built as the replay runner will submit it: in an empty directory standing
    for the run's directory, with an empty environment (the host's must not change a
    scenario) and the knobs of ``[config]``.
    """
    queued = 0
    with tempfile.TemporaryDirectory(prefix="condorsim-scenario-") as rundir:
        for submit, cluster in zip(scenario.submits, expected_cluster_ids(scenario),
                                   strict=True):
            if submit.expect_error is not None:
                continue
            key = "file" if submit.file is not None else "text"
            # MAX_JOBS_PER_SUBMISSION, and MAX_JOBS_PER_OWNER for this submission alone
            # (MAX_JOBS_SUBMITTED and the owner's other jobs depend on the queue of the moment)
            limits = [limit for limit in submission_limits(scenario.config)
                      if limit.knob in ("MAX_JOBS_PER_OWNER", "MAX_JOBS_PER_SUBMISSION")]
            limits += [JobLimit(
                MAX_SIM_JOBS - queued, f"the scenario's [[submit]] entries would queue more "
                                       f"than {MAX_SIM_JOBS:,} jobs in all, the simulator's "
                                       "limit (MAX_SIM_JOBS)")]
            try:
                description = Submit(submit.text, source=str(submit.file or key))
                args: dict[str, Any] = {"count": 0, "clusterid": cluster, "qdate": submit.at,
                        "owner": submit.owner, "iwd": rundir, "env": {},
                        "config": dict(scenario.config), "limits": limits}
                queued += description.count_jobs(**args)
                for _ in itertools.islice(description.jobs(**args), BUILT_AT_LOAD):
                    pass
            except SubmitError as err:
                place = ""
                if err.line:
                    place = f" ({submit.file.name}, line {err.line})" if submit.file else \
                        f" (line {err.line} of the description)"
                message = err.message.replace(rundir, "<run directory>").replace("\n", ": ")
                raise ctx.error(f"condor_submit refuses it{place}: {message}",
                                section="submit", index=submit.index, key=key,
                                where=submit.label, field=key) from None
