"""Hooks: a site's own executables that the daemons run with HTCondor's arguments, standard
input and environment (docs/hooks.md).

Public API::

    result = await run_hook(HookCall(name, path, args, stdin, env, cwd, timeout), ctx.busy)
    check_hook_path(knob, value, base)         # HTCondor's validateHookPath
    job_hooks(lookup, "STARTER", job_ad, ["PREPARE_JOB", ...], base)  # keyword and paths
    print_ad(ad); parse_all_or_nothing(text); parse_until_bad(text)   # hook ad text
    log_hook_result(ctx.log, result)
    lane = HookLane(ctx.log, ctx.busy); await lane.run(call); lane.submit(call)  # in order;
    # run: busy until answered; submit: advisory, holds no simulated time up

Every hook of every daemon (the startd's fetch-work hooks, the starter's and the shadow's
job hooks, the daemon cron jobs, later the job router's hooks) runs through
:func:`run_hook`, which is where a hook's simulated duration (none) and its timeout live.
"""

from __future__ import annotations

from .adtext import SEPARATOR, ParsedOutput, parse_all_or_nothing, parse_until_bad, print_ad
from .keywords import (
    HOOK_TYPES,
    JobHooks,
    Lookup,
    default_timeout,
    hook_args,
    hook_knob,
    hook_timeout,
    job_hooks,
    machine_lookup,
)
from .lane import HookLane
from .paths import PathCheck, check_hook_path
from .prepare import PrepareResult, prepare_result
from .report import log_hook_result
from .runner import DEFAULT_TIMEOUT, HookCall, HookResult, run_hook

__all__ = [
    "DEFAULT_TIMEOUT",
    "HOOK_TYPES",
    "SEPARATOR",
    "HookCall",
    "HookLane",
    "HookResult",
    "JobHooks",
    "Lookup",
    "ParsedOutput",
    "PathCheck",
    "PrepareResult",
    "check_hook_path",
    "default_timeout",
    "hook_args",
    "hook_knob",
    "hook_timeout",
    "job_hooks",
    "log_hook_result",
    "machine_lookup",
    "parse_all_or_nothing",
    "parse_until_bad",
    "prepare_result",
    "print_ad",
    "run_hook",
]
