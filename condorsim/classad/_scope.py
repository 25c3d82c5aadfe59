"""Attribute lookup: how a name is found, as HTCondor's ``ClassAd::LookupInScope`` does.

How this works
--------------
An evaluation carries an :class:`Env`: the EvalContext, the root ad (for ``.name`` and
``ROOT``), a depth counter that stops circular references, and, when there is a
TARGET, the two ads of the match.

A name is looked up in the current ad, then in each enclosing ad (``_parent``). At the
first level where it is not an attribute, the special names resolve there: ``MY`` and
``SELF`` are that ad, ``PARENT`` its enclosing ad, ``ROOT``/``TOPLEVEL`` the root ad,
``CurrentTime`` the context's time. ``TARGET`` is not special: as in HTCondor's
``MatchClassAd``, MY and TARGET sit under two context ads
``[other = .RIGHT; target = .RIGHT; my = .LEFT; ad = .LEFT]`` (and the mirror one)
inside a match ad that also holds ``symmetricMatch``, ``leftMatchesRight`` and the
like, with LEFT the MY ad. An unscoped name found nowhere is then looked up in the
other ad of the match (HTCondor's non-strict ``alternateScope``), but only for an
expression of MY or TARGET itself, not of an ad nested in them.

A lookup that finds an expression evaluates it with the ad where it was found as the
current ad. An attribute met again while it is being evaluated (a circular reference),
or more than ``MAX_LOOKUP_DEPTH`` nested attribute evaluations, stops the evaluation:
it becomes ERROR as a whole, as the C++ library's evaluation fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ._classad import SPECIAL_NAMES, ClassAd
from ._tree import NOT_CONST, ExprTree
from ._values import ERROR, UNDEFINED, EvalContext, RelTime, Value

MAX_LOOKUP_DEPTH: Final = 120

MISSING: Final[Any] = object()
"""Returned by lookups that find nothing (the caller decides: UNDEFINED or fallback)."""

Compiled = Callable[[ClassAd, "Env"], Value]


class EvalAbort(Exception):
    """Evaluation failed as a whole (circular reference, missing root): ERROR at the top."""


class Env:
    """The state of one top-level evaluation."""

    __slots__ = ("active", "alt_from", "alt_to", "ctx", "depth", "left", "right", "root")

    def __init__(
        self,
        ctx: EvalContext,
        root: ClassAd | None,
        left: ClassAd | None = None,
        right: ClassAd | None = None,
    ) -> None:
        self.ctx = ctx
        self.root = root
        self.left = left
        self.right = right
        self.depth = 0
        # attributes being evaluated, to stop a circular reference at once
        self.active: set[tuple[int, int]] = set()
        # evalInEachContext: a nested ad whose unscoped misses go to the other match ad
        self.alt_from: ClassAd | None = None
        self.alt_to: ClassAd | None = None


NO_AD: Final = ClassAd()
"""The current ad when an expression is evaluated with no MY: every lookup misses."""

_compiler: Callable[[ExprTree], Compiled] | None = None


def set_compiler(compiler: Callable[[ExprTree], Compiled]) -> None:
    """Installed by ``_compile``: turns a tree into its closure (cached on the tree)."""
    global _compiler
    _compiler = compiler


def eval_attr(tree: ExprTree, holder: ClassAd, env: Env) -> Value:
    """Evaluate an attribute's expression found in ``holder``, with ``holder`` as MY."""
    value = tree._const
    if value is not NOT_CONST:
        return value
    fn = tree._fn
    if fn is None:
        assert _compiler is not None
        fn = _compiler(tree)
    key = (id(tree), id(holder._attrs))
    active = env.active
    if key in active:
        raise EvalAbort("circular attribute reference")
    if env.depth >= MAX_LOOKUP_DEPTH:
        raise EvalAbort("attribute references nested too deeply")
    active.add(key)
    env.depth += 1
    try:
        return fn(holder, env)
    finally:
        env.depth -= 1
        active.discard(key)


def next_scope(ad: ClassAd, env: Env) -> ClassAd | None:
    """The scope enclosing ``ad``: its parent, or the match context ad for MY/TARGET."""
    if ad is env.left:
        return _LEFT_CONTEXT
    if ad is env.right:
        return _RIGHT_CONTEXT
    return ad._parent


def _special(key: str, ad: ClassAd, env: Env) -> Value:
    if key == "my" or key == "self":
        return ad
    if key == "parent":
        parent = next_scope(ad, env)
        return UNDEFINED if parent is None else parent
    if key == "root" or key == "toplevel":
        if env.root is None:
            raise EvalAbort("no root ad")
        return env.root
    if key == "currenttime":
        return env.ctx.now
    return MISSING




