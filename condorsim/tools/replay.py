"""``condorsim replay FILE [--keep DIR] [--json FILE] [--report FILE] [--explain] [--quiet]
[--check]``: run a scenario on simulated time and check its expectations (docs/replay.md).

Exit status: 0 every expectation held, 1 one failed, 2 the scenario file is invalid (or
the arguments are). ``--check`` only reads and checks the file, as a replay does before
anything starts: 0 valid, 2 invalid.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from condorsim.scenario import ScenarioError

USAGE = ("condorsim replay FILE [--keep DIR] [--json FILE] [--report FILE] [--explain] "
         "[--quiet] [--check]")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ScenarioError(f"{message}\nusage: {USAGE}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="condorsim replay", usage=USAGE,
                description="Run a scenario file's pool on simulated time and check it.")
    p.add_argument("file", type=Path, help="the scenario (TOML; see docs/scenarios.md)")
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="run in DIR and keep it (logs, trace.jsonl, queue, result.json) for "
                        "`condorsim trace` and `condorsim report`")
    p.add_argument("--json", type=Path, metavar="FILE", dest="json_out",
                   help="also write the results as JSON to FILE")
    p.add_argument("--report", type=Path, metavar="FILE",
                   help="also write the run's HTML report to FILE (docs/report.md)")
    p.add_argument("--explain", action="store_true",
                   help="after the results, a narrated timeline of what the daemons did")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none either when stderr is not a terminal)")
    p.add_argument("--check", action="store_true",
                   help="only check the file (exit 0 valid, 2 invalid); start nothing")
    return p


def main(argv: list[str]) -> int:
    """Entry point of ``condorsim replay``."""
    from condorsim.replay.explain import narrate
    from condorsim.replay.runfacts import stopped_line
    from condorsim.replay.runner import print_outcome, replay

    try:
        args = _parser().parse_args(argv)
        if args.check:
            return _check(args.file)
        outcome = replay(args.file, keep=args.keep, json_out=args.json_out,
                         explain=args.explain or args.report is not None,
                         progress=sys.stderr.isatty() and not args.quiet)
    except ScenarioError as e:
        print(f"condorsim replay: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"condorsim replay: {e}", file=sys.stderr)
        return 2
    print_outcome(outcome)
    if outcome.stopped_at_max:
        print(f"condorsim replay: {stopped_line(outcome)}", file=sys.stderr)
    status = outcome.exit_code
    if outcome.run_dir is not None:
        try:
            if args.explain:
                sys.stdout.write(narrate(outcome.run_dir, outcome.scenario.timezone))
            if args.report is not None:
                status = max(status, _write_report(outcome.run_dir, args.report))
        finally:
            if args.keep is None:
                shutil.rmtree(outcome.run_dir, ignore_errors=True)
    return status


def _check(path: Path) -> int:
    from condorsim.scenario import load_scenario

    scenario = load_scenario(path)
    slots = sum(m.count * m.slots for m in scenario.machines)
    print(f"{path}: a valid scenario ({slots:,} slots, {len(scenario.submits)} submits, "
          f"{len(scenario.actions)} actions, {len(scenario.expects)} expectations)")
    return 0


def _write_report(run_dir: Path, out: Path) -> int:
    from condorsim.tools.report import write_report

    return write_report(run_dir, out, prog="condorsim replay")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
