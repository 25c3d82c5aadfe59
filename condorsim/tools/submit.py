"""``condorsim submit``: condor_submit against the pool's schedd.

How this works
--------------
The command line is condor_submit's: ``[options] [<attrib>=<value>] [- | <submit-file>]``.
The submit description comes from the file, or standard input when the file is ``-`` or
missing. ``-append LINE`` (``-a``) adds a line right before each ``queue`` statement (so
it overrides the file; a ``queue`` line given this way is the queue statement),
``-batch-name NAME`` adds ``MY.JobBatchName = "NAME"`` the same way, and
``attrib=value`` arguments are set before the file is read. ``-queue ARGS`` is a queue
statement for a file that has none.

What is printed is condor_submit's: ``Submitting job(s)``, a dot per job, then
``N job(s) submitted to cluster C.``; ``-terse``: only ``C.P - C.P`` ranges; a
description read from standard input prints each job's ad (``** Proc C.P:``) instead,
unless ``-terse``. ``-dry-run FILE`` (``-`` for standard output) prints the ads and
submits nothing. Refusals are ``ERROR: ...`` on stderr and exit status 1.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from condorsim import pool as poolmod
from condorsim.wire import messages as m

from .cliargs import ToolArgs, read_args
from .common import ToolError

USAGE = """\
Usage: condorsim submit [options] [<attrib>=<value>] [- | <submit-file>]
    [options] are
\t-file <submit-file>\tRead Submit commands from <submit-file>
\t-terse  \t\tDisplay terse output, jobid ranges only
\t-verbose\t\tDisplay verbose output, jobid and full job ClassAd
\t-append <line>\t\tadd line to submit file before processing
\t              \t\t(overrides submit file; multiple -a lines ok)
\t-queue <queue-opts>\tappend Queue statement to submit file before processing
\t                   \t(submit file must not already have a Queue or Iterate)
\t-batch-name <name>\tappend a line to submit file that sets the batch name
\t-dry-run <filename>\tprocess submit file and write ClassAd attributes to <filename>
\t        \t\tbut do not actually submit the job(s) to the SCHEDD
\t-unused\t\t\ttoggles unused or unexpanded macro warnings
\t<attrib>=<value>\tSet <attrib>=<value> before reading the submit file.

    If <submit-file> is omitted or is -, and a -queue is not provided, submit commands
     are read from stdin. Use of - implies verbose output unless -terse is specified
"""

_QUEUE = re.compile(r"^\s*queue\b", re.IGNORECASE)


def parser() -> ToolArgs:
    """condor_submit's options (those condorsim takes), in its order."""
    t = ToolArgs("condorsim submit")
    flag: dict[str, Any] = {"action": "store_true"}
    t.option("verbose", 1, **flag)
    t.option("terse", 3, **flag)
    t.option("disable", 3, **flag)
    t.option("dry-run", 3, colon=True, dest="dry_run")
    t.option("spool", 1, **flag)
    t.option("file", 2)
    t.option("name", 1)
    t.option("append", 1, action="append", default=[])
    t.option("batch-name", 1, dest="batch_name")
    t.option("queue", 1, dest="queue")
    t.option("pool", 2)
    t.option("unused", 1, **flag)
    t.option("help", 1, **flag)
    return t


