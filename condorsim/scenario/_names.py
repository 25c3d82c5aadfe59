"""HTCondor's names that scenario files use: actions, daemons, events, ad types."""

from __future__ import annotations

from typing import Final

__all__ = ["ACTIONS", "AD_TYPES", "DAEMONS", "EVENT_NAMES"]

ACTIONS: Final = (
    "hold", "release", "remove", "qedit", "suspend", "continue", "vacate",
    "reconfig", "kill", "restart", "site_down", "site_up",
)
"""``do`` of an ``[[action]]``: condor_hold, condor_release, condor_rm, condor_qedit,
condor_suspend, condor_continue, condor_vacate_job, condor_reconfig, a daemon
killed (SIGKILL) or restarted (condor_restart -daemon), and a ``[[site]]`` going down
or coming back up."""

DAEMONS: Final = (
    "master", "collector", "negotiator", "schedd", "startd", "shadow", "starter",
    "job_router", "gridmanager",
)
"""The DAEMON_LIST names, in lower case, as the trace and ``daemon`` spell them."""

EVENT_NAMES: Final = (
    "SUBMIT", "EXECUTE", "EXECUTABLE_ERROR", "CHECKPOINTED", "JOB_EVICTED",
    "JOB_TERMINATED", "IMAGE_SIZE", "SHADOW_EXCEPTION", "GENERIC", "JOB_ABORTED",
    "JOB_SUSPENDED", "JOB_UNSUSPENDED", "JOB_HELD", "JOB_RELEASED", "NODE_EXECUTE",
    "NODE_TERMINATED", "POST_SCRIPT_TERMINATED", "GLOBUS_SUBMIT", "GLOBUS_SUBMIT_FAILED",
    "GLOBUS_RESOURCE_UP", "GLOBUS_RESOURCE_DOWN", "REMOTE_ERROR", "JOB_DISCONNECTED",
    "JOB_RECONNECTED", "JOB_RECONNECT_FAILED", "GRID_RESOURCE_UP", "GRID_RESOURCE_DOWN",
    "GRID_SUBMIT", "JOB_AD_INFORMATION", "JOB_STATUS_UNKNOWN", "JOB_STATUS_KNOWN",
    "JOB_STAGE_IN", "JOB_STAGE_OUT", "ATTRIBUTE_UPDATE", "PRESKIP", "CLUSTER_SUBMIT",
    "CLUSTER_REMOVE", "FACTORY_PAUSED", "FACTORY_RESUMED", "NONE", "FILE_TRANSFER",
    "RESERVE_SPACE", "RELEASE_SPACE", "FILE_COMPLETE", "FILE_USED", "FILE_REMOVED",
)
"""The names of ``htcondor.JobEventType`` (HTCondor 24.0), in event-number order."""

AD_TYPES: Final = ("Machine", "Scheduler", "Submitter", "Negotiator", "DaemonMaster",
                   "Collector", "Grid")
"""The MyType of the collector ads ``ads`` may name."""
