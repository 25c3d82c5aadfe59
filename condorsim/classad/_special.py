"""Built-in functions that need their arguments unevaluated or the scope.

How this works
--------------
Each entry of :data:`SPECIAL_FORMS` (keyed by lower-case name) receives the call node
and the compiler, and returns the call's closure. As in HTCondor's ``fnCall.cpp`` and
the HTCondor compatibility layer (``compat_classad.cpp``):

* ``ifThenElse(c, a, b)`` evaluates only the branch taken; a condition that is not
  boolean-like gives ERROR (UNDEFINED stays UNDEFINED). Wrong arity: ERROR.
* ``eval(s)`` parses the string ``s`` and evaluates it in the current scope; a parse
  error, UNDEFINED or ERROR gives ERROR; any other non-string value is returned as is.
* ``unparse(name)`` is the text (HTCondor's multi-line PrettyPrint form) of the
  current ad's own attribute ``name``, ``""`` if absent, ERROR for a non-reference.
* ``debug(e)`` evaluates ``e``, passes a line of text to ``ctx.debug``, returns it.
* ``unresolved(name [, regex])`` lists the references of attribute ``name``'s expression
  that resolve to nothing (comma-separated, sorted), or tells whether one matches.
* ``evalInEachContext(e, ads)`` / ``countMatches(e, ads)`` evaluate ``e`` (or, when it
  names an attribute, that attribute's expression) with each nested ad of the list
  as the current ad; HTCondor's quirk is kept: when the name is found nowhere during
  a match, the list is evaluated from the match ad, where plain names are undefined.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Final

from ._classad import SPECIAL_NAMES, ClassAd
from ._errors import ClassAdSyntaxError
from ._ops import logic_value
from ._parser import parse_expression
from ._scope import MAX_LOOKUP_DEPTH, Compiled, Env, EvalAbort, find, next_scope
from ._tree import AttrRef, ExprTree, FuncCall, ListExpr
from ._unparse import pretty_unparse, unparse, unparse_value
from ._values import ERROR, UNDEFINED, AbsTime, RelTime, Value

Compiler = Callable[[ExprTree], Compiled]
SpecialForm = Callable[[FuncCall, Compiler], Compiled]


def _error(cur: ClassAd, env: Env) -> Value:
    return ERROR


def _if_then_else(call: FuncCall, compile_tree: Compiler) -> Compiled:
    if len(call.args) != 3:
        return _error
    cond, then, otherwise = (compile_tree(arg) for arg in call.args)

    def if_then_else(cur: ClassAd, env: Env) -> Value:
        test = logic_value(cond(cur, env))
        if test is True:
            return then(cur, env)
        if test is False:
            return otherwise(cur, env)
        return test

    return if_then_else


@functools.lru_cache(maxsize=2048)
def _parse_for_eval(text: str) -> ExprTree | None:
    try:
        return parse_expression(text)
    except ClassAdSyntaxError:
        return None


def _eval(call: FuncCall, compile_tree: Compiler) -> Compiled:
    if len(call.args) != 1:
        return _error
    arg = compile_tree(call.args[0])

    def eval_string(cur: ClassAd, env: Env) -> Value:
        value = arg(cur, env)
        if type(value) is not str:
            # HTCondor turns the value back into a literal to evaluate it; a time value
            # makes none (ERROR), as UNDEFINED and ERROR give ERROR
            bad = value is UNDEFINED or value is ERROR or type(value) in (AbsTime, RelTime)
            return ERROR if bad else value
        tree = _parse_for_eval(value)
        if tree is None:
            return ERROR
        fn = compile_tree(tree)
        if env.depth >= MAX_LOOKUP_DEPTH:
            raise EvalAbort("eval() nested too deeply")
        env.depth += 1
        try:
            return fn(cur, env)
        finally:
            env.depth -= 1

    return eval_string


def _unparse(call: FuncCall, compile_tree: Compiler) -> Compiled:
    if len(call.args) != 1 or type(call.args[0]) is not AttrRef:
        return _error
    ref = call.args[0]
    assert isinstance(ref, AttrRef)
    if ref.scope is not None or ref.absolute:
        empty = ""
        return lambda cur, env: empty
    key = ref.lname

    def unparse_attribute(cur: ClassAd, env: Env) -> Value:
        tree = cur._attrs.get(key)
        return "" if tree is None else pretty_unparse(tree)

    return unparse_attribute


def _debug(call: FuncCall, compile_tree: Compiler) -> Compiled:
    if len(call.args) != 1:
        return _error
    arg = compile_tree(call.args[0])
    text = unparse(call.args[0])

    def debug(cur: ClassAd, env: Env) -> Value:
        value = arg(cur, env)
        sink = env.ctx.debug
        if sink is not None:
            sink(f"debug({text}) = {unparse_value(value)}")
        return value

    return debug


def _deref(ref: AttrRef, cur: ClassAd, env: Env, compile_tree: Compiler) -> tuple[ExprTree | None, ClassAd]:
    """HTCondor's ``AttributeReference::Deref``: the expression ``ref`` names and the ad
    left current afterwards (where it was found, or the last scope searched)."""
    key = ref.lname
    if ref.absolute:
        if env.root is None:
            return None, cur
        return find(env.root, key, env)
    if ref.scope is not None:
        base = compile_tree(ref.scope)(cur, env)
        if not isinstance(base, ClassAd):
            return None, cur
        return find(base, key, env)
    tree, last = find(cur, key, env)
    if tree is not None:
        return tree, last
    other = env.right if cur is env.left else env.left if cur is env.right else None
    if other is not None:
        return find(other, key, env)
    return None, last


def _in_tree(ad: ClassAd | None, member: ClassAd, env: Env) -> bool:
    while ad is not None:
        if ad is member:
            return True
        ad = next_scope(ad, env)
    return False


def _each(call: FuncCall, compile_tree: Compiler, count: bool) -> Compiled:
    if len(call.args) != 2:
        return _error
    expr_tree, list_tree = call.args
    literal_items = (
        tuple(compile_tree(item) for item in list_tree.items)
        if type(list_tree) is ListExpr
        else None
    )
    list_fn = compile_tree(list_tree)

    def each(cur: ClassAd, env: Env) -> Value:
        target = expr_tree
        scope = cur
        if type(expr_tree) is AttrRef:
            assert isinstance(expr_tree, AttrRef)
            found, scope = _deref(expr_tree, cur, env, compile_tree)
            if found is not None:
                target = found
        expr = compile_tree(target)
        if literal_items is not None:
            elements: list[Value] = [fn(scope, env) for fn in literal_items]
        else:
            value = list_fn(scope, env)
            if value is UNDEFINED:
                return 0 if count else UNDEFINED
            if type(value) is not list:
                return ERROR
            elements = value
        results = [_evaluate_in(expr, element, env) for element in elements]
        if count:
            return sum(1 for r in results if logic_value(r) is True)
        return results

    return each


def _evaluate_in(expr: Compiled, element: Value, env: Env) -> Value:
    if not isinstance(element, ClassAd):
        return UNDEFINED if element is UNDEFINED else ERROR
    if env.left is None:
        return _guarded(expr, element, env)
    if _in_tree(element._parent, env.left, env):
        other = env.right
    elif env.right is not None and _in_tree(element._parent, env.right, env):
        other = env.left
    else:
        return _guarded(expr, element, env)
    assert other is not None
    saved = (env.alt_from, env.alt_to)
    env.alt_from, env.alt_to = element, other
    try:
        return _guarded(expr, element, env)
    finally:
        env.alt_from, env.alt_to = saved


def _guarded(expr: Compiled, element: ClassAd, env: Env) -> Value:
    depth = env.depth
    try:
        return expr(element, env)
    except (EvalAbort, RecursionError):
        env.depth = depth
        return ERROR


def _unresolved_names(tree: ExprTree, cur: ClassAd, env: Env) -> list[str]:
    """References of ``tree`` that name nothing, seen from ``cur`` (sorted, any case)."""
    names: set[str] = set()
    for node in tree.walk():
        if type(node) is not AttrRef:
            continue
        assert isinstance(node, AttrRef)
        scope = node.scope
        if scope is None:
            if node.absolute or node.lname in SPECIAL_NAMES or node.lname in ("target", "other"):
                continue
            if find(cur, node.lname, env)[0] is None:
                other = env.right if cur is env.left else env.left if cur is env.right else None
                if other is None or find(other, node.lname, env)[0] is None:
                    names.add(node.name)
        elif type(scope) is AttrRef and scope.scope is None and not scope.absolute:
            assert isinstance(scope, AttrRef)
            if scope.lname == "my":
                base: ClassAd | None = cur
            elif scope.lname == "target":
                base = env.right if cur is env.left else env.left if cur is env.right else None
            else:
                if find(cur, scope.lname, env)[0] is None:
                    names.add(f"{scope.name}.{node.name}")
                continue
            if base is None or find(base, node.lname, env)[0] is None:
                names.add(node.name)
    return sorted(names, key=str.lower)


def _unresolved(call: FuncCall, compile_tree: Compiler) -> Compiled:
    args = call.args
    if not 1 <= len(args) <= 2 or type(args[0]) is not AttrRef:
        return _error
    ref = args[0]
    assert isinstance(ref, AttrRef)
    pattern_fn = compile_tree(args[1]) if len(args) == 2 else None

    def unresolved(cur: ClassAd, env: Env) -> Value:
        tree, holder = _deref(ref, cur, env, compile_tree)
        if tree is None:
            return UNDEFINED
        names = _unresolved_names(tree, holder, env)
        if pattern_fn is None:
            return ",".join(names)
        pattern = pattern_fn(cur, env)
        if type(pattern) is not str:
            return ERROR
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error:
            return ERROR
        return any(regex.search(name) for name in names)

    return unresolved


SPECIAL_FORMS: Final[dict[str, SpecialForm]] = {
    "unresolved": _unresolved,
    "ifthenelse": _if_then_else,
    "eval": _eval,
    "unparse": _unparse,
    "debug": _debug,
    "evalineachcontext": lambda call, compile_tree: _each(call, compile_tree, False),
    "countmatches": lambda call, compile_tree: _each(call, compile_tree, True),
}
