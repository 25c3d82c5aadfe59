"""``python -m daemons.gridmanager``: the gridmanager as a process of its own (a
SIM_GRID_SITES it cannot use is refused before it starts)."""

import sys

from condorsim.runtime.process import checked_daemon_main

from .daemon import Gridmanager
from .sites import SiteConfigError, read_sites

if __name__ == "__main__":
    sys.exit(checked_daemon_main("GRIDMANAGER", lambda args: Gridmanager(), read_sites,
                                 (SiteConfigError,)))
