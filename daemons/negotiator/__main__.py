"""``python -m daemons.negotiator``: the negotiator as a process of its own (unusable
matchmaking knobs are refused before it starts)."""

import sys

from condorsim.runtime.process import checked_daemon_main

from .daemon import Negotiator
from .matchmaker import MatchPolicy, NegotiatorConfigError

if __name__ == "__main__":
    sys.exit(checked_daemon_main("NEGOTIATOR", lambda args: Negotiator(),
                                 MatchPolicy.from_config, (NegotiatorConfigError,)))
