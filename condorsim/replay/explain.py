"""``condorsim replay --explain``: a narrated timeline of a run, from the daemons' logs.

How this works
--------------
Every daemon (and the replay driver) logs JSON lines to ``log/<Name>Log`` with a stable
``event`` name, ``sim_time`` and ``wall_time``. :func:`narrate` reads them all, keeps the
records that tell a job's story (the events of :data:`STORY`, and any record naming a
``job``), orders them by simulated time (real time breaks ties: the order things happened
in) and writes one sentence each, ``2026-01-01 00:01:00  schedd takes the match of
slot1@exec1 for 1.1``. An event that is not in :data:`STORY` but names a job is shown as
``<daemon>: <event> key=value ...``. docs/replay.md lists the events read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .progress import sim_datetime

# event name -> sentence (str.format over the record; a missing field shows as "?").
STORY: dict[str, str] = {
    # the replay driver
    "scenario_submit": "replay submitted cluster {cluster} ({procs} jobs) [{entry}]",
    "scenario_submit_refused": "replay: {entry} was refused: {reason}",
    "scenario_action": "replay: {do} {target} [{entry}]",
    "expectations_checked": "replay checked {count} expectations ({failed} failed)",
    # master
    "daemon_exited": "master: {daemon} exited (status {status}); restarting it in {restart_in}s",
    # negotiator
    "matched": "negotiator matched a request of {submitter} (autocluster {autocluster}, "
               "request {request_count}, represented by {request}) to {slot}",
    # schedd
    "match_received": "schedd takes the match of {slot} for {job}",
    "claimed": "schedd claimed a slot for {job}",
    "claim_refused": "schedd: the startd refused the claim for {job}: {reason}",
    "submitted": "schedd queued cluster {cluster} ({procs} jobs)",
    "shadow_started": "schedd started the shadow of {job}",
    "shadow_exited": "schedd: the shadow of {job} exited",
    "periodic_policy": "schedd: periodic policy: {action} {job}",
    "job_requeued_after_restart": "schedd requeued {job} after its restart",
    "claim_released": "schedd released claim {claim}",
    # job_router (the original is {job}, its routed copy {dest})
    "route_candidate": "job router: {job} matches route {route}",
    "route_not_routed": "job router does not route {job}: {why}",
    "route_claimed": "job router claimed {job} (Managed = External)",
    "route_claim_failed": "job router could not claim {job}: {why}",
    "route_transform_failed": "job router: route {route} failed for {job}: {error}",
    "route_submitted": "job router submitted {dest}, the routed copy of {job}, on route {route}",
    "route_edited_in_place": "job router edited {job} in place (route {route})",
    "route_source_removed": "job router: {job} was removed; its copy {dest} goes too",
    "route_source_held": "job router: {job} was held; its copy {dest} is removed",
    "route_dest_removed": "job router: the copy {dest} of {job} was removed; {job} is idle again",
    "route_dest_finished": "job router: the copy {dest} of {job} completed",
    "route_finalized": "job router finalized {job} (success {success})",
    "route_yielded": "job router gave {job} back to the schedd (done {done})",
    "route_periodic_policy": "job router: periodic policy of {job}: {action} ({reason})",
    "route_orphan_adopted": "job router re-adopted {job} and its copy {dest}",
    "route_orphan_yielded": "job router yielded the orphan {job}",
    "route_orphan_removed": "job router removed the orphaned copy {dest} ({why})",
    "route_throttle_changed": "job router: route {route}: {change}",
    # startd
    "slot_state_changed": "{slot} is {state}/{activity} ({cause})",
    # starter
    "job_deferred": "starter: {job} waits {seconds}s for its deferral time",
    "job_within_deferral_window": "starter: {job} is within its deferral window: {message}",
    "job_missed_deferral_time": "starter: {job} missed its deferral time: {message}",
    "job_started": "starter started {job} (runs {runtime}s)",
    "job_exited": "starter: {job} exited with code {exit_code}",
    "job_killed": "starter killed {job} ({why})",
    # shadow
    "job_exit": "shadow: {job} is over (exit reason {reason}, shadow exit code {exit_code})",
    "stopping_job": "shadow stops {job} ({why})",
    "policy_fired": "shadow: {attr} is true for {job}: {reason}",
}


REPEATS_SHOWN = 3  # a sentence said more often is summed up once at the end


class _Fields(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def read_log_records(log_dir: Path, only: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Every JSON record of every daemon log in ``log_dir`` (unreadable lines skipped);
    ``only``: just these logs (``"MasterLog"``, ...). The one place that knows the logs'
    file names and format."""
    records: list[dict[str, Any]] = []
    paths = sorted(log_dir.glob("*Log")) if only is None else \
        [log_dir / name for name in only if (log_dir / name).is_file()]
    for path in paths:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("sim_time"), int | float):
                records.append(record)
    return records


def sentence(record: Mapping[str, Any]) -> str | None:
    """The narration of one log record, or None when it tells no job's story."""
    event = str(record.get("event", ""))
    fields = _Fields(record)
    if event == "scenario_action":
        fields["target"] = record.get("job") or record.get("constraint") or \
            record.get("target") or "every daemon"
    template = STORY.get(event)
    if template is not None:
        return template.format_map(fields)
    if "job" in record:
        rest = " ".join(f"{k}={v}" for k, v in record.items()
                        if k not in ("event", "daemon", "job", "sim_time", "wall_time", "level"))
        return f"{fields['daemon']}: {event} {record['job']}" + (f" {rest}" if rest else "")
    return None


def narrate_records(records: Iterable[Mapping[str, Any]], tz: str,
                    job: str | None = None) -> str:
    """The timeline of ``records`` (of one job, if given), one line each."""
    ordered = sorted(records, key=lambda r: (r["sim_time"], r.get("wall_time") or 0))
    lines = []
    seen: dict[str, int] = {}
    last: dict[str, float] = {}
    for record in ordered:
        if job is not None and str(record.get("job", "")) != job:
            continue
        text = sentence(record)
        if text is None:
            continue
        seen[text] = seen.get(text, 0) + 1
        last[text] = record["sim_time"]
        if seen[text] <= REPEATS_SHOWN:
            lines.append(f"{sim_datetime(record['sim_time'], tz)}  {text}")
    for text, count in seen.items():
        if count > REPEATS_SHOWN:
            lines.append(f"(and {count - REPEATS_SHOWN} more times, the last at "
                         f"{sim_datetime(last[text], tz)}: {text})")
    return "".join(line + "\n" for line in lines)


def narrate(run_dir: Path, tz: str, job: str | None = None) -> str:
    """The ``--explain`` timeline of the run in ``run_dir``."""
    body = narrate_records(read_log_records(run_dir / "log"), tz, job)
    return "\nWhat happened (from the daemons' logs):\n" + (body or "  nothing to tell\n")
