"""Build one job ad from the submit commands, as HTCondor's ``SubmitHash::make_job_ad``.

How this works
--------------
``build_job`` runs the attribute setters in HTCondor's order (the order matters: the
transfer settings decide the Requirements clauses, the universe decides almost
everything). Each setter reads submit commands through ``JobInput.param`` and writes
attributes into ``Attrs``; a refused value raises ``SubmitError`` at the command's line.
The setters for files live in ``_files``, those for matching and policy in ``_policy``;
this module has the base ad, universe, executable, status, environment, arguments and
the commands that map one-to-one to an attribute.
"""

from __future__ import annotations

from . import _files, _policy
from ._argsenv import (
    ArgsError,
    arguments_attribute,
    environment_attributes,
    import_environment,
    is_v2_quoted,
    parse_environment,
)
from ._commands import bool_command, int_command, parse_expr_command
from ._exprs import clamp64
from ._job import GRID, LOCAL, SCHEDULER, VANILLA, Attrs, JobInput

CONDOR_VERSION = "$CondorVersion: 24.0.24 2026-09-24 BuildID: condorsim $"
CONDOR_PLATFORM = "$CondorPlatform: X86_64-condorsim $"

# CondorUniverseNameUcFirst, for the "not a supported universe" message.
_UNIVERSE_NAMES = {
    1: "Standard", 2: "Pipe", 3: "Linda", 4: "PVM", 5: "Vanilla", 6: "PVMD", 7: "Scheduler",
    8: "MPI", 9: "Grid", 10: "Java", 11: "Parallel", 12: "Local", 13: "VM",
}  # fmt: skip
_UNIVERSES = {"vanilla": VANILLA, "scheduler": SCHEDULER, "grid": GRID, "local": LOCAL}
_NOT_SIMULATED = {"java": 10, "parallel": 11, "vm": 13, "docker": 5, "container": 5}
_RETIRED = {"standard": 1, "pipe": 2, "linda": 3, "pvm": 4, "pvmd": 6, "mpi": 8}


def build_job(job: JobInput) -> Attrs:
    """All attributes of one proc's job ad (cluster and proc attributes together)."""
    ad = Attrs()
    _base(job, ad)
    job.universe = _universe(job, ad)
    _files.set_iwd(job, ad)
    _files.set_executable(job, ad)
    _simple(job, ad, _EARLY)
    _machine_count(ad)
    _status(job, ad)
    _priority(job, ad)
    _policy.set_nice_user(job, ad)
    _simple(job, ad, _RETIREMENT)
    _environment(job, ad)
    _notification(job, ad)
    _simple(job, ad, _NOTIFY)
    _files.set_user_log(job, ad)
    _kill_signals(job, ad)
    _policy.set_rank(job, ad)
    _files.set_std_files(job, ad)
    _files.set_transfer(job, ad)
    _files.set_image_size(job, ad)
    _policy.set_requests(job, ad)
    _simple(job, ad, _SIMPLE)
    _policy.set_cron_and_deferral(job, ad)
    _policy.set_retries(job, ad)
    _policy.set_requirements(job, ad)
    _policy.set_job_lease(job, ad)
    _policy.set_periodic(job, ad)
    _arguments(job, ad)
    _grid(job, ad)
    _policy.set_concurrency_limits(job, ad)
    _policy.set_accounting_group(job, ad)
    _forced(job, ad)
    ad["ClusterId"] = job.cluster
    ad["ProcId"] = job.proc
    if job.submit_method is not None:
        ad["JobSubmitMethod"] = job.submit_method
    return ad


def _base(job: JobInput, ad: Attrs) -> None:
    ad["MyType"] = "Job"
    ad["TargetType"] = "Machine"
    ad["QDate"] = job.qdate
    ad["Owner"] = job.owner
    ad["User"] = f"{job.owner}@{job.conf('UID_DOMAIN', 'localhost')}"
    for name in ("RemoteWallClockTime", "RemoteUserCpu", "RemoteSysCpu",
                 "CumulativeRemoteUserCpu", "CumulativeRemoteSysCpu"):  # fmt: skip
        ad[name] = 0.0
    for name in ("ExitStatus", "NumCkpts", "NumJobStarts", "NumJobCompletions", "NumRestarts",
                 "NumSystemHolds", "CommittedTime", "CommittedSlotTime", "CumulativeSlotTime",
                 "TotalSuspensions", "LastSuspensionTime", "CumulativeSuspensionTime",
                 "CommittedSuspensionTime"):  # fmt: skip
        ad[name] = 0
    ad["ExitBySignal"] = False
    ad["LeaveJobInQueue"] = False
    ad["CondorVersion"] = CONDOR_VERSION
    ad["CondorPlatform"] = CONDOR_PLATFORM


