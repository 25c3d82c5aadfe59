"""Print masks: columns of ClassAd values laid out as HTCondor's tools lay them out.

How this works
--------------
condor_q, condor_status and condor_history print their tables through one engine,
HTCondor's ``AttrListPrintMask`` (src/condor_utils/ad_printmask.cpp). This module is that
engine in our own words; the tools' tables are lists of :class:`Column`.

A column reads an attribute (or an expression) of each ad and turns it into a *cell*:
``(valid, value)``. How it is read depends on the column:

* a ``printf`` format (``%4d.``, ``%-3d``, ``%v``, ``%s``, ``%T`` ...): the value must
  suit the conversion (a number for ``d``/``f``/``T``, a string for ``s``; ``%s`` of an
  attribute that is not a string prints the attribute's expression, ``%v`` anything);
* a *renderer* (HTCondor's custom render functions, e.g. the job status letter):
  ``render(ad, value)`` returns the new value, or None when the cell is not valid; the
  ``printf`` format, if any, then formats it;
* a *formatter* (HTCondor's custom format functions, e.g. the submit date): called with
  the value when it has the formatter's type (``int``, ``float``, ``str``, ``value``).

An invalid cell shows the column's ``alt`` text: nothing, one character (``?``), or, when
doubled (``??``), a field of it as wide as the column (``[????]``). Rows are *rendered*
first (auto-width columns grow to fit every value) and *displayed* after, so that the
headings, printed before the rows, have the final widths. A row is the cells joined by
the column prefix (one space; none before the first column, nor before a ``noprefix``
column), cut at the overall width, then the row suffix (a newline). A width is padded
to (left- or right-aligned) and, unless ``notruncate``, cuts longer text; a numeric
``printf`` result is first padded on the left to the width, as HTCondor's
``format_value`` does (so a left-aligned ``%d`` column still shows right-aligned numbers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from condorsim.classad import UNDEFINED, ClassAd, ClassAdError, EvalContext, ExprTree, parse_expr
from condorsim.classad._tree import AttrRef
from condorsim.classad._unparse import quote_string, unparse

from .fmt import format_date, format_time, value_text

Renderer = Callable[[ClassAd, Any], Any]
Formatter = Callable[[Any], str]
Cell = tuple[bool, Any]

_CONVERSION = re.compile(
    r"%(?P<flags>[-#0 +']*)(?P<width>\d+)?(?:\.(?P<prec>\d+))?(?:hh|h|ll|l|L|q|j|z|t)*"
    r"(?P<letter>[diouxXeEfFgGaAcspnCSvVrRTY])")
_NUMERIC = frozenset("diouxXeEfFgGaAcpnCTY")


@dataclass(frozen=True)
class Conversion:
    """The first conversion of a printf format: its text span and its parts."""

    start: int
    end: int
    flags: str
    width: int | None
    precision: int | None
    letter: str


def parse_conversion(fmt: str | None) -> Conversion | None:
    """The first ``%`` conversion of ``fmt`` (``%%`` is text), or None."""
    if not fmt:
        return None
    i = 0
    while True:
        i = fmt.find("%", i)
        if i < 0 or i + 1 >= len(fmt):
            return None
        if fmt[i + 1] == "%":
            i += 2
            continue
        match = _CONVERSION.match(fmt, i)
        if match is None:
            return None
        width = match["width"]
        prec = match["prec"]
        return Conversion(match.start(), match.end(), match["flags"].replace("'", ""),
                          int(width) if width else None, int(prec) if prec else None,
                          match["letter"])


def _is_number(value: Any) -> bool:
    return type(value) in (int, float, bool)


@dataclass
class Column:
    """One column of a print mask (HTCondor's ``Formatter`` and its heading)."""

    attr: str = ""
    heading: str = ""
    width: int = 0  # HTCondor's signed width: negative is left-aligned
    fmt: str | None = "%v"
    render: Renderer | None = None
    format: Formatter | None = None
    format_type: str = "value"  # what a formatter takes: int, float, str or value
    left: bool = False
    noprefix: bool = False
    nosuffix: bool = False
    autowidth: bool = False
    notruncate: bool = False
    hidden: bool = False
    always: bool = False  # call the formatter even for an invalid value
    alt: str = ""
    conv: Conversion | None = field(default=None, init=False, repr=False)
    _tree: ExprTree | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.width < 0:
            self.left = True
        self.width = abs(self.width)
        self.conv = parse_conversion(self.fmt)
        if self.width == 0 and self.conv is not None and self.format is None:
            self.width = self.conv.width or 0
            if "-" in self.conv.flags:
                self.left = True
        try:
            self._tree = parse_expr(self.attr) if self.attr else None
        except ClassAdError:
            self._tree = None

    def copy(self) -> Column:
        return replace(self)

    # -- reading a value --------------------------------------------------------------------
    def _lookup(self, ad: ClassAd) -> ExprTree | None:
        return ad.lookup(self.attr) if self.attr else None

    def _evaluate(self, ad: ClassAd, ctx: EvalContext) -> tuple[bool, Any]:
        if self._tree is None:
            return (False, UNDEFINED) if self.attr else (True, UNDEFINED)
        try:
            return True, self._tree.evaluate(my=ad, ctx=ctx)
        except ClassAdError:
            return False, UNDEFINED

    def cell(self, ad: ClassAd, ctx: EvalContext) -> Cell:
        """The cell of ``ad`` in this column (see the module comment)."""
        conv = self.conv
        if self.render is not None:
            _, value = self._evaluate(ad, ctx)
            result = self.render(ad, value)
            return (result is not None), result
        if self.format is not None:
            ok, value = self._evaluate(ad, ctx)
            kind = self.format_type
            if kind in ("int", "float"):
                ok = ok and _is_number(value)
                if ok:
                    value = int(value) if kind == "int" else float(value)
            elif kind == "str":
                ok = ok and type(value) is str
            return (ok or self.always), value
        if conv is None:
            return True, self.fmt or ""
        letter = conv.letter
        tree = self._lookup(ad)
        if letter in "sS" and tree is not None:
            ok, value = self._evaluate(ad, ctx)
            if ok and type(value) is str:
                return True, value
            letter = "r"
        if letter in "rR":
            if tree is not None:
                return True, unparse(tree, old_syntax=True)
            if self._tree is None or isinstance(self._tree, AttrRef):
                return True, "undefined"
            return True, unparse(self._tree, old_syntax=True)
        ok, value = self._evaluate(ad, ctx)
        if not ok:
            return False, value
        if letter in _NUMERIC:
            return _is_number(value), value
        if letter in "sS":
            return type(value) is str, value
        return True, value

    # -- showing a value --------------------------------------------------------------------
    def text(self, cell: Cell) -> str:
        """The text of a cell, before alignment to the column's width."""
        valid, value = cell
        if not valid and not (self.format is not None and self.always):
            return self.alt_text()
        if self.format is not None:
            return self.format(value)
        conv = self.conv
        if conv is None or (self.render is not None and self.fmt is None):
            return value if type(value) is str else ("" if value is None else value_text(value))
        fmt = self.fmt or ""
        head, tail = fmt[:conv.start].replace("%%", "%"), fmt[conv.end:].replace("%%", "%")
        letter = conv.letter
        if letter in "vV":
            if type(value) is str:
                body = value if letter == "v" else quote_string(value, old_syntax=True)
            else:
                body = value_text(value)
            return head + self._pad(body, conv, numeric=False) + tail
        if letter in "rRsS":
            text = value if type(value) is str else value_text(value)
            return head + self._pad(text, conv, numeric=False) + tail
        if letter == "T":
            body = format_time(int(value))
        elif letter == "Y":
            body = format_date(int(value), "UTC")
        elif letter in "eEfFgGaA":
            body = _c_printf(conv, float(value))
        elif letter in "cC":
            body = _c_printf(conv, chr(int(value) & 0xFF))
        else:
            body = _c_printf(conv, int(value))
        text = head + body + tail
        return text.rjust(self.width) if self.width > len(text) else text

    @staticmethod
    def _pad(text: str, conv: Conversion, numeric: bool) -> str:
        if conv.precision is not None:
            text = text[:conv.precision]
        if conv.width:
            text = text.ljust(conv.width) if "-" in conv.flags else text.rjust(conv.width)
        return text

    def alt_text(self) -> str:
        """What an invalid cell shows (HTCondor's ``OR`` text)."""
        if not self.alt or self.alt == " ":
            return ""
        char = self.alt[0]
        if len(self.alt) > 1:
            if self.width == 0:
                return ""
            if self.width < 3:
                return char
            return "[" + char * (self.width - 2) + "]"
        return char

    def fit(self, text: str) -> str:
        """``text`` aligned to (and, unless notruncate, cut at) the column's width."""
        width = self.width
        if width == 0:
            return text
        if len(text) > width:
            return text if self.notruncate else text[:width]
        return text.ljust(width) if self.left else text.rjust(width)


def _c_printf(conv: Conversion, value: Any) -> str:
    letter = {"i": "d", "u": "d", "C": "c", "p": "x", "n": "d", "a": "e", "A": "E"}.get(
        conv.letter, conv.letter)
    spec = "%" + conv.flags + (str(conv.width) if conv.width else "")
    if conv.precision is not None:
        spec += f".{conv.precision}"
    return str((spec + letter) % value)


@dataclass
class PrintMask:
    """Columns and separators (HTCondor's ``SetAutoSep``): render ads, then display rows."""

    columns: list[Column]
    row_prefix: str = ""
    col_prefix: str = " "
    col_suffix: str = ""
    row_suffix: str = "\n"
    overall_width: int = 0

    def render(self, ad: ClassAd, ctx: EvalContext) -> list[Cell]:
        """The cells of one ad; auto-width columns grow to fit them."""
        cells = [column.cell(ad, ctx) for column in self.columns]
        for column, cell in zip(self.columns, cells, strict=True):
            if column.autowidth and cell[0]:
                column.width = max(column.width, len(column.text(cell)))
        return cells

    def display(self, cells: Sequence[Cell]) -> str:
        """One row of rendered cells."""
        out = [self.row_prefix]
        last = len(self.columns)
        for icol, (column, cell) in enumerate(zip(self.columns, cells, strict=True)):
            if column.hidden:
                continue
            if icol > 0 and self.col_prefix and not column.noprefix:
                out.append(self.col_prefix)
            text = column.text(cell)
            if column.autowidth:
                column.width = max(column.width, len(text))
            out.append(column.fit(text))
            if self.col_suffix and icol + 1 < last and not column.nosuffix:
                out.append(self.col_suffix)
        return self._finish("".join(out))

    def display_ad(self, ad: ClassAd, ctx: EvalContext) -> str:
        return self.display(self.render(ad, ctx))

    def headings(self) -> str:
        """The heading row: each heading left-justified to its column's width."""
        out = [self.row_prefix]
        last = len(self.columns)
        for icol, column in enumerate(self.columns):
            if column.hidden:
                continue
            if icol > 0 and self.col_prefix and not column.noprefix:
                out.append(self.col_prefix)
            out.append(column.heading.ljust(column.width) if column.width else column.heading)
            if self.col_suffix and icol + 1 < last and not column.nosuffix:
                out.append(self.col_suffix)
        return self._finish("".join(out))

    def has_headings(self) -> bool:
        return any(column.heading for column in self.columns)

    def _finish(self, line: str) -> str:
        if self.overall_width and len(line) > self.overall_width:
            line = line[:self.overall_width]
        return line + self.row_suffix


def trim_before_newline(text: str) -> str:
    """condor_q -wide's trimming of the blanks at the end of a row."""
    return text[:-1].rstrip(" \t") + "\n" if text.endswith("\n") else text
