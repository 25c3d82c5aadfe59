"""The steps of ``condor_q -better-analyze``: a Requirements expression cut into the
sub-expressions worth counting, each with the number of slots it matches.

How this works
--------------
This follows ``AnalyzeRequirementsForEachTarget`` of HTCondor 24's
src/condor_utils/expr_analyze.cpp, with -better-analyze's detail level (no unparsed
expressions after a step, ``ifThenElse`` not opened):

1. :func:`_walk` visits the tree depth first and numbers, in post-order, each comparison,
   each logical operator (``!`` ``||`` ``&&``) and each operand of a logical operator
   (parentheses are looked through). A logical step is labelled ``[l] && [r]``; any
   other by its text.
2. A step with no reference outside the job (no TARGET attribute, no attribute the job
   does not define, following the job's own attributes) is a constant: ``always`` or
   ``never``. Constants fold through the logical steps (``false && x`` is never, its
   other side irrelevant), as ``AnalyzePropagateConstants`` does.
3. The other steps are counted against every slot, in order. A logical step that matches
   as many slots as one of its sides is *effectively* that side and not shown; an ``||``
   with one side matching every slot (or the other none) prunes the other side.
4. The table: ``Slots`` centred over the Matched column, then one row per step still
   shown: ``[i]``, the count (or always/never), the label.

:func:`pretty_expr` is ``PrettyPrintExprTree``: it folds a long expression after an
``&&`` or ``||`` so that no line passes the console width, indenting the new line to the
nesting depth of the place it was cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from condorsim.classad import ClassAd, EvalContext, ExprTree
from condorsim.classad._tree import (
    AttrRef,
    BinaryOp,
    Conditional,
    Elvis,
    FuncCall,
    Literal,
    Paren,
    Subscript,
    UnaryOp,
)

_LOGIC = {"!": 1, "||": 2, "&&": 3}
_COMPARISONS = {"<", "<=", "!=", "==", ">=", ">", "=?=", "=!=", "is", "isnt"}


def pretty_expr(text: str, indent: int, width: int) -> str:
    """``text`` folded after ``&&``/``||`` to fit ``width`` (the caller printed ``indent``)."""
    buf = list(text)
    if indent > width:
        indent = width * 2 // 3
    i = last_and = line_start = 0
    indent_at_last_and = indent
    pos = indent
    was_and = False
    prev = ""
    while i < len(buf):
        ch = buf[i]
        is_and = False
        if ch in "&|" and prev == ch:
            is_and = True
        elif ch == "(":
            indent += 2
        elif ch == ")":
            indent -= 2
        if pos >= width and last_and != line_start:
            buf[last_and] = "\n"
            line_start = last_and = last_and + 1
            pos = 0
            if indent_at_last_and > 0:
                buf[line_start:line_start] = [" "] * indent_at_last_and
                i += indent_at_last_and
                pos = i - line_start
            indent_at_last_and = indent
        if was_and:
            last_and = i
            indent_at_last_and = indent
        prev = ch
        i += 1
        pos += 1
        was_and = is_and
    return "".join(buf)


@dataclass
class _Step:
    tree: ExprTree
    label: str
    logic: int = 0  # 0 none, 1 !, 2 ||, 3 &&
    left: int = -1
    right: int = -1
    effective: int = -1
    matches: int = 0
    hard: int = -1
    constant: bool = False
    variable: bool = False  # depends on the time: shown as now / not now
    dont_care: bool = False
    text: str = ""

    def shown(self) -> str:
        if not self.label:
            if self.logic == 1:
                self.label = f" ! [{self.left}]"
            elif self.logic:
                self.label = f"[{self.left}] {'||' if self.logic == 2 else '&&'} [{self.right}]"
            else:
                return self.text or "empty"
        return self.label


def _walk(job: ClassAd, tree: ExprTree, steps: list[_Step], must_store: bool) -> int:
    """Number the steps of ``tree`` (post-order); the index standing for it, or -1."""
    push, logical, logic, label = must_store, False, 0, ""
    left: ExprTree | None = None
    right: ExprTree | None = None
    grip: ExprTree | None = None
    if isinstance(tree, Literal):
        label = str(tree)
    elif isinstance(tree, AttrRef):
        left = None if tree.absolute else tree.scope
        if left is None and not tree.absolute and tree.lname == "requirements":
            left = job.lookup(tree.name)  # the Requirements of the ad, shown inline
    elif isinstance(tree, Paren):
        push, logical, left = False, True, tree.inner
    elif isinstance(tree, UnaryOp):
        left = tree.operand
        if tree.op == "!":
            push, logical, logic = True, True, 1
    elif isinstance(tree, BinaryOp):
        left, right = tree.left, tree.right
        if tree.op in _COMPARISONS:
            push = True
        elif tree.op in _LOGIC:
            push, logical, logic = True, True, _LOGIC[tree.op]
    elif isinstance(tree, Elvis) or (isinstance(tree, Conditional) and tree.then is None):
        left, right = (tree.left, tree.right) if isinstance(tree, Elvis) else (
            tree.cond, tree.otherwise)
        if _is_my_ref(left, job) and isinstance(_unparen(right), Literal):
            push = False  # a default for one of the job's own attributes: not a step
    elif isinstance(tree, Conditional):
        left, right, grip = tree.cond, tree.then, tree.otherwise
    elif isinstance(tree, Subscript):
        left, right = tree.base, tree.index
    elif isinstance(tree, FuncCall) and must_store:
        label = str(tree)  # a call is a step as a whole; its arguments are not walked
    ix_left = _walk(job, left, steps, logical) if left is not None else -1
    ix_right = _walk(job, right, steps, logical) if right is not None else -1
    if grip is not None:
        _walk(job, grip, steps, logical)
    if push:
        if left is not None and right is None and grip is None and ix_left >= 0:
            return ix_left
        steps.append(_Step(tree, label, logic, ix_left, ix_right))
        return len(steps) - 1
    if left is not None and right is None and grip is None:
        return ix_left
    return -1


def _is_my_ref(tree: ExprTree, job: ClassAd) -> bool:
    """``ExprTreeIsMyRef``: an attribute the job defines (``x`` or ``MY.x``)."""
    tree = _unparen(tree)
    if not isinstance(tree, AttrRef) or tree.absolute:
        return False
    if tree.scope is not None and not (isinstance(tree.scope, AttrRef)
                                       and tree.scope.lname == "my"):
        return False
    return job.lookup(tree.name) is not None


def _unparen(tree: ExprTree) -> ExprTree:
    while isinstance(tree, Paren):
        tree = tree.inner
    return tree


def external_refs(tree: ExprTree, ad: ClassAd, seen: frozenset[str] = frozenset()) -> set[str]:
    """The attributes ``tree`` needs from outside ``ad`` (TARGET ones, and names ``ad``
    does not define), following ``ad``'s own attributes."""
    out: set[str] = set()
    for scope, name in tree.references():
        if scope == "TARGET":
            out.add(name.lower())
            continue
        inner = ad.lookup(name)
        if inner is None:
            if scope is None:
                out.add(name.lower())
        elif name.lower() not in seen:
            out |= external_refs(inner, ad, seen | {name.lower()})
    return out


