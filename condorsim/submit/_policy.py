"""Setters for matching and policy: Rank, Request*, deferral and CronTab, retries,
Requirements, the job lease, the periodic and on-exit expressions, concurrency limits
and accounting groups.

How this works
--------------
Each function follows the HTCondor ``SubmitHash::Set*`` of the same purpose. The
Requirements expression is the user's (in parentheses) followed by the clauses submit
adds, in HTCondor's order and spelling; a clause is left out when the user's expression
already refers to the attribute it tests, or when the request it checks is a constant
too small to matter (RequestMemory <= 1, RequestCpus <= 1, RequestDisk <= 0,
RequestGPUs <= 0), as condor_submit 24.0 does.
"""

from __future__ import annotations

from ._commands import bool_command, int_command, parse_expr_command
from ._exprs import Expr, clamp64, literal, literal_number, parse, references, wrap_for_or
from ._job import GRID, LOCAL, SCHEDULER, VANILLA, Attrs, JobInput


def set_nice_user(job: JobInput, ad: Attrs) -> None:
    if bool_command(job, "nice_user", "NiceUser", False):
        ad["MaxJobRetirementTime"] = 0


def set_rank(job: JobInput, ad: Attrs) -> None:
    rank = job.param("rank", "Rank") or job.param("preferences")
    if rank is None:
        rank = job.conf("DEFAULT_RANK", "") or None
    if rank is None:
        ad["Rank"] = 0.0
    else:
        ad["Rank"] = parse_expr_command(job, "Rank", rank, "rank", "Rank")


