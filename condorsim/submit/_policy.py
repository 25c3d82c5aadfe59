"""Setters for policy: Rank, the periodic and on-exit expressions, retries, deferral,
concurrency limits and accounting groups (``SetRank``, ``SetPeriodicExpressions``,
``SetLeaveInQueue``, ``SetJobRetries``, ``SetJobDeferral``, ``SetConcurrencyLimits``,
``SetAccountingGroup``).

How this works
--------------
Each function follows the HTCondor ``SubmitHash::Set*`` of the same purpose and reads
the commands by their name or by the attribute name (``periodic_hold`` or
``PeriodicHold``). Retries (``max_retries``, ``success_exit_code``, ``retry_until``)
build ``OnExitRemove = NumJobCompletions > JobMaxRetries || ExitCode =?= <success>``
with the user's ``retry_until`` (an exit code, or an expression) and ``on_exit_remove``
joined by ``||``. A deferral literal must be a non-negative integer; a deferral or cron
job gets ``DeferralWindow`` (0) and ``DeferralPrepTime`` (300) by default.
"""

from __future__ import annotations

from ._commands import bool_command, int_command, parse_expr_command
from ._exprs import Expr, eval_int, literal, parse, split_references, wrap_for
from ._job import VANILLA, Attrs, JobInput
from ._requirements import needs_deferral


def set_rank(job: JobInput, ad: Attrs) -> None:
    rank = job.param("rank", "preferences")
    default = job.knob("DEFAULT_RANK_VANILLA") if job.universe == VANILLA else None
    append = job.knob("APPEND_RANK_VANILLA") if job.universe == VANILLA else None
    default = default or job.knob("DEFAULT_RANK")
    append = append or job.knob("APPEND_RANK")
    rank = rank or default
    if append:
        rank = f"({rank}) + ({append})" if rank else append
    if rank:
        ad["Rank"] = parse_expr_command(job, "Rank", rank, "rank", "preferences")
    else:
        ad["Rank"] = 0.0


_PERIODIC = (
    ("periodic_hold", "PeriodicHold", True),
    ("periodic_hold_reason", "PeriodicHoldReason", False),
    ("periodic_hold_subcode", "PeriodicHoldSubCode", False),
    ("periodic_release", "PeriodicRelease", True),
    ("periodic_remove", "PeriodicRemove", True),
    ("periodic_vacate", "PeriodicVacate", True),
    ("on_exit_hold_reason", "OnExitHoldReason", False),
    ("on_exit_hold_subcode", "OnExitHoldSubCode", False),
)


def _default_policy(job: JobInput) -> bool:
    return job.knob_bool("SUBMIT_INSERT_DEFAULT_POLICY_EXPRS", False)


def set_periodic(job: JobInput, ad: Attrs) -> None:
    for key, attr, has_default in _PERIODIC:
        value = job.param(key, attr)
        if value is not None:
            ad[attr] = parse_expr_command(job, attr, value, key, attr)
        elif has_default and _default_policy(job) and job.lookup(ad, attr) is None:
            ad[attr] = False


def set_leave_in_queue(job: JobInput, ad: Attrs) -> None:
    value = job.param("leave_in_queue", "LeaveJobInQueue")
    if value is not None:
        ad["LeaveJobInQueue"] = parse_expr_command(job, "LeaveJobInQueue", value,
                                                   "leave_in_queue", "LeaveJobInQueue")  # fmt: skip
    elif job.lookup(ad, "LeaveJobInQueue") is None:
        ad["LeaveJobInQueue"] = False


def _retry_until(job: JobInput, text: str) -> str:
    """``retry_until`` as a clause: an exit code becomes ``ExitCode =?= N``."""
    if parse(text) is not None:
        mine, other = split_references(text, frozenset())
        number = eval_int(text)
        if not mine and not other and number is not None:
            if -(2**31) <= number <= 2**31 - 1:
                return f"ExitCode =?= {number}"
        else:
            return wrap_for(text, "||")
    raise job.error(f"retry_until={text} is invalid, it must be an integer or boolean "
                    "expression.\n", "retry_until")  # fmt: skip


def set_retries(job: JobInput, ad: Attrs) -> None:
    remove = job.param("on_exit_remove", "OnExitRemove")
    hold = job.param("on_exit_hold", "OnExitHold")
    retries = int_command(job, "max_retries", "JobMaxRetries")
    success = int_command(job, "success_exit_code", "JobSuccessExitCode", int_range=True)
    until = job.param("retry_until")
    if retries is None and success is None and until is None:
        if remove is not None:
            ad["OnExitRemove"] = parse_expr_command(job, "OnExitRemove", remove, "on_exit_remove",
                                                    "OnExitRemove")  # fmt: skip
        elif _default_policy(job) and job.lookup(ad, "OnExitRemove") is None:
            ad["OnExitRemove"] = True
        if hold is not None:
            ad["OnExitHold"] = parse_expr_command(job, "OnExitHold", hold, "on_exit_hold",
                                                  "OnExitHold")  # fmt: skip
        elif _default_policy(job) and job.lookup(ad, "OnExitHold") is None:
            ad["OnExitHold"] = False
        return
    clause = _retry_until(job, until) if until is not None else ""
    if retries is None and job.lookup(ad, "JobMaxRetries") is None:
        retries = eval_int(job.conf("DEFAULT_JOB_MAX_RETRIES", "2")) or 0
    if retries is not None:
        ad["JobMaxRetries"] = retries
    if hold is None:
        if job.lookup(ad, "OnExitHold") is None:
            ad["OnExitHold"] = False
    else:
        ad["OnExitHold"] = parse_expr_command(job, "OnExitHold", hold, "on_exit_hold",
                                              "OnExitHold")  # fmt: skip
    if job.lookup(ad, "OnExitRemove") is not None and success is None and not clause:
        return
    code = "0"
    if success is not None:
        ad["JobSuccessExitCode"] = success
        code = "JobSuccessExitCode"
    text = f"NumJobCompletions > JobMaxRetries || ExitCode =?= {code}"
    if clause:
        text += " || " + clause
    if remove is not None:
        if parse(remove) is None:
            raise job.error(f"on_exit_remove={remove} is invalid, it must be a boolean "
                            "expression.\n", "on_exit_remove", "OnExitRemove")  # fmt: skip
        text += " || " + wrap_for(remove, "||")
    ad["OnExitRemove"] = parse_expr_command(job, "OnExitRemove", text, "max_retries")


