"""job_queue.log under the name the issue gives it; the code is in `condorsim.jobqueue`."""

from condorsim.jobqueue import *  # noqa: F403
from condorsim.jobqueue import __all__ as __all__