def parse_int64_bytes(text: str, base: int) -> int | None:
    """HTCondor's ``parse_int64_bytes``: ``N[.fff][K|M|G|T][B]`` in units of ``base`` bytes
    (rounded up), None when the text is not of that form."""
    s = text.lstrip(" \t\n\r\v\f")
    i = 0
    if s[:1] in "+-":
        i = 1
    j = i
    while j < len(s) and "0" <= s[j] <= "9":
        j += 1
    whole = int(s[:j]) if j > i else 0
    p = j if j > i else 0
    fract = 0.0
    if s[p : p + 1] == ".":
        p += 1
        scale = 0.1
        digits = 0
        while p < len(s) and "0" <= s[p] <= "9":
            if digits < 3:
                fract += int(s[p]) * scale
                scale /= 10
            digits += 1
            p += 1
    if p == 0:
        return None
    if whole < 0 or s[:1] == "-":
        fract = -fract
    while p < len(s) and s[p] in " \t\n\r\v\f":
        p += 1
    units = {"k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
    if p >= len(s):
        mult = base
    elif s[p].lower() in units:
        mult = units[s[p].lower()]
    else:
        return None
    scaled = (whole + fract) * mult + base - 1
    if abs(scaled) >= 2.0**63:
        return None
    value = int(scaled)
    value = abs(value) // base * (1 if value >= 0 else -1)
    rest = s[p + 1 :]
    if p >= len(s) or not rest:
        return value
    if rest[0] in "bB":
        rest = rest[1:]
    return value if not rest.strip() else None


def grid_type(job: JobInput) -> str:
    """The lower-cased first word of ``grid_resource`` ("" when unset)."""
    words = (job.param("grid_resource", "GridResource") or "").split()
    return words[0].lower() if words else ""


def _machine_matched(job: JobInput) -> bool:
    """True for jobs matched against slot ads: every universe but grid other than condor."""
    return job.universe != GRID or grid_type(job) == "condor"


def set_requests(job: JobInput, ad: Attrs) -> None:
    defaults = job.universe != GRID or grid_type(job) != "batch"
    cpus = job.param("request_cpus", "RequestCpus")
    if cpus is not None:
        ad["RequestCpus"] = parse_expr_command(job, "RequestCpus", cpus, "request_cpus")
    elif defaults:
        ad["RequestCpus"] = Expr(job.conf("JOB_DEFAULT_REQUESTCPUS", "1"))
    gpus = job.param("request_gpus", "RequestGPUs")
    if gpus is not None:
        ad["RequestGPUs"] = parse_expr_command(job, "RequestGPUs", gpus, "request_gpus")
    for key, attr, base, conf in (
        ("request_disk", "RequestDisk", 1024, "JOB_DEFAULT_REQUESTDISK"),
        ("request_memory", "RequestMemory", 1024 * 1024, "JOB_DEFAULT_REQUESTMEMORY"),
    ):
        value = job.param(key, attr)
        if value is not None:
            number = parse_int64_bytes(value, base)
            ad[attr] = number if number is not None else parse_expr_command(job, attr, value, key)
        elif defaults:
            ad[attr] = Expr(job.conf(conf, ""))


_NON_NEGATIVE = "is invalid, must eval to a non-negative integer."


def _deferral_expr(job: JobInput, key: str, alt: str, name: str) -> Expr | None:
    """A deferral setting; a literal must be a non-negative integer (``name`` is the
    command condor_submit names in the message, whichever spelling was used)."""
    value = job.param(key, alt)
    if value is None:
        return None
    tree = parse(value)
    ok, lit = literal(value)
    if tree is None or (ok and not (type(lit) is int and lit >= 0)):
        raise job.error(f"{name} = {value} {_NON_NEGATIVE}", key, alt)
    return Expr(value)


_CRON = (
    ("cron_minute", "CronMinute"),
    ("cron_hour", "CronHour"),
    ("cron_day_of_month", "CronDayOfMonth"),
    ("cron_month", "CronMonth"),
    ("cron_day_of_week", "CronDayOfWeek"),
)


def set_cron_and_deferral(job: JobInput, ad: Attrs) -> None:
    for key, attr in _CRON:
        value = job.param(key, attr)
        if value is not None:
            ad[attr] = value
    deferral_time = _deferral_expr(job, "deferral_time", "DeferralTime", "deferral_time")
    if deferral_time is not None:
        if job.universe == SCHEDULER:
            raise job.error(
                "DeferralTime does not work for scheduler universe jobs.\n"
                "Consider submitting this job using the local universe, instead",
                "deferral_time",
                "DeferralTime",
            )
        ad["DeferralTime"] = deferral_time
    if not needs_deferral(ad):
        return
    window = _deferral_expr(job, "cron_window", "CronWindow", "deferral_window")
    if window is None:
        window = _deferral_expr(job, "deferral_window", "DeferralWindow", "deferral_window")
    ad["DeferralWindow"] = window if window is not None else 0
    prep = _deferral_expr(job, "cron_prep_time", "CronPrepTime", "deferral_prep_time")
    if prep is None:
        prep = _deferral_expr(job, "deferral_prep_time", "DeferralPrepTime", "deferral_prep_time")
    ad["DeferralPrepTime"] = prep if prep is not None else 300
    ad["ScheddInterval"] = int(job.conf("SCHEDD_INTERVAL", "300"))


def needs_deferral(ad: Attrs) -> bool:
    """HTCondor's ``NeedsJobDeferral``: a DeferralTime or any Cron* attribute."""
    return "DeferralTime" in ad or any(attr in ad for _, attr in _CRON)


def set_retries(job: JobInput, ad: Attrs) -> None:
    retries = int_command(job, "max_retries", "JobMaxRetries")
    until = job.param("retry_until")
    success = job.param("success_exit_code", "JobSuccessExitCode")
    if retries is None and until is None and success is None:
        return
    ad["JobMaxRetries"] = 2 if retries is None else retries
    remove = "NumJobCompletions > JobMaxRetries || ExitCode is "
    if success is not None:
        ad["JobSuccessExitCode"] = parse_expr_command(
            job, "JobSuccessExitCode", success, "success_exit_code"
        )
        remove += "JobSuccessExitCode"
    else:
        remove += "0"
    if until is not None:
        ok, value = literal(until)
        if ok and type(value) is int:
            remove += f" || ExitCode is {value}"
        else:
            parse_expr_command(job, "OnExitRemove", until, "retry_until")
            remove += " || " + wrap_for_or(until)
    user_remove = job.param("on_exit_remove", "OnExitRemove")
    if user_remove is not None:
        parse_expr_command(job, "OnExitRemove", user_remove, "on_exit_remove", "OnExitRemove")
        remove += " || " + wrap_for_or(user_remove)
    ad["OnExitRemove"] = parse_expr_command(job, "OnExitRemove", remove, "max_retries")
    if not job.has("on_exit_hold", "OnExitHold"):
        ad["OnExitHold"] = False


_PERIODIC = (
    ("on_exit_remove", "OnExitRemove"),
    ("on_exit_hold", "OnExitHold"),
    ("on_exit_hold_reason", "OnExitHoldReason"),
    ("on_exit_hold_subcode", "OnExitHoldSubCode"),
    ("periodic_hold", "PeriodicHold"),
    ("periodic_hold_reason", "PeriodicHoldReason"),
    ("periodic_hold_subcode", "PeriodicHoldSubCode"),
    ("periodic_release", "PeriodicRelease"),
    ("periodic_remove", "PeriodicRemove"),
    ("periodic_vacate", "PeriodicVacate"),
)


def set_periodic(job: JobInput, ad: Attrs) -> None:
    for key, attr in _PERIODIC:
        if attr == "OnExitRemove" and "JobMaxRetries" in ad:
            continue
        value = job.param(key, attr)
        if value is not None:
            ad[attr] = parse_expr_command(job, attr, value, key, attr)


def set_job_lease(job: JobInput, ad: Attrs) -> None:
    """JobLeaseDuration: the command, else JOB_DEFAULT_LEASE_DURATION for vanilla jobs."""
    value = job.param("job_lease_duration", "JobLeaseDuration")
    if value is None:
        if job.universe != VANILLA:
            return
        value = job.conf("JOB_DEFAULT_LEASE_DURATION", "2400")
    text = value.strip()
    digits = text[1:] if text[:1] in "+-" else text
    if digits.isascii() and digits.isdigit():
        number = clamp64(int(text))
        if 0 < number < 20 and "job_lease_too_small" not in job.warned:
            # condor_submit 24.0 raises a lease under 20 s to 20 only along with its
            # warning, which it gives once per submission: later jobs keep the value.
            job.warned.add("job_lease_too_small")
            number = 20
        ad["JobLeaseDuration"] = number
    else:
        ad["JobLeaseDuration"] = parse_expr_command(
            job, "JobLeaseDuration", value, "job_lease_duration"
        )


def _request_at_most(ad: Attrs, attr: str, limit: float) -> bool:
    """True when the request is a constant no larger than ``limit``."""
    value = ad.get(attr)
    if value is None:
        return True
    if isinstance(value, Expr):
        number = literal_number(value.text)
    elif isinstance(value, (bool, int, float)):
        number = float(value)
    else:
        number = None
    return number is not None and number <= limit


def set_requirements(job: JobInput, ad: Attrs) -> None:
    user = job.param("requirements", "Requirements")
    refs = references(user) if user else frozenset()
    clauses = [f"({user})"] if user else []
    if not _machine_matched(job):
        text = clauses[0] if clauses else "true"
        ad["Requirements"] = parse_expr_command(job, "Requirements", text, "requirements")
        return
    if "arch" not in refs:
        clauses.append(f'(TARGET.Arch == "{job.conf("ARCH", "X86_64")}")')
    if not refs & {"opsys", "opsysandver", "opsysname", "opsyslongname"}:
        clauses.append(f'(TARGET.OpSys == "{job.conf("OPSYS", "LINUX")}")')
    if not _request_at_most(ad, "RequestDisk", 0):
        clauses.append("(TARGET.Disk >= RequestDisk)")
    if not _request_at_most(ad, "RequestMemory", 1):
        clauses.append("(TARGET.Memory >= RequestMemory)")
    if job.universe != GRID:
        if "cpus" not in refs and not _request_at_most(ad, "RequestCpus", 1):
            clauses.append("(TARGET.Cpus >= RequestCpus)")
        if "gpus" not in refs and not _request_at_most(ad, "RequestGPUs", 0):
            clauses.append("(TARGET.GPUs >= RequestGPUs)")
    if job.universe == VANILLA:
        clause = _file_transfer_clause(ad.get("ShouldTransferFiles"), refs)
        if clause:
            clauses.append(clause)
    if needs_deferral(ad):
        if job.universe != LOCAL:
            clauses.append("TARGET.HasJobDeferral")
        clauses.append(
            "(((time() + ScheddInterval) >= (DeferralTime - DeferralPrepTime)) && "
            "(time() < (DeferralTime + DeferralWindow)))"
        )
    text = " && ".join(clauses)
    ad["Requirements"] = parse_expr_command(job, "Requirements", text, "requirements")


def _file_transfer_clause(should: object, refs: frozenset[str]) -> str | None:
    if should == "YES":
        return None if "hasfiletransfer" in refs else "(TARGET.HasFileTransfer)"
    if should == "NO":
        if "filesystemdomain" in refs:
            return None
        return "(TARGET.FileSystemDomain == MY.FileSystemDomain)"
    if "hasfiletransfer" in refs:
        return None
    if "filesystemdomain" in refs:
        return "(TARGET.HasFileTransfer)"
    return "((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))"


def set_concurrency_limits(job: JobInput, ad: Attrs) -> None:
    limits = job.param("concurrency_limits", "ConcurrencyLimits")
    if limits is not None:
        names = [part for part in "".join(limits.lower().split()).split(",") if part]
        ad["ConcurrencyLimits"] = ",".join(sorted(names))
        return
    expr = job.param("concurrency_limits_expr")
    if expr is not None:
        ad["ConcurrencyLimits"] = parse_expr_command(
            job, "ConcurrencyLimits", expr, "concurrency_limits_expr"
        )


def set_accounting_group(job: JobInput, ad: Attrs) -> None:
    group = job.param("accounting_group", "AcctGroup")
    user = job.param("accounting_group_user", "AcctGroupUser")
    if group is None and bool_command(job, "nice_user", "NiceUser", False):
        group = "nice-user"
    if group is not None:
        user = user or job.owner
        ad["AcctGroup"] = group
        ad["AcctGroupUser"] = user
        ad["AccountingGroup"] = f"{group}.{user}"
    elif user is not None:
        ad["AcctGroupUser"] = user
        ad["AccountingGroup"] = user
