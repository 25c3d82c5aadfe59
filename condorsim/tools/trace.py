"""``condorsim trace JOB [--run DIR] [--mermaid]``: one job's messages between daemons.

How this works
--------------
Every process of a pool appends one JSON record per message it sends to the run's
``trace.jsonl`` (condorsim.runtime.trace): simulated time, sender, receiver, command, the
job it concerns and the ClassAd attributes it carried. This tool picks the records of one
job (``1.0``; or every job of a cluster, ``1``) from a kept replay directory
(``condorsim replay --keep DIR``) or the mini-pool at $CONDORSIM_HOME -- its whole flow,
from the submit to the history, as :mod:`condorsim.replay.jobflow` finds it -- and prints
them as a table -- simulated time in the run's time zone (SIM_TIMEZONE), ``from -> to``,
command, attributes -- or as a Mermaid ``sequenceDiagram`` (``--mermaid``) to paste into
Markdown. A tool's request, which no trace holds, shows as a dashed arrow. The job router's
decisions about the job (its ``route_*`` records in JobRouterLog: why the job was or was not
routed, and what became of it) are rows of their own (a note in Mermaid).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from condorsim import pool as poolmod
from condorsim.config import Config, ConfigError
from condorsim.replay.explain import read_log_records, sentence
from condorsim.replay.jobflow import job_flow
from condorsim.replay.progress import sim_datetime
from condorsim.runtime.trace import read_trace

USAGE = "condorsim trace JOB [--run DIR] [--mermaid]"
_JOB = re.compile(r"^\d+(\.\d+)?$")
_SHOWN_ATTRS = 8  # attribute names listed in a table row before "(+N more)"
_INFERRED = "(a tool's request: not traced, known from the reply)"


class TraceError(Exception):
    """The arguments or the run directory cannot give a trace."""


def format_table(records: Iterable[Mapping[str, Any]], tz: str) -> str:
    """One row per message: time, from -> to, command, attributes carried; a decision of
    the job router: time, ``job_router``, its log event, what it decided."""
    rows = [(sim_datetime(r["t"], tz), str(r["from"]), str(r["cmd"]), str(r["decision"]))
            if "decision" in r else
            (sim_datetime(r["t"], tz), f"{r['from']} -> {r['to']}", str(r["cmd"]),
             _INFERRED if r.get("inferred") else _attrs(r.get("attrs") or []))
            for r in records]
    if not rows:
        return ""
    header = ("TIME", "FROM -> TO", "COMMAND", "ATTRIBUTES")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < 3 else cell
                       for i, cell in enumerate(row)).rstrip() for row in [header, *rows]]
    return "\n".join(lines) + "\n"


def _attrs(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN_ATTRS])
    return shown if len(names) <= _SHOWN_ATTRS else f"{shown} (+{len(names) - _SHOWN_ATTRS} more)"


def format_mermaid(records: Iterable[Mapping[str, Any]], tz: str, title: str) -> str:
    """A Mermaid sequenceDiagram of the messages, participants in order of appearance."""
    records = list(records)
    ids: dict[str, str] = {}
    for r in records:
        for name in (r["from"], r["to"]):
            ids.setdefault(name, re.sub(r"[^A-Za-z0-9_]", "_", name))
    lines = ["sequenceDiagram", f"    title {title}"]
    lines += [f"    participant {ident} as {name}" for name, ident in ids.items()]
    last_time = None
    for r in records:
        when = sim_datetime(r["t"], tz)
        if when != last_time:
            first = next(iter(ids.values()))
            lines.append(f"    Note over {first}: {when}")
            last_time = when
        if "decision" in r:  # Mermaid ends a statement at ";"
            lines.append(f"    Note over {ids[r['from']]}: {str(r['decision']).replace(';', ',')}")
            continue
        arrow = "-->>" if r.get("inferred") else "->>"
        lines.append(f"    {ids[r['from']]}{arrow}{ids[r['to']]}: {r['cmd']}")
    return "\n".join(lines) + "\n"


def router_decisions(run_dir: Path, job: str) -> list[dict[str, Any]]:
    """The job router's decisions about the job, from its JobRouterLog: why it was or was
    not routed (no route's REQUIREMENTS match it, a route full, its idle cap, its throttle,
    JOB_ROUTER_MAX_JOBS), claimed, mirrored, finalized, given back -- every ``route_*``
    record naming the job as the original (``job``) or as its routed copy (``dest``)."""
    def of_job(value: object) -> bool:
        text = str(value or "")
        return text == job or ("." not in job and text.split(".")[0] == job)

    out: list[dict[str, Any]] = []
    for r in read_log_records(run_dir / "log", only=["JobRouterLog"]):
        if str(r.get("event", "")).startswith("route_") and \
                (of_job(r.get("job")) or of_job(r.get("dest"))):
            out.append({"t": r["sim_time"], "from": "job_router", "to": "job_router",
                        "cmd": r["event"], "decision": sentence(r) or r["event"]})
    return sorted(out, key=lambda r: float(r["t"]))


def run_timezone(run_dir: Path) -> str:
    """SIM_TIMEZONE of the run's condor_config (UTC when unset or unreadable)."""
    path = run_dir / "condor_config"
    if not path.exists():
        return "UTC"
    try:
        return Config.load(path, env={}).get("SIM_TIMEZONE") or "UTC"
    except ConfigError:
        return "UTC"


def trace_text(job: str, run_dir: Path, *, mermaid: bool) -> str:
    """What ``condorsim trace`` prints."""
    if not _JOB.match(job):
        raise TraceError(f"{job!r} is not a job id (expected cluster.proc, like 1.0, or cluster)")
    path = run_dir / "trace.jsonl"
    if not path.exists():
        raise TraceError(f"no trace at {path} (start a pool with `condorsim up`, or keep a "
                         "replay's run with `condorsim replay FILE --keep DIR` and give "
                         "`--run DIR`)")
    try:
        records = job_flow(read_trace(path), job, run_dir)
    except (ValueError, KeyError) as e:
        raise TraceError(f"{path} is not a trace: {e}") from None
    decisions = router_decisions(run_dir, job)
    if not records and not decisions:
        raise TraceError(f"no message of job {job} in {path}")
    # in time order, by the second shown; within a second, the order they were sent in (the
    # processes of a wall-clock pool append to the trace at slightly different times), the
    # router's decisions before the messages they led to
    records = sorted([*decisions, *records], key=lambda r: int(float(r["t"])))
    tz = run_timezone(run_dir)
    if mermaid:
        return format_mermaid(records, tz, f"job {job}")
    return format_table(records, tz)


def main(argv: list[str]) -> int:
    """Entry point of ``condorsim trace``."""
    p = argparse.ArgumentParser(prog="condorsim trace", usage=USAGE,
                                description="One job's ClassAd flow between the daemons, "
                                            "from its submit to its history.")
    p.add_argument("job", help="cluster.proc (1.0), or a cluster (1) for all its jobs")
    p.add_argument("--run", type=Path, metavar="DIR",
                   help="a kept replay directory (default: the pool at $CONDORSIM_HOME)")
    p.add_argument("--mermaid", action="store_true", help="a Mermaid sequenceDiagram")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0) and 2
    run_dir = args.run if args.run is not None else poolmod.pool_home()
    try:
        sys.stdout.write(trace_text(args.job, run_dir, mermaid=args.mermaid))
    except TraceError as e:
        print(f"condorsim trace: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
