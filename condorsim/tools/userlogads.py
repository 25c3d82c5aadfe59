"""Job ads rebuilt from a user job event log (HTCondor's ``userlog_to_classads``).

How this works
--------------
``condor_q -userlog FILE`` shows the jobs of an event log as if they were in a queue: a
SUBMIT event makes the job's ad (Idle, ``QDate`` the event's time, ``Owner`` the user
running the tool, ``Cmd = "???"``), and every later event of that job changes it as
HTCondor's ``userlog_to_classads`` does: EXECUTE makes it Running on ``RemoteHost``,
JOB_TERMINATED Completed (ExitCode, CompletionDate, usage, the run's wall clock),
JOB_EVICTED / JOB_RECONNECT_FAILED Idle again, JOB_HELD Held (HoldReason and codes),
JOB_RELEASED Idle, JOB_ABORTED Removed, JOB_SUSPENDED / UNSUSPENDED, IMAGE_SIZE the sizes.
Events of a job whose submit is not in the log are skipped. ``condorsim wait`` reads the
same events.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from condorsim.classad import ClassAd
from condorsim.eventlog.events import Event, parse_rusage
from condorsim.eventlog.reader import read_events
from condorsim.security.identity import my_user_name


def _status(ad: ClassAd, status: int, when: int) -> None:
    ad["LastJobStatus"] = ad["JobStatus"]
    ad["JobStatus"] = status
    ad["EnteredCurrentStatus"] = when


def _seconds(text: object) -> float:
    usage = parse_rusage(str(text)) if text is not None else None
    return float(usage.usr) if usage is not None else 0.0


def _submit(event: Event, path: str, now: int, owner: str) -> ClassAd:
    when = int(event.timestamp)
    ad = ClassAd()
    ad.update({
        "MyType": "Job", "TargetType": "Machine", "ClusterId": event.cluster,
        "ProcId": event.proc, "UserLog": path, "QDate": when, "EnteredCurrentStatus": when,
        "GlobalJobId": f"localhost#{event.cluster}.{event.proc}#{when}", "ServerTime": now,
        "SubmitHost": str(event.fields.get("SubmitHost", "")), "JobStatus": 1,
        "LastJobStatus": 0, "Owner": owner, "JobPrio": 0, "ImageSize": 0, "Cmd": "???",
        "LastSuspensionTime": 0, "CompletionDate": 0, "NumJobStarts": 0,
        "TotalSuspensions": 0, "NumSystemHolds": 0, "LocalUserCpu": 0.0,
        "RemoteUserCpu": 0.0, "LocalSysCpu": 0.0, "RemoteSysCpu": 0.0,
        "RemoteWallClockTime": 0.0,
    })
    return ad


def _apply(ad: ClassAd, event: Event) -> None:
    when = int(event.timestamp)
    f = event.fields
    kind = event.type
    if kind == "EXECUTE":
        _status(ad, 2, when)
        ad["JobCurrentStartDate"] = when
        ad["NumJobStarts"] = int(ad.evaluate("NumJobStarts") or 0) + 1
        host = str(f.get("ExecuteHost", ""))
        ad["StartdIpAddr"] = host
        ad["RemoteHost"] = host
    elif kind == "JOB_TERMINATED":
        _status(ad, 4, when)
        if "RemoteHost" in ad:
            ad["LastRemoteHost"] = ad["RemoteHost"]
            del ad["RemoteHost"]
        ad["CompletionDate"] = when
        if f.get("TerminatedNormally"):
            ad["ExitBySignal"] = False
            ad["ExitCode"] = int(f.get("ReturnValue", 0))  # type: ignore[arg-type]
        else:
            ad["ExitBySignal"] = True
            ad["ExitSignal"] = int(f.get("TerminatedBySignal", 0))  # type: ignore[arg-type]
        ad["LastRemoteUserCpu"] = _seconds(f.get("RunRemoteUsage"))
        ad["RemoteUserCpu"] = _seconds(f.get("TotalRemoteUsage"))
        start = ad.evaluate("JobCurrentStartDate")
        if isinstance(start, int):
            wall = float(when - start)
            ad["LastRemoteWallClockTime"] = wall
            ad["RemoteWallClockTime"] = float(ad.evaluate("RemoteWallClockTime") or 0.0) + wall
    elif kind in ("JOB_EVICTED", "SHADOW_EXCEPTION", "JOB_RECONNECT_FAILED"):
        _status(ad, 1, when)
        ad["LastVacateTime"] = when
        reason = f.get("Reason") or f.get("Message")
        if reason:
            ad["LastVacateReason"] = str(reason)
    elif kind == "JOB_HELD":
        previous = ad.evaluate("JobStatus")
        _status(ad, 5, when)
        reason = f.get("HoldReason")
        if previous != 1:
            ad["LastVacateTime"] = when
            if reason:
                ad["LastVacateReason"] = str(reason)
        if reason is not None:
            ad["HoldReason"] = str(reason)
        code = int(f.get("HoldReasonCode", 0))  # type: ignore[arg-type]
        ad["HoldReasonCode"] = code
        ad["HoldReasonSubCode"] = int(f.get("HoldReasonSubCode", 0))  # type: ignore[arg-type]
        if code != 1:
            ad["NumSystemHolds"] = int(ad.evaluate("NumSystemHolds") or 0) + 1
    elif kind == "JOB_RELEASED":
        _status(ad, 1, when)
        if f.get("Reason"):
            ad["ReleaseReason"] = str(f["Reason"])
    elif kind == "JOB_ABORTED":
        _status(ad, 3, when)
        if f.get("Reason"):
            ad["RemoveReason"] = str(f["Reason"])
    elif kind == "JOB_SUSPENDED":
        _status(ad, 7, when)
        ad["LastSuspensionTime"] = when
        ad["TotalSuspensions"] = int(ad.evaluate("TotalSuspensions") or 0) + 1
    elif kind == "JOB_UNSUSPENDED":
        _status(ad, 2, when)
    elif kind == "IMAGE_SIZE":
        ad["ImageSize"] = int(f.get("Size", 0))  # type: ignore[arg-type]
        for name in ("ResidentSetSize", "ProportionalSetSize"):
            if name in f:
                ad[name] = int(f[name])  # type: ignore[arg-type]


def ads_from_events(events: Iterable[Event], path: str, now: int | None = None,
                    owner: str | None = None) -> list[ClassAd]:
    """The job ads the events make, in the order their SUBMITs come."""
    now = int(time.time()) if now is None else now
    owner = my_user_name() if owner is None else owner
    jobs: dict[tuple[int, int], ClassAd] = {}
    for event in events:
        key = (event.cluster, event.proc)
        if event.type == "SUBMIT":
            jobs[key] = _submit(event, path, now, owner)
        elif key in jobs:
            _apply(jobs[key], event)
    return list(jobs.values())


def ads_from_user_log(path: str | Path, now: int | None = None) -> list[ClassAd]:
    """The job ads of the user log at ``path`` (EventLogError when it cannot be read)."""
    return ads_from_events(read_events(path), str(path), now)
