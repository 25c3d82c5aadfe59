"""``condorsim router_q`` and ``condorsim router_history``: HTCondor's condor_router_q (a shell
wrapper of condor_q) and condor_router_history (a Python script over the history files).

How this works
--------------
router_q builds the constraint ``RouteName =!= UNDEFINED`` (routed copies) plus what its
options add, then either shows the jobs as ``condorsim q -constraint ...`` does, or (``-S``,
``-R``, ``-I``, ``-H``) the summary its awk pipeline prints: a header
``printf("%7s %2s %-20s %s\\n","JOBS","ST","Route","GridResource")`` and, for each distinct
``"%2s %-20s %s"`` line of (status letter, RouteName, GridResource), ``uniq -c``'s count
(``%7d``) and the line, sorted as ``sort | uniq -c | sort -k 3`` sorts them (byte order).

router_history reads every ``$(SPOOL)/history*`` file (it works with the pool down, on a
kept replay's directory too), keeps the ads with a RouteName whose CompletionDate lies in the
report's period (the last day by default; ``--age``, ``--days``, ``--start``) and prints the
summary of completed hours and jobs and aborted runs per route, or ``--show_records``.
:func:`format_router_summary` and :func:`format_router_history` are pure (tests compare
their text byte for byte with the awk pipeline's and the script's).
"""

from __future__ import annotations

import getopt
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from condorsim import pool as poolmod
from condorsim.classad import ClassAd
from condorsim.wire import messages as m

from .common import ToolError
from .jobs import UsageError, _ask, _run

ROUTER_Q_USAGE = """\
USAGE: condorsim router_q [router_q options] [condor_q options]

This is a convenience wrapper around condor_q for viewing
jobs being managed by the condor job router.

router_q options:
  -S             summarize state of jobs on each route
  -R             summarize running jobs on each route
  -I             summarize idle jobs on each route
  -H             summarize held jobs on each route
  -route <name>  show only jobs on specified route
  -idle          show only idle jobs
  -held          show only held jobs
  -constraint X  show jobs matching specified constraint
"""

ROUTER_HISTORY_USAGE = """
USAGE: condor_router_history [OPTIONS]
 --show_records             (show individual records in addition to summary)
 --show_iwd                 (when showing records, include working directory)
 --age=<days>               (how many days ago end time should be)
 --days=<days>              (how many days report should cover)
 --start="YYYY-MM-DD HH:MM" (date of start time of report)
"""

_LETTERS = {0: "U", 1: "I", 2: "R", 3: "X", 4: "C", 5: "H", 6: "E"}


def _text(ad: ClassAd, attr: str) -> str:
    """What condor_q -f "%s" prints of an attribute: a string as is, else its value."""
    value = ad.evaluate(attr)
    if isinstance(value, str):
        return value
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) in (int, float):
        return str(value)
    return ""


def format_router_summary(ads: Iterable[ClassAd]) -> str:
    """The -S/-R/-I/-H summary, as condor_router_q's awk pipeline prints it."""
    lines = []
    for ad in ads:
        status = ad.evaluate("JobStatus")
        letter = _LETTERS.get(status, str(status)) if type(status) is int else ""
        lines.append(f"{letter:>2} {_text(ad, 'RouteName'):<20} {_text(ad, 'GridResource')}")
    counted: list[str] = []
    for line, n in sorted(Counter(lines).items(), key=lambda item: item[0].encode()):
        counted.append(f"{n:7d} {line}")
    counted.sort(key=lambda line: (_from_field(line, 3).encode(), line.encode()))
    head = f"{'JOBS':>7} {'ST':>2} {'Route':<20} GridResource\n"
    return head + "".join(line + "\n" for line in counted)


def _from_field(line: str, field: int) -> str:
    """``sort -k N``'s key: the line from the start of its N-th field, where (with no -t) a
    field is a run of non-blanks with the blanks before it."""
    runs = 0
    previous_blank = True
    for at, ch in enumerate(line):
        blank = ch in " \t"
        if previous_blank and not blank:
            runs += 1
            if runs == field:
                start = at
                while start > 0 and line[start - 1] in " \t":
                    start -= 1
                return line[start:]
        previous_blank = blank
    return ""


