"""Run every benchmark and print its lines: ``python -m benchmarks [name ...]``.

Each ``benchmarks/bench_<name>.py`` has ``main() -> list[str]``. Figures are measured in one
run against the references the issues name (HTCondor's C++ ClassAd library, a raw msgpack
echo, ...), so the ratios hold on a noisy machine; no figure is asserted anywhere.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable

BENCHES = ["classad", "crontab", "wire", "vtime", "pool", "p2", "scale", "router", "sweep"]


def interpreter_line() -> str:
    """Which Python the figures were measured on: two builds of one version differ by
    some 10-15% on the pool's work (tools/pick_python.py)."""
    return f"python {sys.version.split()[0]} at {sys.executable} (from {sys.base_prefix})"


def main(argv: list[str]) -> int:
    names = argv or BENCHES
    failed = 0
    print(f"== {interpreter_line()}", flush=True)
    for name in names:
        try:
            module = importlib.import_module(f"benchmarks.bench_{name}")
        except ModuleNotFoundError as e:
            if e.name == f"benchmarks.bench_{name}":
                print(f"== {name}: not written yet")
                continue
            raise
        run: Callable[[], list[str]] = module.main
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        try:
            for line in run():
                print(f"   {line}", flush=True)
        except Exception as e:  # a broken benchmark must not hide the others' figures
            failed += 1
            print(f"   FAILED: {type(e).__name__}: {e}", flush=True)
        print(f"   ({time.perf_counter() - t0:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
