"""``condorsim sweep SWEEP.toml [--scheduler ADDRESS] [--out DIR] [--resume] [--workers N]
[--no-reports] [--quiet]``: replay every variant of a sweep on Dask and collect the
figures (docs/sweeps.md).

Exit status: 0 every variant ran (whether its expectations held or not: that is data); 1
a variant failed, or the Dask scheduler cannot be reached; 2 the sweep file (or its base
scenario, or a variant) is invalid, the output directory cannot take the sweep, or the
arguments are wrong. Nothing runs before the whole file is checked.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

USAGE = ("condorsim sweep SWEEP.toml [--scheduler ADDRESS] [--out DIR] [--resume] "
         "[--workers N] [--no-reports] [--quiet]")


class _ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgumentError(f"{message}\nusage: {USAGE}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="condorsim sweep", usage=USAGE,
                description="Replay every variant of a sweep file on Dask and collect the "
                            "figures: a CSV, a Parquet file and index.html in DIR.")
    p.add_argument("file", type=Path, help="the sweep file (TOML; see docs/sweeps.md)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running Dask scheduler (tcp://host:8786); default: a LocalCluster "
                        "with one worker process per CPU")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="the output directory (default: runs/sweep-<file name>)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the sweep in DIR: variants already done are skipped")
    p.add_argument("--workers", type=int, metavar="N",
                   help="LocalCluster workers (default: one per CPU, at most one per variant)")
    p.add_argument("--no-reports", action="store_true",
                   help="do not write each variant's run report (condorsim report)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no line per variant")
    return p


def main(argv: list[str]) -> int:
    """Entry point of ``condorsim sweep``."""
    from condorsim.sweep import OutputError, SweepError, load_sweep, prepare_output

    try:
        args = _parser().parse_args(argv)
        if args.workers is not None and args.workers < 1:
            raise _ArgumentError(f"--workers {args.workers}: must be at least 1")
        if args.workers is not None and args.scheduler is not None:
            raise _ArgumentError("--workers sizes the LocalCluster; with --scheduler the "
                                 "cluster's own workers run the variants")
        sweep = load_sweep(args.file)
        out = args.out if args.out is not None else Path("runs") / f"sweep-{args.file.stem}"
        prepare_output(out, sweep, args.resume)
    except (_ArgumentError, SweepError, OutputError) as e:
        print(f"condorsim sweep: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"condorsim sweep: {e}", file=sys.stderr)
        return 2
    print(f"sweep {sweep.name!r}: {len(sweep.variants)} variant"
          f"{'s' * (len(sweep.variants) != 1)} of {sweep.scenario_path} -> {out}", flush=True)
    try:
        run = _run(sweep, out, args)
    except OutputError as e:
        print(f"condorsim sweep: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"condorsim sweep: interrupted; `condorsim sweep {args.file} --out {out} "
              "--resume` goes on with it", file=sys.stderr)
        return 130
    from condorsim.sweep import write_outputs

    write_outputs(sweep, out, run.rows)
    done = f", {run.skipped} done before" if run.skipped else ""
    print(f"{len(sweep.variants)} variants: {run.ran} ran, {run.failed} failed{done}")
    print(f"results: {out / 'results.csv'}, {out / 'results.parquet'}")
    print(f"page: {out / 'index.html'}")
    return 1 if run.failed else 0


def _run(sweep: Any, out: Path, args: argparse.Namespace) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    from condorsim.sweep import run_sweep

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[failed]}"), TimeElapsedColumn(),
                        TextColumn("left"), TimeRemainingColumn(), console=console,
                        disable=args.quiet or not console.is_terminal, transient=True)
    task: list[Any] = []
    began = time.monotonic()

    def on_start(run: Any, todo: int) -> None:
        where = args.scheduler or f"a LocalCluster of {run.workers} worker" \
            f"{'s' * (run.workers != 1)}"
        skipped = f" ({run.skipped} done before, skipped)" if run.skipped else ""
        dashboard = f"; Dask dashboard: {run.dashboard}" if run.dashboard else ""
        if not args.quiet:
            console.print(f"running {todo} variant{'s' * (todo != 1)}{skipped} on {where}"
                          f"{dashboard}")
        task.append(progress.add_task("variants", total=todo, failed=""))

    failures = 0

    def on_done(variant: Any, row: dict[str, Any]) -> None:
        nonlocal failures
        failed = row.get("status") == "failed"
        failures += failed
        if failed:
            console.print(Text.assemble(("FAILED", "bold red"),
                                        f" {variant.label}: {row.get('error')}"))
        elif not args.quiet:
            expectations = f", {row['failed']} expectation{'s' * (row['failed'] != 1)} " \
                "failed" if row.get("failed") else ""
            console.print(f"done {variant.label} ({row.get('wall_seconds', 0):.1f} s"
                          f"{expectations})", markup=False)
        if task:
            progress.update(task[0], advance=1,
                            failed=f"{failures} failed" if failures else "")

    with progress:
        run = run_sweep(sweep, out, scheduler=args.scheduler, workers=args.workers,
                        reports=not args.no_reports, on_start=on_start, on_done=on_done)
    if not args.quiet and run.ran:
        console.print(f"{run.ran} variant{'s' * (run.ran != 1)} in "
                      f"{time.monotonic() - began:.1f} s")
    return run


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
