"""Build one job ad from the submit commands, as HTCondor's ``SubmitHash::make_job_ad``.

How this works
--------------
``build_job`` runs the attribute setters in HTCondor's order -- the order matters: the
universe decides almost everything, the transfer settings and the requests decide the
Requirements clauses, the simple one-to-one commands override what earlier setters
wrote, and ``+Attr`` overrides everything. Each setter reads submit commands through
``JobInput.param`` and writes attributes into ``Attrs``; a refused value raises
``SubmitError`` at the command's line.

The first proc of a cluster starts from the base attributes every job has; later
procs start from a copy of the first proc's ad, as HTCondor builds them on top of the
cluster ad: what they do not set again they inherit (the universe is the cluster's).
This module has the base ad, status, notification, kill signals and the finishing
steps (``SetAutoAttributes``, ``ReportCommonMistakes``, the forced attributes, job
sets); the other setters live in the modules named in ``build_job``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import (
    _checks,
    _commandline,
    _credentials,
    _files,
    _grid,
    _policy,
    _requirements,
    _resources,
    _simple,
    _transfer,
    _universe,
)
from ._commands import bool_command, parse_expr_command
from ._exprs import Expr, eval_bool, literal_number, parse
from ._job import JAVA, MPI, PARALLEL, SCHEDULER, VANILLA, VM, Attrs, JobInput
from ._numbers import c_atoi

CONDOR_VERSION = "$CondorVersion: 24.0.24 2026-09-24 BuildID: condorsim $"
CONDOR_PLATFORM = "$CondorPlatform: X86_64-condorsim $"
_RECONNECT = (VANILLA, JAVA, PARALLEL, VM)


def build_job(job: JobInput, *, resume: Attrs | None = None,
              at_forced: Callable[[JobInput, Attrs], None] | None = None) -> Attrs:
    """All attributes of one proc's job ad (cluster and proc attributes together).

    ``at_forced`` is told the job and the ad as they are before the ``+Attr`` step (the
    steps from there on read what it sets); ``resume`` is such an ad of an earlier proc, to
    run only those last steps on (``job`` then as it was at that point).
    """
    if resume is not None:
        ad = resume
        steps = _STEPS[_FORCED_AT:]
    else:
        steps = _STEPS
        if job.cluster_ad is None:
            ad = _base(job)
            _universe.set_universe(job, ad)
            if job.pending is not None:
                raise job.pending
        else:
            ad = job.cluster_ad.copy()
            job.universe, job.is_docker, job.is_container, job.grid_type, job.vm_type = (
                job.cluster_flags
            )
        job.table.defaults["node"] = {PARALLEL: "#pArAlLeLnOdE#",
                                      MPI: "#MpInOdE#"}.get(job.universe, "")
    for i, step in enumerate(steps):
        if at_forced is not None and resume is None and i == _FORCED_AT:
            at_forced(job, ad)
        step(job, ad)
        if job.pending is not None:
            raise job.pending
    return ad


def _base(job: JobInput) -> Attrs:
    """``init_base_ad``: what every job starts with."""
    ad = Attrs()
    ad["MyType"] = "Job"
    ad["TargetType"] = "Machine"
    ad["QDate"] = job.qdate
    if job.submit_method is not None:
        ad["JobSubmitMethod"] = job.submit_method
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
    for name in _submit_attrs(job, forced=False):
        value = job.knob(name)
        if value is not None and parse(value) is not None:
            ad[name] = Expr(value)
    ad["CondorVersion"] = CONDOR_VERSION
    ad["CondorPlatform"] = CONDOR_PLATFORM
    return ad


def _submit_attrs(job: JobInput, forced: bool) -> list[str]:
    """The names in config SUBMIT_ATTRS, SUBMIT_EXPRS and SYSTEM_SUBMIT_ATTRS: those with
    ``+``/``MY.`` (forced, without the prefix) or those without."""
    out = []
    for knob in ("SUBMIT_ATTRS", "SUBMIT_EXPRS", "SYSTEM_SUBMIT_ATTRS"):
        for name in (job.knob(knob) or "").replace(",", " ").split():
            if name.startswith("+"):
                name, is_forced = name[1:], True
            elif name[:3].lower() == "my.":
                name, is_forced = name[3:], True
            else:
                is_forced = False
            if is_forced == forced and name and name not in out:
                out.append(name)
    return out


def _skip_filechecks(job: JobInput, ad: Attrs) -> None:
    value = job.param("skip_filechecks")
    job.checks_warn = False
    if value is None:
        return
    if value.lower() == "warn":
        job.checks_warn = True
    elif eval_bool(value) is None:
        raise job.error(f"SUBMIT_CMD_skip_filechecks={value} is invalid, must be 'warn' or a "
                        "boolean\n", "skip_filechecks")  # fmt: skip


def _status(job: JobInput, ad: Attrs) -> None:
    if bool_command(job, "hold", None, False):
        ad["JobStatus"] = 5
        ad["HoldReasonCode"] = 15
        ad["HoldReason"] = "submitted on hold at user's request"
    else:
        ad["JobStatus"] = 1
    ad["EnteredCurrentStatus"] = job.qdate


def _notification(job: JobInput, ad: Attrs) -> None:
    how = job.param("notification", "JobNotification")
    if how is None:
        how = job.knob("JOB_DEFAULT_NOTIFICATION")
    codes = {"never": 0, "complete": 2, "always": 1, "error": 3}
    code = 0 if how is None else codes.get(how.lower())
    if code is None:
        raise job.error("Notification must be 'Never', 'Always', 'Complete', or 'Error'\n",
                        "notification", "JobNotification")  # fmt: skip
    ad["JobNotification"] = code


# The signals HTCondor knows by name on Linux (sig_name.cpp), with their numbers.
_SIGNALS = {
    "SIGKILL": 9, "SIGCONT": 18, "SIGTERM": 15, "SIGQUIT": 3, "SIGHUP": 1, "SIGSTOP": 19,
    "SIGTSTP": 20, "SIGUSR1": 10, "SIGUSR2": 12, "SIGCHLD": 17, "SIGABRT": 6, "SIGALRM": 14,
    "SIGFPE": 8, "SIGILL": 4, "SIGINT": 2, "SIGPIPE": 13, "SIGSEGV": 11, "SIGTRAP": 5,
    "SIGTTIN": 21, "SIGTTOU": 22, "SIGIO": 29, "SIGBUS": 7, "SIGURG": 23, "SIGPROF": 27,
    "SIGWINCH": 28, "SIGSYS": 31, "SIGXCPU": 24, "SIGXFSZ": 25,
}  # fmt: skip
_SIGNAL_NAMES = {number: name for name, number in _SIGNALS.items()}


def _signal(job: JobInput, key: str, alt: str) -> str | None:
    """``fixupKillSigName``: a number or a ``SIG`` name (any case), as the name in upper case."""
    value = job.param(key, alt)
    if value is None:
        return None
    number = c_atoi(value)
    name = _SIGNAL_NAMES.get(number) if number else value.upper()
    if name is None or name not in _SIGNALS:
        raise job.error(f"invalid signal {value}\n", key, alt)
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
        ad["KillSigTimeout"] = c_atoi(timeout)


def _auto_attributes(job: JobInput, ad: Attrs) -> None:
    """``SetAutoAttributes``: host counts, the default lease, JobPrio, starter debugging."""
    if job.lookup(ad, "MaxHosts") is None and job.universe != MPI:
        ad["MinHosts"] = 1
        ad["MaxHosts"] = 1
    if job.lookup(ad, "CurrentHosts") is None:
        ad["CurrentHosts"] = 0
    if job.lookup(ad, "SuccessCheckpointExitCode") is not None:
        ad["WantFTOnCheckpoint"] = True
    if job.universe in _RECONNECT and job.lookup(ad, "JobLeaseDuration") is None:
        lease = job.conf("JOB_DEFAULT_LEASE_DURATION", "2400")
        if lease:
            ad["JobLeaseDuration"] = parse_expr_command(job, "JobLeaseDuration", lease,
                                                        "job_lease_duration")  # fmt: skip
    if job.lookup(ad, "JobPrio") is None:
        ad["JobPrio"] = 0
    if job.lookup(ad, "JobStarterLog") is not None and job.lookup(ad, "JobStarterDebug") is None:
        ad["JobStarterDebug"] = True


def _common_mistakes(job: JobInput, ad: Attrs) -> None:
    """``ReportCommonMistakes``: warnings, the lease floor and the scheduler-deferral check."""
    notify = job.lookup(ad, "NotifyUser")
    if isinstance(notify, str) and notify.lower() in ("false", "never") and (
        "notify_user" not in job.warned
    ):
        domain = job.conf("UID_DOMAIN", "")
        job.warn(f"You used  notify_user={notify}  in your submit file.\nThis means "
                 f'notification email will go to user "{notify}@{domain}".\nThis is probably '
                 'not what you expect!\nIf you do not want notification email, put '
                 '"notification = never"\ninto your submit file, instead.')  # fmt: skip
        job.warned.add("notify_user")
    length = job.lookup(ad, "JobMachineAttrsHistoryLength")
    if isinstance(length, int) and not 0 <= length <= 2**31 - 1:
        raise job.error(f"job_machine_attrs_history_length={length} is out of bounds 0 to "
                        f"{2**31 - 1}\n", "job_machine_attrs_history_length")  # fmt: skip
    if "job_lease_too_small" not in job.warned:
        lease = job.lookup(ad, "JobLeaseDuration")
        number = literal_number(lease.text) if isinstance(lease, Expr) else None
        if isinstance(lease, (bool, int, float)):
            number = float(lease)
        if number is not None and 0 < number < 20:
            job.warn("JobLeaseDuration less than 20 seconds is not allowed, using 20 instead")
            job.warned.add("job_lease_too_small")
            ad["JobLeaseDuration"] = 20
    if job.universe == SCHEDULER and job.lookup(ad, "DeferralTime") is not None:
        attr = _requirements.needs_deferral(job, ad) or "DeferralTime"
        raise job.error(f"{attr} does not work for scheduler universe jobs.\nConsider submitting "
                        "this job using the local universe, instead\n", "deferral_time",
                        "DeferralTime")  # fmt: skip


def _forced_submit_attrs(job: JobInput, ad: Attrs) -> None:
    """``SetForcedSubmitAttrs``: the ``+``/``MY.`` names of config SUBMIT_ATTRS."""
    for name in _submit_attrs(job, forced=True):
        value = job.knob(name)
        if value is not None:
            ad[name] = parse_expr_command(job, name, value, name)


def _forced(job: JobInput, ad: Attrs) -> None:
    """``+Attr`` / ``MY.Attr``: any ClassAd expression, last so it overrides the rest."""
    for lower, (key, raw) in sorted(job.table.user.items()):
        if not lower.startswith("my."):
            continue
        name = key[3:]
        value = job.table.expand(raw) if raw else ""
        ad[name] = parse_expr_command(job, name, value or "undefined", key)
    ad["ClusterId"] = job.cluster
    ad["ProcId"] = job.proc


def _job_set(job: JobInput, ad: Attrs) -> None:
    """``ProcessJobsetAttributes``: a job set is a cluster's, never a proc's."""
    if job.cluster_ad is not None:
        first = job.cluster_ad.get("JobSetName")
        mine = ad.get("JobSetName")
        if first is not None and mine != first:
            raise job.error(f"({job.cluster}.0:{first} != {job.cluster}.{job.proc}:{mine}) All "
                            "jobs from a single submission must be in the same JOBSET\n",
                            "jobset")  # fmt: skip
        return
    jobset: dict[str, str] = {}
    for lower, (key, _raw) in sorted(job.table.user.items()):
        if not lower.startswith("jobset."):
            continue
        value = job.param(key)
        name = key[len("jobset.") :]
        if name.lower() == "name":
            if value is not None:
                jobset["JobSetName"] = _simple.strip_quotes(value)
        elif value is not None:
            if parse(value) is None:
                raise job.error(f"Parse error in JOBSET expression: \n\t{name} = {value}\n\t", key)
            jobset[name] = value
    if isinstance(ad.get("JobSetName"), str) or not jobset:
        return
    ad["JobSetName"] = jobset.get("JobSetName", str(job.cluster))


def _file_checks(job: JobInput, ad: Attrs) -> None:
    """condor_submit's own checks of the executable (``Submit.jobs(checks=True)``)."""
    if job.checks:
        _checks.check_executable(job)


Setter = Callable[[JobInput, Attrs], None]

# make_job_ad's order.
_STEPS: tuple[Setter, ...] = (
    _skip_filechecks, _files.set_iwd, _files.set_executable, _file_checks,
    _commandline.set_arguments, _grid.set_grid, _universe.set_vm,
    _commandline.set_java_vm_args, _universe.set_parallel, _commandline.set_environment,
    _status, _commandline.set_tdp, _files.set_std_files, _credentials.set_gsi_credentials,
    _notification, _policy.set_rank, _policy.set_periodic, _policy.set_leave_in_queue,
    _policy.set_retries, _kill_signals, _universe.set_container_special,
    _resources.set_request_resources, _policy.set_concurrency_limits,
    _policy.set_accounting_group, _credentials.set_oauth, _simple.set_simple,
    _policy.set_deferral, _transfer.set_image_size, _transfer.set_transfer, _auto_attributes,
    _common_mistakes, _forced_submit_attrs, _forced, _job_set,
    _resources.set_resource_requirements, _requirements.set_requirements,
)  # fmt: skip
_FORCED_AT = _STEPS.index(_forced)
"""Where the ``+Attr`` commands are set: a later proc whose per-proc values are read only
from here on is built from the earlier proc's ad as it was at this step."""
