"""Print the Python interpreter ``make setup`` makes the venv from: the fastest build of
CPython 3.11+ found on this machine.

Why: every pool is a handful of Python processes, so the interpreter's own speed is the
pool's speed. Two builds of the same CPython 3.11 can differ a lot: one compiled with
profile-guided and link-time optimisation (as distributions build theirs) runs the pool's
work some 10-15% faster than one built without (as pyenv builds by default), message for
message the same (docs/performance.md, "the interpreter"). The machines this project runs
on have both, and ``python3`` on PATH may be the slower one.

How: each candidate (``python3`` and ``python3.11`` wherever they are on PATH, and the usual
system places) is asked, in a subprocess, for its version, whether it can make a venv with
pip (``venv`` and ``ensurepip``), and the time of a short fixed piece of pure-Python work
(dict, attribute, call and string operations, the mix the daemons run), best of several
tries. The fastest usable one wins; ``python3`` is kept unless another is clearly faster
(:data:`MARGIN`), so a machine with one interpreter, or two alike, changes nothing. Any
failure prints ``python3``. ``make setup PY=...`` skips all this.

Run with any Python 3: ``python3 tools/pick_python.py [-v]`` (``-v``: the timings, on stderr).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

MARGIN = 0.95
"""Another interpreter is chosen only if its time is below this fraction of python3's."""

MIN_VERSION = (3, 11)

SYSTEM_PLACES = ("/usr/bin/python3.11", "/usr/local/bin/python3.11", "/usr/bin/python3",
                 "/usr/local/bin/python3")

PROBE = f"MIN_VERSION = {MIN_VERSION!r}\n" + r"""
import sys, time
ok = sys.version_info[:2] >= MIN_VERSION
try:
    import ensurepip, venv
except ImportError:
    ok = False

class Slot:
    __slots__ = ("name", "state", "ad")
    def __init__(self, name):
        self.name = name
        self.state = "Unclaimed"
        self.ad = {"Name": name, "Cpus": 1, "Memory": 1024}

def work():
    slots = [Slot(f"slot{i}@host") for i in range(200)]
    counts = {}
    total = 0
    for _ in range(400):
        for s in slots:
            ad = s.ad
            ad["Activity"] = "Idle" if s.state == "Unclaimed" else "Busy"
            counts[s.state] = counts.get(s.state, 0) + 1
            total += len(f"{s.name}:{ad['Memory']}") + ad["Cpus"]
            s.state = "Claimed" if s.state == "Unclaimed" else "Unclaimed"
    return total

best = None
if ok:
    work()
    for _ in range(7):
        t = time.perf_counter()
        work()
        d = time.perf_counter() - t
        best = d if best is None else min(best, d)
print(ok, best)
"""


def candidates() -> list[str]:
    """Interpreters to try, ``python3`` on PATH first, each real file once."""
    found: list[str] = []
    seen: set[str] = set()
    first = shutil.which("python3")
    names = [first] if first else []
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        for name in ("python3", "python3.11"):
            names.append(os.path.join(directory or ".", name))
    names.extend(SYSTEM_PLACES)
    for path in names:
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        found.append(path)
    return found


def probe(path: str) -> float | None:
    """The candidate's best time for the probe's work, or None if it cannot be used."""
    try:
        out = subprocess.run([path, "-I", "-c", PROBE], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    ok, _, best = out.stdout.strip().partition(" ")
    if out.returncode != 0 or ok != "True":
        return None
    try:
        return float(best)
    except ValueError:
        return None


def pick(verbose: bool = False) -> str:
    timed = [(path, probe(path)) for path in candidates()]
    usable = [(path, t) for path, t in timed if t is not None]
    if verbose:
        for path, t in timed:
            print(f"  {path}: {'unusable' if t is None else f'{t * 1000:.1f} ms'}",
                  file=sys.stderr)
    if not usable:
        return "python3"
    default = usable[0] if usable[0][0] == shutil.which("python3") else None
    path, best = min(usable, key=lambda item: item[1])
    if default is not None and best > default[1] * MARGIN:
        return "python3"
    return path


def main() -> int:
    verbose = "-v" in sys.argv[1:]
    try:
        chosen = pick(verbose)
    except Exception as e:  # never stop a set-up: python3 as before
        print(f"pick_python: {e}; using python3", file=sys.stderr)
        chosen = "python3"
    print(chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
