"""``condorsim history``: condor_history, reading the history file itself.

How this works
--------------
As condor_history does by default, the tool reads the schedd's history file (the pool's
``HISTORY`` knob, else ``$(SPOOL)/history``) directly, so it works with the pool down;
``-file FILE`` reads another history file and ``-userlog FILE`` rebuilds the jobs of a
user log (:mod:`.userlogads`). Jobs are shown newest first (``-forwards``: oldest first),
at most ``-match``/``-limit`` of them, those matching the ``-constraint`` expressions
(ANDed) and the job ids and owners given (ORed).

The default table is ``init_default_custom_format`` of HTCondor's ``history.cpp``: `` ID``
(the job id, left, 7 wide), OWNER, SUBMITTED, RUN_TIME (RemoteWallClockTime, blank when
0), ST, COMPLETED, CMD (the full ``Cmd`` and its arguments). The headings are printed
before the first job, so a column that widens for a long value widens from that row on,
as condor_history streams its rows. ``-long``/``-json``, ``-af``,
``-format`` and ``-attributes`` work as in condor_q. condor_history cuts rows at the
terminal's width less one, and at 1024 columns when the output is not a terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from condorsim import pool as poolmod
from condorsim.classad import ClassAd, ClassAdError, EvalContext, parse_expr

from . import qrender as r
from .adfiles import AdWriter, project
from .cliargs import ToolArgs, read_args
from .columns import combine, parse_af_options
from .fmt import format_date, tool_zone
from .printmask import Column, PrintMask
from .q import Columns, build_constraint

USAGE = """\
Usage: condorsim history [source] [restriction-list] [options]
    [source] can be one of
