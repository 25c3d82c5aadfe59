"""Applying a transform to a ClassAd (HTCondor's ``TransformClassAd``), as a pure function.

How this works
--------------
:func:`apply` copies the ad and the macro table, then runs the statements in order:
assignments set macros, ``if`` blocks pick a branch, and each command expands the rest
of its line and changes the copy. It never raises: the outcome is a :class:`Result`.

Two kinds of trouble, as in HTCondor:

* a statement HTCondor reports and skips (an expression that does not parse, a value
  that cannot be evaluated, a new attribute name that is not valid) adds a line to
  ``Result.messages`` and the transform goes on;
* a statement that stops the transform (an ``if`` that cannot be decided, an
  ``error :`` line, a macro function error -- HTCondor's daemons die of that one, see
  docs/router.md) makes ``Result.ok`` false with ``Result.error`` saying why.

``Result.steps`` is the step log HTCondor prints with ``-verbose`` / ``-log-steps``
(``SET A to 1``). :func:`apply_all` applies a list of transforms the way the schedd and
the router do: each one whose REQUIREMENTS match the ad as it is by then, sharing one
macro table, stopping at the first failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from condorsim.classad import ClassAd, ClassAdError, EvalContext
from condorsim.config._conditions import ConditionError
from condorsim.config._macros import is_valid_name
from condorsim.submit._macros import MacroError

from ._errors import TransformError
from ._macros import TransformMacros, test_condition, value_text
from ._parse import is_attribute_name, parse_expr_old
from ._program import Assign, Command, Conditional, Message, Statement, Transform

__all__ = ["Result", "apply", "apply_all", "declared_macros"]


@dataclass
class Result:
    """What applying transforms did: the new ad, whether it worked, and what was said."""

    ad: ClassAd
    macros: TransformMacros
    ok: bool = True
    error: str = ""
    messages: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)

    def absorb(self, step: Result, name: str = "") -> None:
        """Take over the outcome of a transform applied after the ones so far."""
        self.ad, self.macros = step.ad, step.macros
        self.messages += step.messages
        self.steps += step.steps
        self.applied += step.applied
        if not step.ok:
            self.ok = False
            self.error = f"{name}: {step.error}" if name else step.error


class _Fail(Exception):
    pass


def apply(
    transform: Transform, ad: ClassAd, *, macros: TransformMacros | None = None, now: int = 0
) -> Result:
    """Apply ``transform`` to a copy of ``ad`` (REQUIREMENTS is not tested here).

    ``macros`` (see :meth:`TransformMacros.create`: the pool's configuration, the
    environment for ``$ENV()``, the random source) carries macros from earlier
    transforms; it is copied, not changed. ``now`` is what ``time()`` gives.
    """
    table = macros.copy() if macros is not None else TransformMacros.create()
    result = Result(ad=ad.copy(), macros=table)
    table.ad = result.ad
    runner = _Runner(result, EvalContext(now=now), now)
    try:
        runner.block(transform.body)
    except _Fail as exc:
        result.ok = False
        result.error = str(exc)
    except (MacroError, RecursionError) as exc:
        result.ok = False
        result.error = str(exc) or "macro expansion failed"
    if result.ok:
        result.applied.append(transform.name)
    return result


def declared_macros(transform: Transform, macros: TransformMacros | None = None) -> TransformMacros:
    """The macros ``transform`` declares before it touches any ad, as HTCondor's
    ``ValidateXForm`` collects them for the router's special macros (``MaxJobs`` ...):
    assignments run and ``if`` conditions are decided with no ad (``defined MY.x`` is
    false); commands do nothing. Raises :class:`TransformError` when a condition cannot
    be decided or an ``error :`` line is reached."""
    table = macros.copy() if macros is not None else TransformMacros.create()
    table.ad = None
    result = Result(ad=ClassAd(), macros=table)
    runner = _Runner(result, EvalContext(), 0, declare_only=True)
    try:
        runner.block(transform.body)
    except _Fail as exc:
        raise TransformError(str(exc), transform.source) from None
    except (MacroError, RecursionError) as exc:
        raise TransformError(str(exc) or "macro expansion failed", transform.source) from None
    return table


def apply_all(
    transforms: Iterable[Transform],
    ad: ClassAd,
    *,
    macros: TransformMacros | None = None,
    now: int = 0,
) -> Result:
    """Apply each transform whose REQUIREMENTS match the ad as it is by then, in order,
    sharing one macro table; stop at the first that fails."""
    table = macros.copy() if macros is not None else TransformMacros.create()
    result = Result(ad=ad.copy(), macros=table)
    for transform in transforms:
        if not transform.matches(result.ad, now):
            continue
        result.absorb(apply(transform, result.ad, macros=result.macros, now=now), transform.name)
        if not result.ok:
            break
    result.macros.ad = None
    return result


class _Runner:
    def __init__(
        self, result: Result, ctx: EvalContext, now: int, declare_only: bool = False
    ) -> None:
        self.declare_only = declare_only
        self.result = result
        self.ad = result.ad
        self.macros = result.macros
        self.ctx = ctx
        self.now = now

    def say(self, text: str) -> None:
        self.result.steps.append(text)

    def complain(self, text: str) -> None:
        self.result.messages.append(text)

    def block(self, statements: Iterable[Statement]) -> None:
        for statement in statements:
            if isinstance(statement, Assign):
                self.assign(statement)
            elif isinstance(statement, Conditional):
                self.conditional(statement)
            elif isinstance(statement, Command):
                if not self.declare_only:
                    self.command(statement)
            elif isinstance(statement, Message):
                self.message(statement)

    def assign(self, statement: Assign) -> None:
        name = statement.name
        if "$" in name:
            name = self.macros.expand(name)
            if not is_valid_name(name):
                raise _Fail(f"line {statement.line}: Illegal Identifier: <{name}>")
        self.macros.set(name, statement.value)

    def conditional(self, statement: Conditional) -> None:
        for condition, line, body in statement.branches:
            if self.test(condition, line):
                self.block(body)
                return
        if statement.otherwise is not None:
            self.block(statement.otherwise)

    def test(self, condition: str, line: int) -> bool:
        try:
            return test_condition(condition, self.macros, self.now)
        except ConditionError as exc:
            because = f" because {exc}" if str(exc) else ""
            raise _Fail(f"line {line}: {condition} is not a valid if condition{because}") from None

    def message(self, statement: Message) -> None:
        text = self.macros.expand(statement.text)
        if statement.is_error:
            raise _Fail(f"line {statement.line}: Error: {text}")
        self.complain(f"Warning: {text}")

    # -- commands -------------------------------------------------------------------

    def command(self, c: Command) -> None:
        rest = self.macros.expand(c.rest) if "$" in c.rest else c.rest
        key = c.keyword
        if key == "NAME":
            self.say(f"NAME {rest}")
        elif key == "UNIVERSE":
            from ._program import universe_number

            self.say(f"UNIVERSE {universe_number(c.attr)}")
        elif key == "REQUIREMENTS":
            self.say(f"REQUIREMENTS {rest}")
        elif key == "EVALMACRO":
            self.evalmacro(c, rest)
        elif key in ("SET", "DEFAULT"):
            if key == "DEFAULT":
                self.say(f"DEFAULT {c.attr} to {rest}")
                if self.ad.lookup(c.attr) is not None:
                    return
            self.set(c, rest)
        elif key == "EVALSET":
            self.evalset(c, rest)
        elif c.regex is not None or c.attr.startswith("/"):
            self.regex_op(c, rest)
        elif key == "DELETE":
            self.delete(c.attr)
        elif key == "RENAME":
            self.rename(c.attr, rest)
        elif key == "COPY":
            self.copy(c.attr, rest)

    def parsed(self, c: Command, rest: str) -> object | None:
        if c.expr is not None and rest == c.rest:
            return c.expr
        try:
            return parse_expr_old(rest)
        except (ClassAdError, RecursionError):
            return None

    def set(self, c: Command, rest: str) -> None:
        self.say(f"SET {c.attr} to {rest}")
        tree = self.parsed(c, rest)
        if tree is None:
            self.complain(f"ERROR: SET {c.attr} invalid expression : {rest}")
            return
        self.ad[c.attr] = tree

    def evaluated(self, c: Command, rest: str) -> tuple[bool, object]:
        tree = self.parsed(c, rest)
        if tree is None:
            self.complain(f"ERROR: {c.keyword} {c.attr} could not evaluate : {rest}")
            return False, None
        from condorsim.classad import ExprTree

        assert isinstance(tree, ExprTree)
        return True, tree.evaluate(my=self.ad, ctx=self.ctx)

    def evalset(self, c: Command, rest: str) -> None:
        self.say(f"EVALSET {c.attr} to {rest}")
        ok, value = self.evaluated(c, rest)
        if ok:
            self.ad[c.attr] = value
            self.say(f"    SET {c.attr} to {value_text(value)}")

    def evalmacro(self, c: Command, rest: str) -> None:
        self.say(f"EVALMACRO {c.attr} to {rest}")
        ok, value = self.evaluated(c, rest)
        if ok:
            text = value_text(value)
            self.macros.put(c.attr, text)
            self.say(f"          {c.attr} = {text}")

    def delete(self, attr: str) -> None:
        self.say(f"DELETE {attr}")
        if attr in self.ad:
            del self.ad[attr]

    def rename(self, attr: str, new: str) -> None:
        self.say(f"RENAME {attr} to {new}")
        if not is_attribute_name(new):
            self.complain(f"ERROR: RENAME {attr} new name {new} is not valid")
            return
        tree = self.ad.lookup(attr)
        if tree is not None:
            del self.ad[attr]
            self.ad[new] = tree

    def copy(self, attr: str, new: str) -> None:
        self.say(f"COPY {attr} to {new}")
        if not is_attribute_name(new):
            self.complain(f"ERROR: COPY {attr} new name {new} is not valid")
            return
        tree = self.ad.lookup(attr)
        if tree is not None:
            self.ad[new] = tree

    def regex_op(self, c: Command, pattern: str) -> None:
        if c.regex is None:  # the parser noted why (it did not compile)
            self.complain(f"ERROR: Error compiling regex '{c.attr[1:-1]}'. this entry will be ignored.")
            return
        matched: dict[str, str] = {}
        for name in self.ad:
            m = c.regex.search(name.encode("utf-8", "surrogateescape"))
            if m is None:
                continue
            matched[name] = "" if c.keyword == "DELETE" else _substitute(pattern, m)
        for name in sorted(matched):
            if c.keyword == "DELETE":
                self.delete(name)
            elif c.keyword == "RENAME":
                self.rename(name, matched[name])
            else:
                self.copy(name, matched[name])


def _substitute(template: str, m: object) -> str:
    """``\\0`` ... ``\\9`` in ``template`` replaced by the groups of match ``m``; a digit past
    the last group that matched stays as written (HTCondor's ``append_substituted_regex``)."""
    import re

    assert isinstance(m, re.Match)
    spans = [m.span(i) for i in range(len(m.groups()) + 1)]
    count = max(i for i, span in enumerate(spans) if span != (-1, -1)) + 1
    subject: bytes = m.string
    out: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        digit = template[i + 1 : i + 2]
        if ch == "\\" and digit.isdigit() and int(digit) < count:
            start, end = spans[int(template[i + 1])]
            if start >= 0:
                out.append(subject[start:end].decode("utf-8", "surrogateescape"))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)
