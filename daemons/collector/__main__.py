"""``python -m daemons.collector``: the collector as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import Collector

if __name__ == "__main__":
    sys.exit(daemon_main("COLLECTOR", lambda args: Collector()))
