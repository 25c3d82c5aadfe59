"""Matchmaking helpers: symmetric match, Rank, and the schedd's ``$$(Attr)`` expansion.

How this works
--------------
:func:`symmetric_match` and :func:`rank` evaluate in one match context (the job as
LEFT/MY, the slot as RIGHT/TARGET), as HTCondor's ``MatchClassAd`` with non-strict
evaluation does: the slot's Requirements first, then the job's, both must be
boolean-like true (``symmetricMatch = RIGHT.requirements && LEFT.requirements``).
:func:`rank` follows the negotiator's ``EvalFloat``: the ad's Rank (or, if it has
none, the other ad's Rank), a number or boolean read as a real, anything else 0.0.

:func:`expand_dollar_dollar` copies a job ad and replaces ``$$(Attr)``,
``$$(Attr:default)``, ``$$([expression])`` and ``$$(DOLLARDOLLAR)`` as the schedd does
before handing the job to the shadow (``qmgmt.cpp: dollarDollarExpand``): each
attribute's old-syntax text is searched, the slot attribute's text is substituted
(without the quotes of a string), and the result is parsed back. An attribute the
slot does not have and that has no default raises :class:`DollarDollarError`; the
schedd then holds the job with the reason ``Cannot expand $$(Attr).``
"""

from __future__ import annotations

from ._classad import ClassAd
from ._compile import compile_tree, run
from ._errors import ClassAdSyntaxError, DollarDollarError
from ._ops import logic_value
from ._parser import parse_expression
from ._scope import MISSING, EvalAbort, lookup, make_env
from ._unparse import unparse
from ._values import EvalContext, Value


def symmetric_match(job: ClassAd, slot: ClassAd, ctx: EvalContext | None = None) -> bool:
    """True when the slot's and the job's Requirements are both true of each other."""
    env = make_env(job, slot, ctx)
    try:
        slot_req = lookup(slot, "requirements", env)
        if slot_req is MISSING or logic_value(slot_req) is not True:
            return False
        job_req = lookup(job, "requirements", env)
        return job_req is not MISSING and logic_value(job_req) is True
    except (EvalAbort, RecursionError):
        return False


def rank(ad: ClassAd, other: ClassAd, ctx: EvalContext | None = None) -> float:
    """``ad.Rank`` with MY=ad and TARGET=other as a real; 0.0 when it is not a number."""
    env = make_env(ad, other, ctx)
    holder = ad if "rank" in ad._attrs else other if "rank" in other._attrs else None
    if holder is None:
        return 0.0
    try:
        value = lookup(holder, "rank", env)
    except (EvalAbort, RecursionError):
        return 0.0
    t = type(value)
    if t is float or t is int or t is bool:
        return float(value)
    return 0.0


def _dollar_dollar_names(text: str, start: int) -> tuple[int, int, str] | None:
    """The next ``$$( ... )`` at or after ``start``: (begin, end, inside) or None."""
    i = text.find("$$(", start)
    while i >= 0:
        j = i + 3
        if j < len(text) and text[j] == "[":
            depth = 0
            k = j
            while k < len(text):
                if text[k] == "[":
                    depth += 1
                elif text[k] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            if k + 1 < len(text) and text[k + 1] == ")":
                return i, k + 2, text[j : k + 1]
        else:
            close = text.find(")", j)
            if close > j:
                return i, close + 1, text[j:close]
        i = text.find("$$(", i + 1)
    return None


def _replacement(inside: str, job: ClassAd, slot: ClassAd, ctx: EvalContext | None) -> str:
    if inside.startswith("[") and inside.endswith("]"):
        try:
            tree = parse_expression(f"string({inside[1:-1]})")
        except ClassAdSyntaxError:
            raise DollarDollarError(inside) from None
        value: Value = run(compile_tree(tree), job, make_env(job, slot, ctx))
        if type(value) is not str:
            raise DollarDollarError(inside)
        return value
    name, colon, fallback = inside.partition(":")
    if name.lower() == "dollardollar":
        return "$$"
    found = slot.lookup(name)
    if found is not None:
        text = unparse(found, old_syntax=True)
    elif colon:
        text = fallback if fallback else '""'
    else:
        raise DollarDollarError(name)
    if text.startswith('"'):
        text = text[1:-1] if len(text) > 1 and text.endswith('"') else text[1:]
    return text


def expand_dollar_dollar(
    job: ClassAd, slot: ClassAd, ctx: EvalContext | None = None
) -> ClassAd:
    """A copy of ``job`` with its ``$$(...)`` references filled in from ``slot``.

    Raises DollarDollarError(attr) when ``$$(attr)`` names an attribute the slot
    lacks and gives no default (the schedd holds such a job).
    """
    expanded = job.copy()
    names = [n for n in job if n.lower() == "cmd"] + [n for n in job if n.lower() != "cmd"]
    for name in names:
        if name.lower().startswith("match_"):
            continue
        tree = job.lookup(name)
        assert tree is not None
        text = unparse(tree, old_syntax=True)
        if "$$" not in text:
            continue
        if name.lower() == "cmd" and text.upper().endswith("$$OPSYS.$$ARCH"):
            text = text[: -len("$$OPSYS.$$ARCH")] + "$$(OPSYS).$$(ARCH)"
        search = 0
        changed = False
        while True:
            found = _dollar_dollar_names(text, search)
            if found is None:
                break
            begin, end, inside = found
            value = _replacement(inside, job, slot, ctx)
            text = text[:begin] + value + text[end:]
            search = begin + len(value)
            changed = True
        if changed:
            try:
                expanded[name] = parse_expression(text, old_syntax=True)
            except ClassAdSyntaxError:
                # HTCondor's Insert() fails silently: the attribute keeps its value.
                continue
    return expanded

