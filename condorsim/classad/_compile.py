"""Compile expression trees into nested Python closures, then evaluate them.

How this works
--------------
Each tree is compiled once (on first evaluation) into a closure
``fn(current_ad, env) -> Value`` cached on the tree; a closure calls its children's
closures directly, so evaluation does no dispatch on node kinds. Constant
sub-expressions (operators over literals) are folded at compile time and the value
is kept in ``tree._const``, which attribute lookups return without a call.

Operators on values come from ``_ops`` (strict operators, ``logic_value``); this
module implements the non-strict ones (``&&``, ``||``, ``?:``, ``?:`` elvis) with
HTCondor's rules, selection (``a.b``, also over lists), subscripts, list and nested-ad
literals, and the built-in functions that need the unevaluated argument or the scope
(``ifThenElse``, ``eval``, ``unparse``, ``debug``, ``evalInEachContext``,
``countMatches``). Other functions come from ``_functions.BUILTINS``; an unknown name
evaluates to ERROR, as in HTCondor.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Final

from . import _special
from ._classad import ClassAd
from ._ops import BINARY_OPS, UNARY_OPS, logic_value
from ._scope import (
    MISSING,
    NO_AD,
    Compiled,
    Env,
    EvalAbort,
    lookup,
    lookup_in_value,
    lookup_unscoped,
    make_env,
    set_compiler,
)
from ._tree import (
    NOT_CONST,
    AdExpr,
    AttrRef,
    BinaryOp,
    Conditional,
    Elvis,
    ExprTree,
    FuncCall,
    ListExpr,
    Literal,
    Paren,
    Subscript,
    UnaryOp,
)
from ._values import ERROR, UNDEFINED, BuiltinFunction, EvalContext, Value

_SPECIAL_FORMS: Final = _special.SPECIAL_FORMS


@functools.cache
def _builtins() -> Mapping[str, BuiltinFunction]:
    try:
        from ._functions import BUILTINS
    except ImportError:  # pragma: no cover - only while _functions is being written
        return {}
    return BUILTINS


def compile_tree(tree: ExprTree) -> Compiled:
    """The closure evaluating ``tree`` (compiled on first use, then cached)."""
    fn = tree._fn
    if fn is not None:
        return fn
    fn = _compile_node(tree)
    tree._fn = fn
    return fn


set_compiler(compile_tree)


def _const(value: Value) -> Compiled:
    def constant(cur: ClassAd, env: Env) -> Value:
        return value

    return constant


def _fold(tree: ExprTree, fn: Compiled, children: tuple[ExprTree, ...]) -> Compiled:
    """Evaluate ``fn`` now when every child is a constant; keep the value on the tree."""
    for child in children:
        if child._const is NOT_CONST:
            return fn
    value = fn(NO_AD, make_env(None, None, None))
    tree._const = value
    return _const(value)


def _compile_node(tree: ExprTree) -> Compiled:
    t = type(tree)
    if t is Literal:
        assert isinstance(tree, Literal)
        return _const(tree._const)
    if t is AttrRef:
        assert isinstance(tree, AttrRef)
        return _compile_ref(tree)
    if t is BinaryOp:
        assert isinstance(tree, BinaryOp)
        return _compile_binary(tree)
    if t is Paren:
        assert isinstance(tree, Paren)
        inner = compile_tree(tree.inner)
        if tree.inner._const is not NOT_CONST:
            tree._const = tree.inner._const
        return inner
    if t is UnaryOp:
        assert isinstance(tree, UnaryOp)
        return _compile_unary(tree)
    if t is Conditional:
        assert isinstance(tree, Conditional)
        return _compile_conditional(tree)
    if t is Elvis:
        assert isinstance(tree, Elvis)
        return _compile_elvis(tree.left, tree.right, tree)
    if t is Subscript:
        assert isinstance(tree, Subscript)
        return _compile_subscript(tree)
    if t is FuncCall:
        assert isinstance(tree, FuncCall)
        return _compile_call(tree)
    if t is ListExpr:
        assert isinstance(tree, ListExpr)
        return _compile_list(tree)
    if t is AdExpr:
        assert isinstance(tree, AdExpr)
        return _compile_ad(tree)
    raise TypeError(f"cannot compile {tree!r}")  # pragma: no cover


# --------------------------------------------------------------------------- references


def _compile_ref(tree: AttrRef) -> Compiled:
    key = tree.lname
    if tree.absolute:

        def absolute(cur: ClassAd, env: Env) -> Value:
            root = env.root
            if root is None:
                raise EvalAbort("absolute reference without a root ad")
            value = lookup(root, key, env)
            return UNDEFINED if value is NOT_FOUND else value

        return absolute
    if tree.scope is None:

        def unscoped(cur: ClassAd, env: Env) -> Value:
            found = cur._attrs.get(key)
            if found is not None:
                value = found._const
                if value is not NOT_CONST:
                    return value
            return lookup_unscoped(cur, key, env)

        return unscoped
    scope = tree.scope
    if type(scope) is AttrRef and scope.scope is None and not scope.absolute:
        assert isinstance(scope, AttrRef)
        if scope.lname == "target":
            return _target_select(key)
        if scope.lname == "my":
            return _my_select(key)
    inner = scope
    while type(inner) is Paren:
        assert isinstance(inner, Paren)
        inner = inner.inner
    if type(inner) is Subscript:
        assert isinstance(inner, Subscript)
        return _select_after_subscript(inner, key)
    base_fn = compile_tree(scope)

    def select(cur: ClassAd, env: Env) -> Value:
        return lookup_in_value(base_fn(cur, env), key, env)

    return select


def _select_after_subscript(sub: Subscript, key: str) -> Compiled:
    """``ad["name"].key``: HTCondor 24 answers UNDEFINED when ``ad["name"]`` is an ad.

    Its subscript hands the selection a temporary copy of the nested ad that is already
    gone (docs/classad.md, quirks); the plain case reads as UNDEFINED, which we copy. A
    list subscript (``{[a = 1]}[0].a``) and a list got through an ad subscript select
    as usual.
    """
    base_fn = compile_tree(sub.base)
    index_fn = compile_tree(sub.index)

    def select_subscript(cur: ClassAd, env: Env) -> Value:
        base = base_fn(cur, env)
        index = index_fn(cur, env)
        value = subscript_value(base, index, env)
        if isinstance(value, ClassAd) and isinstance(base, ClassAd):
            return UNDEFINED
        return lookup_in_value(value, key, env)

    return select_subscript


NOT_FOUND: Final = MISSING


def _target_select(key: str) -> Compiled:
    """``TARGET.key``: the other ad of the match, unless something shadows TARGET."""

    def target_select(cur: ClassAd, env: Env) -> Value:
        if cur is env.left and "target" not in cur._attrs:
            base: Value = env.right
        elif cur is env.right and "target" not in cur._attrs:
            base = env.left
        else:
            base = lookup_unscoped(cur, "target", env)
        if isinstance(base, ClassAd):
            found = base._attrs.get(key)
            if found is not None:
                value = found._const
                if value is not NOT_CONST:
                    return value
            value = lookup(base, key, env)
            return UNDEFINED if value is NOT_FOUND else value
        return lookup_in_value(base, key, env)

    return target_select


def _my_select(key: str) -> Compiled:
    """``MY.key``: the current ad, unless it has an attribute named MY."""

    def my_select(cur: ClassAd, env: Env) -> Value:
        if cur is NO_AD:
            return UNDEFINED
        if "my" in cur._attrs:
            return lookup_in_value(lookup_unscoped(cur, "my", env), key, env)
        value = lookup(cur, key, env)
        return UNDEFINED if value is NOT_FOUND else value

    return my_select


# --------------------------------------------------------------------------- operators


def _compile_unary(tree: UnaryOp) -> Compiled:
    op = UNARY_OPS[tree.op]
    operand = compile_tree(tree.operand)

    def unary(cur: ClassAd, env: Env) -> Value:
        return op(operand(cur, env))

    return _fold(tree, unary, (tree.operand,))


def _spine(tree: BinaryOp, ops: frozenset[str]) -> list[BinaryOp]:
    """The left spine of operators in ``ops`` under ``tree`` (outermost first)."""
    spine = [tree]
    left = tree.left
    while type(left) is BinaryOp:
        assert isinstance(left, BinaryOp)
        if left.op not in ops:
            break
        spine.append(left)
        left = left.left
    return spine


_LOGIC: Final = frozenset({"&&", "||"})


def _compile_binary(tree: BinaryOp) -> Compiled:
    if tree.op in _LOGIC:
        return _compile_logic(tree)
    spine = _spine(tree, frozenset(BINARY_OPS))
    if len(spine) > 2:
        return _compile_strict_chain(tree, spine)
    op = BINARY_OPS[tree.op]
    left = compile_tree(tree.left)
    right = compile_tree(tree.right)
    if tree.right._const is not NOT_CONST and tree.left._const is NOT_CONST:
        constant = tree.right._const

        def binary_const(cur: ClassAd, env: Env) -> Value:
            return op(left(cur, env), constant)

        return binary_const

    def binary(cur: ClassAd, env: Env) -> Value:
        return op(left(cur, env), right(cur, env))

    return _fold(tree, binary, (tree.left, tree.right))


def _compile_strict_chain(tree: BinaryOp, spine: list[BinaryOp]) -> Compiled:
    """``a + b - c * ...``-style left-deep chains, folded in a loop (no deep recursion)."""
    first_tree = spine[-1].left
    first = compile_tree(first_tree)
    steps = [(BINARY_OPS[node.op], compile_tree(node.right)) for node in reversed(spine)]
    leaves = (first_tree, *(node.right for node in spine))

    def chain(cur: ClassAd, env: Env) -> Value:
        value = first(cur, env)
        for op, fn in steps:
            value = op(value, fn(cur, env))
        return value

    return _fold(tree, chain, leaves)


def _and(a: Value, b: Value) -> Value:
    """``a && b`` on logic values (a is not False: that case short-circuits)."""
    if a is ERROR or b is ERROR:
        return ERROR
    if a is True:
        return b
    return False if b is False else UNDEFINED


def _or(a: Value, b: Value) -> Value:
    """``a || b`` on logic values (a is not True: that case short-circuits)."""
    if a is ERROR or b is ERROR:
        return ERROR
    if a is False:
        return b
    return True if b is True else UNDEFINED


def _compile_logic(tree: BinaryOp) -> Compiled:
    spine = _spine(tree, frozenset({tree.op}))
    first_tree = spine[-1].left
    leaves = [first_tree, *(node.right for node in reversed(spine))]
    fns = [compile_tree(leaf) for leaf in leaves]
    lv = logic_value
    if tree.op == "&&":
        if len(fns) == 2:
            fa, fb = fns

            def and2(cur: ClassAd, env: Env) -> Value:
                a = lv(fa(cur, env))
                if a is False:
                    return False
                b = lv(fb(cur, env))
                if a is True and b is not ERROR:
                    return b
                return _and(a, b)

            return _fold(tree, and2, tuple(leaves))

        def and_chain(cur: ClassAd, env: Env) -> Value:
            value = True
            for fn in fns:
                if value is False:
                    return False
                operand = lv(fn(cur, env))
                value = operand if value is True and operand is not ERROR else _and(value, operand)
            return value

        return _fold(tree, and_chain, tuple(leaves))

    if len(fns) == 2:
        fa, fb = fns

        def or2(cur: ClassAd, env: Env) -> Value:
            a = lv(fa(cur, env))
            if a is True:
                return True
            return _or(a, lv(fb(cur, env)))

        return _fold(tree, or2, tuple(leaves))

    def or_chain(cur: ClassAd, env: Env) -> Value:
        value = False
        for fn in fns:
            if value is True:
                return True
            value = _or(value, lv(fn(cur, env)))
        return value

    return _fold(tree, or_chain, tuple(leaves))


def _compile_conditional(tree: Conditional) -> Compiled:
    if tree.then is None:
        return _compile_elvis(tree.cond, tree.otherwise, tree)
    cond = compile_tree(tree.cond)
    otherwise = compile_tree(tree.otherwise)
    then = compile_tree(tree.then)

    def conditional(cur: ClassAd, env: Env) -> Value:
        test = logic_value(cond(cur, env))
        if test is True:
            return then(cur, env)
        if test is False:
            return otherwise(cur, env)
        return test

    return _fold(tree, conditional, (tree.cond, tree.then, tree.otherwise))


def _compile_elvis(left_tree: ExprTree, right_tree: ExprTree, tree: ExprTree) -> Compiled:
    left = compile_tree(left_tree)
    right = compile_tree(right_tree)

    def elvis(cur: ClassAd, env: Env) -> Value:
        value = left(cur, env)
        if value is UNDEFINED:
            return right(cur, env)
        return value

    return _fold(tree, elvis, (left_tree, right_tree))


def _int32(n: int) -> int:
    """C++ ``(int)`` of a 64-bit integer, as HTCondor converts a list index."""
    return ((n + 2**31) % 2**32) - 2**31


def subscript_value(base: Value, index: Value, env: Env) -> Value:
    """``base[index]`` on values: a list element or an ad's own attribute."""
    if base is ERROR or index is ERROR:
        return ERROR
    if base is UNDEFINED or index is UNDEFINED:
        return UNDEFINED
    if type(base) is list:
        if type(index) is not int:
            return ERROR
        i = _int32(index)
        if 0 <= i < len(base):
            return base[i]
        return ERROR
    if isinstance(base, ClassAd) and type(index) is str:
        key = index.lower()
        if key not in base._attrs:
            return UNDEFINED
        value = lookup(base, key, env)
        return UNDEFINED if value is NOT_FOUND else value
    return ERROR


