"""The ClassAd expression tree: one immutable node class per kind of HTCondor node.

How this works
--------------
Every node is an :class:`ExprTree`. The kinds mirror HTCondor's (``Literal``,
``AttributeReference``, ``Operation``, ``FunctionCall``, ``ExprList``, nested
``ClassAd``), with the operations split by shape: :class:`UnaryOp`, :class:`BinaryOp`,
:class:`Paren` (HTCondor keeps parentheses as nodes, so unparsing needs no precedence
rules), :class:`Conditional` (``c ? a : b`` and ``a ?: b``) and :class:`Subscript`.

Nodes are immutable, compare structurally (``==``) and hash; the hash is computed
bottom-up when a node is built, and equality walks the two trees with an explicit
stack, so long ``&&`` chains need no deep recursion. Evaluation lives elsewhere
(``_compile``); a node only keeps slots where the compiler caches its closure and, for
constant expressions, the constant value, and where ``str()`` keeps the text it made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from ._values import ERROR, UNDEFINED, EvalContext, RelTime, Value

if TYPE_CHECKING:
    from ._scope import Compiled

NOT_CONST: Final[Any] = object()
"""Marker in ``ExprTree._const``: the tree is not (yet known to be) a constant."""


def _tree_from_text(text: str) -> ExprTree:
    """An unpickled tree (:meth:`ExprTree.__reduce__`)."""
    from ._parser import parse_expression

    return parse_expression(text)


class ExprTree:
    """A parsed ClassAd expression (abstract base of the node classes).

    ``str()`` gives canonical ClassAd text; ``==`` is structural equality.
    """

    __slots__ = ("_const", "_fn", "_hash", "_text", "column", "line")

    _hash: int
    _text: str  # str() of the tree, set on first use
    _fn: Compiled | None
    _const: Any
    line: int
    column: int

    def _init(self, key: int, line: int, column: int) -> None:
        self._hash = key
        self._fn = None
        self._const = NOT_CONST
        self.line = line
        self.column = column

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its canonical text, read again where it is unpickled: its hash is
        made of string hashes, which differ between processes, and its caches (the
        constant's marker, the compiled function) are this process's own."""
        return (_tree_from_text, (str(self),))

    def children(self) -> tuple[ExprTree, ...]:
        """The direct sub-expressions, in source order."""
        return ()

    def _same_node(self, other: ExprTree) -> bool:
        """Equality of this node's own fields (children are compared by the caller)."""
        return True

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExprTree):
            return NotImplemented
        stack: list[tuple[ExprTree, ExprTree]] = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or a._hash != b._hash or not a._same_node(b):
                return False
            ca = a.children()
            cb = b.children()
            if len(ca) != len(cb):
                return False
            stack.extend(zip(ca, cb, strict=True))
        return True

    def walk(self) -> Iterator[ExprTree]:
        """Every node of the tree, parents before children (iterative)."""
        stack: list[ExprTree] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    # -- public API --------------------------------------------------------------------

    def evaluate(
        self, my: Any = None, target: Any = None, ctx: EvalContext | None = None
    ) -> Value:
        """The value of this expression with ``my`` as MY and ``target`` as TARGET.

        ``my`` and ``target`` are ClassAds (or None). A failed evaluation, such as a
        circular reference, gives ERROR.
        """
        from ._compile import evaluate_tree

        return evaluate_tree(self, my, target, ctx)

    def __str__(self) -> str:
        try:  # the tree is immutable, so its canonical text is kept once made
            return self._text
        except AttributeError:
            from ._unparse import unparse

            text = self._text = unparse(self)
            return text

    @property
    def is_literal(self) -> bool:
        """True for a constant literal (``5``, ``"x"``, ``true``, ``undefined``...)."""
        return type(self) is Literal

    @property
    def literal_value(self) -> Value:
        """The value of a literal; raises ValueError for any other expression."""
        if type(self) is Literal:
            return self._const
        raise ValueError(f"not a literal: {self}")

    def references(self) -> frozenset[tuple[str | None, str]]:
        """The attributes this expression refers to, as (scope, name) pairs.

        ``scope`` is ``"MY"`` or ``"TARGET"`` for ``MY.x`` / ``TARGET.x``, None for an
        unscoped ``x``; for other selections (``a.b``) the base name ``a`` is reported
        unscoped. Names keep their spelling; absolute ``.x`` references are unscoped.
        """
        refs: set[tuple[str | None, str]] = set()
        for node in self.walk():
            if type(node) is not AttrRef:
                continue
            assert isinstance(node, AttrRef)
            scope = node.scope
            if scope is None:
                if node.lname not in ("my", "target"):
                    refs.add((None, node.name))
            elif type(scope) is AttrRef and scope.scope is None and not scope.absolute:
                assert isinstance(scope, AttrRef)
                if scope.lname in ("my", "target"):
                    refs.add((scope.lname.upper(), node.name))
        return frozenset(refs)

    def conjuncts(self) -> list[ExprTree]:
        """The clauses of a top-level ``&&`` chain (parentheses around it removed).

        ``(A && B) && C`` gives ``[A, B, C]``; an expression that is not a conjunction
        gives ``[self]``.
        """
        result: list[ExprTree] = []
        stack: list[ExprTree] = [self]
        while stack:
            node = stack.pop()
            while type(node) is Paren:
                assert isinstance(node, Paren)
                node = node.inner
            if isinstance(node, BinaryOp) and node.op == "&&":
                stack.append(node.right)
                stack.append(node.left)
            else:
                result.append(node)
        return result


