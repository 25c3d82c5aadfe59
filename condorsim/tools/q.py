"""``condorsim q``: condor_q against the pool's schedd, a file of job ads or a user log.

How this works
--------------
The command line is condor_q's (:func:`parser`: the same options, matched by the same
prefixes). The jobs come from the schedd (``QUERY_JOB_ADS``), from ``-jobads FILE`` or
from ``-userlog FILE`` (no pool needed for either). The constraint is condor_q's: the
``-constraint`` expressions and the view's own (``-run``, ``-hold``, ``-idle``, ``-io``)
ANDed, then the job ids and user names ORed; by default, with no ids or users and no
``-allusers``, only the caller's jobs. What is printed:

* a table view (``qviews``): ``\\n\\n-- Schedd: NAME : ADDR @ DATE`` (the schedd's time,
  ServerTime, in the pool's time zone), the headings, the rows, then the totals lines;
  ``-totals`` prints only the title and the totals;
* ``-af``/``-format``: one line per job, in job id order, nothing else (``-af:h`` adds
  headings);
* ``-long``/``-json``/``-xml``: the ads (``-attributes`` limits what is shown);
* ``-better-analyze``: :mod:`condorsim.tools.analyze`.

When standard output is not a terminal, rows are not cut to its width (condor_q's
``widescreen``) and their trailing blanks are trimmed; on a terminal they are cut to
its width less one unless ``-wide``.
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
from condorsim.security.identity import my_user_name
from condorsim.wire import messages as m

from . import qrender as r
from . import qviews
from .adfiles import AdFileError, AdWriter, project, read_ads
from .cliargs import ToolArgs, read_args
from .columns import combine, parse_af_options
from .common import ToolError, send_command
from .fmt import tool_zone
from .printmask import trim_before_newline

USAGE = """\
Usage: condorsim q [general-opts] [restriction-list] [output-opts | analyze-opts]
    [general-opts] are
\t-global\t\t\t Query all Schedulers in this pool
\t-jobads[:<form>] <file>\t Read queue from a file of job ClassAds
\t-userlog <file>\t\t Read queue from a user log file
    [restriction-list] each restriction may be one of
\t<cluster>\t\t Get information about specific cluster
\t<cluster>.<proc>\t Get information about specific job
\t<owner>\t\t\t Information about jobs owned by <owner>
\t-autocluster\t\t Get information about the SCHEDD's autoclusters
\t-constraint <expr>\t Get information about jobs that match <expr>
\t-allusers\t\t Consider jobs from all users
    [output-opts] are
\t-limit <num>\t\t Limit the number of results to <num>
\t-cputime\t\t Display CPU_TIME instead of RUN_TIME
\t-currentrun\t\t Display times only for current run
\t-cumulative-time\t Display times for all runs (the opposite of -currentrun)
\t-dag\t\t\t Sort DAG jobs under their DAGMan
\t-hold\t\t\t Get information about jobs on hold
\t-idle\t\t\t Get information about idle jobs
\t-run\t\t\t Get information about running jobs
\t-io\t\t\t Display information regarding I/O
\t-totals\t\t\t Display only job totals
\t-batch\t\t\t Display one line per batch of jobs (the default)
\t-nobatch\t\t Display one line per job, rather than one line per batch
\t-wide[:<width>]\t\t Don't truncate data to fit in 80 columns
\t-long[:<form>]\t\t Display entire ClassAds in long, json or xml form
\t-json\t\t\t Display entire ClassAds in JSON form
\t-attributes X,Y,...\t Attributes to show in -long, -json, -xml
\t-format <fmt> <attr>\t Print attribute attr using format fmt
\t-autoformat[:jlhVr,tng] <attr> [<attr2> [...]]
\t-af[:jlhVr,tng] <attr> [attr2 [...]]
\t\t\t\t Print attr(s) with automatic formatting
\t\t\t\t the [jlhVr,tng] options modify the formatting
\t\t\t\t\tj\tDisplay Job id
\t\t\t\t\tl\tattribute labels
\t\t\t\t\th\tattribute column headings
\t\t\t\t\tV\t%V formatting (string values are quoted)
\t\t\t\t\tr\t%r formatting (raw/unparsed values)
\t\t\t\t\t,\tComma separated values
\t\t\t\t\tt\tTab separated values
\t\t\t\t\tn\tNewline after each value
\t\t\t\t\tg\tNewline between ClassAds, no space before values
    [analyze-opts] are