def router_q_main(argv: list[str]) -> int:
    """condor_router_q."""
    def body() -> int:
        constraint = "RouteName =!= UNDEFINED"
        summary = False
        args = list(argv)
        while args:
            a = args[0]
            if a == "-S":
                summary = True
            elif a == "-R":
                summary, constraint = True, constraint + " && JobStatus == 2"
            elif a == "-I":
                summary, constraint = True, constraint + " && JobStatus != 2"
            elif a == "-H":
                summary, constraint = True, constraint + " && JobStatus == 5"
            elif a == "-idle":
                constraint += " && JobStatus == 1"
            elif a == "-held":
                constraint += " && JobStatus == 5"
            elif a in ("-constraint", "-route", "-site"):
                if len(args) < 2:
                    raise UsageError(f"{a} needs an argument")
                value = args[1]
                constraint += f" && ({value})" if a == "-constraint" else \
                    f' && RouteName =?= "{value}"'
                args.pop(0)
            elif a in ("-h", "-help", "--help"):
                print(ROUTER_Q_USAGE, end="")
                return 0
            else:
                break
            args.pop(0)
        if summary:
            _, _, reply = _ask(m.QUERY_JOB_ADS(constraint=constraint, projection=[
                "JobStatus", "RouteName", "GridResource"]))
            if not isinstance(reply, m.QUERY_RESULT):
                raise ToolError(reply.reason if isinstance(reply, m.FAILED) else "no answer")
            sys.stdout.write(format_router_summary(reply.ads))
            return 0
        from .q import main as q_main

        return q_main(["-constraint", constraint, "-allusers", *args])
    return _run("condorsim router_q", body)


# -- router_history -----------------------------------------------------------------------------
def read_history_records(path: Path) -> dict[str, dict[str, str]]:
    """ReadHistoryFile: ``attr = value`` lines (names lower-cased, values as written) up to
    each ``***`` banner, keyed by "cluster.proc"; a later ad of the same job replaces it."""
    ads: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}

    def keep() -> None:
        cluster, proc = current.get("clusterid"), current.get("procid")
        if cluster and proc:
            ads[f"{cluster}.{proc}"] = current

    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("***"):
                keep()
                current = {}
                continue
            name, eq, value = line.partition("=")
            if eq:
                current[name.lower().strip()] = value.strip()
    keep()
    return ads


def format_router_history(ads: dict[str, dict[str, str]], start: float, end: float, tz: str,
                          *, show_records: bool = False, show_iwd: bool = False) -> str:
    """condor_router_history's report of ``ads`` (from :func:`read_history_records`)."""
    zone = ZoneInfo(tz)
    out = [f"Routed job history from {datetime.fromtimestamp(start, zone):%Y-%m-%d %H:%M} to "
           f"{datetime.fromtimestamp(end, zone):%Y-%m-%d %H:%M}\n", "\n"]
    if show_records:
        out.append("JobID Status Site Runtime " + ("IWD " if show_iwd else "") + "\n")
    hours: dict[str, dict[str, float]] = {}
    jobs: dict[str, dict[str, int]] = {}
    for job_id, ad in ads.items():
        route = ad.get("routename") or ad.get("routedfromroute")
        if not route:
            continue
        route = route.replace('"', "")
        try:
            completed = float(ad.get("completiondate", ""))
            status = int(ad.get("jobstatus", ""))
        except ValueError:
            continue  # no CompletionDate (a removed copy): HTCondor's script would crash
        if not start <= completed <= end:
            continue
        code = "UIRXCHE"[status] if 0 <= status < 7 else "?"
        try:
            walltime = round(float(ad.get("remotewallclocktime", "0")))
        except ValueError:
            walltime = 0
        route_hours = hours.setdefault(route, {})
        route_hours[code] = route_hours.get(code, 0.0) + walltime / 3600
        route_jobs = jobs.setdefault(route, {})
        route_jobs[code] = route_jobs.get(code, 0) + 1
        if show_records:
            iwd = ad.get("submit_iwd", "")
            if len(iwd) > 1 and iwd[0] == '"' and iwd[-1] == '"':
                iwd = iwd[1:-1]
            out.append(f"{job_id} {code} {route} {walltime} " +
                       (f"{iwd} " if show_iwd else "") + "\n")
    if not show_records:
        out.append(_summary(hours, jobs))
    return "".join(out)