def _compile_subscript(tree: Subscript) -> Compiled:
    base = compile_tree(tree.base)
    index = compile_tree(tree.index)

    def subscript(cur: ClassAd, env: Env) -> Value:
        return subscript_value(base(cur, env), index(cur, env), env)

    return _fold(tree, subscript, (tree.base, tree.index))


# --------------------------------------------------------------------------- literals


def _compile_list(tree: ListExpr) -> Compiled:
    fns = tuple(compile_tree(item) for item in tree.items)
    if all(item._const is not NOT_CONST for item in tree.items):
        values = [item._const for item in tree.items]

        def constant_list(cur: ClassAd, env: Env) -> Value:
            return list(values)

        return constant_list

    def list_literal(cur: ClassAd, env: Env) -> Value:
        # HTCondor evaluates list elements lazily: an element whose evaluation fails
        # (a circular reference) is ERROR when used, without failing the whole list.
        items = []
        for fn in fns:
            depth = env.depth
            try:
                items.append(fn(cur, env))
            except (EvalAbort, RecursionError):
                env.depth = depth
                items.append(ERROR)
        return items

    return list_literal


def _compile_ad(tree: AdExpr) -> Compiled:
    attrs = tree.attrs
    names = tree.names
    view = ClassAd._view

    def ad_literal(cur: ClassAd, env: Env) -> Value:
        return view(attrs, names, None if cur is NO_AD else cur)

    return ad_literal


