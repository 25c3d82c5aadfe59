"""Files of ClassAds, as HTCondor's tools read and write them: long, new and JSON forms.

How this works
--------------
:func:`read_ads` reads the ads of a text in one of the forms HTCondor's
``CondorClassAdFileIterator`` reads:

* ``long``: ``Name = expression`` lines (``condor_q -long``); an ad ends at a blank line
  or at a line starting with ``...``, ``***`` or ``-- `` (condor_q's banners); ``#``
  lines are comments;
* ``new``: ``[ a = 1; b = 2 ]`` ads one after another, or a ``{ [...], [...] }`` list;
* ``json``: a JSON object per ad, or a list of them (expressions are ``"\\/Expr(...)\\/"``
  strings, ``null`` is undefined);
* ``auto``: the form is guessed from the first characters.

:class:`AdWriter` writes them as ``CondorClassAdListWriter`` does: long form sorted by
attribute name without regard to case (unless ``sort`` is false) with a blank line after
each ad; ``json`` and ``new`` as lists (``[`` ... ``]``, ``{`` ... ``}``) with the
attributes sorted the same way. A bad text raises :class:`AdFileError` naming the
line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from condorsim.classad import (
    UNDEFINED,
    ClassAd,
    ClassAdError,
    ClassAdSyntaxError,
    ExprTree,
    parse_expr,
)
from condorsim.classad._unparse import name_text, unparse

__all__ = ["FORMATS", "AdFileError", "AdWriter", "detect_format", "project", "read_ads"]

FORMATS = ("long", "new", "json", "auto")


class AdFileError(Exception):
    """A file of ClassAds that cannot be read; the message names the line."""


def detect_format(text: str) -> str:
    """``long``, ``new`` or ``json``, from the first significant characters."""
    body = text.lstrip()
    if body.startswith("<"):
        return "xml"
    if body.startswith("["):
        rest = body[1:].lstrip()
        return "json" if rest.startswith(("{", "]")) else "new"
    if body.startswith("{"):
        rest = body[1:].lstrip()
        return "new" if rest.startswith(("[", "}")) else "json"
    return "long"


def read_ads(text: str, form: str = "auto", source: str = "<input>") -> list[ClassAd]:
    """The ClassAds of ``text`` in ``form`` (see the module comment)."""
    if form == "auto":
        form = detect_format(text)
    if form == "long":
        return list(_long(text, source))
    if form == "new":
        return _new(text, source)
    if form == "json":
        return _json(text, source)
    raise AdFileError(f"{source}: the {form} form of ClassAds is not supported")


def _long(text: str, source: str) -> Iterator[ClassAd]:
    block: list[str] = []
    first = 0
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("...", "***", "-- ")):
            if block:
                yield _long_ad(block, first, source)
                block = []
            continue
        if stripped.startswith("#"):
            continue
        if not block:
            first = number
        block.append(line)
    if block:
        yield _long_ad(block, first, source)


def _long_ad(lines: list[str], first: int, source: str) -> ClassAd:
    try:
        return ClassAd.parse_old("\n".join(lines))
    except ClassAdSyntaxError as exc:
        raise AdFileError(f"{source}, line {first + exc.line - 1}: {exc.message}") from None
    except ClassAdError as exc:
        raise AdFileError(f"{source}, line {first}: {exc}") from None


def _new(text: str, source: str) -> list[ClassAd]:
    from condorsim.transform import TransformError, split_route_ads

    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = " " + body[1:-1] + " "
    try:
        return split_route_ads(body, source)
    except TransformError as exc:
        raise AdFileError(str(exc)) from None


def _json(text: str, source: str) -> list[ClassAd]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AdFileError(f"{source}, line {exc.lineno}: not valid JSON: {exc.msg}") from None
    items = data if isinstance(data, list) else [data]
    out: list[ClassAd] = []
    for item in items:
        if not isinstance(item, dict):
            raise AdFileError(f"{source}: a JSON ClassAd is an object, not {type(item).__name__}")
        out.append(_json_ad(item, source))
    return out


def _json_ad(item: dict[str, Any], source: str) -> ClassAd:
    ad = ClassAd()
    for name, value in item.items():
        ad[name] = _json_value(value, source)
    return ad


def _json_value(value: Any, source: str) -> Any:
    if value is None:
        return UNDEFINED
    if isinstance(value, dict):
        return _json_ad(value, source)
    if isinstance(value, list):
        return [_json_value(v, source) for v in value]
    if isinstance(value, str) and value.startswith("/Expr(") and value.endswith(")/"):
        try:
            return parse_expr(value[6:-2])
        except ClassAdError as exc:
            raise AdFileError(f"{source}: {value!r} is not a valid expression: {exc}") from None
    return value


def project(ad: ClassAd, attrs: Sequence[str]) -> ClassAd:
    """The ad with only ``attrs`` (those it has, spelled as it spells them); the ad itself
    when ``attrs`` is empty (the tools' ``-attributes``)."""
    if not attrs:
        return ad
    small = ClassAd()
    for name in attrs:
        tree = ad.lookup(name)
        if tree is not None:
            small[ad.spelling(name) or name] = tree
    return small


def _sorted_pairs(ad: ClassAd, sort: bool) -> list[tuple[str, ExprTree]]:
    pairs = ad.pairs()
    return sorted(pairs, key=lambda p: p[0].lower()) if sort else pairs


def _json_real(x: float) -> str:
    text = f"{x:.16G}"
    return text + ".0" if text.lstrip("-").isdigit() else text


def _json_tree(tree: ExprTree, indent: int) -> str:
    from condorsim.classad._tree import AdExpr, ListExpr, Literal

    pad = "  " * indent
    if isinstance(tree, Literal):
        value = tree.literal_value
        if type(value) is bool:
            return "true" if value else "false"
        if type(value) is int:
            return str(value)
        if type(value) is float:
            return _json_real(value)
        if type(value) is str:
            return json.dumps(value, ensure_ascii=False)
        if value is UNDEFINED:
            return "null"
    if isinstance(tree, ListExpr):
        inner = [pad + "  " + _json_tree(item, indent + 1) for item in tree.items]
        return "[\n" + ",\n".join(inner) + ("\n" if inner else "") + pad + "]"
    if isinstance(tree, AdExpr):
        return _json_object(tree.pairs(), indent)
    return '"\\/Expr(' + json.dumps(str(tree), ensure_ascii=False)[1:-1] + ')\\/"'


def _json_object(pairs: list[tuple[str, ExprTree]], indent: int) -> str:
    pad = "  " * indent
    inner = [f'{pad}  {json.dumps(name)}: {_json_tree(tree, indent + 1)}' for name, tree in pairs]
    return "{\n" + ",\n".join(inner) + ("\n" if inner else "") + pad + "}"


class AdWriter:
    """Writes ads to ``out`` in ``form`` (long, new or json); call :meth:`close` at the end."""

    def __init__(self, out: TextIO, form: str = "long", sort: bool = True) -> None:
        self.out = out
        self.form = form
        self.sort = sort
        self.count = 0

    def write(self, ad: ClassAd) -> None:
        if len(ad) == 0:
            return
        pairs = _sorted_pairs(ad, self.sort)
        if self.form == "json":
            self.out.write((",\n" if self.count else "[\n") + _json_object(pairs, 0) + "\n")
        elif self.form == "new":
            body = "; ".join(f"{name_text(n)} = {unparse(t)}" for n, t in pairs)
            self.out.write((",\n" if self.count else "{\n") + f"[ {body} ]\n")
        else:
            self.out.write("".join(f"{name_text(n, True)} = {unparse(t, old_syntax=True)}\n"
                                   for n, t in pairs) + "\n")  # fmt: skip
        self.count += 1

    def close(self) -> None:
        if self.count and self.form == "json":
            self.out.write("]\n")
        elif self.count and self.form == "new":
            self.out.write("}\n")
