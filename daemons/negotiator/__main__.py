"""``python -m daemons.negotiator``: the negotiator as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import Negotiator

if __name__ == "__main__":
    sys.exit(daemon_main("NEGOTIATOR", lambda args: Negotiator()))