\t-file <file>\t\tRead history data from specified file
\t-userlog <file>\t\tRead job data from specified userlog file
\t(default: the pool's history file, $(SPOOL)/history)
    [restriction-list] can be one or more of
\t<cluster>\t\tGet information about specific cluster
\t<cluster>.<proc>\tGet information about specific job
\t<owner>\t\t\tGet information about jobs owned by <owner>
\t-constraint <expr>\tGet information about jobs that match <expr>
    [options] are
\t-help\t\t\tDisplay this message
\t-match <num>\t\tLimit the number of jobs displayed (also -limit)
\t-backwards\t\tList jobs in reverse chronological order (the default)
\t-forwards\t\tList jobs in chronological order
\t-long\t\t\tVerbose output (entire ClassAds)
\t-json\t\t\tEntire ClassAds as a JSON list
\t-attributes X,Y,...\tAttributes to show in -long or -json
\t-wide\t\t\tDon't truncate fields to fit into 80 columns
\t-format <fmt> <attr>\tPrint attribute with a format specifier
\t-af[:jlhVr,tng] <attr> [attr2 [...]]
\t\t\t\tPrint attr(s) with automatic formatting
"""


def parser() -> ToolArgs:
    """condor_history's options, in its order."""
    t = ToolArgs("condorsim history")
    flag: dict[str, Any] = {"action": "store_true"}
    t.option("long", 1, **flag)
    t.option("xml", 3, **flag)
    t.option("jsonl", 5, **flag)
    t.option("json", 4, **flag)
    t.option("backwards", 1, **flag)
    t.option("nobackwards", 3, aliases=[("forwards", 4)], dest="forwards", **flag)
    t.option("wide", 1, colon=True, **flag)
    t.option("match", 1, aliases=[("limit", 3)], type=int, dest="match")
    t.option("scanlimit", 4, type=int)
    t.option("file", 2)
    t.option("userlog", 1)
    t.option("local", 2, **flag)
    t.option("startd", 3, **flag)
    t.option("schedd", 3, **flag)
    t.option("stream-results", 6, colon=True, **flag)
    t.option("attributes", 2)
    t.option("help", 1, **flag)
    t.option("format", 1, nargs=2, action=Columns, dest="columns")
    t.option("autoformat", 5, aliases=[("af", 2)], colon="af", nargs="+", action=Columns,
             dest="columns")
    t.option("constraint", 1, action="append", default=[])
    t.option("since", 4)
    t.option("completedsince", 3)
    t.option("name", 1)
    t.option("pool", 1)
    return t


def history_path(home: Path) -> Path:
    """The pool's history file: ``HISTORY``, else ``$(SPOOL)/history``."""
    config = home / "condor_config"
    if config.is_file():
        from condorsim.config import Config, ConfigError

        try:
            loaded = Config.load(config, subsystem="SCHEDD")
        except ConfigError:
            loaded = None
        if loaded is not None:
            value = loaded.get("HISTORY") or str(Path(loaded.get("SPOOL") or home / "spool")
                                                 / "history")
            path = Path(value)
            return path if path.is_absolute() else home / path
    return home / "spool" / "history"


def default_columns(tz: str, wide: bool) -> list[Column]:
    """condor_history's default table (``init_default_custom_format``)."""
    extra: dict[str, Any] = {"notruncate": True, "autowidth": True} if wide else {}
    return [
        Column("ClusterId", " ID", -7, fmt=None, render=r.render_job_id, notruncate=True,
               autowidth=True),
        Column("Owner", "OWNER", -14, fmt="%v", autowidth=True, **extra),
        Column("QDate", "SUBMITTED", 11, fmt=None, format=lambda t: format_date(t, tz),
               format_type="int"),
        Column("ClusterId", "RUN_TIME", 12, fmt=None, render=r.render_hist_runtime),
        Column("JobStatus", "ST", -2, fmt=None, format=r.format_history_status,
               format_type="int"),
        Column("CompletionDate", "COMPLETED", 11, fmt=None, format=lambda t: format_date(t, tz),
               format_type="int"),
        Column("Cmd", "CMD", -15, fmt=None, render=r.render_cmd_and_args, notruncate=True),
    ]


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim history``."""
    args = read_args(parser(), argv, USAGE)
    if isinstance(args, int):
        return args
    for name in ("startd", "since", "completedsince", "name", "pool", "xml", "jsonl"):
        if getattr(args, name, None):
            print(f"condorsim history: -{name} is not supported by condorsim", file=sys.stderr)
            return 1
    try:
        jobs = _jobs(args)
    except _Failure as e:
        print(f"condorsim history: {e}", file=sys.stderr)
        return 1
    _print(args, jobs)
    return 0


class _Failure(Exception):
    pass


def _jobs(args: argparse.Namespace) -> list[ClassAd]:
    ids, owners = [], []
    for word in args.words:
        cluster, dot, proc = word.partition(".")
        if cluster.isdigit() and (not dot or proc.isdigit()):
            ids.append(word)
        else:
            owners.append(word)
    for expr in args.constraint:
        try:
            parse_expr(expr)
        except ClassAdError as e:
            raise _Failure(f"could not parse constraint {expr}: {e}") from None
    constraint = build_constraint(args.constraint, ids, owners)
    if args.userlog:
        from condorsim.eventlog.events import EventLogError

        from .userlogads import ads_from_user_log
        try:
            jobs = ads_from_user_log(args.userlog, poolmod.pool_time())
        except EventLogError as e:
            raise _Failure(f"can't read user log {args.userlog}: {e}") from None
    else:
        from condorsim.replay.jobflow import read_history_file

        path = Path(args.file) if args.file else history_path(poolmod.pool_home())
        if args.file and not path.is_file():
            raise _Failure(f"history file {path} does not exist")
        jobs = [ad for ad, _ in read_history_file(path, None)]
    if not args.forwards:
        jobs.reverse()
    if constraint:
        tree = parse_expr(constraint)
        ctx = EvalContext(now=poolmod.pool_time())
        jobs = [job for job in jobs if tree.evaluate(my=job, ctx=ctx) is True]
    if args.match and args.match > 0:
        jobs = jobs[: args.match]
    return jobs


def _attrs(args: argparse.Namespace) -> list[str]:
    return [a for a in (args.attributes or "").replace(",", " ").split() if a]


def _print(args: argparse.Namespace, jobs: Sequence[ClassAd]) -> None:
    out = sys.stdout
    attrs = _attrs(args)
    if args.json:
        if not jobs:
            out.write("[\n]\n")  # condor_history writes the brackets even for no job
        writer = AdWriter(out, "json")
        for job in jobs:
            writer.write(project(job, attrs))
        writer.close()
        return
    if args.long:
        writer = AdWriter(out, "long")
        for job in jobs:
            writer.write(project(job, attrs))
        return
    ctx = EvalContext(now=poolmod.pool_time())
    if args.columns:
        af_opts = args.colons.get("af", "")
        mask = combine([(kind, values, af_opts) for kind, values in args.columns])
        if parse_af_options(af_opts).headings:
            out.write(mask.headings())
    else:
        wide = bool(args.wide)
        width = 0
        suffix = args.colons.get("wide")
        if suffix and suffix.isdigit():
            width, wide = int(suffix), int(suffix) > 80
        mask = PrintMask(default_columns(tool_zone(), wide))
        if not wide or width:
            console = width or _console_width() - 1
            mask.overall_width = console if console > 0 else 1024
        out.write(mask.headings())
    for job in jobs:
        out.write(mask.display_ad(job, ctx))


def _console_width() -> int:
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return -1
