"""The shadow's own hook, SHADOW_PREPARE_JOB (HTCondor 10 and later: ``ShadowHookMgr``).

How this works
--------------
Before the shadow activates the claim, :func:`shadow_prepare` picks the job's hook
keyword (``SHADOW_JOB_HOOK_KEYWORD``, else the job's ``HookKeyword`` when some hook of
that keyword is defined, else ``SHADOW_DEFAULT_JOB_HOOK_KEYWORD``) and, if
``<K>_HOOK_SHADOW_PREPARE_JOB`` is usable, runs it with the job ad on stdin and
``<K>_HOOK_SHADOW_PREPARE_JOB_ARGS``; the shadow waits for it. A configured hook whose path
is unusable makes HTCondor's hook manager fail to initialize, and the shadow then runs the
job with no hook (logged). The answer (``condorsim.hooks.prepare_result``, any integer
``HookStatusCode`` counting):

* 0: the output's attributes are merged into the shadow's copy of the job ad (what the
  starter will get), and the claim is activated;
* below 300 (including minus a signal): the job is held, HoldReasonCode 48
  (HookShadowPrepareJobFailure), the status as subcode, HTCondor's log line as reason;
* 300 and above: a SHADOW_EXCEPTION event with that line, and the job goes back to idle
  (shadow exit JOB_NOT_STARTED).

A hook that outlives ``<K>_HOOK_SHADOW_PREPARE_JOB_TIMEOUT`` (120 s, HTCondor's default) is
killed: "Submit-side job hook execution timed out" (SHADOW_EXCEPTION) and back to idle,
as HTCondor 24 does (25 holds it, code 48). One that cannot be run at all is treated the
same way ("Job hook execution failed").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condorsim.classad import ClassAd
from condorsim.hooks import (
    HookCall,
    HookLane,
    hook_args,
    hook_knob,
    hook_timeout,
    job_hooks,
    prepare_result,
    print_ad,
)
from condorsim.jobs.codes import HoldCode, ShadowExit
from condorsim.runtime.daemon import DaemonContext

HOOK = "SHADOW_PREPARE_JOB"
DEFAULT_TIMEOUT = 120.0
"""``<K>_HOOK_SHADOW_PREPARE_JOB_TIMEOUT``'s default (HTCondor's ``UniShadow::spawn``)."""


@dataclass(frozen=True)
class ShadowPrepareOutcome:
    """``exit_code`` None: go on (``update`` merged); else the shadow exits with it, after a
    SHADOW_EXCEPTION event when ``exception`` is set, with ``hold`` attributes for a hold."""

    exit_code: int | None
    update: ClassAd
    exception: str = ""
    hold: ClassAd | None = None


async def shadow_prepare(ctx: DaemonContext, lane: HookLane, job_ad: ClassAd,
                         job: str) -> ShadowPrepareOutcome | None:
    """Run the job's SHADOW_PREPARE_JOB hook; None when it has none."""
    log: Any = ctx.log
    hooks = job_hooks(ctx.config.get, "SHADOW", job_ad, [HOOK], ctx.run_dir)
    for event, fields in hooks.notes:
        log.info(event, job=job, **fields)
    if hooks.failed is not None:
        log.error("job_hooks_unusable", job=job, error=hooks.failed,
                  what="the job runs without shadow hooks")
        return None
    path = hooks.path(HOOK)
    if path is None or hooks.keyword is None:
        return None
    args, error = hook_args(ctx.config.get, hooks.keyword, HOOK)
    if error is not None:
        log.warning("hook_args_refused", job=job, error=error)
    call = HookCall(name=hook_knob(hooks.keyword, HOOK), path=path, args=tuple(args),
                    stdin=print_ad(job_ad), cwd=str(ctx.run_dir),
                    timeout=hook_timeout(ctx.config.get, hooks.keyword, HOOK, DEFAULT_TIMEOUT))
    result = await lane.run(call, job=job)
    if result.timed_out:
        return ShadowPrepareOutcome(int(ShadowExit.JOB_NOT_STARTED), ClassAd(),
                                    "Submit-side job hook execution timed out")
    if result.error is not None:
        return ShadowPrepareOutcome(int(ShadowExit.JOB_NOT_STARTED), ClassAd(),
                                    "Job hook execution failed")
    read = prepare_result(HOOK, result, any_code=True)
    if read.bad_line is not None:
        log.warning("prepare_hook_bad_output", job=job, hook=call.name,
                    line=read.bad_line[:500])
    if read.succeeded:
        log.info("prepare_hook_succeeded", job=job, hook=call.name,
                 attrs=sorted(read.update.keys(), key=str.lower))
        return ShadowPrepareOutcome(None, read.update)
    log.warning("prepare_hook_failed", job=job, hook=call.name, message=read.log_msg)
    if read.status < 300:
        return ShadowPrepareOutcome(int(ShadowExit.JOB_SHOULD_HOLD), ClassAd(), hold=ClassAd({
            "HoldReason": read.log_msg,
            "HoldReasonCode": int(HoldCode.HOOK_SHADOW_PREPARE_JOB_FAILURE),
            "HoldReasonSubCode": read.status}))
    return ShadowPrepareOutcome(int(ShadowExit.JOB_NOT_STARTED), ClassAd(), read.log_msg)
