"""The events the job router writes into an original job's user log (submit_job.cpp).

How this works
--------------
The routed copy writes no user log (the copy's UserLog is deleted), so the router writes the
original's: 001 when its copy starts running (the "host" is the copy's id, RoutedToJobId),
004 when it stops, 005 when it completes (built from the original's mirrored attributes:
return value or signal, RemoteUserCpu/RemoteSysCpu as run and total remote usage, the
resource table from the job's Request*, *Usage and *Provisioned), 009 when the original is
removed (its RemoveReason) and 012 when the router holds it by its periodic policy. The 012
is HTCondor's quirk copied: ``InitializeHoldEvent`` fills the reason from RemoveReason, so it
usually says "Reason unspecified", with code 0 (docs/router.md). A log that cannot be
written is reported back, never raised.
"""

from __future__ import annotations

from collections.abc import Callable

from condorsim.classad import ClassAd
from condorsim.eventlog import EventLogError, EventLogWriter, Rusage
from condorsim.eventlog.joblog import job_id, user_log_path
from condorsim.eventlog.usage import event_usage_rows


def _number(ad: ClassAd, name: str) -> int | float | None:
    value = ad.evaluate(name)
    return value if type(value) in (int, float) else None


class RouterUserLogs:
    """Writes the original job's events; ``on_error`` hears of a log it could not write."""

    def __init__(self, tz: str = "UTC", on_error: Callable[[str], None] | None = None) -> None:
        self.tz = tz
        self.on_error = on_error

    def _write(self, ad: ClassAd, fn: Callable[[EventLogWriter, int, int], str]) -> None:
        path = user_log_path(ad)
        if path is None:
            return
        cluster, proc = job_id(ad)
        try:
            fn(EventLogWriter(path, tz=self.tz), cluster, proc)
        except (EventLogError, OSError) as e:
            if self.on_error is not None:
                self.on_error(f"{path}: {e}")

    def execute(self, ad: ClassAd, t: float) -> None:
        routed = ad.evaluate("RoutedToJobId")
        host = routed if isinstance(routed, str) else ""
        self._write(ad, lambda w, c, p: w.execute(c, p, t, host or "<unknown>"))

    def evicted(self, ad: ClassAd, t: float) -> None:
        self._write(ad, lambda w, c, p: w.evicted(c, p, t))

    def aborted(self, ad: ClassAd, t: float) -> None:
        reason = ad.evaluate("RemoveReason")
        self._write(ad, lambda w, c, p: w.aborted(
            c, p, t, reason if isinstance(reason, str) and reason else None))

    def held(self, ad: ClassAd, t: float) -> None:
        reason = ad.evaluate("RemoveReason")  # sic: InitializeHoldEvent reads RemoveReason
        text = reason if isinstance(reason, str) and reason else "Reason unspecified"
        self._write(ad, lambda w, c, p: w.held(c, p, t, text, 0, 0))

    def terminated(self, ad: ClassAd, t: float) -> None:
        by_signal = ad.evaluate("ExitBySignal")
        code, signal = ad.evaluate("ExitCode"), ad.evaluate("ExitSignal")
        usage = Rusage(usr=int(_number(ad, "RemoteUserCpu") or 0),
                       sys=int(_number(ad, "RemoteSysCpu") or 0))
        # InitializeTerminateEvent: abnormal (signal 0 when unknown) unless ExitBySignal is
        # false and ExitCode an integer
        normal = by_signal is False and type(code) is int
        return_value = code if normal and type(code) is int else None
        sig = None if normal else (signal if by_signal is True and type(signal) is int else 0)
        rows = event_usage_rows(ad)
        self._write(ad, lambda w, c, p: w.terminated(
            c, p, t, return_value=return_value, signal=sig, run_remote_usage=usage,
            total_remote_usage=usage, resources=rows))