def _summary(hours: dict[str, dict[str, float]], jobs: dict[str, dict[str, int]]) -> str:
    """ShowSummary: routes by completed hours, highest first, then TOTAL."""
    total_hours: dict[str, float] = {}
    total_jobs: dict[str, int] = {}
    for route in hours:
        for code, h in hours[route].items():
            total_hours[code] = total_hours.get(code, 0.0) + h
        for code, n in jobs[route].items():
            total_jobs[code] = total_jobs.get(code, 0) + n
    order = sorted(hours, key=lambda r: (-hours[r].get("C", 0.0), r))
    lines = [f"{'Site':<15} {'Hours':>5} {'Jobs':>7} {'Runs':>7}\n",
             f"{'':<15} {'':>5} {'Completed':>7} {'Aborted':>5}\n",
             "-" * 55 + "\n"]

    def row(name: str, h: dict[str, float], n: dict[str, int]) -> str:
        aborted = sum(count for code, count in n.items() if code != "C")
        return f"{name:<15} {round(h.get('C', 0)):>5} {n.get('C', 0):>7} {aborted:>5}\n"

    for route in order:
        lines.append(row(route, hours[route], jobs[route]))
    lines.append("-" * 55 + "\n")
    lines.append(row("TOTAL", total_hours, total_jobs))
    return "".join(lines)


def _spool(home: Path) -> Path:
    from condorsim.config import Config, ConfigError

    config_path = home / "condor_config"
    try:
        config = Config.load(config_path if config_path.exists() else None)
    except ConfigError as e:
        raise ToolError(str(e)) from None
    spool = config.get("SPOOL") or str(home / "spool")
    return Path(spool)


_HISTORY_OPTIONS = ["help", "show_records", "days=", "age=", "start=", "show_iwd"]


def router_history_main(argv: list[str]) -> int:
    """condor_router_history: its options parsed as its script parses them (getopt: ``--age
    2`` or ``--age=2``, unambiguous prefixes such as ``--show_r``)."""
    end = float(poolmod.pool_time())
    period = 86400.0
    start: float | None = None
    show_records = show_iwd = False
    tz = os.environ.get("TZ") or "UTC"
    if "-help" in argv:  # -help too, as every condorsim command answers it
        sys.stderr.write(ROUTER_HISTORY_USAGE)
        return 0
    try:
        options, _ = getopt.getopt(argv, "h", _HISTORY_OPTIONS)
        for name, value in options:
            if name in ("--help", "-h"):
                sys.stderr.write(ROUTER_HISTORY_USAGE)
                return 0
            if name == "--age":
                end = float(poolmod.pool_time()) - 86400 * float(value)
            elif name == "--start":
                start = datetime.strptime(value, "%Y-%m-%d %H:%M").replace(
                    tzinfo=ZoneInfo(tz)).timestamp()
            elif name == "--days":
                period = 86400 * float(value)
            elif name == "--show_records":
                show_records = True
            elif name == "--show_iwd":
                show_iwd = True
    except (getopt.GetoptError, ValueError) as e:
        sys.stderr.write(f"Command line argument error: {e}\n")
        sys.stderr.write(ROUTER_HISTORY_USAGE)
        return 1
    if start is None:
        start = end - period
    try:
        spool = _spool(poolmod.pool_home())
    except ToolError as e:
        print(f"condorsim router_history: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(format_router_history(read_history_dir(spool), start, end, tz,
                                           show_records=show_records, show_iwd=show_iwd))
    return 0


def read_history_dir(spool: Path) -> dict[str, dict[str, str]]:
    """Every ``history*`` file of the spool directory, read as the script reads them.

    HTCondor's script skips the files last changed before the report's start, a shortcut
    that never changes its report (a job that completed in the period was written to its
    file after the period began). Here the records carry the pool's simulated time and the
    files the host's, which differ (a replay of a past or future date, a pool at SIM_SPEED
    30), so every file is read: the report is the one the shortcut would give with one
    clock."""
    ads: dict[str, dict[str, str]] = {}
    if spool.is_dir():
        for path in sorted(spool.iterdir()):
            if path.name.startswith("history") and path.is_file():
                ads.update(read_history_records(path))
    return ads


__all__: Sequence[str] = ("format_router_history", "format_router_summary",
                          "read_history_dir", "read_history_records", "router_history_main", "router_q_main")
