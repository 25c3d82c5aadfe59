"""Daemon ClassAd hooks ("startd cron", "schedd cron", benchmarks): executables a daemon
runs once, periodically or on demand, whose output becomes attributes of its ads.

Public API::

    params = read_cron_params(lookup, STARTD_CRON)      # or SCHEDD_CRON, BENCHMARKS
    runner = CronRunner(params, log=..., run_dir=..., publish=..., timeout=...)
    nursery.start_soon(runner.run)
    read_output(text, prefix, now)                       # -> [OutputBlock, ...]

The rules (modes, periods, job loads, the output format) are HTCondor's ``CronJob*``
classes; the startd and the schedd only decide what a published block does to their ads
(docs/hooks.md).
"""

from __future__ import annotations

from .output import OutputBlock, OutputReader, parse_separator, read_output
from .params import (
    BENCHMARKS,
    SCHEDD_CRON,
    STARTD_CRON,
    CronJobParams,
    CronMode,
    CronParams,
    ManagerKind,
    parse_period,
    read_cron_params,
)
from .runner import CronRunner, Publish
from .schedule import CronSchedule, Step

__all__ = [
    "BENCHMARKS",
    "SCHEDD_CRON",
    "STARTD_CRON",
    "CronJobParams",
    "CronMode",
    "CronParams",
    "CronRunner",
    "CronSchedule",
    "ManagerKind",
    "OutputBlock",
    "OutputReader",
    "Publish",
    "Step",
    "parse_period",
    "parse_separator",
    "read_cron_params",
    "read_output",
]
