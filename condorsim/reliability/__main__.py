"""``python -m condorsim.reliability chaos|fuzz|load``: the drivers behind ``make chaos``,
``make fuzz`` and ``make load`` (docs/reliability.md)."""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor


def _chaos(args: argparse.Namespace) -> int:
    from .chaos import ChaosResult, run_seed

    seeds = range(args.first, args.first + args.seeds)
    began = time.monotonic()
    results: list[ChaosResult] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(run_seed, seeds):
            results.append(result)
            print(result.line() + (f"\n      run directory: {result.run_dir}"
                                   if result.run_dir else ""), flush=True)
    lost = sum(len(r.lost) for r in results)
    doubled = sum(len(r.doubled) for r in results)
    leaked = sum(len(r.leaked) for r in results)
    kills = sum(len(r.kills) for r in results)
    failed = [r.seed for r in results if not r.ok]
    print(f"chaos: {len(results)} seeds, {kills} daemons killed, {lost} jobs lost, "
          f"{doubled} doubled, {leaked} claims leaked, {len(failed)} seeds failed"
          f"{' ' + str(failed) if failed else ''} ({time.monotonic() - began:.0f} s)")
    return 1 if failed else 0


def _fuzz(args: argparse.Namespace) -> int:
    from .fuzz import run_fuzz

    print(f"fuzz: up to {args.frames} mutated frames to a live pool (at most "
          f"{args.seconds:.0f} s)", flush=True)
    report = run_fuzz(args.frames, args.seconds, seed=args.seed, workers=args.workers)
    print(report.text())
    return 0 if report.ok else 1


def _load(args: argparse.Namespace) -> int:
    from .load import run_load

    report = run_load(args.clients, args.seconds)
    print(report.text())
    return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m condorsim.reliability")
    sub = parser.add_subparsers(dest="what", required=True)
    chaos = sub.add_parser("chaos", help="kill random daemons at random moments, many seeds")
    chaos.add_argument("--seeds", type=int, default=100, help="how many seeds (default 100)")
    chaos.add_argument("--first", type=int, default=1, help="the first seed (default 1)")
    chaos.add_argument("--jobs", type=int, default=2, help="replays at once (default 2)")
    chaos.set_defaults(run=_chaos)
    fuzz = sub.add_parser("fuzz", help="mutated frames to every daemon of a live pool")
    fuzz.add_argument("--frames", type=int, default=1_000_000)
    fuzz.add_argument("--seconds", type=float, default=3600, help="wall-time bound")
    fuzz.add_argument("--seed", type=int, default=0)
    fuzz.add_argument("--workers", type=int, default=16, help="connections at once")
    fuzz.set_defaults(run=_fuzz)
    load = sub.add_parser("load", help="concurrent q/submit/status/qedit clients")
    load.add_argument("--clients", type=int, default=50)
    load.add_argument("--seconds", type=float, default=60)
    load.set_defaults(run=_load)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
