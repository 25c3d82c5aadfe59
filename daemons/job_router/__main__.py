"""``python -m daemons.job_router``: condor_job_router as a process of its own."""

import sys

from condorsim.runtime.process import daemon_main

from .daemon import JobRouter

if __name__ == "__main__":
    sys.exit(daemon_main("JOB_ROUTER", lambda args: JobRouter()))
