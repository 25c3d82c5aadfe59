"""Canonical ClassAd text of expressions and values (HTCondor's ``ClassAdUnParser``).

How this works
--------------
The text is what HTCondor's unparser prints, so that ``classad2`` reads it back to the
same tree: binary operators with one space each side (``a + b``), ``=?=`` printed as
``is``, unary operators with a leading space (`` !a``, as HTCondor does), function
arguments without spaces (``f(a,b)``), lists ``{ 1,2 }``, ads ``[ a = 1; b = 2 ]``,
strings with C escapes and other control or non-ASCII bytes as octal escapes, and
names quoted with ``'...'`` when they are not plain identifiers.

Unary minus before a non-negative number prints as ``- 1`` (HTCondor prints ``-1``,
which reads back as a different tree, the literal -1).

Reals print as ``%1.15E`` (``1.500000000000000E+00``) like HTCondor, except that a
value this format would round is printed with one more digit so that no text loses
precision; zero prints as ``0.0`` / ``-0.0``, infinities and NaN as ``real("INF")``,
``real("-INF")``, ``real("NaN")``.

The old syntax (``to_long``) differs as HTCondor's does: strings only escape ``"``,
reals print as ``%.16G`` (with ``.0`` added to integral values) and ``=?=``/``=!=`` keep
their symbols. Long ``&&`` / ``+`` chains are unparsed without recursion.
"""

from __future__ import annotations

import math
import re
from typing import Final

from ._time import abstime_text, reltime_text
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
from ._values import ERROR, UNDEFINED, AbsTime, ClassAdValue, RelTime, Value

_RESERVED: Final = frozenset({"true", "false", "undefined", "error", "is", "isnt", "parent"})
_PLAIN_NAME: Final = re.compile("[A-Za-z_][A-Za-z0-9_]*")
"""A name that needs no quotes (unless reserved): an ASCII letter or ``_``, then ASCII
letters, digits and ``_`` (one match per name instead of a step per character)."""

_ESCAPES: Final = {
    0x07: "\\a",
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x0B: "\\v",
    0x5C: "\\\\",
}


def quote_string(s: str, delim: str = '"', old_syntax: bool = False) -> str:
    """``s`` as a quoted ClassAd string literal (or quoted name when ``delim`` is ')."""
    if old_syntax:
        return delim + s.replace(delim, "\\" + delim) + delim
    if s.isascii() and s.isprintable() and "\\" not in s and delim not in s:
        return delim + s + delim
    out: list[str] = [delim]
    for b in s.encode("utf-8", "surrogateescape"):
        if b == ord(delim):
            out.append("\\" + delim)
        elif b in _ESCAPES:
            out.append(_ESCAPES[b])
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    out.append(delim)
    return "".join(out)


def name_text(name: str, old_syntax: bool = False) -> str:
    """An attribute name as ClassAd text: bare when it is a plain identifier."""
    if _PLAIN_NAME.fullmatch(name) and name.lower() not in _RESERVED:
        return name
    return quote_string(name, "'", old_syntax)


def real_text(x: float, old_syntax: bool = False) -> str:
    """A real as HTCondor prints it (with an extra digit where it would round)."""
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if x != x:
        return 'real("NaN")'
    if x == math.inf:
        return 'real("INF")'
    if x == -math.inf:
        return 'real("-INF")'
    if old_syntax:
        text = f"{x:.16G}"
        if float(text) != x:
            text = f"{x:.17G}"
        if "." not in text and "E" not in text:
            text += ".0"
        return text
    text = f"{x:1.15E}"
    if float(text) != x:
        text = f"{x:1.16E}"
    return text


def literal_text(value: Value, old_syntax: bool = False) -> str:
    t = type(value)
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if t is float:
        return real_text(value, old_syntax)
    if t is str:
        return quote_string(value, '"', old_syntax)
    if value is UNDEFINED:
        return "undefined"
    if value is ERROR:
        return "error"
    if t is AbsTime:
        return f'absTime("{abstime_text(value)}")'
    if t is RelTime:
        return f'relTime("{reltime_text(value.secs)}")'
    raise TypeError(f"not a literal ClassAd value: {value!r}")


_NEW_OPS: Final = {"=?=": " is ", "=!=": " isnt "}
_NUMBER_START: Final = frozenset("0123456789.")


