"""HTCondor's ClassAd transform language: the schedd's JOB_TRANSFORM_*, the router's routes.

Public API::

    xform = parse_transform(text, source="JOB_ROUTER_ROUTE_Site1", name="Site1")
    xform.matches(ad)                        # REQUIREMENTS, with the ad as MY, no TARGET
    result = apply(xform, ad, now=..., config=cfg.get_raw)
    result.ok, result.ad, result.error, result.messages, result.steps
    result = apply_all([pre, route, post], ad, now=...)   # as the schedd and the router do
    convert_old_route(route_text, defaults_text, name=...)  # old ClassAd route syntax

A transform is parsed once (:func:`parse_transform`, which raises
:class:`TransformError` naming the source, the line and what is wrong) and applied as
a pure function: :func:`apply` never changes its arguments and never raises. See
docs/router.md for the language, and where condorsim differs from HTCondor.
"""

from __future__ import annotations

from ._apply import Result, apply, apply_all
from ._errors import TransformError
from ._macros import BASIC_DEFAULTS, TransformMacros
from ._parse import KEYWORDS, is_attribute_name, parse_transform
from ._program import Assign, Command, Conditional, Message, Statement, Transform

__all__ = [
    "BASIC_DEFAULTS",
    "KEYWORDS",
    "Assign",
    "Command",
    "Conditional",
    "Message",
    "Result",
    "Statement",
    "Transform",
    "TransformError",
    "TransformMacros",
    "apply",
    "apply_all",
    "is_attribute_name",
    "parse_transform",
]
