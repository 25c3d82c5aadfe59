"""Reading typed submit commands: booleans, integers and ClassAd expressions.

How this works
--------------
condor_submit reads a command as a boolean with ``string_is_boolean_param``, as an
integer with ``string_is_long_param`` (a constant expression is evaluated) and as an
expression by parsing it into the job ad. These helpers do the same, with
condor_submit's wording, which names the command's main spelling (``key``) even when
its alternate name (``alt``) was written; the error is located at the line that set it.

A bad boolean or integer does not stop condor_submit at once: it records the error and
carries on with ``true`` (or without the number) to the end of the setter, so a later
error of the same setter is the one reported. These helpers do the same by leaving the
error in ``JobInput.pending``, which ``build_job`` raises after the setter; ``strict``
raises at once (the simple commands' table stops at the first).
"""

from __future__ import annotations

from ._exprs import Expr, eval_bool, eval_int, parse
from ._job import JobInput

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def _refuse(job: JobInput, strict: bool, message: str, key: str, alt: str | None) -> None:
    """Raise the error now (``strict``), or leave it pending to the end of the setter."""
    error = job.error(message, key, alt)
    if strict:
        raise error
    job.pending = error


def bool_command(
    job: JobInput, key: str, alt: str | None, default: bool, strict: bool = False
) -> bool:
    """A boolean command, ``default`` when unset (true, with the error pending, when bad)."""
    value = job.param(key, alt)
    if value is None:
        return default
    result = eval_bool(value)
    if result is None:
        _refuse(job, strict, f"{key}={value} is invalid, must eval to a boolean.", key, alt)
        return True
    return result


def int_command(
    job: JobInput, key: str, alt: str | None = None, int_range: bool = False,
    strict: bool = False,
) -> int | None:  # fmt: skip
    """An integer command (a constant expression is evaluated), None when unset (or bad,
    with the error pending). ``int_range`` refuses values outside a C ``int``."""
    value = job.param(key, alt)
    if value is None:
        return None
    result = eval_int(value)
    if result is None or (int_range and not INT_MIN <= result < INT_MAX):
        _refuse(job, strict, f"{key}={value} is invalid, must eval to an integer.", key, alt)
        return None
    return result


def parse_expr_command(
    job: JobInput, attr: str, text: str, key: str, alt: str | None = None
) -> Expr:
    """``text`` as the expression of attribute ``attr``; a parse error (which names both)
    is left pending, as ``AssignJobExpr`` does."""
    if parse(text) is None:
        job.pending = job.error(f"Parse error in expression: \n\t{attr} = {text}\n\t", key, alt)
    return Expr(text)
