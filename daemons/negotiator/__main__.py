"""``python -m daemons.negotiator``: the negotiator as a process of its own."""

import sys

from condorsim.config import Config, ConfigError
from condorsim.runtime.process import build_parser, daemon_main

from .daemon import Negotiator
from .matchmaker import MatchPolicy, NegotiatorConfigError


def _check_policy(argv: list[str]) -> str | None:
    """Why the matchmaking knobs are unusable, or None."""
    args, _ = build_parser("negotiator").parse_known_args(argv)
    try:
        MatchPolicy.from_config(Config.load(args.config, subsystem="NEGOTIATOR"))
    except ConfigError:
        return None  # daemon_main reports config errors itself
    except NegotiatorConfigError as e:
        return str(e)
    return None


if __name__ == "__main__":
    problem = _check_policy(sys.argv[1:])
    if problem is not None:
        print(f"negotiator: {problem}", file=sys.stderr)
        sys.exit(2)
    sys.exit(daemon_main("NEGOTIATOR", lambda args: Negotiator()))
