"""A tiny stand-in for condorsim.classad's wire API, used only until the real one lands.

It follows the agreed contract: ``ad_to_wire(ad) -> dict`` of attribute name to a native
msgpack value or an extension type (1 UNDEFINED, 2 ERROR, 3 expression text, 4 nested ad),
and ``ad_from_wire(mapping) -> ClassAd`` raising ``ClassAdWireError`` on malformed input.
"""

from __future__ import annotations

import sys
from typing import Any

import msgpack


class ClassAdWireError(ValueError):
    """A wire ClassAd is malformed."""


class ClassAd:
    """Attribute name -> wire value; equality is by content."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        self._attrs = dict(attrs or {})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassAd) and self._attrs == other._attrs

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ClassAd({self._attrs!r})"

    def keys(self) -> Any:
        return self._attrs.keys()

    def get(self, name: str, default: Any = None) -> Any:
        return self._attrs.get(name, default)


def _check_value(v: Any, where: str) -> None:
    if v is None or type(v) in (bool, int, float, str):
        return
    if type(v) is list:
        for item in v:
            _check_value(item, where)
        return
    if isinstance(v, msgpack.ExtType) and v.code in (1, 2, 3, 4):
        return
    raise ClassAdWireError(f"attribute {where}: not a ClassAd value: {type(v).__name__}")


def ad_to_wire(ad: ClassAd) -> dict[str, Any]:
    return dict(ad._attrs)


def ad_from_wire(mapping: dict[Any, Any]) -> ClassAd:
    for name, value in mapping.items():
        if type(name) is not str or not name:
            raise ClassAdWireError(f"attribute name {name!r} is not a non-empty string")
        _check_value(value, name)
    return ClassAd(mapping)


def install() -> None:
    """Put the stand-in names on condorsim.classad if the real ones are not there yet."""
    import condorsim.classad as pkg

    names = ("ClassAd", "ClassAdWireError", "ad_to_wire", "ad_from_wire")
    if all(hasattr(pkg, n) for n in names):
        return
    me = sys.modules[__name__]
    for n in names:
        setattr(pkg, n, getattr(me, n))