def _universe(job: JobInput, ad: Attrs) -> int:
    value = job.param("universe", "JobUniverse") or job.conf("DEFAULT_UNIVERSE", "vanilla")
    word = value.strip().lower()
    number: int | None = None
    if word.isascii() and word.isdigit():
        number = int(word)
        if number == 0:
            raise job.error(f"I don't know about the '{value.strip()}' universe.", "universe")
        if number in (VANILLA, SCHEDULER, GRID, LOCAL):
            ad["JobUniverse"] = number
            return number
        if number in (10, 11, 13):
            word = _UNIVERSE_NAMES[number].lower()
        else:
            name = _UNIVERSE_NAMES.get(number, "Unknown")
            raise job.error(f"'{name}' is not a supported universe.", "universe")
    if word in _UNIVERSES:
        ad["JobUniverse"] = _UNIVERSES[word]
        return _UNIVERSES[word]
    if word in _RETIRED:
        name = _UNIVERSE_NAMES[_RETIRED[word]]
        raise job.error(f"'{name}' is not a supported universe.", "universe")
    if word in _NOT_SIMULATED:
        raise job.error(f"the '{word}' universe is not supported by condorsim", "universe")
    raise job.error(f"I don't know about the '{value.strip()}' universe.", "universe")


def _machine_count(ad: Attrs) -> None:
    ad["MinHosts"] = 1
    ad["MaxHosts"] = 1
    ad["CurrentHosts"] = 0


def _status(job: JobInput, ad: Attrs) -> None:
    hold = bool_command(job, "hold", None, False)
    if hold:
        ad["JobStatus"] = 5
        ad["HoldReasonCode"] = 15
        ad["HoldReason"] = "submitted on hold at user's request"
    else:
        ad["JobStatus"] = 1
    ad["EnteredCurrentStatus"] = job.qdate


def _priority(job: JobInput, ad: Attrs) -> None:
    ad["JobPrio"] = int_command(job, "priority", "prio") or 0


def _environment(job: JobInput, ad: Attrs) -> None:
    # The value is ``environment`` (``env`` only when ``environment`` is absent); the old
    # syntax is written (Env) when an ``env`` command in old syntax is present.
    value = job.param("environment", "env")
    env_cmd = job.param("env")
    env: dict[str, str] = {}
    if value is not None:
        try:
            env, _ = parse_environment(value)
        except ArgsError as exc:
            key = job.key_used("environment", "env")
            raise job.error(f"{exc}\nThe environment you specified was: '{value}'", key) from None
    v1 = value is not None and env_cmd is not None and not is_v2_quoted(env_cmd)
    getenv = job.param("getenv")
    if getenv is not None:
        import_environment(env, getenv, job.env, v1)
    for name, text in environment_attributes(env, v1):
        ad[name] = text


def _notification(job: JobInput, ad: Attrs) -> None:
    how = job.param("notification", "JobNotification") or job.conf(
        "JOB_DEFAULT_NOTIFICATION", "NEVER"
    )
    codes = {"never": 0, "always": 1, "complete": 2, "error": 3}
    code = codes.get(how.strip().lower())
    if code is None:
        raise job.error(
            "Notification must be 'Never', 'Always', 'Complete', or 'Error'", "notification"
        )
    ad["JobNotification"] = code


# Linux signal numbers, for kill_sig and friends (HTCondor's sig_name table).
_SIGNALS = {
    "SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6,
    "SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12,
    "SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGSTKFLT": 16, "SIGCHLD": 17,
    "SIGCONT": 18, "SIGSTOP": 19, "SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22, "SIGURG": 23,
    "SIGXCPU": 24, "SIGXFSZ": 25, "SIGVTALRM": 26, "SIGPROF": 27, "SIGWINCH": 28,
    "SIGIO": 29, "SIGPWR": 30, "SIGSYS": 31,
}  # fmt: skip
_SIGNAL_NAMES = {number: name for name, number in _SIGNALS.items()}


def _atoi(text: str) -> int:
    """C ``atoi``: optional white space and sign, then the leading digits (0 if none)."""
    s = text.lstrip()
    sign = -1 if s[:1] == "-" else 1
    s = s[1:] if s[:1] in "+-" else s
    digits = ""
    for ch in s:
        if not "0" <= ch <= "9":
            break
        digits += ch
    return clamp64(sign * int(digits)) if digits else 0


def _signal(job: JobInput, key: str, alt: str) -> str | None:
    """A signal command: a number or a ``SIG`` name (any case), as the name in upper case."""
    value = job.param(key, alt)
    if value is None:
        return None
    number = _atoi(value)
    name = _SIGNAL_NAMES.get(number) if number else value.upper()
    if name is None or name not in _SIGNALS:
        raise job.error(f"invalid signal {value}", key, alt)
    return name


