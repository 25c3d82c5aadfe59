"""Parser for ClassAd expressions and ClassAds, new ``[ a = 1; ]`` and old ``a = 1`` syntax.

How this works
--------------
A hand-written recursive-descent parser over the token list of ``_lexer``, with
precedence climbing for the binary operators. Precedence and associativity are
HTCondor's (``src/classad/source.cpp``), lowest first::

    c ? a : b,  a ? : b  (right associative; the condition is a || expression)
    ||   &&   |   ^   &   == != =?= =!= is isnt   < <= > >=   << >> >>>   + -   * / %
    unary - + ! ~   then  a ?: b  (no space: tighter than any operator, HTCondor 24)
    then postfix  .name  [index]

All binary operators are left associative. Parentheses stay in the tree as ``Paren``.
Nesting is limited to ``MAX_DEPTH`` levels (HTCondor allows 1000; Python's stack
does not), beyond which the text is rejected with a ClassAdSyntaxError.

The old syntax is one ``Name = expression`` per line (as ``condor_q -l`` prints); blank
lines and lines starting with ``#`` are skipped. As in HTCondor the name is everything
before the first ``=`` and the expression uses the old string escaping.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from typing import Final

from ._errors import ClassAdSyntaxError
from ._lexer import Token, line_col, tokenize
from ._time import parse_abstime, parse_reltime
from ._tree import (
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
from ._values import ERROR, UNDEFINED, AbsTime, RelTime

_TIME_LITERALS: Final = frozenset({"abstime", "reltime"})


def _time_literal(name: str, arg: ExprTree, line: int, col: int) -> ExprTree | None:
    """``absTime("text")`` / ``relTime("text")``: HTCondor's parser makes these time
    literals (``arg`` itself when it is not a string literal; None for bad text).
    A text without a zone is read in UTC: the parser has no evaluation context."""
    if type(arg) is not Literal or type(arg.value) is not str:
        return FuncCall(name, (arg,), line, col)
    value: AbsTime | RelTime | None
    if name.lower() == "abstime":
        value = parse_abstime(arg.value)
    else:
        secs = parse_reltime(arg.value)
        value = None if secs is None else RelTime(secs)
    return None if value is None else Literal(value, line, col)

MAX_DEPTH: Final = 100

_BINARY_PRECEDENCE: Final = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "=?=": 6,
    "=!=": 6,
    "<": 7,
    "<=": 7,
    ">": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    ">>>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}
_UNARY: Final = frozenset("-+!~")

_DESCRIBE: Final = {
    "eof": "end of input",
    "int": "an integer",
    "real": "a real",
    "str": "a string",
    "bool": "a boolean",
    "undef": "'undefined'",
    "error": "'error'",
    "ident": "a name",
}


def _describe(token: Token) -> str:
    return _DESCRIBE.get(token.kind, repr(token.kind))


class _Parser:
    def __init__(self, text: str, old_syntax: bool = False) -> None:
        self.text = text
        self.tokens = tokenize(text, old_syntax)
        self.i = 0
        self.depth = 0
        self._line_starts: list[int] | None = None

    # -- helpers ---------------------------------------------------------------------

    def position(self, pos: int) -> tuple[int, int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            j = find("\n")
            while j >= 0:
                starts.append(j + 1)
                j = find("\n", j + 1)
            self._line_starts = starts
        line = bisect_right(self._line_starts, pos)
        return line, pos - self._line_starts[line - 1] + 1

    def error(self, token: Token, message: str, expected: str = "") -> ClassAdSyntaxError:
        line, col = line_col(self.text, token.pos)
        return ClassAdSyntaxError(message, line, col, expected)

    def unexpected(self, expected: str) -> ClassAdSyntaxError:
        token = self.tokens[self.i]
        return self.error(token, f"unexpected {_describe(token)}", expected)

    def peek(self) -> str:
        return self.tokens[self.i].kind

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def expect(self, kind: str, what: str) -> Token:
        if self.tokens[self.i].kind != kind:
            raise self.unexpected(what)
        return self.take()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(
                self.tokens[self.i], f"expression nested more than {MAX_DEPTH} levels deep"
            )

    # -- expressions -----------------------------------------------------------------

    def expression(self) -> ExprTree:
        self.enter()
        start = self.tokens[self.i]
        tree = self.binary(1)
        if self.peek() == "?":
            self.take()
            then: ExprTree | None
            if self.peek() == ":":
                self.take()
                then = None
            else:
                then = self.expression()
                self.expect(":", "':' of the ?: operator")
            otherwise = self.expression()
            line, col = self.position(start.pos)
            tree = Conditional(tree, then, otherwise, line, col)
        self.depth -= 1
        return tree

    def binary(self, min_prec: int) -> ExprTree:
        left = self.unary()
        tokens = self.tokens
        while True:
            token = tokens[self.i]
            prec = _BINARY_PRECEDENCE.get(token.kind)
            if prec is None or prec < min_prec:
                return left
            self.i += 1
            right = self.binary(prec + 1)
            line, col = self.position(token.pos)
            left = BinaryOp(token.kind, left, right, line, col)

    def unary(self) -> ExprTree:
        token = self.tokens[self.i]
        if token.kind in _UNARY:
            self.enter()
            self.i += 1
            operand = self.unary()
            self.depth -= 1
            line, col = self.position(token.pos)
            return UnaryOp(token.kind, operand, line, col)
        return self.postfix()

    def postfix(self) -> ExprTree:
        tree = self.selections(self.primary())
        while self.peek() == "?:":
            token = self.take()
            right = self.selections(self.primary())
            line, col = self.position(token.pos)
            tree = Elvis(tree, right, line, col)
        return tree

    def selections(self, tree: ExprTree) -> ExprTree:
        while True:
            kind = self.peek()
            if kind == "[":
                token = self.take()
                index = self.expression()
                self.expect("]", "']' closing the subscript")
                line, col = self.position(token.pos)
                tree = Subscript(tree, index, line, col)
            elif kind == ".":
                self.take()
                name = self.tokens[self.i]
                if name.kind != "ident":
                    raise self.unexpected("an attribute name after '.'")
                self.i += 1
                line, col = self.position(name.pos)
                tree = AttrRef(str(name.value), tree, False, line, col)
            else:
                return tree

    def primary(self) -> ExprTree:
        token = self.take()
        kind = token.kind
        line, col = self.position(token.pos)
        if kind == "ident":
            name = str(token.value)
            if self.peek() == "(":
                args = self.arguments()
                if len(args) == 1 and name.lower() in _TIME_LITERALS:
                    time_literal = _time_literal(name, args[0], line, col)
                    if time_literal is not None:
                        return time_literal
                    raise ClassAdSyntaxError(
                        f"{name}() of a string that is not a time", line, col, "a time"
                    )
                return FuncCall(name, args, line, col)
            return AttrRef(name, None, False, line, col)
        if kind in ("int", "real", "str", "bool"):
            return Literal(token.value, line, col)
        if kind == "undef":
            return Literal(UNDEFINED, line, col)
        if kind == "error":
            return Literal(ERROR, line, col)
        if kind == "(":
            inner = self.expression()
            self.expect(")", "')'")
            return Paren(inner, line, col)
        if kind == ".":
            ident = self.tokens[self.i]
            if ident.kind != "ident":
                raise self.unexpected("an attribute name after '.'")
            self.i += 1
            return AttrRef(str(ident.value), None, True, line, col)
        if kind == "{":
            return self.list_rest(line, col)
        if kind == "[":
            return AdExpr(self.ad_rest(), line, col)
        self.i -= 1
        raise self.unexpected("an expression")

    def arguments(self) -> tuple[ExprTree, ...]:
        self.take()  # "("
        args: list[ExprTree] = []
        while self.peek() != ")":
            args.append(self.expression())
            kind = self.peek()
            # HTCondor (old ClassAd semantics) also accepts ';' between arguments.
            if kind in (",", ";"):
                self.take()
            elif kind != ")":
                raise self.unexpected("',' or ')' in the argument list")
        self.take()
        return tuple(args)

    def list_rest(self, line: int, col: int) -> ListExpr:
        items: list[ExprTree] = []
        while self.peek() != "}":
            items.append(self.expression())
            kind = self.peek()
            if kind == ",":
                self.take()
            elif kind != "}":
                raise self.unexpected("',' or '}' in the list")
        self.take()
        return ListExpr(tuple(items), line, col)

    def ad_rest(self) -> list[tuple[str, ExprTree]]:
        """Attributes after an opening '[' up to and including the closing ']'."""
        pairs: list[tuple[str, ExprTree]] = []
        while self.peek() != "]":
            token = self.take()
            if token.kind == ";":
                continue
            if token.kind != "ident":
                self.i -= 1
                raise self.unexpected("an attribute name or ']'")
            self.expect("=", f"'=' after the attribute name {token.value!r}")
            pairs.append((str(token.value), self.expression()))
            kind = self.peek()
            if kind not in (";", "]"):
                raise self.unexpected("';' or ']' after the attribute")
        self.take()
        return pairs

    def end(self) -> None:
        if self.peek() != "eof":
            raise self.unexpected("end of input")


def _guard(parse: _Parser, what: str) -> ClassAdSyntaxError:
    token = parse.tokens[min(parse.i, len(parse.tokens) - 1)]
    return parse.error(token, f"{what} nested too deeply")


def parse_expression(text: str, old_syntax: bool = False) -> ExprTree:
    """Parse one whole expression; raises ClassAdSyntaxError."""
    parser = _Parser(text, old_syntax)
    try:
        tree = parser.expression()
    except RecursionError:
        raise _guard(parser, "expression") from None
    parser.end()
    return tree


def parse_new_ad(text: str) -> list[tuple[str, ExprTree]]:
    """Parse ``[ name = expr; ... ]`` (the whole text); the attributes in order."""
    parser = _Parser(text)
    parser.expect("[", "'[' starting a ClassAd")
    try:
        pairs = parser.ad_rest()
    except RecursionError:
        raise _guard(parser, "ClassAd") from None
    parser.end()
    return pairs


_OLD_CACHE_MAX = 1024
_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")  # fits int64: no overflow rule applies


@functools.lru_cache(maxsize=8192)
def _old_value(rhs: str) -> ExprTree:
    """``parse_expression(rhs, old_syntax=True)``, remembered (trees are immutable, so one
    may be shared by many ads), with plain integers and plain strings -- the most common
    values of a job ad or history record, mostly seen once -- made without the parser.
    A text that does not parse raises, and is not remembered."""
    if _PLAIN_INT.fullmatch(rhs):
        return Literal(int(rhs))
    if (len(rhs) >= 2 and rhs[0] == '"' and rhs[-1] == '"' and rhs.isprintable()
            and '"' not in rhs[1:-1] and "\\" not in rhs):
        return Literal(rhs[1:-1])
    return parse_expression(rhs, old_syntax=True)


def parse_old_ad(text: str) -> list[tuple[str, ExprTree]]:
    """Parse old-syntax ``Name = expr`` lines; the attributes in order."""
    pairs: list[tuple[str, ExprTree]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip(" \t")
        if not stripped or stripped[0] == "#" or not stripped.strip():
            continue
        offset = len(line) - len(line.lstrip())
        eq = line.find("=", offset)
        if eq < 0:
            raise ClassAdSyntaxError(
                "not an attribute assignment", number, offset + 1, "'Name = expression'"
            )
        name = line[offset:eq].rstrip(" ")
        if not name:
            raise ClassAdSyntaxError("missing attribute name", number, offset + 1, "a name")
        rhs_start = eq + 1
        while rhs_start < len(line) and line[rhs_start] == " ":
            rhs_start += 1
        rhs = line[rhs_start:].rstrip(" \t\r")
        try:
            tree = _old_value(rhs) if len(rhs) <= _OLD_CACHE_MAX else \
                parse_expression(rhs, old_syntax=True)
        except ClassAdSyntaxError as err:
            raise ClassAdSyntaxError(
                f"in attribute {name}: {err.message}",
                number,
                rhs_start + err.column,
                err.expected,
            ) from None
        pairs.append((name, tree))
    return pairs


def looks_like_new_syntax(text: str) -> bool:
    """True when the first significant character of ``text`` is '[' (new syntax)."""
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("//"):
            continue
        return stripped.startswith("[")
    return False
