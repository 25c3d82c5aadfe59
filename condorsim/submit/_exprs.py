"""What submit needs from the ClassAd language, in one place.

How this works
--------------
condor_submit parses many command values as ClassAd expressions: to check them
(``requirements``, ``+Attr``...), to evaluate constants (``priority = 1 + 1``), to see
which attributes an expression refers to (the clauses it appends to Requirements), and
to wrap an expression in parentheses before joining it with ``||``. These helpers do
that with ``condorsim.classad``; a value that does not parse gives ``None`` (or False),
never a library exception, and the caller words the error as HTCondor does.

Job attributes are carried as ``Expr`` (ClassAd text) or as plain Python literals
(bool, int, float, str) until the job ad is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from condorsim.classad import ClassAdSyntaxError, ExprTree, parse_expr, unparse_value
from condorsim.classad._tree import AttrRef, BinaryOp, Conditional, Elvis

from ._numbers import clamp64

_WS = " \t\n\r"


@dataclass(frozen=True)
class Expr:
    """A job attribute given as ClassAd expression text."""

    text: str


@lru_cache(maxsize=4096)
def parse(text: str) -> ExprTree | None:
    """The parsed expression, or None when ``text`` is not a ClassAd expression."""
    try:
        return parse_expr(text)
    except (ClassAdSyntaxError, RecursionError):
        return None


def quote(value: str) -> str:
    """``value`` as a ClassAd string literal."""
    return unparse_value(value)


def _bare(tree: ExprTree) -> ExprTree:
    """The expression inside any number of enclosing parentheses."""
    parts = tree.conjuncts()
    return parts[0] if len(parts) == 1 else tree


def literal(text: str) -> tuple[bool, object]:
    """(True, value) when ``text`` is a literal, possibly in parentheses; else (False, None)."""
    tree = parse(text)
    if tree is None:
        return False, None
    inner = _bare(tree)
    if inner.is_literal:
        return True, inner.literal_value
    return False, None


def literal_number(text: str) -> float | None:
    """The number a literal stands for (booleans count as 0 and 1), else None."""
    ok, value = literal(text)
    if not ok:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    return None


def eval_int(text: str) -> int | None:
    """HTCondor's ``string_is_long_param``: a decimal integer, or a constant expression
    that evaluates to a number or boolean (reals are truncated)."""
    s = text.strip(_WS)
    try:
        return clamp64(int(s, 10))
    except ValueError:
        pass
    tree = parse(s)
    if tree is None:
        return None
    value = tree.evaluate()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) < 2.0**63:
        return clamp64(int(value))
    return None


def eval_bool(text: str) -> bool | None:
    """HTCondor's ``string_is_boolean_param``: true/false, or an expression that evaluates
    to a boolean or a number (non-zero is true)."""
    s = text.strip(_WS)
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    tree = parse(s)
    if tree is None:
        return None
    value = tree.evaluate()
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return None


def references(text: str) -> frozenset[str]:
    """Lower-cased names of the attributes ``text`` refers to (any scope)."""
    tree = parse(text)
    if tree is None:
        return frozenset()
    return frozenset(name.lower() for _, name in tree.references())


def wrap_for(text: str, op: str) -> str:
    """``WrapExprTreeInParensForOp``: ``text`` ready to be an operand of ``op`` (``&&`` or
    ``||``), parenthesised when its top operator binds looser."""
    tree = parse(text)
    looser = isinstance(tree, (Conditional, Elvis)) or (
        op == "&&" and isinstance(tree, BinaryOp) and tree.op == "||"
    )
    return f"({text})" if looser else text


def wrap_for_or(text: str) -> str:
    """``text`` ready to be an operand of ``||``."""
    return wrap_for(text, "||")


def split_references(text: str, internal: frozenset[str]) -> tuple[set[str], set[str]]:
    """``GetExprReferences`` against an ad holding ``internal`` (lower-cased names):
    (names of the ad referred to, names of the other ad), lower-cased. ``TARGET.x`` and
    ``OTHER.x`` are external; ``x`` and ``MY.x`` are internal when the ad has ``x``,
    external otherwise (the reference goes on to the other ad)."""
    tree = parse(text)
    mine: set[str] = set()
    other: set[str] = set()
    if tree is None:
        return mine, other
    for node in tree.walk():
        if type(node) is not AttrRef:
            continue
        assert isinstance(node, AttrRef)
        scope = node.scope
        if scope is None:
            if node.lname not in ("my", "target", "other"):
                (mine if node.lname in internal else other).add(node.lname)
        elif type(scope) is AttrRef and scope.scope is None and not scope.absolute:
            assert isinstance(scope, AttrRef)
            if scope.lname == "my":
                (mine if node.lname in internal else other).add(node.lname)
            elif scope.lname in ("target", "other"):
                other.add(node.lname)
    return mine, other