def _kill_signals(job: JobInput, ad: Attrs) -> None:
    sig = _signal(job, "kill_sig", "KillSig")
    if sig is None and job.universe != VANILLA:
        sig = "SIGTERM"
    if sig is not None:
        ad["KillSig"] = sig
    for key, attr in (("remove_kill_sig", "RemoveKillSig"), ("hold_kill_sig", "HoldKillSig")):
        sig = _signal(job, key, attr)
        if sig is not None:
            ad[attr] = sig
    timeout = job.param("kill_sig_timeout", "KillSigTimeout")
    if timeout is not None:
        ad["KillSigTimeout"] = _atoi(timeout)


def _arguments(job: JobInput, ad: Attrs) -> None:
    value = job.param("arguments", "args")
    try:
        name, text = arguments_attribute(value)
    except ArgsError as exc:
        raise job.error(
            f"{exc}\nThe full arguments you specified were: {value}", "arguments", "args"
        ) from None
    ad[name] = text


_GRID_TYPES = ("condor", "batch", "arc", "pbs", "lsf", "sge", "nqs")


def _grid(job: JobInput, ad: Attrs) -> None:
    if job.universe != GRID:
        return
    resource = job.param("grid_resource", "GridResource")
    if resource is None:
        raise job.error("grid_resource attribute not defined for grid universe job", "universe")
    kind = resource.split()[0]
    if kind.lower() in ("ec2", "gce", "azure"):
        raise job.error(f"the '{kind}' grid type is not supported by condorsim", "grid_resource")
    if kind.lower() not in _GRID_TYPES:
        raise job.error(
            f"Invalid value '{kind}' for grid type\n"
            "Must be one of: condor, batch, arc, ec2, gce, or azure",
            "grid_resource",
        )
    ad["GridResource"] = resource


# (submit command, alternate name, attribute, kind): "expr" is ClassAd text, "string"
# a string with surrounding quotes removed, "bool" a boolean command, "list" a string
# with white space and commas normalised to commas.
_EARLY = (("description", "JobDescription", "JobDescription", "raw"),)
_RETIREMENT = (("max_job_retirement_time", "MaxJobRetirementTime", "MaxJobRetirementTime", "expr"),)
_NOTIFY = (
    ("notify_user", "NotifyUser", "NotifyUser", "raw"),
    ("email_attributes", "EmailAttributes", "EmailAttributes", "list"),
    ("want_graceful_removal", "WantGracefulRemoval", "WantGracefulRemoval", "expr"),
    ("job_max_vacate_time", "JobMaxVacateTime", "JobMaxVacateTime", "expr"),
)
_SIMPLE = (
    ("batch_name", "JobBatchName", "JobBatchName", "string"),
    ("next_job_start_delay", "NextJobStartDelay", "NextJobStartDelay", "expr"),
    ("keep_claim_idle", "KeepClaimIdle", "KeepClaimIdle", "expr"),
    ("job_ad_information_attrs", "JobAdInformationAttrs", "JobAdInformationAttrs", "raw"),
    ("submit_event_notes", "SubmitEventNotes", "SubmitEventNotes", "raw"),
    ("allowed_execute_duration", "AllowedExecuteDuration", "AllowedExecuteDuration", "expr"),
    ("allowed_job_duration", "AllowedJobDuration", "AllowedJobDuration", "expr"),
    ("job_machine_attrs", "JobMachineAttrs", "JobMachineAttrs", "raw"),
    ("noop_job", "IsNoopJob", "IsNoopJob", "expr"),
    ("leave_in_queue", "LeaveJobInQueue", "LeaveJobInQueue", "expr"),
)


def _simple(job: JobInput, ad: Attrs, table: tuple[tuple[str, str, str, str], ...]) -> None:
    for key, alt, attr, kind in table:
        value = job.param(key, alt)
        if value is None:
            continue
        if kind == "expr":
            ad[attr] = parse_expr_command(job, attr, value, key, alt)
        elif kind == "string":
            text = value.strip()
            if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
                text = text[1:-1]
            ad[attr] = text
        elif kind == "list":
            ad[attr] = ",".join(value.replace(",", " ").split())
        else:
            ad[attr] = value


def _forced(job: JobInput, ad: Attrs) -> None:
    """``+Attr`` / ``MY.Attr``: any ClassAd expression, last so it overrides the rest."""
    for lower, (key, raw) in job.table.user.items():
        if not lower.startswith("my."):
            continue
        name = key[3:]
        value = job.param(key) if raw else None
        ad[name] = parse_expr_command(job, name, value or "undefined", key)
