"""The knobs of a daemon's cron jobs: ``<BASE>_JOBLIST`` and ``<BASE>_<Job>_<ITEM>``.

How this works
--------------
A *manager* is one daemon's set of cron jobs, named by its knob base: ``STARTD_CRON``,
``SCHEDD_CRON`` or ``BENCHMARKS`` (:class:`ManagerKind` holds what differs between them).
:func:`read_cron_params` reads ``<BASE>_JOBLIST`` (names separated by commas or white
space) and, for each job, HTCondor's ``CronJobParams::Initialize``:

* EXECUTABLE (required), ARGS (V1 raw or V2 quoted; the job's name is always the first
  argument), ENV (V1 raw or V2 quoted), CWD, PREFIX;
* MODE: ``Periodic`` (the default), ``WaitForExit``, ``OneShot`` or ``OnDemand`` (any case);
* PERIOD: ``N``, ``Ns``, ``Nm`` or ``Nh``; required except for OneShot and OnDemand jobs
  (ignored with a warning there);
* KILL, RECONFIG, RECONFIG_RERUN (true when the value starts with T or t, as
  ``CronParamBase::Lookup`` reads booleans), JOB_LOAD (0 to 100), CONDITION (a ClassAd
  expression), SLOTS (slot numbers; one that is not a number voids the list).

A job whose knobs are wrong is left out with a problem message naming the knob, as
HTCondor skips it ("Failed to initialize job ...; skipping"); the others run.
``<BASE>_MAX_JOB_LOAD`` (0.01 to 1000) and ``<BASE>_LOG_NON_ZERO_EXIT`` are the manager's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from condorsim.classad import ClassAdError, ExprTree, parse_expr
from condorsim.config import split_list
from condorsim.hooks import Lookup
from condorsim.submit._argsenv import ArgsError, is_v2_quoted, split_v2_raw, v2_unquote


def parse_environment(value: str) -> tuple[dict[str, str], bool]:
    """Variables of an environment value (a cron job's ENV) and whether it was V1 text
    (``;``-separated) rather than V2 (quoted, space-separated)."""
    env: dict[str, str] = {}
    if is_v2_quoted(value):
        entries, was_v1 = split_v2_raw(v2_unquote(value)), False
    else:
        entries = [e.strip(" \t") for e in value.split(";")]
        entries, was_v1 = [e for e in entries if e], True
    for entry in entries:
        name, eq, val = entry.partition("=")
        if not eq:
            raise ArgsError(f"ERROR: Missing '=' after environment variable '{name}'.")
        if not name:
            raise ArgsError(f"ERROR: missing variable in '{entry}'.")
        env[name] = val
    return env, was_v1


class CronMode(StrEnum):
    PERIODIC = "Periodic"
    WAIT_FOR_EXIT = "WaitForExit"
    ONE_SHOT = "OneShot"
    ON_DEMAND = "OnDemand"


@dataclass(frozen=True)
class ManagerKind:
    """What one kind of manager defaults to (HTCondor's per-manager param classes)."""

    base: str  # STARTD_CRON, SCHEDD_CRON, BENCHMARKS
    env_name: str  # the manager's name in the environment: STARTD, SCHEDD, BENCHMARKS
    subsystem: str  # the daemon running it: STARTD, SCHEDD
    joblist: str = ""
    max_job_load: float = 0.1
    job_load: float = 0.01
    mode: CronMode = CronMode.PERIODIC
    executables: Mapping[str, str] = field(default_factory=dict)  # job name -> default


STARTD_CRON = ManagerKind("STARTD_CRON", "STARTD", "STARTD")
SCHEDD_CRON = ManagerKind("SCHEDD_CRON", "SCHEDD", "SCHEDD")
BENCHMARKS = ManagerKind(
    "BENCHMARKS", "BENCHMARKS", "STARTD", joblist="MIPS KFLOPS", max_job_load=1.0,
    job_load=1.0, mode=CronMode.ON_DEMAND,
    executables={"MIPS": "$(LIBEXEC)/condor_mips", "KFLOPS": "$(LIBEXEC)/condor_kflops"})


@dataclass(frozen=True)
class CronJobParams:
    """One cron job as configured."""

    name: str
    executable: str
    args: tuple[str, ...] = ()
    mode: CronMode = CronMode.PERIODIC
    period: int = 0
    prefix: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    kill: bool = False
    reconfig: bool = False
    reconfig_rerun: bool = False
    job_load: float = 0.01
    condition: ExprTree | None = None
    slots: tuple[int, ...] = ()

    def in_slot_list(self, slot_id: int) -> bool:
        """SLOTS: only these slots take the job's output (all when empty)."""
        return not self.slots or slot_id in self.slots


@dataclass(frozen=True)
class CronParams:
    """A manager's whole configuration; ``problems`` are the jobs left out and why."""

    kind: ManagerKind
    jobs: tuple[CronJobParams, ...] = ()
    max_job_load: float = 0.1
    log_non_zero_exit: bool = False
    problems: tuple[str, ...] = ()


_PERIOD = re.compile(r"\s*([+-]?\d+)(.?)")


def parse_period(text: str) -> int:
    """``N``, ``Ns``, ``Nm``, ``Nh`` (HTCondor's ``sscanf("%lld%c")``) in seconds."""
    m = _PERIOD.match(text)
    if m is None:
        raise ValueError(f"invalid period '{text}'")
    number, modifier = int(m.group(1)), (m.group(2) or "S").upper()
    scale = {"S": 1, "M": 60, "H": 3600}.get(modifier)
    if scale is None:
        raise ValueError(f"invalid period modifier '{m.group(2)}' in '{text}'")
    if number < 0:
        raise ValueError(f"period '{text}' is negative")
    return number * scale


def _args(text: str) -> list[str]:
    """HTCondor's ``AppendArgsV1RawOrV2Quoted``."""
    if is_v2_quoted(text):
        return split_v2_raw(v2_unquote(text))
    return text.split()


def _bool(text: str | None) -> bool:
    return bool(text) and text.strip()[:1].upper() == "T"  # type: ignore[union-attr]


def _param_boolean(text: str | None) -> bool:
    return (text or "").strip().lower() in ("true", "t", "yes", "y", "1")


def _float(text: str | None, default: float, low: float, high: float) -> float:
    try:
        value = float(text) if text is not None else default
    except ValueError:
        return default
    return min(max(value, low), high)


class _Skip(Exception):
    """This job's configuration is unusable; the message names the knob."""


def _job(lookup: Lookup, kind: ManagerKind, name: str) -> CronJobParams:
    def knob(item: str) -> str:
        return f"{kind.base}_{name}_{item}"

    def get(item: str) -> str | None:
        value = lookup(knob(item))
        return value.strip() if value is not None else None

    executable = get("EXECUTABLE") or kind.executables.get(name.upper())
    if not executable:
        raise _Skip(f"{knob('EXECUTABLE')} is not set: no path for job '{name}'")
    mode_text = get("MODE")
    mode = kind.mode
    if mode_text:
        found = [m for m in CronMode if m.value.lower() == mode_text.lower()]
        if not found:
            raise _Skip(f"{knob('MODE')} = {mode_text!r}: unknown job mode (Periodic, "
                        "WaitForExit, OneShot or OnDemand)")
        mode = found[0]
    period_text = get("PERIOD")
    period = 0
    if mode in (CronMode.PERIODIC, CronMode.WAIT_FOR_EXIT):
        if not period_text:
            raise _Skip(f"{knob('PERIOD')} is not set: a {mode.value} job needs a period")
        try:
            period = parse_period(period_text)
        except ValueError as e:
            raise _Skip(f"{knob('PERIOD')}: {e}") from None
        if mode == CronMode.PERIODIC and period == 0:
            raise _Skip(f"{knob('PERIOD')} = 0: Periodic requires a non-zero period")
    try:
        args = _args(get("ARGS") or "")
    except ArgsError as e:
        raise _Skip(f"{knob('ARGS')}: failed to parse arguments: {e}") from None
    try:
        env = parse_environment(get("ENV") or "")[0]
    except ArgsError as e:
        raise _Skip(f"{knob('ENV')}: failed to parse environment: {e}") from None
    condition: ExprTree | None = None
    condition_text = get("CONDITION")
    if condition_text:
        try:
            condition = parse_expr(condition_text)
        except ClassAdError as e:
            raise _Skip(f"{knob('CONDITION')} = {condition_text!r}: {e}") from None
    slot_words = split_list(get("SLOTS") or "")
    slots = tuple(int(w) for w in slot_words) if all(w.isdigit() for w in slot_words) else ()
    return CronJobParams(
        name=name, executable=executable, args=tuple(args), mode=mode, period=period,
        prefix=get("PREFIX") or "", env=env, cwd=get("CWD") or "", kill=_bool(get("KILL")),
        reconfig=_bool(get("RECONFIG")),
        reconfig_rerun=_bool(get("RECONFIG_RERUN")) and kind.base != "BENCHMARKS",
        job_load=_float(get("JOB_LOAD"), kind.job_load, 0.0, 100.0),
        condition=condition, slots=slots)


def read_cron_params(lookup: Lookup, kind: ManagerKind) -> CronParams:
    """Every usable job of ``kind`` (see the module doc)."""
    joblist = lookup(f"{kind.base}_JOBLIST")
    names = split_list(joblist if joblist is not None else kind.joblist)
    jobs: list[CronJobParams] = []
    problems: list[str] = []
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            problems.append(f"{kind.base}_JOBLIST names '{name}' twice; the second is ignored")
            continue
        seen.add(name.lower())
        try:
            job = _job(lookup, kind, name)
        except _Skip as e:
            problems.append(str(e))
            continue
        if kind.base == "BENCHMARKS" and job.mode != CronMode.ON_DEMAND:
            problems.append(f"{kind.base}_{name}_MODE: benchmark job '{name}' is not "
                            "'OnDemand': skipping")
            continue
        jobs.append(job)
    return CronParams(
        kind=kind, jobs=tuple(jobs),
        max_job_load=_float(lookup(f"{kind.base}_MAX_JOB_LOAD"), kind.max_job_load, 0.01,
                            1000.0),
        log_non_zero_exit=_param_boolean(lookup(f"{kind.env_name}_CRON_LOG_NON_ZERO_EXIT")),
        problems=tuple(problems))