\t-better-analyze\t\t Explain why jobs do or do not match the pool's slots
\t-help\t\t\t This screen

    Only information about jobs owned by the current user will be returned.
This default is overridden when the restriction list has usernames and/or
job ids, or when the -allusers argument is specified.
"""


def parser() -> ToolArgs:
    """condor_q's options, in condor_q's order (the first that matches a prefix wins)."""
    t = ToolArgs("condorsim q")
    flag: dict[str, Any] = {"action": "store_true"}
    t.option("wide", 1, colon=True, **flag)
    t.option("long", 1, colon=True, **flag)
    t.option("xml", 3, **flag)
    t.option("json", 2, **flag)
    t.option("limit", 3, type=int)
    t.option("pool", 1)
    t.option("name", 1)
    t.option("direct", 1)
    t.option("submitter", 1)
    t.option("constraint", 1, action="append", default=[])
    t.option("slotconstraint", 5, aliases=[("mconstraint", 2)], dest="slot_constraint")
    t.option("machine", 2)
    t.option("address", 1)
    t.option("autocluster", 2, colon=True, **flag)
    t.option("group-by", 2, colon=True, **flag)
    t.option("factory", 4, colon=True, **flag)
    t.option("jobset", 5, colon=True, **flag)
    t.option("attributes", 2, action="append", default=[])
    t.option("format", 1, nargs=2, action=Columns, dest="columns")
    t.option("autoformat", 5, aliases=[("af", 2)], colon="af", nargs="+", action=Columns,
             dest="columns")
    t.option("print-format", 2, colon=True)
    t.option("global", 1, dest="global_", **flag)
    t.option("allusers", 2, aliases=[("all-users", 2)], **flag)
    t.option("schedd-constraint", 5)
    t.option("help", 1, **flag)
    t.option("better-analyze", 2, colon=True, dest="analyze", aliases=[
        ("better-analyse", 2), ("analyze", 2), ("analyse", 2)], **flag)
    t.option("reverse-analyze", 3, colon=True, **flag)
    t.option("unmatchable", 5, colon=True, **flag)
    t.option("dry-run", 3, colon=True, **flag)
    t.option("verbose", 4, **flag)
    t.option("run", 1, **flag)
    t.option("hold", 2, aliases=[("held", 2)], **flag)
    t.option("idle", 3, **flag)
    t.option("goodput", 2, **flag)
    t.option("cputime", 2, **flag)
    t.option("currentrun", 3, **flag)
    t.option("cumulative-time", 3, **flag)
    t.option("grid", 2, colon=True, **flag)
    t.option("io", 2, **flag)
    t.option("dag", 2, **flag)
    t.option("batch", 2, aliases=[("progress", 3)], colon=True, **flag)
    t.option("nobatch", 3, **flag)
    t.option("totals", 3, **flag)
    t.option("expert", 1, **flag)
    t.option("jobads", 1, colon=True)
    t.option("userlog", 1)
    t.option("slotads", 1, colon=True)
    t.option("version", 1, **flag)
    t.option("stream-results", 2, **flag)
    return t


class Columns(argparse.Action):
    """``-format FMT ATTR`` and ``-af ATTR ...`` in command-line order."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        kind = "format" if option_string and option_string.lstrip("-").startswith("f") else "af"
        items.append((kind, list(values)))  # type: ignore[call-overload]
        setattr(namespace, self.dest, items)


