"""Transform text to a :class:`~._program.Transform`, as HTCondor reads it (``xform_utils.cpp``).

How this works
--------------
Lines are joined as condor_submit joins them (``\\`` continuations; the same reader,
:func:`condorsim.submit._lines.logical_lines`). A first pass hoists the statements that
HTCondor takes out of the text wherever they stand: ``NAME``, ``REQUIREMENTS`` (the last
wins), ``UNIVERSE`` and ``TRANSFORM``, after which nothing is read. The second pass builds
the statement tree, following HTCondor's ``Parse_macros`` line by line:

* comment (``#``) and blank lines are skipped, also inside ``name @=tag ... @tag`` blocks;
* ``if`` / ``elif`` / ``else`` / ``endif`` open and close blocks; a condition without
  ``$(...)`` is checked now (only simple conditions exist: ``defined NAME``, numbers,
  ``true``/``false``/``yes``/``no``, ``version >= x.y``);
* ``name = value`` and ``name @=tag`` are macro assignments (``+Attr`` is ``MY.Attr``);
  ``error : text`` and ``warning : text`` are messages;
* any other line is a command: a keyword (any case), its first argument (an attribute,
  or ``/regex/`` for COPY, RENAME and DELETE) and, for two-argument keywords, the rest of
  the line after an optional ``=`` or ``,``.

Everything HTCondor rejects when it reads or validates a transform is a
:class:`~._errors.TransformError` here, with the line. Where HTCondor only reports a
problem when the statement runs and then skips it (an expression that does not parse),
the problem is kept in ``Transform.warnings`` and the statement is skipped when applied.
Deliberate differences (docs/router.md): a bad statement is an error even in a branch
that would not be taken; ``SET A, 5`` (HTCondor puts a NUL into the name) and commands
without arguments (HTCondor fails silently) are errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from condorsim.classad import ClassAdError, ExprTree
from condorsim.config._conditions import ConditionError, evaluate_condition
from condorsim.config._lines import keyword
from condorsim.config._macros import is_valid_name
from condorsim.submit._lines import logical_lines

from ._commands import KEYWORDS, is_attribute_name, parse_command, parse_expr_old
from ._errors import TransformError
from ._program import Assign, Conditional, Message, Statement, Transform, universe_number

__all__ = ["KEYWORDS", "is_attribute_name", "parse_expr_old", "parse_transform"]

_HOISTED = ("name", "requirements", "universe", "transform")
_SPACE = " \t\r\n"


def _hoisted_keyword(line: str, word: str) -> str | None:
    """``is_xform_statement``: the arguments after ``word`` (then white space, and not
    ``=`` or ``:``), or None."""
    if line[: len(word)].lower() != word or len(line) == len(word) or line[len(word)] not in _SPACE:
        return None
    rest = line[len(word) :].lstrip(_SPACE)
    if rest[:1] in ("=", ":"):
        return None
    return rest


def _non_trivial_iterate(args: str) -> str:
    """The TRANSFORM arguments when they ask for more than one ad, else ""."""
    m = re.match(r"\s*([+-]?\d+)?", args)
    number = int(m.group(1)) if m and m.group(1) else 0
    rest = args[m.end() :].strip() if m else args.strip()
    if args.strip() and (number not in (0, 1) or rest):
        return args.strip()
    return ""


@dataclass
class _Hoisted:
    name: str
    requirements: ExprTree | None = None
    requirements_text: str = ""
    universe: int = 0
    iterate: str = ""
    iterate_line: int = 0
    kept: list[tuple[int, str]] = field(default_factory=list)
    after: list[tuple[int, str]] = field(default_factory=list)


def _hoist(lines: list[tuple[int, str]], name: str, name_from_text: bool) -> _Hoisted:
    out = _Hoisted(name=name)
    here_tag = ""
    for index, (number, line) in enumerate(lines):
        if here_tag:
            if line.strip(_SPACE) == here_tag:
                here_tag = ""
            out.kept.append((number, line))
            continue
        tag = _here_tag(line)
        if tag is not None:
            here_tag = "@" + tag
            out.kept.append((number, line))
            continue
        found = next(((w, r) for w in _HOISTED if (r := _hoisted_keyword(line, w)) is not None),
                     None)  # fmt: skip
        if found is None:
            out.kept.append((number, line))
            continue
        word, rest = found
        if word == "name":
            if rest.strip(_SPACE) and (name_from_text or not out.name):
                out.name = rest.strip(_SPACE)
        elif word == "requirements":
            try:
                out.requirements = parse_expr_old(rest)
            except ClassAdError:
                raise TransformError(f"invalid REQUIREMENTS : {rest}", line=number) from None
            out.requirements_text = rest.strip(_SPACE)
        elif word == "universe":
            out.universe = universe_number(rest)
        else:
            out.iterate = _non_trivial_iterate(rest)
            out.iterate_line = number
            out.after = lines[index + 1 :]
            break
    return out


_HERE = re.compile(r"[^\s=]+[ \t]+@=(\S.*)")


def _here_tag(line: str) -> str | None:
    """``name @=tag``: the tag, else None (HTCondor's ``is_herefile_statement``)."""
    m = _HERE.fullmatch(line.strip(_SPACE))
    return m.group(1).strip(_SPACE) if m else None


def parse_transform(
    text: str, *, source: str = "", name: str = "", name_from_text: bool = False
) -> Transform:
    """Parse transform ``text``; raise :class:`TransformError` (naming ``source`` and the
    line) when HTCondor would refuse it.

    ``name`` is the transform's name (a route's knob name); a ``NAME`` statement in the
    text replaces it only when there is none or ``name_from_text`` (a rules file).
    """
    lines = list(logical_lines(text))
    try:
        hoisted = _hoist(lines, name, name_from_text)
        parser = _Parser()
        body = parser.block(hoisted.kept, 0, top=True)[0]
    except TransformError as exc:
        raise exc.located(source) from None
    return Transform(
        name=hoisted.name,
        body=tuple(body),
        requirements=hoisted.requirements,
        requirements_text=hoisted.requirements_text,
        universe=hoisted.universe,
        iterate=hoisted.iterate,
        iterate_items=tuple(line for _, line in hoisted.after),
        source=source,
        text=text,
        lines=tuple(hoisted.kept),
        warnings=tuple(w.located(source) for w in parser.warnings),
    )


class _NoMacros:
    """``defined NAME`` while parsing: nothing is defined yet."""

    def lookup(self, name: str) -> None:
        return None


def check_condition(text: str) -> None:
    """Raise ConditionError when a condition without macros is not a simple one."""
    rest = text.lstrip(_SPACE)
    if rest.startswith("!"):
        rest = rest[1:].lstrip(_SPACE)
    evaluate_condition(rest.rstrip(_SPACE), _NoMacros())


class _Parser:
    def __init__(self) -> None:
        self.warnings: list[TransformError] = []

    def block(
        self, lines: list[tuple[int, str]], i: int, *, top: bool = False
    ) -> tuple[list[Statement], int, str]:
        """Statements from ``lines[i]`` up to an ``elif``/``else``/``endif`` (returned as the
        word that ended the block, "" at the end of the text)."""
        out: list[Statement] = []
        while i < len(lines):
            number, line = lines[i]
            i += 1
            if not line.strip(_SPACE) or line.startswith("#"):
                continue
            if line.startswith(":") and (not top or keyword(line[1:], "if") is not None):
                line = line[1:]
            for word in ("elif", "else", "endif"):
                if keyword(line, word) is not None:
                    if top:
                        raise TransformError(f"{word} without matching if", line=number)
                    return out, i - 1, word
            condition = keyword(line, "if")
            if condition is not None:
                conditional, i = self.conditional(lines, i, number, condition)
                out.append(conditional)
                continue
            tag = _here_tag(line)
            if tag is not None:
                assign, i = self.here(lines, i, number, line, tag)
                out.append(assign)
                continue
            out.append(self.statement(number, line))
        return out, i, ""

    def conditional(
        self, lines: list[tuple[int, str]], i: int, number: int, condition: str
    ) -> tuple[Conditional, int]:
        branches: list[tuple[str, int, tuple[Statement, ...]]] = []
        otherwise: tuple[Statement, ...] | None = None
        while True:
            self.check_condition(condition, number)
            body, i, word = self.block(lines, i)
            branches.append((condition, number, tuple(body)))
            if word == "":
                raise TransformError("endif(s) not found before end-of-file", line=number)
            number, line = lines[i]
            i += 1
            if word == "endif":
                return Conditional(branches[0][1], tuple(branches), otherwise), i
            if word == "else":
                body, i, word = self.block(lines, i)
                otherwise = tuple(body)
                if word == "":
                    raise TransformError("endif(s) not found before end-of-file", line=number)
                end_number, _ = lines[i]
                i += 1
                if word != "endif":
                    raise TransformError(f"{word} is not allowed after else", line=end_number)
                return Conditional(branches[0][1], tuple(branches), otherwise), i
            condition = keyword(line, "elif") or ""

    @staticmethod
    def check_condition(condition: str, number: int) -> None:
        if "$" in condition:
            return  # known only when the transform is applied
        try:
            check_condition(condition)
        except ConditionError as exc:
            raise TransformError(
                f"{condition} is not a valid if condition because {exc}", line=number
            ) from None

    @staticmethod
    def here(
        lines: list[tuple[int, str]], i: int, number: int, line: str, tag: str
    ) -> tuple[Assign, int]:
        name = line.strip(_SPACE).split("@=", 1)[0].strip(_SPACE)
        if "$" not in name and not is_valid_name(name):
            raise TransformError(f"Illegal Identifier: <{name}>", line=number)
        collected: list[str] = []
        while i < len(lines):
            _, text = lines[i]
            i += 1
            if not text.strip(_SPACE) or text.startswith("#"):
                continue
            if text.startswith("@") and text[1:] == tag:
                return Assign(number, name, "\n".join(collected)), i
            collected.append(text)
        raise TransformError(f"Found end-of-file while scanning for '@{tag}'", line=number)

    def statement(self, number: int, line: str) -> Statement:
        """One line that is not an if/else/endif or a ``@=`` block."""
        n = len(line)
        j = 0
        while j < n and line[j] not in _SPACE and line[j] not in "=:":
            j += 1
        if j == n:  # a single word: a command without arguments
            return self.command(number, line)
        name = line[:j]
        op = line[j]
        word_before_op = False
        k = j + 1
        if op not in "=:":
            while j < n and line[j] in _SPACE:
                j += 1
            if j < n and line[j] not in "=:@":
                word_before_op = True
            while j < n and line[j] not in "=:@":
                j += 1
            op = line[j] if j < n else ""
            k = j + 1
            if op == "@":
                if line[k : k + 1] == "=":
                    k += 1
                else:
                    op = ""
        rhs = line[k:].lstrip(_SPACE) if op else ""
        bare = name[1:] if name.startswith("@") else name
        if op == ":" and bare.lower() in ("error", "warning"):
            return Message(number, bare.lower() == "error", rhs)
        if op == ":" and bare.lower() in ("include", "use"):
            raise TransformError(f"{bare} is not allowed in a transform", line=number)
        if word_before_op or op not in ("=", "@"):
            return self.command(number, line)
        if name.startswith(("+", "-")):
            return Assign(number, "MY." + name[1:], rhs if name.startswith("+") else "")
        if "$" not in name and not is_valid_name(name):
            raise TransformError(f"Illegal Identifier: <{name}>", line=number)
        return Assign(number, name, rhs)

    def command(self, number: int, line: str) -> Statement:
        return parse_command(number, line, self.warnings)
