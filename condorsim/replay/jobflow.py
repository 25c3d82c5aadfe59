"""Which messages of a trace belong to which job: a job's ClassAd flow, submit to history.

How this works
--------------
A ``trace.jsonl`` record names a job (``job``) only when the message carries that job's
ad or id. The rest of a job's story is recovered here, from the trace and what the run
directory keeps beside it:

1. **the submit**: the schedd logs ``submitted`` (``cluster``, ``procs``) right before it
   answers ``SUBMIT_RESULT``, so the n-th SUBMIT_RESULT of the trace is the n-th
   ``submitted`` of ``log/SchedLog`` (same simulated second, or the pairing stops). The
   first RESCHEDULE the schedd sends after that submit (after its next collector update)
   belongs to the same jobs;
2. **the negotiation**: a match (PERMISSION_AND_AD) is for a resource request -- an
   autocluster -- and the schedd picks the job it claims the slot for, at once: the
   schedd's REQUEST_CLAIM (which carries the job) follows its oldest unclaimed
   PERMISSION_AND_AD of the same second (``matched`` in the negotiator's log names only
   the autocluster's representative job). The job's part of that conversation is the
   NEGOTIATE, the SEND_RESOURCE_REQUEST_LIST / RESOURCE_REQUEST_LIST that carried its
   request, its PERMISSION_AND_AD and the END_NEGOTIATE;
3. **the starter's messages to the startd**: it sends STARTER_UPDATE with the same ad
   right after each REGISTER_JOB_INFO, and STARTER_EXITED after JOB_EXIT, so each pairs
   with the earliest unpaired one of the same starter;
4. **replies**: a reply (OK, FAILED, SUBMIT_RESULT, CLAIM_RESPONSE, ...) from B to A
   answers the oldest unanswered request from A to B that it can answer; both belong to
   the jobs either belongs to;
5. **the history**: ``spool/history`` (the schedd, when the job left the queue) and
   ``spool/startd_history`` (the startd, when the claim was deactivated) give one
   ``history`` row each, with the attributes of the ad written.

Several jobs can share a message (a RESOURCE_REQUEST_LIST of several autoclusters, a
cluster's SUBMIT_JOBS), so each record gets a set of jobs. The pairings are exact while
each daemon sends in the order it logs; they are documented in docs/replay.md.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from condorsim.classad import ClassAd, ClassAdError

from .explain import read_log_records

__all__ = ["attribute_jobs", "history_ads", "history_records", "job_flow", "job_id", "select_job",
           "with_untraced_requests"]

Record = Mapping[str, Any]

# reply command -> the requests it can answer (None: any request)
_ANSWERS: Final[dict[str, frozenset[str] | None]] = {
    "SUBMIT_RESULT": frozenset({"SUBMIT_JOBS"}),
    "ACT_RESULT": frozenset({"ACT_ON_JOBS", "QEDIT"}),
    "CLAIM_RESPONSE": frozenset({"REQUEST_CLAIM"}),
    "SHADOW_UPDATE_REPLY": frozenset({"SHADOW_UPDATE"}),
    "RESOURCE_REQUEST_LIST": frozenset({"SEND_RESOURCE_REQUEST_LIST"}),
    "NO_MORE_JOBS": frozenset({"SEND_RESOURCE_REQUEST_LIST"}),
    "QUERY_RESULT": None,
    "OK": None,
    "FAILED": None,
}
# messages that get no reply (docs/protocol.md)
_ONE_WAY_PREFIXES: Final = ("UPDATE_", "INVALIDATE_", "SIM_", "DC_")
_ONE_WAY: Final = frozenset({
    "RESCHEDULE", "NEGOTIATE", "PERMISSION_AND_AD", "REJECTED_WITH_REASON", "END_NEGOTIATE",
    "REGISTER_STARTER_INFO", "REGISTER_JOB_INFO", "STARTER_UPDATE", "BEGIN_EXECUTION",
    "STARTER_EXITED",
})


_MAX_UNANSWERED: Final = 64  # requests between two daemons still waiting for a reply


def _expects_reply(cmd: str) -> bool:
    return cmd not in _ANSWERS and cmd not in _ONE_WAY and not cmd.startswith(_ONE_WAY_PREFIXES)


def _daemon(name: str) -> str:
    return name.split("@", 1)[0]


def _same_time(logged: float, sent: float) -> bool:
    """A log record and the message sent right after it, by one process: the same
    simulated second (a wall-clock pool's times have fractions)."""
    return abs(float(logged) - float(sent)) < 1.0


def _events(logs: Iterable[Record], daemon: str, event: str) -> deque[Record]:
    chosen = [r for r in logs if r.get("daemon") == daemon and r.get("event") == event]
    chosen.sort(key=lambda r: (r["sim_time"], r.get("wall_time") or 0))
    return deque(chosen)


# replies whose request can only be one command: a tool's request is not in the trace
_ONLY_REQUEST: Final = {"SUBMIT_RESULT": "SUBMIT_JOBS", "CLAIM_RESPONSE": "REQUEST_CLAIM"}


def with_untraced_requests(records: Sequence[Record]) -> list[Record]:
    """``records`` with the requests of tools put back before their replies.

    A tool (``condorsim submit``, ...) is not part of the pool and writes no trace, but
    the daemon's reply to it is traced: a SUBMIT_RESULT to ``tool`` means a SUBMIT_JOBS
    came just before. The request is added (marked ``"inferred": true``, no attributes)
    for the replies that answer one command only.
    """
    out: list[Record] = []
    asked: dict[tuple[str, str, str], int] = {}
    for r in records:
        cmd, sender, receiver = str(r["cmd"]), str(r["from"]), str(r["to"])
        request = _ONLY_REQUEST.get(cmd)
        if request is not None:
            key = (receiver, sender, request)
            if asked.get(key, 0) > 0:
                asked[key] -= 1
            elif _daemon(receiver) == "tool":
                out.append({"t": r["t"], "from": receiver, "to": sender, "cmd": request,
                            "job": None, "attrs": [], "inferred": True})
        elif cmd in _ONLY_REQUEST.values():
            key = (sender, receiver, cmd)
            asked[key] = asked.get(key, 0) + 1
        out.append(r)
    return out


def attribute_jobs(records: Sequence[Record], logs: Iterable[Record] = ()) -> list[set[str]]:
    """The jobs (``"cluster.proc"``) each trace record belongs to, in the same order.

    ``logs`` are the daemons' log records (:func:`condorsim.replay.explain.read_log_records`);
    without them, submits are not attributed.
    """
    logs = list(logs)
    jobs: list[set[str]] = [{r["job"]} if r.get("job") else set() for r in records]
    _submits(records, jobs, _events(logs, "schedd", "submitted"))
    _negotiations(records, jobs)
    _starter_followers(records, jobs)
    _replies(records, jobs)
    return jobs


def _submits(records: Sequence[Record], jobs: list[set[str]], submitted: deque[Record]) -> None:
    # schedd -> the jobs submitted since its last RESCHEDULE: the schedd sends one, after its
    # next collector update (no sooner than SCHEDD_MIN_INTERVAL), for every submit before it
    reschedule_for: dict[str, set[str]] = {}
    for i, r in enumerate(records):
        cmd, sender = r["cmd"], str(r["from"])
        if cmd == "SUBMIT_RESULT" and _daemon(sender) == "schedd" and submitted:
            event = submitted[0]
            if not _same_time(event["sim_time"], r["t"]):
                submitted.clear()  # the log and the trace disagree: attribute no more
                continue
            submitted.popleft()
            cluster, procs = event.get("cluster"), event.get("procs")
            if isinstance(cluster, int) and isinstance(procs, int):
                jobs[i] |= {f"{cluster}.{p}" for p in range(procs)}
                reschedule_for.setdefault(sender, set()).update(jobs[i])
        elif cmd == "RESCHEDULE" and sender in reschedule_for:
            jobs[i] |= reschedule_for.pop(sender)


def _negotiations(records: Sequence[Record], jobs: list[set[str]]) -> None:
    """A PERMISSION_AND_AD is the match of the job whose REQUEST_CLAIM the schedd sends next
    (within a second: a match the schedd finds no job for is dropped)."""
    matches: dict[str, deque[int]] = {}  # schedd -> its unclaimed PERMISSION_AND_ADs
    for i, r in enumerate(records):
        if r["cmd"] == "PERMISSION_AND_AD":
            matches.setdefault(str(r["to"]), deque()).append(i)
            continue
        if r["cmd"] != "REQUEST_CLAIM" or not r.get("job"):
            continue
        waiting = matches.get(str(r["from"]), deque())
        while waiting and float(records[waiting[0]]["t"]) < float(r["t"]) - 1.0:
            waiting.popleft()
        if waiting:
            _conversation(records, jobs, waiting.popleft(), str(r["job"]))


def _conversation(records: Sequence[Record], jobs: list[set[str]], match: int,
                  job: str) -> None:
    """The job's part of the negotiation of PERMISSION_AND_AD ``match``: the NEGOTIATE
    before it, the last request list before it, and the END_NEGOTIATE after it."""
    negotiator, schedd = records[match]["from"], records[match]["to"]
    jobs[match].add(job)
    wanted = {"SEND_RESOURCE_REQUEST_LIST": (negotiator, schedd),
              "RESOURCE_REQUEST_LIST": (schedd, negotiator),
              "NEGOTIATE": (negotiator, schedd)}
    for j in range(match - 1, -1, -1):
        cmd = records[j]["cmd"]
        if wanted.get(cmd) == (records[j]["from"], records[j]["to"]):
            jobs[j].add(job)
            del wanted[cmd]
            if cmd == "NEGOTIATE":
                break
    for j in range(match + 1, len(records)):
        if records[j]["cmd"] == "END_NEGOTIATE" and \
                (records[j]["from"], records[j]["to"]) == (negotiator, schedd):
            jobs[j].add(job)
            break


def _starter_followers(records: Sequence[Record], jobs: list[set[str]]) -> None:
    """STARTER_UPDATE follows REGISTER_JOB_INFO, STARTER_EXITED follows JOB_EXIT."""
    leader = {"STARTER_UPDATE": "REGISTER_JOB_INFO", "STARTER_EXITED": "JOB_EXIT"}
    pending: dict[tuple[str, str], deque[set[str]]] = {}
    for i, r in enumerate(records):
        cmd, sender = r["cmd"], str(r["from"])
        if cmd in leader.values() and jobs[i]:
            pending.setdefault((sender, cmd), deque()).append(jobs[i])
        elif cmd in leader:
            queue = pending.get((sender, leader[cmd]))
            if queue:
                jobs[i] |= queue.popleft()


def _replies(records: Sequence[Record], jobs: list[set[str]]) -> None:
    pending: dict[tuple[str, str], list[int]] = {}
    pairs: list[tuple[int, int]] = []
    for i, r in enumerate(records):
        cmd = str(r["cmd"])
        if cmd in _ANSWERS:
            waiting = pending.get((r["to"], r["from"]), [])
            answers = _ANSWERS[cmd]
            for k, j in enumerate(waiting):
                if answers is None or records[j]["cmd"] in answers:
                    pairs.append((j, i))
                    del waiting[k]
                    break
        if _expects_reply(cmd):
            waiting = pending.setdefault((r["from"], r["to"]), [])
            waiting.append(i)
            if len(waiting) > _MAX_UNANSWERED:  # a daemon died under them: forget the oldest
                del waiting[0]
    for request, reply in pairs:
        both = jobs[request] | jobs[reply]
        jobs[request] |= both
        jobs[reply] |= both


def _banner_value(words: list[str], name: str) -> str:
    """``value`` of ``name = value`` in a history banner's words ("" when absent)."""
    if name in words[:-2]:
        return words[words.index(name) + 2]
    return ""


def _read_history(path: Path, job: str | None) -> list[tuple[ClassAd, int]]:
    """(ad, CompletionDate of the banner) of each entry of a history file, oldest first;
    with ``job``, only the entries whose banner names it (or a job of the cluster)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    entries: list[tuple[ClassAd, int]] = []
    current: list[str] = []
    for line in text.splitlines():
        if not line.startswith("*** "):
            current.append(line)
            continue
        words = line.split()
        named = f"{_banner_value(words, 'ClusterId')}.{_banner_value(words, 'ProcId')}"
        when = _banner_value(words, "CompletionDate")
        if job is None or select_job(job, {named}):
            try:
                entries.append((ClassAd.parse_old("\n".join(current)),
                                int(when) if when.lstrip("-").isdigit() else -1))
            except ClassAdError:
                pass
        current = []
    return entries


def job_id(ad: ClassAd) -> str | None:
    """``"cluster.proc"`` of a job ad, or None when it has no integer ids."""
    cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
    if type(cluster) is int and type(proc) is int:
        return f"{cluster}.{proc}"
    return None


def history_ads(run_dir: Path) -> list[ClassAd]:
    """Every job ad of the schedd's ``spool/history``, oldest first."""
    return [ad for ad, _ in _read_history(run_dir / "spool" / "history", None)]


def history_records(run_dir: Path, job: str | None = None) -> list[dict[str, Any]]:
    """One ``history`` row per ad written to ``spool/history`` (from ``schedd``, at the
    job's CompletionDate, else EnteredCurrentStatus) and ``spool/startd_history`` (from
    ``startd``, at the time of its banner); with ``job``, only that job's (or cluster's),
    the others not even parsed."""
    rows: list[dict[str, Any]] = []
    for name, sender in (("history", "schedd"), ("startd_history", "startd")):
        for ad, banner_time in _read_history(run_dir / "spool" / name, job):
            this = job_id(ad)  # not ``job``: the next file is filtered by it too
            if this is None:
                continue
            t = banner_time
            if sender == "schedd":
                for attr in ("CompletionDate", "EnteredCurrentStatus"):
                    value = ad.evaluate(attr)
                    if type(value) is int and value > 0:
                        t = value
                        break
            if t <= 0:
                continue
            rows.append({"t": t, "from": sender, "to": "history", "cmd": "HISTORY",
                         "job": this, "attrs": sorted(ad.keys(), key=str.lower)})
    return rows


def select_job(job: str, jobs: Iterable[str]) -> bool:
    """Whether ``jobs`` holds job ``"c.p"``, or a job of cluster ``"c"``."""
    if "." in job:
        return job in jobs
    return any(j.split(".", 1)[0] == job for j in jobs)


def job_flow(records: Sequence[Record], job: str, run_dir: Path | None = None) -> list[Record]:
    """The records of job ``"c.p"`` (or of every job of cluster ``"c"``) in trace order,
    with the history rows, using the logs and spool of ``run_dir`` when given."""
    return job_flows(records, [job], run_dir)[job]


def job_flows(records: Sequence[Record], jobs: Iterable[str], run_dir: Path | None = None,
              logs: Iterable[Record] | None = None) -> dict[str, list[Record]]:
    """:func:`job_flow` of several jobs, the trace attributed once; ``logs`` are the
    daemons' log records when the caller has them already."""
    if logs is None:
        logs = read_log_records(run_dir / "log") if run_dir is not None else []
    records = with_untraced_requests(records)
    owners = attribute_jobs(records, logs)
    return {job: _with_history(
        [(r, js) for r, js in zip(records, owners, strict=True) if select_job(job, js)],
        job, run_dir) for job in jobs}


def _with_history(flow: list[tuple[Record, set[str]]], job: str,
                  run_dir: Path | None) -> list[Record]:
    if run_dir is None:
        return [r for r, _ in flow]
    for row in history_records(run_dir, job):
        if not select_job(job, {row["job"]}):
            continue
        place = len(flow)
        while place > 0 and flow[place - 1][0]["t"] > row["t"]:
            place -= 1
        # the startd writes it as the claim is deactivated (STARTER_EXITED), the schedd
        # as it takes the shadow's final SHADOW_EXIT (and answers it)
        after, sender = ("STARTER_EXITED", "to") if row["from"] == "startd" else \
            ("SHADOW_EXIT", "to")
        last = [k for k, (r, js) in enumerate(flow) if r["cmd"] == after and row["job"] in js
                and abs(float(r["t"]) - row["t"]) < 2.0]
        if last:
            place = last[-1] + 1
            row["from"] = str(flow[last[-1]][0][sender])
            exit_msg = flow[last[-1]][0]
            if after == "SHADOW_EXIT":  # after the schedd's answer to it
                place = next((k + 1 for k in range(place, len(flow))
                              if flow[k][0]["from"] == exit_msg["to"]
                              and flow[k][0]["to"] == exit_msg["from"]
                              and flow[k][0]["cmd"] in ("OK", "FAILED")), place)
        flow.insert(place, (row, {row["job"]}))
    return [r for r, _ in flow]