_UNSUPPORTED = ("pool", "direct", "submitter", "slot_constraint", "machine", "address",
                "print_format", "schedd_constraint", "slotads", "reverse_analyze",
                "unmatchable", "dry_run", "grid", "goodput", "factory", "jobset",
                "autocluster", "group_by")


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim q``."""
    args = read_args(parser(), argv, USAGE)
    if isinstance(args, int):
        return args
    if args.version:
        from .version import version_lines
        sys.stdout.write(version_lines())
        return 0
    for name in _UNSUPPORTED:
        value = getattr(args, name, None)
        if value:
            print(f"condorsim q: -{name.replace('_', '-')} is not supported by condorsim",
                  file=sys.stderr)
            return 1
    if args.currentrun and args.cumulative_time:  # condor_q names the second one given
        later = next(a for a in reversed(argv) if a.lstrip("-")[:3] in ("cur", "cum"))
        first, second = (("-currentrun", "-cumulative-time") if "cum" in later
                         else ("-cumulative-time", "-currentrun"))
        print(f"Error: {second} can't be used with {first}", file=sys.stderr)
        return 1
    if sum(bool(x) for x in (args.run, args.hold, args.idle)) > 1:
        print("-run and -hold/held or -idle are incompatible", file=sys.stderr)
        sys.stdout.write(USAGE)
        return 1
    try:
        return _run(args)
    except (ToolError, poolmod.PoolNotRunning, AdFileError) as e:
        print(f"condorsim q: {e}", file=sys.stderr)
        return 1


# ---------------------------------------------------------------------------- the query
def _ids_and_owners(words: Sequence[str]) -> tuple[list[str], list[str]]:
    ids, owners = [], []
    for word in words:
        cluster, dot, proc = word.partition(".")
        if cluster.isdigit() and (not dot or proc.isdigit() or proc == ""):
            ids.append(word)
        else:
            owners.append(word)
    return ids, owners


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_constraint(ands: Sequence[str], ids: Sequence[str], owners: Sequence[str]) -> str:
    """condor_q's query: ``( (a) && (b) ) && ( (id) || (owner) ... )`` (GenericQuery)."""
    ors = []
    for word in ids:
        cluster, _, proc = word.partition(".")
        ors.append(f"ClusterId == {int(cluster)} && ProcId == {int(proc)}" if proc
                   else f"ClusterId == {int(cluster)}")
    ors += [f"Owner=={_quote(o)}" for o in owners]
    parts = []
    for items, op in ((ands, " && "), (ors, " || ")):
        if items:
            parts.append("(" + "".join((" " if i == 0 else op) + f"({c})"
                                       for i, c in enumerate(items)) + " )")
    return " && ".join(parts)


def _view(args: argparse.Namespace) -> str:
    if args.totals:
        return "totals"
    if args.hold:
        return "hold"
    if args.io:
        return "io"
    if args.run:
        return "run"
    if args.idle:
        return "idle"
    if args.dag and args.nobatch:
        return "dag"
    if args.nobatch or args.dag:
        return "dag" if args.dag else "normal"
    return "batch"


def _check(expr: str, what: str) -> None:
    try:
        parse_expr(expr)
    except ClassAdError as e:
        raise ToolError(f"{what} ({expr}) is not a valid constraint: {e}") from None


def _run(args: argparse.Namespace) -> int:
    ids, owners = _ids_and_owners(args.words)
    view = _view(args)
    ands = list(args.constraint)
    for expr in ands:
        _check(expr, "-constraint")
    if args.run:
        ands.append("JobStatus == 2 || JobStatus == 6 || JobStatus == 7")
    elif args.hold:
        ands.append("JobStatus==5")
    elif args.idle:
        ands.append("JobStatus==1")
    custom = bool(args.columns)
    if args.io and not custom and not (args.long or args.json or args.xml):
        ands.append(qviews.IO_WHERE)
    constraint = build_constraint(ands, ids, owners)
    mine = not ids and not owners and not args.allusers
    me = my_user_name()  # who the schedd knows us as (FS): never $USER
    tz = tool_zone()
    if args.jobads or args.userlog:
        source, jobs = _from_file(args, constraint)
        summary = qviews.summary_ad(jobs, None, None)
    else:
        source, jobs, summary = _from_schedd(constraint, mine, me)
    if args.limit:
        jobs = sorted(jobs, key=qviews._jid)[: args.limit]
    queue_time = _queue_time(jobs, summary)
    ctx = EvalContext(now=queue_time)
    out = sys.stdout
    if args.analyze:
        from .analyze import report
        out.write(report(source, jobs, _display_width(args)[0] or 80, tz))
        return 0
    if args.long or args.json or args.xml:
        return _long(args, jobs)
    if custom:
        return _custom(args, jobs, ctx)
    width, wide = _display_width(args)
    trim = wide
    empty = (r.lookup_int(summary, "Jobs") or 0) == 0 and (
        r.lookup_int(summary, "AllusersJobs") or 0) == 0
    show = not args.global_ or jobs or not empty
    text = ""
    if show:
        text += qviews.title(source, queue_time, tz)
    if view == "totals":
        if show:
            text += qviews.summary(summary) + "\n"
        out.write(text)
        return 0
    run_time = r.RunTime(cpu=args.cputime, current_run=not args.cumulative_time)
    overall = 0 if (wide or view == "hold") else width - 1
    if view == "batch":
        partial = bool(ands) or bool(ids)
        head, rows = qviews.batch_rows(jobs, tz, ctx, partial=partial,
                                       show_held_column=args.global_)
        if trim:
            rows = "".join(trim_before_newline(line + "\n") for line in rows.split("\n")[:-1])
    else:
        head, rows = qviews.table(jobs, view, tz, run_time, ctx, overall_width=overall,
                                  trim=trim)
    if show:
        text += head + rows
        if qviews.HAS_SUMMARY.get(view, False):
            text += "\n" + qviews.summary(summary) + "\n"
    out.write(text)
    return 0


