"""Where a job's user event log is: its ``UserLog`` attribute, relative to its ``Iwd``."""

from __future__ import annotations

import os

from condorsim.classad import ClassAd


def user_log_path(ad: ClassAd) -> str | None:
    """The job's user event log, or None when it has none."""
    log = ad.evaluate("UserLog")
    if not isinstance(log, str) or not log:
        return None
    if os.path.isabs(log):
        return log
    iwd = ad.evaluate("Iwd")
    return os.path.join(iwd if isinstance(iwd, str) else "", log)


def job_id(ad: ClassAd) -> tuple[int, int]:
    """(ClusterId, ProcId) of a job ad (0 for a missing one)."""
    c, p = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
    return (c if type(c) is int else 0, p if type(p) is int else 0)
