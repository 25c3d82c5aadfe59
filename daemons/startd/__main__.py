"""``python -m daemons.startd``: the startd as a process of its own (simulated machines that
cannot be built from the config are refused before it starts)."""

import sys

from condorsim.runtime.process import checked_daemon_main

from .daemon import Startd
from .machines import MachineConfigError, read_machines

if __name__ == "__main__":
    sys.exit(checked_daemon_main("STARTD", lambda args: Startd(), read_machines,
                                 (MachineConfigError,)))
