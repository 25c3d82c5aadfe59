"""The macros of a transform (HTCondor's ``XFormHash``) and its ``if`` conditions.

How this works
--------------
A transform expands ``$(...)`` exactly as condor_submit does (HTCondor uses one
``expand_macro`` for both), so :class:`TransformMacros` is condor_submit's
:class:`~condorsim.submit._macros.MacroTable` with the transform's lookup order for a
name (``lookup_macro`` with an ad and ``also_in_config``): the transform's own macros,
then its defaults (``IsLinux``, ``Iterating`` ...), then ``MY.<attr>`` from the ad being
transformed (a string without its quotes, any other expression as old-syntax text,
unevaluated; a missing attribute is empty), then the pool's configuration. ``$EVAL()``
evaluates against that ad.

:func:`test_condition` decides an ``if``/``elif`` line with the configuration
language's simple conditions (``defined NAME`` sees all of the above); a condition
that is not simple is evaluated against the ad, as HTCondor does, and taken only when
true: a false one fails the transform (HTCondor never takes its ``else`` branch).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from condorsim import macro_functions
from condorsim.classad import ClassAd, ClassAdError, EvalContext, Value
from condorsim.classad._classad import to_tree
from condorsim.classad._unparse import unparse
from condorsim.config._conditions import ConditionError, evaluate_condition
from condorsim.submit._macros import MacroError, MacroTable

__all__ = ["BASIC_DEFAULTS", "Found", "TransformMacros", "test_condition", "value_text"]

BASIC_DEFAULTS = {
    "isclusterad": "0", "islinux": "1", "iswindows": "0", "iterating": "0",
    "latematerialization": "0",
}  # fmt: skip
"""The defaults of a router's or schedd's transform (``XFormBasicMacroDefaults``)."""

_COMPLEX = "complex conditionals are not supported"


@dataclass(frozen=True)
class Found:
    """A macro lookup's answer, as the configuration's ``if defined`` reads it."""

    raw: str


@dataclass
class TransformMacros(MacroTable):
    """A transform's macro table (see the module comment)."""

    ad: ClassAd | None = None
    config: Callable[[str], str | None] | None = None

    @classmethod
    def create(
        cls,
        *,
        config: Callable[[str], str | None] | None = None,
        env: Mapping[str, str] | None = None,
        rng: random.Random | None = None,
        defaults: Mapping[str, str] | None = None,
    ) -> TransformMacros:
        """An empty table with the router's/schedd's defaults (or ``defaults``)."""
        return cls(
            defaults=dict(BASIC_DEFAULTS if defaults is None else defaults),
            env=dict(env or {}),
            rng=rng if rng is not None else random.Random(0),
            config=config,
        )

    def copy(self) -> TransformMacros:
        """An independent copy (the random source is shared, so draws continue)."""
        return TransformMacros(
            user=dict(self.user), live=dict(self.live), defaults=dict(self.defaults),
            env=self.env, rng=self.rng, ad=self.ad, config=self.config,
        )  # fmt: skip

    def raw(self, key: str) -> str | None:
        found = super().raw(key)
        if found is not None:
            return found
        if self.ad is not None and key[:3].lower() == "my.":
            tree = self.ad.lookup(key[3:])
            if tree is not None:
                if tree.is_literal and type(tree.literal_value) is str:
                    return str(tree.literal_value)
                return unparse(tree, old_syntax=True)
        if self.config is not None:
            return self.config(key)
        return None

    def lookup(self, name: str) -> Found | None:
        """``name`` for ``if defined``: its raw value, or None."""
        raw = self.raw(name)
        return None if raw is None else Found(raw)

    def call_function(self, word: str, body: str) -> str:
        try:
            return macro_functions.evaluate(word, body, self, rng=self.rng, ad=self.ad)
        except macro_functions.MacroFunctionError as exc:
            raise MacroError(str(exc)) from None

    def put(self, name: str, value: str) -> None:
        """Set a macro as EVALMACRO does: the value as given, no self reference."""
        lower = name.lower()
        old = self.user.get(lower)
        self.user[lower] = (old[0] if old else name, value)

    def values(self) -> dict[str, str]:
        """The transform's own macros (names as first spelled) with their raw values."""
        return dict(self.user.values())


def value_text(value: Value) -> str:
    """A value as EVALMACRO stores it: a string as is, anything else as old-syntax text."""
    if type(value) is str:
        return value
    return unparse(to_tree(value), old_syntax=True)


def test_condition(text: str, macros: TransformMacros, now: int = 0) -> bool:
    """The value of an ``if``/``elif`` condition; ConditionError (with HTCondor's reason)
    when it cannot be decided."""
    expr = text
    expanded = "$" in expr
    if expanded:
        expr = macros.expand(expr).rstrip()
    expr = expr.lstrip()
    inverted = expr.startswith("!")
    if inverted:
        expr = expr[1:].lstrip()
    if expanded and not expr:
        return inverted
    try:
        value = evaluate_condition(expr, macros)
    except ConditionError as exc:
        if str(exc) != _COMPLEX or macros.ad is None:
            raise
        value = _complex(expr, macros.ad, now)
    return value != inverted


def _complex(expr: str, ad: ClassAd, now: int) -> bool:
    """HTCondor evaluates a condition that is not simple against the ad: true is taken,
    anything else makes the ``if`` line invalid."""
    from ._parse import parse_expr_old

    try:
        result: Any = parse_expr_old(expr).evaluate(my=ad, ctx=EvalContext(now=now))
    except ClassAdError:
        result = None
    if (type(result) is bool and result) or (type(result) in (int, float) and result != 0):
        return True
    raise ConditionError("")

