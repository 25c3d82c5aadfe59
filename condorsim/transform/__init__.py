"""HTCondor's ClassAd transform language: the schedd's JOB_TRANSFORM_*, the router's routes.

Public API::

    xform = parse_transform(text, source="JOB_ROUTER_ROUTE_Site1", name="Site1")
    xform.matches(ad)                        # REQUIREMENTS, with the ad as MY, no TARGET
    result = apply(xform, ad, now=..., config=cfg.get_raw)
    result.ok, result.ad, result.error, result.messages, result.steps
    result = apply_all([pre, route, post], ad, now=...)   # as the schedd and the router do
    declared_macros(xform)                   # the macros a route declares (MaxJobs ...)
    JobTransforms.from_config(config).apply(job, now=...)  # the schedd's JOB_TRANSFORM_NAMES
    convert_route_ad(defaults_ad(...) + route ad, name)   # the old ClassAd route syntax

A transform is parsed once (:func:`parse_transform`, which raises
:class:`TransformError` naming the source, the line and what is wrong) and applied as
a pure function: :func:`apply` never changes its arguments and never raises. See
docs/router.md for the language, and where condorsim differs from HTCondor.
"""

from __future__ import annotations

from ._apply import Result, apply, apply_all, declared_macros
from ._convert import ConvertedRoute, convert_route_ad, defaults_ad, split_route_ads
from ._errors import TransformError
from ._macros import BASIC_DEFAULTS, TransformMacros
from ._named import FAILED_TRANSFORM, JobTransforms, load_named_transform
from ._parse import KEYWORDS, is_attribute_name, parse_transform
from ._program import Assign, Command, Conditional, Message, Statement, Transform

__all__ = [
    "BASIC_DEFAULTS",
    "FAILED_TRANSFORM",
    "KEYWORDS",
    "Assign",
    "Command",
    "Conditional",
    "ConvertedRoute",
    "JobTransforms",
    "Message",
    "Result",
    "Statement",
    "Transform",
    "TransformError",
    "TransformMacros",
    "apply",
    "apply_all",
    "convert_route_ad",
    "declared_macros",
    "defaults_ad",
    "is_attribute_name",
    "load_named_transform",
    "parse_transform",
    "split_route_ads",
]