def _literal_key(value: Value) -> object:
    t = type(value)
    if t is float:
        return ("real", value.hex())
    if t is RelTime:
        return ("reltime", value.secs.hex())
    if value is UNDEFINED:
        return ("undefined",)
    if value is ERROR:
        return ("error",)
    return (t.__name__, value)


class Literal(ExprTree):
    """A constant: bool, int, float, str, UNDEFINED, ERROR or a time.

    A relative-time literal (``relTime("1:00")``) evaluates to a *real* (60.0): HTCondor
    24's ``ReltimeLiteral`` does so (a quirk, docs/classad.md). An absolute-time literal
    evaluates to the absolute time.
    """

    __slots__ = ("_key", "value")

    def __init__(self, value: Value, line: int = 0, column: int = 0) -> None:
        self.value = value
        self._key = _literal_key(value)
        self._init(hash(("lit", self._key)), line, column)
        self._const = float(value.secs) if type(value) is RelTime else value

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, Literal)
        return self._key == other._key

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the value itself: a time's text would round its offset to minutes
        return (Literal, (self.value, self.line, self.column))

    def __repr__(self) -> str:
        return f"Literal({self.value!r})"


class AttrRef(ExprTree):
    """An attribute reference: ``name``, ``.name`` (absolute) or ``scope.name``."""

    __slots__ = ("absolute", "lname", "name", "scope")

    def __init__(
        self,
        name: str,
        scope: ExprTree | None = None,
        absolute: bool = False,
        line: int = 0,
        column: int = 0,
    ) -> None:
        self.name = name
        self.lname = name.lower()
        self.scope = scope
        self.absolute = absolute
        inner = scope._hash if scope is not None else 0
        self._init(hash(("ref", name, absolute, inner)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return () if self.scope is None else (self.scope,)

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, AttrRef)
        return (
            self.name == other.name
            and self.absolute == other.absolute
            and (self.scope is None) == (other.scope is None)
        )

    def __repr__(self) -> str:
        return f"AttrRef({self.name!r}, {self.scope!r}, absolute={self.absolute})"


class UnaryOp(ExprTree):
    """``-x``, ``+x``, ``!x``, ``~x``."""

    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: ExprTree, line: int = 0, column: int = 0) -> None:
        self.op = op
        self.operand = operand
        self._init(hash(("unary", op, operand._hash)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return (self.operand,)

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, UnaryOp)
        return self.op == other.op

    def __repr__(self) -> str:
        return f"UnaryOp({self.op!r}, {self.operand!r})"


class BinaryOp(ExprTree):
    """A binary operator; ``op`` is its text, with ``is``/``isnt`` kept as ``=?=``/``=!=``."""

    __slots__ = ("left", "op", "right")

    def __init__(
        self, op: str, left: ExprTree, right: ExprTree, line: int = 0, column: int = 0
    ) -> None:
        self.op = op
        self.left = left
        self.right = right
        self._init(hash(("binary", op, left._hash, right._hash)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return (self.left, self.right)

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, BinaryOp)
        return self.op == other.op

    def __repr__(self) -> str:
        return f"BinaryOp({self.op!r}, {self.left!r}, {self.right!r})"


class Paren(ExprTree):
    """``( expr )``: kept as a node, as HTCondor does."""

    __slots__ = ("inner",)

    def __init__(self, inner: ExprTree, line: int = 0, column: int = 0) -> None:
        self.inner = inner
        self._init(hash(("paren", inner._hash)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return (self.inner,)

    def __repr__(self) -> str:
        return f"Paren({self.inner!r})"


class Conditional(ExprTree):
    """``cond ? then : otherwise``; ``then`` is None for ``cond ?: otherwise``."""

    __slots__ = ("cond", "otherwise", "then")

    def __init__(
        self,
        cond: ExprTree,
        then: ExprTree | None,
        otherwise: ExprTree,
        line: int = 0,
        column: int = 0,
    ) -> None:
        self.cond = cond
        self.then = then
        self.otherwise = otherwise
        middle = then._hash if then is not None else 0
        self._init(hash(("cond", cond._hash, middle, otherwise._hash)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        if self.then is None:
            return (self.cond, self.otherwise)
        return (self.cond, self.then, self.otherwise)

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, Conditional)
        return (self.then is None) == (other.then is None)

    def __repr__(self) -> str:
        return f"Conditional({self.cond!r}, {self.then!r}, {self.otherwise!r})"


class Elvis(ExprTree):
    """``a ?: b`` written without a space: binds tighter than every operator (HTCondor 24).

    ``a ? : b`` (with a space) is a :class:`Conditional` with no middle, at the lowest
    precedence; both evaluate alike: ``a`` unless it is UNDEFINED, then ``b``.
    """

    __slots__ = ("left", "right")

    def __init__(self, left: ExprTree, right: ExprTree, line: int = 0, column: int = 0) -> None:
        self.left = left
        self.right = right
        self._init(hash(("elvis", left._hash, right._hash)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return (self.left, self.right)

    def __repr__(self) -> str:
        return f"Elvis({self.left!r}, {self.right!r})"


class Subscript(ExprTree):
    """``base[index]``: a list element or (with a string index) an ad's attribute."""

    __slots__ = ("base", "index")

    def __init__(self, base: ExprTree, index: ExprTree, line: int = 0, column: int = 0) -> None:
        self.base = base
        self.index = index
        self._init(hash(("subscript", base._hash, index._hash)), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return (self.base, self.index)

    def __repr__(self) -> str:
        return f"Subscript({self.base!r}, {self.index!r})"


class FuncCall(ExprTree):
    """``name(arg, ...)``; the name keeps its spelling (looked up case-insensitively)."""

    __slots__ = ("args", "lname", "name")

    def __init__(
        self, name: str, args: tuple[ExprTree, ...], line: int = 0, column: int = 0
    ) -> None:
        self.name = name
        self.lname = name.lower()
        self.args = args
        self._init(hash(("call", name, tuple(a._hash for a in args))), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return self.args

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, FuncCall)
        return self.name == other.name

    def __repr__(self) -> str:
        return f"FuncCall({self.name!r}, {self.args!r})"


class ListExpr(ExprTree):
    """``{ a, b, ... }``."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[ExprTree, ...], line: int = 0, column: int = 0) -> None:
        self.items = items
        self._init(hash(("list", tuple(i._hash for i in items))), line, column)

    def children(self) -> tuple[ExprTree, ...]:
        return self.items

    def __repr__(self) -> str:
        return f"ListExpr({self.items!r})"


class AdExpr(ExprTree):
    """A nested ClassAd literal ``[ a = 1; b = a ]``.

    ``attrs`` maps the lower-cased name to the expression and ``names`` keeps each
    name's spelling, both in insertion order; a later duplicate replaces an earlier
    one, as HTCondor's parser does. Equality ignores order and the names' case.
    """

    __slots__ = ("attrs", "names")

    def __init__(
        self, pairs: list[tuple[str, ExprTree]] | tuple[tuple[str, ExprTree], ...],
        line: int = 0, column: int = 0,
    ) -> None:
        attrs: dict[str, ExprTree] = {}
        names: dict[str, str] = {}
        for name, tree in pairs:
            key = name.lower()
            attrs[key] = tree
            names[key] = name
        self.attrs = attrs
        self.names = names
        key_hash = 0
        for key, tree in attrs.items():
            key_hash ^= hash((key, tree._hash))
        self._init(hash(("ad", len(attrs), key_hash)), line, column)

    @classmethod
    def from_dicts(cls, attrs: dict[str, ExprTree], names: dict[str, str]) -> AdExpr:
        """An ad literal sharing nothing with the given (lower-name keyed) dicts."""
        return cls([(names[k], t) for k, t in attrs.items()])

    def pairs(self) -> list[tuple[str, ExprTree]]:
        """(spelled name, expression) in order."""
        return [(self.names[k], t) for k, t in self.attrs.items()]

    def children(self) -> tuple[ExprTree, ...]:
        return tuple(self.attrs[k] for k in sorted(self.attrs))

    def _same_node(self, other: ExprTree) -> bool:
        assert isinstance(other, AdExpr)
        return self.attrs.keys() == other.attrs.keys()

    def __repr__(self) -> str:
        return f"AdExpr({self.pairs()!r})"