# --------------------------------------------------------------------------- calls


def _compile_call(tree: FuncCall) -> Compiled:
    special = _SPECIAL_FORMS.get(tree.lname)
    if special is not None:
        return special(tree, compile_tree)
    builtin = _builtins().get(tree.lname)
    if builtin is None:
        return _const(ERROR)
    fns = tuple(compile_tree(arg) for arg in tree.args)
    if not fns:

        def call0(cur: ClassAd, env: Env) -> Value:
            return builtin(env.ctx, ())

        return call0
    if len(fns) == 1:
        (f0,) = fns

        def call1(cur: ClassAd, env: Env) -> Value:
            return builtin(env.ctx, (f0(cur, env),))

        return call1
    if len(fns) == 2:
        f0, f1 = fns

        def call2(cur: ClassAd, env: Env) -> Value:
            return builtin(env.ctx, (f0(cur, env), f1(cur, env)))

        return call2

    def call(cur: ClassAd, env: Env) -> Value:
        return builtin(env.ctx, tuple([fn(cur, env) for fn in fns]))

    return call


# --------------------------------------------------------------------------- entry points


def run(fn: Compiled, cur: ClassAd, env: Env) -> Value:
    """Call a compiled closure; a failed evaluation (circular reference...) is ERROR."""
    try:
        return fn(cur, env)
    except (EvalAbort, RecursionError):
        return ERROR


def evaluate_tree(
    tree: ExprTree,
    my: ClassAd | None = None,
    target: ClassAd | None = None,
    ctx: EvalContext | None = None,
) -> Value:
    """Evaluate ``tree`` with ``my`` as MY and ``target`` as TARGET."""
    const = tree._const
    if const is not NOT_CONST:
        return const
    fn = tree._fn or compile_tree(tree)
    const = tree._const
    if const is not NOT_CONST:
        return const
    env = make_env(my, target, ctx)
    return run(fn, NO_AD if my is None else my, env)


def evaluate_attribute(
    ad: ClassAd, name: str, target: ClassAd | None = None, ctx: EvalContext | None = None
) -> Value:
    """The value of attribute ``name`` of ``ad`` (looked up in ``ad`` and its parents)."""
    key = name.lower()
    tree = ad._attrs.get(key)
    if tree is not None:
        const = tree._const
        if const is not NOT_CONST:
            return const
    env = make_env(ad, target, ctx)
    try:
        value = lookup(ad, key, env)
    except (EvalAbort, RecursionError):
        return ERROR
    return UNDEFINED if value is NOT_FOUND else value
