"""``condorsim version`` (and every tool's ``-version``): condor_version's two lines.

The version and platform strings are those condorsim's submit puts in job ads
(``CondorVersion``, ``CondorPlatform``), which every daemon's ad also carries: the
HTCondor release whose behaviour condorsim follows (24.0.24) and ``condorsim`` where
HTCondor names its build.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from condorsim.submit._build import CONDOR_PLATFORM, CONDOR_VERSION

USAGE = """\
Usage: condorsim version [-help]
    Prints the HTCondor version condorsim follows and its platform, as condor_version does.
"""


def version_lines() -> str:
    """``$CondorVersion: ... $`` and ``$CondorPlatform: ... $``, one a line."""
    return f"{CONDOR_VERSION}\n{CONDOR_PLATFORM}\n"


def main(argv: Sequence[str]) -> int:
    if any(a.lstrip("-") in ("h", "help") or (a.startswith("-h") and "help".startswith(a[1:]))
           for a in argv):
        sys.stdout.write(USAGE)
        return 0
    if argv:
        print(f"condorsim version: unknown argument {argv[0]}", file=sys.stderr)
        sys.stdout.write(USAGE)
        return 1
    sys.stdout.write(version_lines())
    return 0
