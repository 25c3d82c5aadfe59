"""Checks of values that several sections share: expressions, names, job ids, knobs.

How this works
--------------
Each function takes a TOML value and returns it checked and normalized, or raises
:class:`BadValue` with a message; the caller (an ``Entry``) adds the file, line,
section and field. ClassAd expressions are parsed with ``condorsim.classad`` only to
check them: the scenario keeps their text.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from condorsim.classad import ClassAdSyntaxError, parse_expr

from ._errors import BadValue
from ._times import type_name

__all__ = [
    "ATTRIBUTE_NAME",
    "check_expression",
    "check_knob_name",
    "config_text",
    "expression_text",
    "flatten_config",
    "parse_job_id",
]

ATTRIBUTE_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KNOB_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_JOB_ID: Final = re.compile(r"([0-9]+)(?:\.([0-9]+))?")


def check_expression(text: str) -> str:
    """``text`` if it is one valid ClassAd expression; else BadValue with the position."""
    try:
        parse_expr(text)
    except ClassAdSyntaxError as err:
        raise BadValue(f"not a valid ClassAd expression ({err})") from None
    return text


def expression_text(value: Any) -> str:
    """ClassAd expression text from a TOML value: a string is expression text as is;
    a boolean, integer or float is written as the ClassAd literal. Checked."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadValue(f"{value} is not a ClassAd number")
        return repr(value)
    if isinstance(value, str):
        if not value.strip():
            raise BadValue("must not be empty (write a ClassAd expression)")
        return check_expression(value)
    raise BadValue(f"expected ClassAd expression text (a string), found {type_name(value)}")


def config_text(value: Any) -> str:
    """A knob's value as HTCondor config text: strings as they are, ``true``/``false``,
    numbers as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadValue(f"{value} is not a number HTCondor reads")
        return repr(value)
    if isinstance(value, str):
        return value
    raise BadValue(f"expected a number, a boolean or a string, found {type_name(value)}")


def flatten_config(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(knob name, TOML value) pairs; nested tables join names with '.' as HTCondor's
    ``SUBSYS.NAME`` prefixes do (``SCHEDD.SCHEDD_INTERVAL = 10`` in TOML is a table)."""
    pairs: list[tuple[str, Any]] = []
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            pairs.extend(flatten_config(value, name + "."))
        else:
            pairs.append((name, value))
    return pairs


def check_knob_name(name: str) -> str:
    """``name`` if HTCondor's config language accepts it as a knob name."""
    if not _KNOB_NAME.fullmatch(name):
        raise BadValue(f"'{name}' is not a knob name (letters, digits, '_' and '.')")
    return name


def parse_job_id(value: Any, *, whole_cluster: bool) -> str:
    """A job id ``"cluster.proc"`` (or ``"cluster"`` if ``whole_cluster``), normalized."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise BadValue(f"expected a job id such as \"1.0\", found {type_name(value)}")
    text = str(value)
    match = _JOB_ID.fullmatch(text)
    if match is None:
        want = '"cluster.proc" (e.g. "1.0") or a cluster "1"' if whole_cluster else \
            '"cluster.proc" (e.g. "1.0")'
        raise BadValue(f"{text!r} is not a job id (expected {want})")
    cluster = int(match.group(1))
    if cluster < 1:
        raise BadValue(f"{text!r}: cluster ids start at 1")
    if match.group(2) is None:
        if not whole_cluster:
            raise BadValue(
                f"{text!r} names a whole cluster; name one job (\"{cluster}.0\"), or use "
                f"constraint = 'ClusterId == {cluster}'"
            )
        return str(cluster)
    return f"{cluster}.{int(match.group(2))}"
