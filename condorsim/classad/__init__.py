"""The ClassAd language, evaluated exactly as HTCondor's C++ ClassAd library does.

Public API::

    ad = ClassAd.parse(text)                       # either syntax
    value = parse_expr(text).evaluate(my=ad, target=other, ctx=EvalContext(now=...))
    symmetric_match(job, slot); rank(ad, other); expand_dollar_dollar(job, slot)
    ad_to_wire(ad) / ad_from_wire(mapping)         # the msgpack form

See docs/classad.md for what is matched and the known differences.
"""

from __future__ import annotations

from ._classad import ClassAd, ClassAdValueError
from ._errors import ClassAdError, ClassAdSyntaxError, ClassAdWireError, DollarDollarError
from ._match import expand_dollar_dollar, rank, symmetric_match
from ._parser import parse_expression
from ._tree import ExprTree
from ._unparse import unparse_value
from ._values import ERROR, UNDEFINED, EvalContext, Value
from ._wire import (
    LazyAd,
    SealedAd,
    StoredAd,
    ad_from_wire,
    ad_from_wire_lazy,
    ad_from_wire_named,
    ad_to_wire,
    sealed_bytes,
)


def parse_expr(text: str) -> ExprTree:
    """Parse one ClassAd expression (new syntax); raises ClassAdSyntaxError."""
    return parse_expression(text)


__all__ = [
    "ERROR",
    "UNDEFINED",
    "ClassAd",
    "ClassAdError",
    "ClassAdSyntaxError",
    "ClassAdValueError",
    "ClassAdWireError",
    "DollarDollarError",
    "EvalContext",
    "ExprTree",
    "LazyAd",
    "SealedAd",
    "StoredAd",
    "Value",
    "ad_from_wire",
    "ad_from_wire_lazy",
    "ad_from_wire_named",
    "ad_to_wire",
    "expand_dollar_dollar",
    "parse_expr",
    "rank",
    "sealed_bytes",
    "symmetric_match",
    "unparse_value",
]