class _Unparser:
    def __init__(self, old_syntax: bool, pretty: bool = False) -> None:
        self.old = old_syntax
        self.pretty = pretty
        self.indent = 0
        self.out: list[str] = []

    def node(self, tree: ExprTree) -> None:
        out = self.out
        t = type(tree)
        if t is Literal:
            assert isinstance(tree, Literal)
            out.append(literal_text(tree.value, self.old))
        elif t is AttrRef:
            assert isinstance(tree, AttrRef)
            if tree.scope is not None:
                self.node(tree.scope)
                out.append("." + name_text(tree.name, self.old))
            else:
                out.append(("." if tree.absolute else "") + name_text(tree.name, self.old))
        elif t is BinaryOp:
            assert isinstance(tree, BinaryOp)
            self.binary_chain(tree)
        elif t is UnaryOp:
            assert isinstance(tree, UnaryOp)
            out.append(" " + tree.op)
            mark = len(out)
            self.node(tree.operand)
            if tree.op == "-" and out[mark][:1] in _NUMBER_START:
                # " -1" would read back as the literal -1: keep the operator apart.
                out[mark] = " " + out[mark]
        elif t is Paren:
            assert isinstance(tree, Paren)
            out.append("(")
            self.node(tree.inner)
            out.append(")")
        elif t is Conditional:
            assert isinstance(tree, Conditional)
            self.node(tree.cond)
            if tree.then is None:
                out.append(" ?: ")
            else:
                out.append(" ? ")
                self.node(tree.then)
                out.append(" : ")
            self.node(tree.otherwise)
        elif t is Elvis:
            assert isinstance(tree, Elvis)
            self.node(tree.left)
            out.append(" ?: ")
            self.node(tree.right)
        elif t is Subscript:
            assert isinstance(tree, Subscript)
            self.node(tree.base)
            out.append("[")
            self.node(tree.index)
            out.append("]")
        elif t is FuncCall:
            assert isinstance(tree, FuncCall)
            out.append(tree.name + "(")
            for i, arg in enumerate(tree.args):
                if i:
                    out.append(",")
                self.node(arg)
            out.append(")")
        elif t is ListExpr:
            assert isinstance(tree, ListExpr)
            if self.pretty:
                self.pretty_list(tree.items)
                return
            out.append("{ ")
            for i, item in enumerate(tree.items):
                if i:
                    out.append(",")
                self.node(item)
            out.append(" }")
        elif t is AdExpr:
            assert isinstance(tree, AdExpr)
            self.attributes(tree.pairs())
        else:  # pragma: no cover - every node class is handled above
            raise TypeError(f"cannot unparse {tree!r}")

    def binary_chain(self, tree: BinaryOp) -> None:
        # Left-deep chains (a && b && c ...) without recursing down the left spine.
        spine: list[BinaryOp] = [tree]
        left = tree.left
        while type(left) is BinaryOp:
            assert isinstance(left, BinaryOp)
            spine.append(left)
            left = left.left
        self.node(left)
        for op_node in reversed(spine):
            op = op_node.op
            self.out.append(f" {op} " if self.old else _NEW_OPS.get(op, f" {op} "))
            self.node(op_node.right)

    def pretty_list(self, items: tuple[ExprTree, ...]) -> None:
        # HTCondor's PrettyPrint (what the unparse() function returns): lists indent by 3.
        out = self.out
        self.indent += 3
        out.append("\n" + " " * self.indent + "{")
        self.indent += 3
        for i, item in enumerate(items):
            out.append("\n" + " " * self.indent)
            self.node(item)
            if i + 1 < len(items):
                out.append(",")
        self.indent -= 3
        out.append("\n" + " " * self.indent + "}")
        self.indent -= 3

    def pretty_attributes(self, pairs: list[tuple[str, ExprTree]]) -> None:
        # PrettyPrint for ads: indent by 4.
        out = self.out
        self.indent += 4
        out.append("\n" + " " * self.indent + "[")
        self.indent += 4
        for i, (name, tree) in enumerate(pairs):
            out.append("\n" + " " * self.indent + name_text(name) + " = ")
            self.node(tree)
            if i + 1 < len(pairs):
                out.append("; ")
        self.indent -= 4
        out.append("\n" + " " * self.indent + "]")
        self.indent -= 4

    def attributes(self, pairs: list[tuple[str, ExprTree]]) -> None:
        if self.pretty:
            self.pretty_attributes(pairs)
            return
        out = self.out
        out.append("[ ")
        for i, (name, tree) in enumerate(pairs):
            if i:
                out.append("; ")
            out.append(name_text(name, self.old) + " = ")
            self.node(tree)
        out.append(" ]")


_OLD_TEXTS: dict[int, tuple[ExprTree, str]] = {}
_OLD_TEXTS_MAX: Final = 4096


def unparse(tree: ExprTree, old_syntax: bool = False) -> str:
    """Canonical ClassAd text of ``tree`` (new syntax unless ``old_syntax``).

    The old-syntax text of the last trees asked for is kept (by identity; the entry keeps
    its tree alive, so an id is not reused while it is there), as ``str()`` keeps the new:
    a job's expressions, shared by the procs of its cluster, printed for each proc's
    history record."""
    if type(tree) is Literal:
        assert isinstance(tree, Literal)
        return literal_text(tree.value, old_syntax)
    if old_syntax:
        hit = _OLD_TEXTS.get(id(tree))
        if hit is not None and hit[0] is tree:
            return hit[1]
    unparser = _Unparser(old_syntax)
    unparser.node(tree)
    text = "".join(unparser.out)
    if old_syntax:
        if len(_OLD_TEXTS) >= _OLD_TEXTS_MAX:
            _OLD_TEXTS.clear()  # a bound, not an order: the next prints fill it again
        _OLD_TEXTS[id(tree)] = (tree, text)
    return text


def pretty_unparse(tree: ExprTree) -> str:
    """HTCondor's PrettyPrint text (ads and lists over several lines), as ``unparse()``."""
    unparser = _Unparser(False, pretty=True)
    unparser.node(tree)
    return "".join(unparser.out)


def unparse_attributes(pairs: list[tuple[str, ExprTree]], old_syntax: bool = False) -> str:
    """``[ a = 1; b = 2 ]`` for the given attributes."""
    unparser = _Unparser(old_syntax)
    unparser.attributes(pairs)
    return "".join(unparser.out)


def unparse_value(value: Value) -> str:
    """ClassAd text of an evaluated value (lists and ads included)."""
    if type(value) is list:
        return "{ " + ",".join(unparse_value(v) for v in value) + " }"
    if isinstance(value, ClassAdValue):
        return str(value)
    return literal_text(value)
