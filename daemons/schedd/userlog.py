"""The events the schedd writes into a job's user event log.

How this works
--------------
A job's log is its ``UserLog`` attribute, relative to its ``Iwd``. A job without one
has no log. A log that cannot be written is reported to the caller (the schedd logs it
and carries on), never raised.
"""

from __future__ import annotations

from collections.abc import Callable

from condorsim.classad import ClassAd
from condorsim.eventlog import EventLogError, EventLogWriter, Rusage
from condorsim.eventlog.joblog import user_log_path


class UserLogs:
    """Writes SUBMIT, JOB_HELD, JOB_RELEASED, JOB_ABORTED and JOB_RECONNECT_FAILED events."""

    def __init__(self, tz: str = "UTC", host: str = "<127.0.0.1:0>",
                 on_error: Callable[[str], None] | None = None) -> None:
        self.tz = tz
        self.host = host
        self.on_error = on_error

    def _write(self, ad: ClassAd, fn: Callable[[EventLogWriter], str]) -> None:
        path = user_log_path(ad)
        if path is None:
            return
        try:
            fn(EventLogWriter(path, tz=self.tz))
        except EventLogError as e:
            # HTCondor's schedd logs "Unable to log ULOG_SUBMIT event for job 1.0" and goes on
            if self.on_error is not None:
                c, p = self._id(ad)
                self.on_error(f"Unable to log an event for job {c}.{p}: {e}")

    @staticmethod
    def _id(ad: ClassAd) -> tuple[int, int]:
        c, p = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
        return (c if isinstance(c, int) else 0, p if isinstance(p, int) else 0)

    def submit(self, ad: ClassAd, t: float) -> None:
        c, p = self._id(ad)
        notes = ad.evaluate("SubmitEventNotes")
        self._write(ad, lambda w: w.submit(
            c, p, t, self.host, user_notes=notes if isinstance(notes, str) else None))

    def held(self, ad: ClassAd, t: float, reason: str, code: int, subcode: int) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.held(c, p, t, reason, code, subcode))

    def released(self, ad: ClassAd, t: float, reason: str) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.released(c, p, t, reason))

    def aborted(self, ad: ClassAd, t: float, reason: str) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.aborted(c, p, t, reason))

    def reconnect_failed(self, ad: ClassAd, t: float, reason: str, startd_name: str) -> None:
        """JOB_RECONNECT_FAILED (024): the job is rescheduled (condor_event.cpp's text)."""
        c, p = self._id(ad)
        body = (f"Job reconnection failed\n    {reason}\n"
                f"    Can not reconnect to {startd_name}, rescheduling job\n")
        self._write(ad, lambda w: w.write_event("JOB_RECONNECT_FAILED", c, p, t, body))

    # -- local and scheduler universe jobs, which the schedd (or its local starter) runs

    def execute(self, ad: ClassAd, t: float, host: str) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.execute(c, p, t, host))

    def suspended(self, ad: ClassAd, t: float) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.suspended(c, p, t, 1))

    def unsuspended(self, ad: ClassAd, t: float) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.unsuspended(c, p, t))

    # Local and scheduler universe jobs run on the submit host: the local starter's
    # LocalUserLog puts the payload's usage in "Run Local Usage" (getRusageFromAd) and
    # leaves the remote and total usage blank; the schedd writes zeros for a scheduler job.
    def terminated(self, ad: ClassAd, t: float, *, return_value: int, usage: Rusage) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.terminated(
            c, p, t, return_value=return_value, run_local_usage=usage))

    def requeued(self, ad: ClassAd, t: float, *, return_value: int, reason: str,
                 usage: Rusage) -> None:
        """004 "Job terminated and was requeued" (OnExitRemove false)."""
        c, p = self._id(ad)
        self._write(ad, lambda w: w.evicted(
            c, p, t, terminated_and_requeued=True, return_value=return_value, reason=reason,
            run_local_usage=usage))

    def evicted(self, ad: ClassAd, t: float, *, usage: Rusage) -> None:
        c, p = self._id(ad)
        self._write(ad, lambda w: w.evicted(c, p, t, run_local_usage=usage))
