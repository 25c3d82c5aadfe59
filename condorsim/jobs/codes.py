"""HTCondor's numbers for jobs, in one place.

Sources: ``src/condor_includes/proc.h`` (JobStatus, universes),
``src/condor_utils/condor_holdcodes.h`` and docs codes-other-values/hold-table.rst (hold
codes), ``src/condor_includes/exit.h`` (shadow exit codes, EXIT_CODE_OFFSET 100).
"""

from __future__ import annotations

from enum import IntEnum


class JobStatus(IntEnum):
    IDLE = 1
    RUNNING = 2
    REMOVED = 3
    COMPLETED = 4
    HELD = 5
    TRANSFERRING_OUTPUT = 6
    SUSPENDED = 7


STATUS_LETTER = {0: "U", 1: "I", 2: "R", 3: "X", 4: "C", 5: "H", 6: "E", 7: "S"}
"""The status letters of condor_q's ST column and condor_router_q's ``UIRXCHE``.

No HTCondor code sets JobStatus 6; a job transferring output stays 2 with
TransferringOutput (condor_q then shows ``>``), per the reference section 5.2.
"""


class Universe(IntEnum):
    STANDARD = 1
    PIPE = 2
    LINDA = 3
    PVM = 4
    VANILLA = 5
    PVMD = 6
    SCHEDULER = 7
    MPI = 8
    GRID = 9
    JAVA = 10
    PARALLEL = 11
    LOCAL = 12
    VM = 13


class HoldCode(IntEnum):
    """HoldReasonCode values (condor_holdcodes.h)."""

    UNSPECIFIED = 0
    USER_REQUEST = 1
    GLOBUS_GRAM_ERROR = 2
    JOB_POLICY = 3
    CORRUPTED_CREDENTIAL = 4
    JOB_POLICY_UNDEFINED = 5
    FAILED_TO_CREATE_PROCESS = 6
    UNABLE_TO_OPEN_OUTPUT = 7
    UNABLE_TO_OPEN_INPUT = 8
    UNABLE_TO_OPEN_OUTPUT_STREAM = 9
    UNABLE_TO_OPEN_INPUT_STREAM = 10
    INVALID_TRANSFER_ACK = 11
    TRANSFER_OUTPUT_ERROR = 12
    TRANSFER_INPUT_ERROR = 13
    IWD_ERROR = 14
    SUBMITTED_ON_HOLD = 15
    SPOOLING_INPUT = 16
    JOB_SHADOW_MISMATCH = 17
    INVALID_TRANSFER_GO_AHEAD = 18
    HOOK_PREPARE_JOB_FAILURE = 19
    MISSED_DEFERRED_EXECUTION_TIME = 20
    STARTD_HELD_JOB = 21
    UNABLE_TO_INIT_USER_LOG = 22
    FAILED_TO_ACCESS_USER_ACCOUNT = 23
    NO_COMPATIBLE_SHADOW = 24
    INVALID_CRON_SETTINGS = 25
    SYSTEM_POLICY = 26
    SYSTEM_POLICY_UNDEFINED = 27
    HOOK_SHADOW_PREPARE_JOB_FAILURE = 48


HOLD_REASON_NAMES = {
    HoldCode.USER_REQUEST: "UserRequest",
    HoldCode.JOB_POLICY: "JobPolicy",
    HoldCode.JOB_POLICY_UNDEFINED: "JobPolicyUndefined",
    HoldCode.SUBMITTED_ON_HOLD: "SubmittedOnHold",
    HoldCode.SPOOLING_INPUT: "SpoolingInput",
    HoldCode.HOOK_PREPARE_JOB_FAILURE: "HookPrepareJobFailure",
    HoldCode.MISSED_DEFERRED_EXECUTION_TIME: "MissedDeferredExecutionTime",
    HoldCode.STARTD_HELD_JOB: "StartdHeldJob",
    HoldCode.INVALID_CRON_SETTINGS: "InvalidCronSettings",
    HoldCode.SYSTEM_POLICY: "SystemPolicy",
    HoldCode.SYSTEM_POLICY_UNDEFINED: "SystemPolicyUndefined",
    HoldCode.HOOK_SHADOW_PREPARE_JOB_FAILURE: "HookShadowPrepareJobFailure",
}
"""Names used as keys of the NumHoldsByReason ClassAd."""

EXIT_CODE_OFFSET = 100


class ShadowExit(IntEnum):
    """Shadow exit codes (exit.h); the schedd's reaper decides the job's fate from them.

    The starter reports the same numbers as the job's exit *reason*.
    """

    JOB_EXITED = 100
    JOB_CKPTED = 101
    JOB_KILLED = 102
    JOB_COREDUMPED = 103
    JOB_EXCEPTION = 104
    JOB_NO_MEM = 105
    JOB_SHADOW_USAGE = 106
    JOB_SHOULD_REQUEUE = 107  # also JOB_NOT_CKPTED
    JOB_NOT_STARTED = 108
    JOB_BAD_STATUS = 109
    JOB_EXEC_FAILED = 110
    JOB_NO_CKPT_FILE = 111
    JOB_SHOULD_HOLD = 112
    JOB_SHOULD_REMOVE = 113
    JOB_MISSED_DEFERRAL_TIME = 114
    JOB_EXITED_AND_CLAIM_CLOSING = 115
    JOB_RECONNECT_FAILED = 116


def job_id(cluster: int, proc: int) -> str:
    return f"{cluster}.{proc}"


def parse_job_id(text: str) -> tuple[int, int | None]:
    """``"12.3"`` -> (12, 3); ``"12"`` -> (12, None). ValueError for anything else."""
    text = text.strip()
    cluster, _, proc = text.partition(".")
    if not cluster.isdigit() or (proc and not proc.isdigit()):
        raise ValueError(f"not a job id (cluster or cluster.proc): {text!r}")
    return int(cluster), (int(proc) if proc else None)
