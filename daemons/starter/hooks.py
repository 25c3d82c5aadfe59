"""The starter's job hooks, decided without I/O: which hooks, their input, what their
answer means (HTCondor's ``StarterHookMgr`` and ``HookPrepareJobClient``).

How this works
--------------
:func:`starter_hooks` picks the keyword and checks the paths of the four starter hooks
(``condorsim.hooks.job_hooks`` with prefix ``STARTER``; the slot's machine may override
knobs with ``SIM_MACHINE_<name>_<KNOB>``). The hooks get the job ad on stdin, in the
environment HTCondor's ``Starter::PublishToEnv`` gives them (:func:`hook_env`: the parts a
simulated job has).

:func:`prepare_outcome` reads what a PREPARE_JOB or PREPARE_JOB_BEFORE_TRANSFER hook
did (``condorsim.hooks.prepare_result``: ``HookStatusCode`` >= 0 replaces the exit status).
The outcome says whether the job goes on (status 0: the ad is merged into the job ad), is
held (1-299: HoldReasonCode 19 HookPrepareJobFailure, the status as subcode) or goes back
to idle (300 and above, or a signal), and what HTCondor writes to the job's event log (a
REMOTE_ERROR event, critical when the status is not 0, a plain message when the hook
succeeded with a message).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.hooks import (
    HookResult,
    JobHooks,
    PrepareResult,
    job_hooks,
    machine_lookup,
    prepare_result,
)
from condorsim.jobs.codes import HoldCode

STARTER_HOOK_TYPES = ("PREPARE_JOB_BEFORE_TRANSFER", "PREPARE_JOB", "UPDATE_JOB_INFO",
                      "JOB_EXIT")
JOB_EXIT_TIMEOUT = 30.0
"""``<K>_HOOK_JOB_EXIT_TIMEOUT``'s default: the starter goes on after this long."""


def starter_hooks(config: Config, job_ad: ClassAd, slot_ad: ClassAd, run_dir: Path) -> JobHooks:
    """The starter hooks of a job on the slot ``slot_ad`` (see the module doc)."""
    machine = slot_ad.evaluate("Machine")
    lookup = machine_lookup(config, machine if isinstance(machine, str) else None)
    return job_hooks(lookup, "STARTER", job_ad, STARTER_HOOK_TYPES, run_dir)


def hook_env(job_ad: ClassAd, slot_ad: ClassAd, run_dir: Path, pid: int | None) -> dict[str, str]:
    """The variables HTCondor's starter gives its hooks (those a simulated job has)."""
    iwd = job_ad.evaluate("Iwd")
    iwd_path = str(run_dir / iwd) if isinstance(iwd, str) and iwd else str(run_dir)
    name = slot_ad.evaluate("Name")
    slot = name.split("@", 1)[0] if isinstance(name, str) else "slot1"
    return {"BATCH_SYSTEM": "HTCondor", "_CONDOR_JOB_IWD": iwd_path,
            "_CONDOR_SCRATCH_DIR": iwd_path, "_CONDOR_SLOT": slot,
            "_CONDOR_JOB_PIDS": str(pid) if pid is not None else "",
            "CONDOR_STARTER_PID": str(os.getpid())}


@dataclass(frozen=True)
class PrepareOutcome:
    """What a prepare hook's run means for the job (see the module doc): ``action`` is
    "continue", "hold" or "idle"."""

    action: str
    result: PrepareResult

    @property
    def status(self) -> int:
        return self.result.status

    @property
    def log_msg(self) -> str:
        return self.result.log_msg

    @property
    def hold_code(self) -> int:
        return int(HoldCode.HOOK_PREPARE_JOB_FAILURE) if self.action == "hold" else 0

    @property
    def remote_error(self) -> bool:
        """Whether the job's event log gets a REMOTE_ERROR event for it."""
        return bool(self.result.message) or self.status != 0


def prepare_outcome(hook_type: str, result: HookResult) -> PrepareOutcome:
    """Read a prepare hook's result (``HookPrepareJobClient::hookExited``)."""
    read = prepare_result(hook_type, result)
    if result.error is not None:  # HTCondor: spawn() failed -> held, subcode 0
        return PrepareOutcome("hold", PrepareResult(0, read.log_msg, "", read.update))
    status = read.status
    action = "continue" if status == 0 else "hold" if 0 < status < 300 else "idle"
    return PrepareOutcome(action, read)


def remote_error_ad(text: str, critical: bool, code: int = 0, subcode: int = 0) -> ClassAd:
    """HTCondor's RemoteErrorEvent as the starter sends it to the shadow (CONDOR_ulog)."""
    return ClassAd({"MyType": "RemoteErrorEvent", "EventTypeNumber": 21, "Daemon": "starter",
                    "ErrorMsg": text, "CriticalError": critical, "HoldReasonCode": code,
                    "HoldReasonSubCode": subcode})


def exit_reason(kill: str | None) -> str:
    """JOB_EXIT's argument: ``exit``, ``hold``, ``remove`` or ``evict``."""
    return {None: "exit", "hold": "hold", "remove": "remove"}.get(kill, "evict")
