"""Reading typed submit commands: booleans, integers and ClassAd expressions.

How this works
--------------
condor_submit reads a command as a boolean with ``string_is_boolean_param``, as an
integer with ``string_is_long_param`` (a constant expression is evaluated) and as an
expression by parsing it into the job ad. These helpers do the same and raise
``SubmitError`` with condor_submit's wording, which names the command's main spelling
(``key``) even when its alternate name (``alt``) was written; the error is located at
the line that set it.
"""

from __future__ import annotations

from ._exprs import Expr, eval_bool, eval_int, parse
from ._job import JobInput

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def bool_command(job: JobInput, key: str, alt: str | None, default: bool) -> bool:
    """A boolean command, ``default`` when unset."""
    value = job.param(key, alt)
    if value is None:
        return default
    result = eval_bool(value)
    if result is None:
        raise job.error(f"{key}={value} is invalid, must eval to a boolean.", key, alt)
    return result


def int_command(
    job: JobInput, key: str, alt: str | None = None, int_range: bool = False
) -> int | None:
    """An integer command (a constant expression is evaluated), None when unset.
    ``int_range`` refuses values outside a C ``int`` (``submit_param_int``)."""
    value = job.param(key, alt)
    if value is None:
        return None
    result = eval_int(value)
    if result is None or (int_range and not INT_MIN <= result < INT_MAX):
        raise job.error(f"{key}={value} is invalid, must eval to an integer.", key, alt)
    return result


def parse_expr_command(
    job: JobInput, attr: str, text: str, key: str, alt: str | None = None
) -> Expr:
    """``text`` as the expression of attribute ``attr``; a parse error names both."""
    if parse(text) is None:
        raise job.error(f"Parse error in expression: \n\t{attr} = {text}\n\t", key, alt)
    return Expr(text)
