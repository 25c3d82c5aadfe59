"""The starter's job hooks, run (the decisions are in hooks.py).

How this works
--------------
All of one starter process's hooks go through one :class:`~condorsim.hooks.HookLane`
(a job's hooks run in the order asked). The starter *waits* for PREPARE_JOB_BEFORE_TRANSFER,
PREPARE_JOB and JOB_EXIT (:func:`run_prepare`, :func:`run_job_exit`) and does not wait for
UPDATE_JOB_INFO (:func:`submit_update_info`), as HTCondor's starter. Every hook gets the
job ad on stdin (UPDATE_JOB_INFO and JOB_EXIT with the update's and the exit's attributes
merged in), runs in the job's Iwd, and gets ``<K>_HOOK_<TYPE>_TIMEOUT`` real seconds
(JOB_EXIT: 30, HTCondor's default; the others SIM_HOOK_TIMEOUT): a JOB_EXIT hook that
outlives its timeout is killed and the starter goes on; a prepare hook that does counts as
one that died of SIGKILL (the job goes back to idle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from condorsim.classad import ClassAd
from condorsim.hooks import (
    HookCall,
    HookLane,
    hook_args,
    hook_knob,
    hook_timeout,
    machine_lookup,
    print_ad,
)

from .hooks import JOB_EXIT_TIMEOUT, PrepareOutcome, exit_reason, hook_env, prepare_outcome

if TYPE_CHECKING:
    from .daemon import Starter, _Instance


def _call(starter: Starter, inst: _Instance, hook_type: str, stdin: Callable[[], str],
          args: tuple[str, ...] = (), default_timeout: float | None = None) -> HookCall | None:
    """The hook call of ``hook_type`` (None when the job has no such hook); ``stdin`` makes
    the text it gets, only when there is one (a job ad's text costs ~1 ms)."""
    path = inst.hooks.path(hook_type)
    keyword = inst.hooks.keyword
    if path is None or keyword is None:
        return None
    machine = inst.slot_ad.evaluate("Machine")
    lookup = machine_lookup(starter.ctx.config, machine if isinstance(machine, str) else None)
    env = hook_env(inst.job_ad, inst.slot_ad, starter.ctx.run_dir,
                   inst.pid if inst.clock is not None else None)
    return HookCall(name=hook_knob(keyword, hook_type), path=path, args=args, stdin=stdin(),
                    env=env, cwd=env["_CONDOR_JOB_IWD"],
                    timeout=hook_timeout(lookup, keyword, hook_type, default_timeout))


def _prepare_args(starter: Starter, inst: _Instance) -> tuple[str, ...]:
    """``<K>_HOOK_PREPARE_JOB_ARGS`` (HTCondor gives them to both prepare hooks)."""
    keyword = inst.hooks.keyword
    if keyword is None:
        return ()
    machine = inst.slot_ad.evaluate("Machine")
    lookup = machine_lookup(starter.ctx.config, machine if isinstance(machine, str) else None)
    args, error = hook_args(lookup, keyword, "PREPARE_JOB")
    if error is not None:
        starter.ctx.log.warning("hook_args_refused", job=inst.job, error=error)
    return tuple(args)


async def run_prepare(starter: Starter, lane: HookLane, inst: _Instance,
                      hook_type: str) -> PrepareOutcome | None:
    """Run a prepare hook and read its result; None when the job has no such hook."""
    call = _call(starter, inst, hook_type, lambda: print_ad(inst.job_ad),
                 _prepare_args(starter, inst))
    if call is None:
        return None
    result = await lane.run(call, job=inst.job)
    outcome = prepare_outcome(hook_type, result)
    log = starter.ctx.log
    if outcome.result.bad_line is not None:
        log.warning("prepare_hook_bad_output", job=inst.job, hook=call.name,
                    line=outcome.result.bad_line[:500], error="Failed to parse ClassAd "
                    "expression: the lines after it are ignored")
    if outcome.action == "continue":
        inst.job_ad.update(outcome.result.update)
        log.info("prepare_hook_succeeded", job=inst.job, hook=call.name,
                 attrs=sorted(outcome.result.update.keys(), key=str.lower))
    else:
        log.warning("prepare_hook_failed", job=inst.job, hook=call.name,
                    outcome=outcome.action, message=outcome.log_msg)
    return outcome


def submit_update_info(starter: Starter, lane: HookLane, inst: _Instance,
                       update: ClassAd) -> None:
    """UPDATE_JOB_INFO with the job ad and the update's attributes (advisory)."""
    def text() -> str:
        ad = inst.job_ad.copy()
        ad.update(update)
        return print_ad(ad)

    call = _call(starter, inst, "UPDATE_JOB_INFO", text)
    if call is not None:
        lane.submit(call, job=inst.job)


async def run_job_exit(starter: Starter, lane: HookLane, inst: _Instance,
                       exit_ad: ClassAd) -> None:
    """JOB_EXIT with ``exit|remove|hold|evict``; the starter waits for it (or its timeout)."""
    def text() -> str:
        ad = inst.job_ad.copy()
        ad.update(exit_ad)
        return print_ad(ad)

    call = _call(starter, inst, "JOB_EXIT", text, (exit_reason(inst.kill),), JOB_EXIT_TIMEOUT)
    if call is None:
        return
    env = dict(call.env)
    if exit_ad.evaluate("ExitBySignal") is True:
        env["_CONDOR_MAINJOB_EXIT_SIGNAL"] = str(exit_ad.evaluate("ExitSignal"))
    elif type(exit_ad.evaluate("ExitCode")) is int:
        env["_CONDOR_MAINJOB_EXIT_CODE"] = str(exit_ad.evaluate("ExitCode"))
    await lane.run(HookCall(call.name, call.path, call.args, call.stdin, env, call.cwd,
                            call.timeout), job=inst.job)