def internal_refs(tree: ExprTree, ad: ClassAd, out: dict[str, str] | None = None) -> dict[str, str]:
    """The attributes of ``ad`` that ``tree`` uses, followed through ``ad``
    (lower-cased name -> the spelling first met)."""
    out = {} if out is None else out
    for scope, name in sorted(tree.references(), key=lambda r: (r[0] or "", r[1])):
        if scope == "TARGET" or name.lower() in out:
            continue
        inner = ad.lookup(name)
        if inner is not None:
            out[name.lower()] = name
            internal_refs(inner, ad, out)
    return out


def _truth(value: object) -> bool:
    if isinstance(value, bool):
        return value
    return isinstance(value, (int, float)) and value != 0


def _fold_constants(steps: list[_Step]) -> None:
    """``AnalyzePropagateConstants``. Difference: a time-dependent constant (``time()``)
    prunes the other side of its operator as a fixed one does (HTCondor keeps it)."""
    for s in steps:
        if not s.logic:
            continue
        hl = steps[s.left].hard if s.left >= 0 and steps[s.left].constant else 2
        hr = steps[s.right].hard if s.right >= 0 and steps[s.right].constant else 2
        mark = {-1: "?", 0: "F", 1: "T", 2: ""}
        effective, irrelevant = -1, -1
        if s.logic == 1:
            s.label = f" ! [{s.left}]{mark[hl]}"
            continue
        if s.logic == 2:
            if hl == 1 or hr == 1:
                s.constant, s.hard = True, 1
                effective, irrelevant = (s.left, s.right) if hl == 1 else (s.right, s.left)
            elif hl == 0 and hr == 0:
                s.constant, s.hard = True, 0
            elif hl == 0:
                effective, irrelevant = s.right, s.left
            elif hr == 0:
                effective, irrelevant = s.left, s.right
            s.label = f"[{s.left}]{mark[hl]} || [{s.right}]{mark[hr]}"
        else:
            if hl == 0 or hr == 0:
                s.constant, s.hard = True, 0
                effective, irrelevant = (s.left, s.right) if hl == 0 else (s.right, s.left)
            elif hl == 1 and hr == 1:
                s.constant, s.hard = True, 1
            elif hl == 1:
                effective = s.right
            elif hr == 1:
                effective = s.left
            s.label = f"[{s.left}]{mark[hl]} && [{s.right}]{mark[hr]}"
        if effective >= 0:
            if irrelevant < 0:
                irrelevant = s.right if effective == s.left else s.left
            while steps[effective].effective >= 0:
                effective = steps[effective].effective
            s.effective = effective
        if irrelevant >= 0:
            _mark_irrelevant(steps, irrelevant)


