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
and refuses the scenario if condor_submit would refuse it. A submit with ``expect_error`` is not built here: that it is refused
with that text is checked when the scenario runs.
"""

from __future__ import annotations

import tempfile

from condorsim.submit import Submit, SubmitError

from ._fields import FileContext
from ._model import Scenario

__all__ = ["check_submits", "expected_cluster_ids"]


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
    with tempfile.TemporaryDirectory(prefix="condorsim-scenario-") as rundir:
        for submit, cluster in zip(scenario.submits, expected_cluster_ids(scenario),
                                   strict=True):
            if submit.expect_error is not None:
                continue
            key = "file" if submit.file is not None else "text"
            try:
                description = Submit(submit.text, source=str(submit.file or key))
                for _ in description.jobs(count=0, clusterid=cluster, qdate=submit.at,
                                          owner=submit.owner, iwd=rundir, env={},
                                          config=dict(scenario.config)):
                    pass
            except SubmitError as err:
                place = ""
                if err.line:
                    place = f" ({submit.file.name}, line {err.line})" if submit.file else \
                        f" (line {err.line} of the description)"
                message = err.message.replace(rundir, "<run directory>")
                raise ctx.error(f"condor_submit refuses it{place}: {message}",
                                section="submit", index=submit.index, key=key,
                                where=submit.label, field=key) from None
