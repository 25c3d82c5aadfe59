"""``condorsim report RUN_DIR [-o FILE] [--job JOB ...]``: one HTML page that shows a run.

RUN_DIR is a kept replay (``condorsim replay FILE --keep DIR``) or a pool's
``$CONDORSIM_HOME``. The page (default ``RUN_DIR/report.html``) is self-contained: it
opens from disk with no network. docs/report.md describes it.

Exit status: 0 written; 1 the run cannot be reported (no trace, unreadable) or the file
cannot be written; 2 the arguments are wrong or RUN_DIR is not a run directory.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

USAGE = "condorsim report RUN_DIR [-o FILE] [--job JOB ...]"
_JOB = re.compile(r"^\d+\.\d+$")


def write_report(run_dir: Path, out: Path, jobs: list[str] | None = None, *,
                 prog: str = "condorsim report") -> int:
    """Write the report and say where; one line on stderr and 1 or 2 when it cannot."""
    from condorsim.report import ReportError, build_report

    try:
        summary = build_report(run_dir, out, jobs or [])
    except ReportError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return e.exit_code
    except OSError as e:
        print(f"{prog}: cannot write {out}: {e.strerror}", file=sys.stderr)
        return 1
    n_jobs, n_slots = summary.jobs, summary.slots
    print(f"report: {summary.path} ({summary.size / 1e6:.1f} MB; {n_jobs} "
          f"job{'s' * (n_jobs != 1)}, {n_slots} slot{'s' * (n_slots != 1)})")
    return 0


def main(argv: list[str]) -> int:
    """Entry point of ``condorsim report``."""
    p = argparse.ArgumentParser(
        prog="condorsim report", usage=USAGE,
        description="One self-contained HTML page showing a run: a Gantt chart of the jobs "
                    "over the slots, jobs and slots over time, a job's ClassAd flow, the "
                    "expectations and every job's final ad.")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR",
                   help="a kept replay's directory, or a pool's $CONDORSIM_HOME")
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="where to write the page (default: RUN_DIR/report.html)")
    p.add_argument("--job", action="append", default=[], metavar="JOB",
                   help="a job (cluster.proc) whose ClassAd flow the page must carry; "
                        "may be given more than once")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0) and 2
    bad = [j for j in args.job if not _JOB.match(j)]
    if bad:
        print(f"condorsim report: --job {bad[0]}: not a job id (expected cluster.proc, "
              "like 1.0)", file=sys.stderr)
        return 2
    out = args.output if args.output is not None else args.run_dir / "report.html"
    return write_report(args.run_dir, out, args.job)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