def _mark_irrelevant(steps: list[_Step], ix: int) -> None:
    if ix >= 0:
        steps[ix].dont_care = True
        _mark_irrelevant(steps, steps[ix].left)
        _mark_irrelevant(steps, steps[ix].right)


def _count(steps: list[_Step], job: ClassAd, slots: Sequence[ClassAd], ctx: EvalContext) -> None:
    total = len(slots)
    for s in steps:
        if s.effective >= 0 or s.dont_care or s.constant:
            continue
        left, right = s.left, s.right
        both = left >= 0 and right >= 0 and s.logic
        if both:
            effective, prune = -1, -1
            if s.logic == 3:
                if steps[left].matches == 0:
                    effective = left
                elif steps[right].matches == 0:
                    effective = right
            elif s.logic == 2:
                lm, rm = steps[left].matches, steps[right].matches
                if lm == total:
                    effective, prune = left, right
                elif rm == total:
                    effective, prune = right, left
                elif lm == 0 and rm != 0:
                    effective, prune = right, left
                elif lm != 0 and rm == 0:
                    effective, prune = left, right
            if prune >= 0:
                _mark_irrelevant(steps, prune)
            if effective >= 0:
                s.effective = _chase(steps, effective)
            else:
                if steps[left].effective >= 0:
                    s.left, s.label = steps[left].effective, ""
                if steps[right].effective >= 0:
                    s.right, s.label = steps[right].effective, ""
        s.matches = sum(1 for slot in slots
                        if _truth(s.tree.evaluate(my=job, target=slot, ctx=ctx)))
        if both and s.logic == 3:
            effective = -1
            if steps[left].matches == s.matches:
                effective = left
                if steps[right].matches > s.matches:
                    steps[right].dont_care = True
            elif steps[right].matches == s.matches:
                effective = right
                if steps[left].matches > s.matches:
                    steps[left].dont_care = True
            if effective >= 0:
                s.effective, s.label = _chase(steps, effective), ""
            else:
                if steps[left].effective >= 0:
                    s.left, s.label = steps[left].effective, ""
                if steps[right].effective >= 0:
                    s.right, s.label = steps[right].effective, ""


def _chase(steps: list[_Step], ix: int) -> int:
    while steps[ix].effective >= 0:
        ix = steps[ix].effective
    return ix


def step_table(job: ClassAd, expr: ExprTree, slots: Sequence[ClassAd], ctx: EvalContext) -> str:
    """The ``Step / Matched / Condition`` table of ``expr`` (the job as MY) over ``slots``."""
    steps: list[_Step] = []
    _walk(job, expr, steps, True)
    for s in steps:
        s.text = str(s.tree)
        s.variable = any((isinstance(n, FuncCall) and n.lname == "time" and not n.args)
                         or (isinstance(n, AttrRef) and n.scope is None
                             and n.lname == "currenttime") for n in s.tree.walk())
        if not external_refs(s.tree, job):
            s.constant = True
            s.hard = 1 if s.tree.evaluate(my=job, target=None, ctx=ctx) is True else 0
    _fold_constants(steps)
    for s in steps:  # a step pointing at a folded step points at what it stands for
        for side in ("left", "right"):
            j = getattr(s, side)
            if j >= 0 and steps[j].effective >= 0:
                setattr(s, side, steps[j].effective)
                s.label = ""
    _count(steps, job, slots, ctx)
    out = " " * 9 + "Slots\nStep    Matched  Condition\n-----  --------  ---------\n"
    for ix, s in enumerate(steps):
        if s.effective >= 0 or s.dont_care:
            continue
        lbl = f"[{ix}]      "[:5]
        words = ("now", "not now") if s.variable else ("always", "never")
        value = (words[0] if s.hard else words[1]) if s.constant else str(s.matches)
        out += f"{lbl} {value:>9}  {s.shown()}\n"
    return out