def lookup(ad: ClassAd, key: str, env: Env) -> Value:
    """The value of lower-cased name ``key`` seen from ``ad``, or MISSING."""
    if ad is NO_AD:
        return MISSING
    c: ClassAd | None = ad
    while c is not None:
        tree = c._attrs.get(key)
        if tree is not None:
            value = tree._const
            if value is not NOT_CONST:
                return value
            return eval_attr(tree, c, env)
        if key in SPECIAL_NAMES:
            return _special(key, c, env)
        if c is env.left:
            c = _LEFT_CONTEXT
        elif c is env.right:
            c = _RIGHT_CONTEXT
        elif c is _MATCH_AD:
            return _match_ad_extra(key, env)
        else:
            c = c._parent
    return MISSING


def find(ad: ClassAd, key: str, env: Env) -> tuple[ExprTree | None, ClassAd]:
    """Where ``key`` is defined, seen from ``ad``: (expression, holder) or (None, last ad).

    "Last ad" is the last scope searched (HTCondor leaves it as the current ad).
    """
    c = ad
    while True:
        tree = c._attrs.get(key)
        if tree is not None:
            return tree, c
        nxt = next_scope(c, env)
        if nxt is None:
            return None, c
        c = nxt


def lookup_unscoped(ad: ClassAd, key: str, env: Env) -> Value:
    """An unscoped reference: ``lookup`` then the other match ad (alternate scope)."""
    value = lookup(ad, key, env)
    if value is MISSING:
        if ad is env.left and env.right is not None:
            value = lookup(env.right, key, env)
        elif ad is env.right and env.left is not None:
            value = lookup(env.left, key, env)
        elif ad is env.alt_from and env.alt_to is not None:
            value = lookup(env.alt_to, key, env)
        if value is MISSING:
            return UNDEFINED
    return value


def lookup_in_value(base: Value, key: str, env: Env) -> Value:
    """``base.key`` once ``base`` is evaluated: an ad, a list of ads, or ERROR/UNDEFINED."""
    if isinstance(base, ClassAd):
        value = lookup(base, key, env)
        return UNDEFINED if value is MISSING else value
    if type(base) is list:
        # HTCondor builds the list of a selection over a list from copies of the
        # values: an ad in it no longer sits in its enclosing ad ({[x = []; a = 0]}.x.a
        # is {undefined}, while [x = []; a = 0].x.a is 0).
        out = []
        for item in base:
            value = lookup_in_value(item, key, env)
            if isinstance(value, ClassAd) and value._parent is not None:
                value = ClassAd._view(value._attrs, value._names, None)
            elif type(value) is RelTime:
                # ... as literals, and a relative-time literal evaluates to a real in
                # HTCondor 24 (docs/classad.md, quirks): {[x = relTime(90)]}.x is {90.0};
                # the literal is made from whole seconds as a 32-bit int (relTime(2.5) gives
                # 2.0, anything out of range or NaN gives -2147483648.0)
                value = _whole_seconds(value.secs)
            out.append(value)
        return out
    if base is UNDEFINED:
        return UNDEFINED
    return ERROR


def _whole_seconds(secs: float) -> float:
    """A relative time's seconds as HTCondor's ``Literal::MakeLiteral`` keeps them: cut
    toward zero to a 32-bit int (INT_MIN when it does not fit, as the conversion gives)."""
    if secs == secs and -2147483649.0 < secs < 2147483648.0:
        return float(int(secs))
    return -2147483648.0


def _match_ad_extra(key: str, env: Env) -> Value:
    if key == "left":
        return env.left
    if key == "right":
        return env.right
    if key == "lctx":
        return _LEFT_CONTEXT
    if key == "rctx":
        return _RIGHT_CONTEXT
    return MISSING


def root_of(ad: ClassAd) -> ClassAd:
    """The outermost ad enclosing ``ad``."""
    while ad._parent is not None:
        ad = ad._parent
    return ad


def make_env(my: ClassAd | None, target: ClassAd | None, ctx: EvalContext | None) -> Env:
    """The Env for evaluating with ``my`` as MY and ``target`` as TARGET."""
    context = ctx if ctx is not None else DEFAULT_CONTEXT
    if my is None:
        return Env(context, None)
    if target is None or target is my:
        return Env(context, root_of(my))
    return Env(context, _MATCH_AD, my, target)


DEFAULT_CONTEXT: Final = EvalContext()
"""Used when no EvalContext is given: time() is 0 and random() is seeded with 0."""

# The match ad and its two context ads, as classad::MatchClassAd builds them.
_MATCH_AD: Final = ClassAd.parse_new(
    "[ symmetricMatch = RIGHT.requirements && LEFT.requirements;"
    "  leftMatchesRight = RIGHT.requirements; rightMatchesLeft = LEFT.requirements;"
    "  leftRankValue = LEFT.rank; rightRankValue = RIGHT.rank ]"
)
_LEFT_CONTEXT: Final = ClassAd.parse_new("[ other = .RIGHT; target = .RIGHT; my = .LEFT; ad = .LEFT ]")
_RIGHT_CONTEXT: Final = ClassAd.parse_new("[ other = .LEFT; target = .LEFT; my = .RIGHT; ad = .RIGHT ]")
_LEFT_CONTEXT._parent = _MATCH_AD
_RIGHT_CONTEXT._parent = _MATCH_AD
