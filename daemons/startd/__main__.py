"""``python -m daemons.startd``: the startd as a process of its own."""

import sys

from condorsim.config import Config, ConfigError
from condorsim.runtime.process import build_parser, daemon_main

from .daemon import Startd
from .machines import MachineConfigError, read_machines


def _check_machines(argv: list[str]) -> str | None:
    """Why the simulated machines cannot be built from this config, or None."""
    args, _ = build_parser("startd").parse_known_args(argv)
    try:
        read_machines(Config.load(args.config, subsystem="STARTD"))
    except ConfigError:
        return None  # daemon_main reports config errors itself
    except MachineConfigError as e:
        return str(e)
    return None


if __name__ == "__main__":
    problem = _check_machines(sys.argv[1:])
    if problem is not None:
        print(f"startd: {problem}", file=sys.stderr)
        sys.exit(2)
    sys.exit(daemon_main("STARTD", lambda args: Startd()))