def _deferral_expr(job: JobInput, ad: Attrs, key: str, alt: str, name: str, attr: str) -> bool:
    """A deferral setting into ``attr``; a literal must be a non-negative integer
    (``name`` is the command condor_submit names in the message)."""
    value = job.param(key, alt)
    if value is None:
        return False
    ok, lit = literal(value)
    if parse(value) is None or (ok and not (type(lit) is int and lit >= 0)):
        raise job.error(f"{name} = {value} is invalid, must eval to a non-negative integer.\n",
                        key, alt)  # fmt: skip
    ad[attr] = Expr(value)
    return True


def set_deferral(job: JobInput, ad: Attrs) -> None:
    """``SetJobDeferral``: DeferralTime, and the window and prep time of deferral jobs."""
    _deferral_expr(job, ad, "deferral_time", "DeferralTime", "deferral_time", "DeferralTime")
    if not needs_deferral(job, ad):
        return
    window = ("deferral_window", "DeferralWindow")
    if not (
        _deferral_expr(job, ad, "cron_window", "CronWindow", *window)
        or _deferral_expr(job, ad, "deferral_window", "DeferralWindow", *window)
    ):
        ad["DeferralWindow"] = 0
    prep = ("deferral_prep_time", "DeferralPrepTime")
    if not (
        _deferral_expr(job, ad, "cron_prep_time", "CronPrepTime", *prep)
        or _deferral_expr(job, ad, "deferral_prep_time", "DeferralPrepTime", *prep)
    ):
        ad["DeferralPrepTime"] = 300


def _valid_attr_name(name: str) -> bool:
    return bool(name) and (name[0].isascii() and (name[0].isalpha() or name[0] == "_")) and all(
        ch.isascii() and (ch.isalnum() or ch == "_") for ch in name[1:]
    )


def _valid_limit(limit: str) -> bool:
    """``ParseConcurrencyLimit``: ``name[.sub][:increment]`` with ClassAd attribute names."""
    name = limit.split(":", 1)[0]
    base, dot, sub = name.partition(".")
    return _valid_attr_name(base) and (not dot or _valid_attr_name(sub))


def set_concurrency_limits(job: JobInput, ad: Attrs) -> None:
    limits = job.param("concurrency_limits")
    expr = job.param("concurrency_limits_expr")
    if limits is not None:
        if expr is not None:
            raise job.error("concurrency_limits and concurrency_limits_expr can't be used "
                            "together\n", "concurrency_limits")  # fmt: skip
        names = limits.lower().replace(",", " ").split()
        for name in names:
            if not _valid_limit(name):
                raise job.error(f"Invalid concurrency limit '{name}'\n", "concurrency_limits")
        if names:
            ad["ConcurrencyLimits"] = ",".join(sorted(names))
    elif expr is not None:
        ad["ConcurrencyLimits"] = parse_expr_command(job, "ConcurrencyLimits", expr,
                                                     "concurrency_limits_expr")  # fmt: skip


def set_accounting_group(job: JobInput, ad: Attrs) -> None:
    group = job.param("accounting_group", "AccountingGroup")
    if bool_command(job, "nice_user", "NiceUser", False):
        nice = job.conf("NICE_USER_ACCOUNTING_GROUP_NAME", "nice-user")
        if group is None:
            group = nice or None
        elif group != nice:
            job.warn("nice_user conflicts with accounting_group. nice_user will be ignored")
        ad["MaxJobRetirementTime"] = 0
    user = job.param("accounting_group_user", "AcctGroupUser")
    if group is None and user is None:
        return
    user = user if user is not None else job.owner
    if group is not None and any(ch in " \t\n\r\v\f" for ch in group):
        raise job.error(f"Invalid accounting_group: {group}\n", "accounting_group")
    if any(ch in " \t\n\r\v\f" for ch in user):
        raise job.error(f"Invalid accounting_group_user: {user}\n", "accounting_group_user")
    ad["AcctGroupUser"] = user
    if group is not None:
        ad["AcctGroup"] = group
        ad["AccountingGroup"] = f"{group}.{user}"
    else:
        ad["AccountingGroup"] = user