def _display_width(args: argparse.Namespace) -> tuple[int, bool]:
    """(width, widescreen): condor_q's display width and whether rows are left whole."""
    suffix = args.colons.get("wide")
    if args.wide and suffix:
        try:
            return int(suffix), False
        except ValueError:
            pass
    if args.wide:
        return 0, True
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns, False
    except (OSError, ValueError):
        return 80, True


def _queue_time(jobs: Sequence[ClassAd], summary: ClassAd) -> int:
    """ServerTime of the answer (the schedd's simulated time); else the pool's time."""
    for source in (summary, *jobs):
        t = r.lookup_int(source, "ServerTime")
        if t:
            return t
    return poolmod.pool_time()


def _from_schedd(constraint: str, mine: bool, me: str) -> tuple[str, list[ClassAd], ClassAd]:
    from .jobs import find_schedd

    name, address = find_schedd()
    query = constraint
    if mine:
        query = f"(Owner == {_quote(me)})" + (f" && ({constraint})" if constraint else "")
    reply = send_command(address, "schedd", m.QUERY_JOB_ADS(constraint=query, projection=[]))
    if not isinstance(reply, m.QUERY_RESULT):
        raise ToolError(reply.reason if isinstance(reply, m.FAILED) else "the schedd did not answer")
    everyone = send_command(address, "schedd", m.QUERY_JOB_ADS(
        constraint="", projection=["ClusterId", "ProcId", "JobStatus", "JobUniverse", "Owner",
                                   "ServerTime"]))
    all_jobs = everyone.ads if isinstance(everyone, m.QUERY_RESULT) else reply.ads
    summary = qviews.summary_ad(reply.ads, all_jobs, me if mine else None)
    for ad in all_jobs[:1]:
        t = r.lookup_int(ad, "ServerTime")
        if t:
            summary["ServerTime"] = t
    return f"Schedd: {name} : {address}", list(reply.ads), summary


def _from_file(args: argparse.Namespace, constraint: str) -> tuple[str, list[ClassAd]]:
    if args.jobads:
        path = args.jobads
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise ToolError(f"can't open {path}: {e.strerror}") from None
        form = args.colons.get("jobads") or "auto"
        jobs = read_ads(text, form if form in ("long", "new", "json", "auto") else "auto", path)
        source = f"Jobads: {path}"
    else:
        from condorsim.eventlog.events import EventLogError

        from .userlogads import ads_from_user_log
        try:
            jobs = ads_from_user_log(args.userlog, poolmod.pool_time())
        except EventLogError as e:
            raise ToolError(f"Can't open user log: {args.userlog}: {e}") from None
        source = f"Userlog: {args.userlog}"
    if constraint:
        tree = parse_expr(constraint)
        jobs = [job for job in jobs if tree.evaluate(my=job, ctx=EvalContext(
            now=poolmod.pool_time())) is True]
    return source, jobs


# ---------------------------------------------------------------------------- other forms
def _long(args: argparse.Namespace, jobs: Sequence[ClassAd]) -> int:
    form = "json" if args.json else ("xml" if args.xml else (args.colons.get("long") or "long"))
    if form not in ("long", "json", "new", "xml"):
        form = "long"
    if form == "xml":
        raise ToolError("-xml is not supported by condorsim; use -long or -json")
    attrs = [a.strip() for spec in args.attributes for a in spec.replace(",", " ").split() if a]
    writer = AdWriter(sys.stdout, form)
    for job in sorted(jobs, key=qviews._jid):
        writer.write(project(job, attrs))
    writer.close()
    return 0


def _custom(args: argparse.Namespace, jobs: Sequence[ClassAd], ctx: EvalContext) -> int:
    """-af / -format: one line per job in id order; headings only with -af:h."""
    af_opts = args.colons.get("af", "")
    try:
        mask = combine([(kind, values, af_opts) for kind, values in args.columns])
    except ClassAdError as e:
        raise ToolError(f"-af: {e}") from None
    ordered = sorted(jobs, key=qviews._jid)
    rows = [mask.render(job, ctx) for job in ordered]
    out = [mask.headings()] if parse_af_options(af_opts).headings else []
    out.extend(mask.display(row) for row in rows)
    sys.stdout.write("".join(out))
    return 0
