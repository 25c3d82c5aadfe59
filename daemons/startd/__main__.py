"""``python -m daemons.startd``: the startd as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import Startd

if __name__ == "__main__":
    sys.exit(daemon_main("STARTD", lambda args: Startd()))
