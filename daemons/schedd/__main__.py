"""``python -m daemons.schedd``: the schedd as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import Schedd

if __name__ == "__main__":
    sys.exit(daemon_main("SCHEDD", lambda args: Schedd()))
