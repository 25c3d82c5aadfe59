"""``python -m daemons.starter``: the starter as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import Starter

if __name__ == "__main__":
    sys.exit(daemon_main("STARTER", lambda args: Starter()))
