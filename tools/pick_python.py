"""Print the Python interpreter ``make setup`` makes the venv from: the fastest build, found
on this machine, of the CPython version ``python3`` is.

Why: every pool is a handful of Python processes, so the interpreter's own speed is the
pool's speed. Two builds of the same CPython 3.11 can differ a lot: one compiled with
profile-guided and link-time optimisation (as distributions build theirs) runs the pool's
work some 10-15% faster than one built without (as pyenv builds by default), message for
message the same (docs/performance.md, "the interpreter"). The machines this project runs
on have both, and ``python3`` on PATH may be the slower one.

How: each candidate (``python3`` and ``python3.X`` wherever they are on PATH, and the usual
system places) is asked, in a subprocess, for its version, whether it can make a venv with
pip (``venv`` and ``ensurepip``), and the time of a short fixed piece of pure-Python work
(dict, attribute, call and string operations, the mix the daemons run): its CPU time, so
that other work on the machine does not count, best of several tries, the candidates
taking turns (three rounds). Only builds of ``python3``'s own version (major.minor: the one the dependencies
were chosen for) compete; the fastest usable one wins, and ``python3`` is kept unless
another is clearly faster (:data:`MARGIN`), so a machine with one interpreter, or two
alike, changes nothing. Any failure prints ``python3``. ``make setup PY=...`` skips all
this.

Run with any Python 3: ``python3 tools/pick_python.py [-v]`` (``-v``: the timings, on stderr).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

MARGIN = 0.95
"""Another interpreter is chosen only if its time is below this fraction of python3's."""

ROUNDS = 3
"""Each candidate's time is its best over this many turns."""

MIN_VERSION = (3, 11)

SYSTEM_DIRS = ("/usr/bin", "/usr/local/bin")

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
    for _ in range(200):
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
    for _ in range(2):
        t = time.process_time()
        work()
        d = time.process_time() - t
        best = d if best is None else min(best, d)
print(ok, "%d.%d" % sys.version_info[:2], best)
"""


def candidates(version: str = "3.11") -> list[str]:
    """Interpreters to try, ``python3`` on PATH first, each real file once."""
    found: list[str] = []
    seen: set[str] = set()
    first = shutil.which("python3")
    names = [first] if first else []
    dirs = os.environ.get("PATH", "").split(os.pathsep) + list(SYSTEM_DIRS)
    for directory in dirs:
        for name in ("python3", f"python{version}"):
            names.append(os.path.join(directory or ".", name))
    for path in names:
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        found.append(path)
    return found


def probe(path: str) -> tuple[str, float] | None:
    """The candidate's version (``3.11``) and best time for the probe's work, or None if it
    cannot be used."""
    try:
        out = subprocess.run([path, "-I", "-c", PROBE], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 3 or fields[0] != "True":
        return None
    try:
        return fields[1], float(fields[2])
    except ValueError:
        return None


def pick(verbose: bool = False) -> str:
    default_path = shutil.which("python3")
    first = probe(default_path) if default_path else None
    version = first[0] if first is not None else ".".join(map(str, MIN_VERSION))
    paths = candidates(version)
    timed: list[tuple[str, tuple[str, float] | None]] = [(path, probe(path)) for path in paths]
    for _ in range(ROUNDS - 1):  # in turns: a moment of load elsewhere hits every one
        again = [(path, probe(path) if found is not None else None) for path, found in timed]
        timed = [(path, None if a is None or b is None else (a[0], min(a[1], b[1])))
                 for (path, a), (_, b) in zip(timed, again, strict=True)]
    if verbose:
        for path, found in timed:
            print(f"  {path}: " + ("unusable" if found is None else
                                   f"{found[0]}, {found[1] * 1000:.1f} ms"), file=sys.stderr)
    usable = [(path, found[1]) for path, found in timed
              if found is not None and found[0] == version]
    if not usable:
        return "python3"
    path, best = min(usable, key=lambda item: item[1])
    default = dict(usable).get(default_path or "")
    if default is not None and best > default * MARGIN:
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
