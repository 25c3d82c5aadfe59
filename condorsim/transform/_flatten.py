"""Flattening an expression against an ad, as HTCondor's ``FlattenAndInline`` does for the
old route syntax's conversion.

How this works
--------------
References to attributes of the ad (``x`` or ``MY.x``) are replaced by their own
flattened expressions; sub-expressions whose operands all became values are computed
(``true && x`` becomes ``x``, ``false && x`` becomes ``false``); references the ad cannot
resolve (``TARGET.x``, an attribute it lacks) stay. A binary operator that is
associative and has one value keeps the value on the left (``x + 1`` becomes ``1 + x``),
as HTCondor rebuilds it. :func:`retarget` then drops ``TARGET.`` or turns it into
``MY.`` (HTCondor's ``RewriteAttrRefs``).

Not done: re-associating chains of one operator around several constants
(HTCondor turns ``a + 1 + 2`` into ``3 + a``; here it stays ``1 + a + 2``), and
functions without arguments (``time()``, ``random()``) are not evaluated, so that a
conversion does not depend on when it runs.
"""

from __future__ import annotations

from condorsim.classad import ClassAd, ExprTree, Value
from condorsim.classad._tree import (
    AttrRef,
    BinaryOp,
    Conditional,
    Elvis,
    FuncCall,
    ListExpr,
    Literal,
    Paren,
    Subscript,
    UnaryOp,
)

__all__ = ["flatten", "retarget"]

_ASSOCIATIVE = frozenset({"+", "*", "&&", "||", "&", "|", "^"})
_UNFOLDED_FUNCTIONS = frozenset({"time", "random", "debug"})


def flatten(tree: ExprTree, ad: ClassAd) -> ExprTree:
    """``tree`` flattened and inlined against ``ad`` (a Literal when it reduces to a value)."""
    return _Flattener(ad).run(tree, ())


def _value(tree: ExprTree) -> bool:
    return type(tree) is Literal


def _compute(tree: ExprTree) -> ExprTree:
    """A tree whose operands are all literals, computed to a literal."""
    value: Value = tree.evaluate(my=ClassAd())
    if isinstance(value, (list, ClassAd)):
        return tree
    return Literal(value)


class _Flattener:
    def __init__(self, ad: ClassAd) -> None:
        self.ad = ad

    def run(self, tree: ExprTree, active: tuple[str, ...]) -> ExprTree:
        if isinstance(tree, Literal):
            return tree
        if isinstance(tree, AttrRef):
            return self.ref(tree, active)
        if isinstance(tree, Paren):
            inner = self.run(tree.inner, active)
            return inner if _value(inner) else Paren(inner)
        if isinstance(tree, UnaryOp):
            operand = self.run(tree.operand, active)
            rebuilt = UnaryOp(tree.op, operand)
            return _compute(rebuilt) if _value(operand) else rebuilt
        if isinstance(tree, BinaryOp):
            return self.binary(tree, active)
        if isinstance(tree, Conditional):
            cond = self.run(tree.cond, active)
            then = None if tree.then is None else self.run(tree.then, active)
            otherwise = self.run(tree.otherwise, active)
            if then is not None and _value(cond) and type(cond.literal_value) is bool:
                return then if cond.literal_value else otherwise
            return Conditional(cond, then, otherwise)
        if isinstance(tree, Elvis):
            a, b = self.run(tree.left, active), self.run(tree.right, active)
            return _compute(Elvis(a, b)) if _value(a) and _value(b) else Elvis(a, b)
        if isinstance(tree, Subscript):
            a, b = self.run(tree.base, active), self.run(tree.index, active)
            return _compute(Subscript(a, b)) if _value(a) and _value(b) else Subscript(a, b)
        if isinstance(tree, FuncCall):
            args = tuple(self.run(a, active) for a in tree.args)
            call = FuncCall(tree.name, args)
            if args and all(_value(a) for a in args) and tree.lname not in _UNFOLDED_FUNCTIONS:
                return _compute(call)
            return call
        if isinstance(tree, ListExpr):
            return ListExpr(tuple(self.run(item, active) for item in tree.items))
        return tree

    def ref(self, tree: AttrRef, active: tuple[str, ...]) -> ExprTree:
        scope = tree.scope
        is_my = isinstance(scope, AttrRef) and scope.scope is None and scope.lname == "my"
        if tree.absolute or (scope is not None and not is_my):
            return tree
        found = self.ad.lookup(tree.name)
        if found is None or tree.lname in active:
            return tree
        return self.run(found, (*active, tree.lname))

    def binary(self, tree: BinaryOp, active: tuple[str, ...]) -> ExprTree:
        left = self.run(tree.left, active)
        right = self.run(tree.right, active)
        op = tree.op
        if _value(left) and _value(right):
            return _compute(BinaryOp(op, left, right))
        if op not in _ASSOCIATIVE or (not _value(left) and not _value(right)):
            return BinaryOp(op, left, right)
        value, other = (left, right) if _value(left) else (right, left)
        if op in ("&&", "||"):
            probe = _compute(BinaryOp(op, value, Literal(_undefined())))
            if type(probe.literal_value) is bool:
                return probe
            if op == "&&" and value.literal_value is True:
                return other
        return BinaryOp(op, value, other)


def _undefined() -> Value:
    from condorsim.classad import UNDEFINED

    return UNDEFINED


def retarget(tree: ExprTree, to: str) -> ExprTree:
    """``TARGET.x`` made ``x`` (``to=""``) or ``MY.x`` (``to="MY"``), everywhere in ``tree``."""
    if isinstance(tree, AttrRef):
        scope = tree.scope
        if isinstance(scope, AttrRef) and scope.scope is None and scope.lname == "target":
            return AttrRef(tree.name, AttrRef(to) if to else None)
        if scope is not None:
            return AttrRef(tree.name, retarget(scope, to), tree.absolute)
        return tree
    if isinstance(tree, Paren):
        return Paren(retarget(tree.inner, to))
    if isinstance(tree, UnaryOp):
        return UnaryOp(tree.op, retarget(tree.operand, to))
    if isinstance(tree, BinaryOp):
        return BinaryOp(tree.op, retarget(tree.left, to), retarget(tree.right, to))
    if isinstance(tree, Conditional):
        then = None if tree.then is None else retarget(tree.then, to)
        return Conditional(retarget(tree.cond, to), then, retarget(tree.otherwise, to))
    if isinstance(tree, Elvis):
        return Elvis(retarget(tree.left, to), retarget(tree.right, to))
    if isinstance(tree, Subscript):
        return Subscript(retarget(tree.base, to), retarget(tree.index, to))
    if isinstance(tree, FuncCall):
        return FuncCall(tree.name, tuple(retarget(a, to) for a in tree.args))
    if isinstance(tree, ListExpr):
        return ListExpr(tuple(retarget(i, to) for i in tree.items))
    return tree
