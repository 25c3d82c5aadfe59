"""``python -m daemons.shadow``: the shadow as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import Shadow

if __name__ == "__main__":
    sys.exit(daemon_main("SHADOW", lambda args: Shadow()))
