"""A fetched job's own event log: what the starter writes when there is no shadow.

How this works
--------------
A job the startd fetched with its FETCH_WORK hook has no schedd and no shadow; HTCondor
runs it with a "local" job-info communicator (``JICLocal``), which writes the job's
events itself to the file its ad names in ``StarterUserLog`` (relative to ``Iwd``; no
such attribute, no log). :class:`LocalLog` does that for condorsim's starter: EXECUTE
when the job starts, JOB_SUSPENDED / JOB_UNSUSPENDED, JOB_TERMINATED when it exits,
JOB_EVICTED when it is stopped, and REMOTE_ERROR for a prepare hook's message or error.
The job's figures (usage, exit code) go to the startd in the starter's updates and its
final update, so the startd history holds them, and to the UPDATE_JOB_INFO and JOB_EXIT
hooks.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from condorsim.classad import ClassAd
from condorsim.eventlog import EventLogError, EventLogWriter, Rusage


def _int(ad: ClassAd, attr: str, default: int) -> int:
    value = ad.evaluate(attr)
    return int(value) if type(value) in (int, float) else default


class LocalLog:
    """The StarterUserLog of one fetched job (a no-op when the ad names none)."""

    def __init__(self, job_ad: ClassAd, run_dir: Path, log: Any, fmt: str = "iso") -> None:
        self.cluster = _int(job_ad, "ClusterId", 1)
        self.proc = _int(job_ad, "ProcId", 0)
        self.log = log
        self.writer: EventLogWriter | None = None
        name = job_ad.evaluate("StarterUserLog")
        if not isinstance(name, str) or not name:
            return
        iwd = job_ad.evaluate("Iwd")
        base = run_dir / iwd if isinstance(iwd, str) and iwd else run_dir
        path = name if os.path.isabs(name) else str(base / name)
        try:
            self.writer = EventLogWriter(path, fmt=fmt)
        except EventLogError as e:
            log.warning("starter_user_log_failed", path=path, error=str(e))

    def _write(self, what: str, *args: Any, **kwargs: Any) -> None:
        if self.writer is None:
            return
        try:
            getattr(self.writer, what)(self.cluster, self.proc, *args, **kwargs)
        except EventLogError as e:
            self.log.warning("starter_user_log_failed", error=str(e))

    def execute(self, t: float, host: str, slot: str) -> None:
        self._write("execute", t, host, slot_name=slot)

    def suspended(self, t: float, suspended: bool) -> None:
        if suspended:
            self._write("suspended", t, 1)
        else:
            self._write("unsuspended", t)

    def exited(self, t: float, ad: ClassAd, killed: bool) -> None:
        usage = Rusage(usr=_int(ad, "RemoteUserCpu", 0), sys=_int(ad, "RemoteSysCpu", 0))
        if killed:
            self._write("evicted", t, run_remote_usage=usage)
        elif ad.evaluate("ExitBySignal") is True:
            self._write("terminated", t, signal=_int(ad, "ExitSignal", 0),
                        run_remote_usage=usage, total_remote_usage=usage)
        else:
            self._write("terminated", t, return_value=_int(ad, "ExitCode", 0),
                        run_remote_usage=usage, total_remote_usage=usage)

    def remote_error(self, t: float, host: str, text: str, critical: bool, code: int,
                     subcode: int) -> None:
        self._write("remote_error", t, daemon="starter", host=host, text=text,
                    critical=critical, code=code, subcode=subcode)