def compose(text: str, append: Sequence[str], variables: Sequence[str],
            queue: str | None) -> str:
    """The description condor_submit processes: ``attrib=value`` lines first, the
    appended lines right before each queue statement (or, with ``queue``, at the end
    followed by it)."""
    lines = text.splitlines()
    out = list(variables)
    if queue is not None:
        if any(_QUEUE.match(line) for line in lines):
            raise ToolError("the submit file already has a queue statement; -queue cannot "
                            "add another")
        return "\n".join([*out, *lines, *append, queue]) + "\n"
    for line in lines:
        if _QUEUE.match(line):
            out.extend(append)
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim submit``."""
    args = read_args(parser(), argv, USAGE, "condorsim submit: ")
    if isinstance(args, int):
        return args
    if args.name or args.pool or args.spool:
        print("condorsim submit: -name, -pool and -spool are not supported by condorsim",
              file=sys.stderr)
        return 1
    variables = [w for w in args.words if "=" in w and w.split("=", 1)[0].strip()]
    files = [w for w in args.words if w not in variables]
    if args.file:
        files.append(args.file)
    if len(files) > 1:
        print(f"condorsim submit: more than one submit file: {' '.join(files)}", file=sys.stderr)
        return 1
    append = list(args.append)
    queue: str | None = args.queue
    for line in list(append):
        if _QUEUE.match(line):
            append.remove(line)
            queue = line
    if queue is not None and not _QUEUE.match(queue):
        queue = "queue " + queue
    if args.batch_name:
        name = args.batch_name if args.batch_name.startswith('"') else f'"{args.batch_name}"'
        append.append(f"MY.JobBatchName = {name}")
    source = files[0] if files else "-"
    dash = source == "-" and bool(files)  # an explicit "-" implies -verbose (condor_submit)
    if source == "-" and queue is not None and (variables or args.append):
        text = ""  # condor_submit needs no submit file when the command line has both
    else:
        try:
            text = sys.stdin.read() if source == "-" else _read(source)
        except OSError as e:
            print(f"ERROR: Failed to open command file {e.filename} ({e.strerror})", file=sys.stderr)
            return 1
    try:
        text = compose(text, append, variables, queue)
    except ToolError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1
    from condorsim.config import ConfigError
    from condorsim.submit.tool import dry_run, pool_config, prepare

    try:
        config = pool_config()  # what the schedd builds the jobs with, too
    except ConfigError as e:
        print(f"condorsim submit: {e}", file=sys.stderr)
        return 1
    name = "<stdin>" if source == "-" else source
    if args.dry_run is not None:
        if args.dry_run == "-":
            return dry_run(text + "\n", sys.stdout, config=config, toggle_unused=args.unused,
                           source=name)
        with open(args.dry_run, "w", encoding="utf-8") as out:
            return dry_run(text + "\n", out, config=config, toggle_unused=args.unused,
                           source=name)
    # built and checked here first, as condor_submit does (warnings printed, a bad
    # description refused before the schedd sees it), then queued by the schedd
    if prepare(text + "\n", err=sys.stderr, config=config, toggle_unused=args.unused,
               source=name, to_schedd=True) is None:
        return 1
    return _submit(text, "(stdin)" if source == "-" else source, terse=args.terse,
                   verbose=(args.verbose or dash) and not args.terse, quiet=dash)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def _submit(text: str, source: str, *, terse: bool, verbose: bool, quiet: bool) -> int:
    from . import jobs

    out = io.StringIO()
    if not quiet and not terse:
        out.write("Submitting job(s)")
    try:
        _, _, reply = jobs._ask(m.SUBMIT_JOBS(
            # owner "": the schedd sets Owner, who we authenticated as
            owner="", text=text, iwd=os.getcwd(), source=source))
    except (ToolError, poolmod.PoolNotRunning) as e:
        reply = m.FAILED(reason=str(e))
    if not isinstance(reply, m.SUBMIT_RESULT):
        sys.stdout.write(out.getvalue() + ("\n" if out.getvalue() else ""))
        reason = reply.reason if isinstance(reply, m.FAILED) else "the schedd did not answer"
        print(f"ERROR: {reason}", file=sys.stderr)
        return 1
    cluster, procs = reply.cluster, reply.procs
    if verbose:
        _, _, ads = jobs._ask(m.QUERY_JOB_ADS(constraint=f"ClusterId == {cluster}",
                                              projection=[]))
        found = ads.ads if isinstance(ads, m.QUERY_RESULT) else []
        for job in sorted(found, key=lambda a: int(a.evaluate("ProcId") or 0)):
            out.write(f"\n** Proc {cluster}.{job.evaluate('ProcId')}:\n" + job.to_long())
    elif not terse:
        out.write("." * procs)
    if not quiet and not terse:
        out.write("\n")
    if terse:
        out.write(f"{cluster}.0 - {cluster}.{procs - 1}\n")
    elif not verbose:
        out.write(f"{procs} job(s) submitted to cluster {cluster}.\n")
    sys.stdout.write(out.getvalue())
    return 0
