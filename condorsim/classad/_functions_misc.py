"""Built-in ClassAd functions: version comparison, userHome and userMap.

How this works
--------------
``versioncmp`` and friends compare strings "naturally" (digit runs as numbers, as
strverscmp does), on the UTF-8 bytes, returning HTCondor's raw difference for
``versioncmp``. ``userHome`` and ``userMap`` behave as in an HTCondor with
``CLASSAD_ENABLE_USER_HOME`` off and no ``CLASSAD_USER_MAPFILE_*`` maps: they give
the caller's default, or UNDEFINED.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._convert import to_string
from ._values import ERROR, UNDEFINED, EvalContext, Value


def _at(s: bytes, i: int) -> int:
    return s[i] if i < len(s) else 0


def _signed(byte: int) -> int:
    """A byte as C's (signed) char."""
    return byte - 256 if byte >= 128 else byte


def _isdigit(byte: int) -> bool:
    return 0x30 <= byte <= 0x39


def natural_cmp(left: str, right: str) -> int:
    """HTCondor's natural_cmp: <0, 0, >0, with digit runs compared as numbers."""
    a = left.encode("utf-8")
    b = right.encode("utf-8")
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    c1, c2 = _at(a, i), _at(b, i)
    if c1 == c2:
        return 0
    begin = i
    while begin > 0 and _isdigit(a[begin - 1]):
        begin -= 1
    if begin == i and (not _isdigit(c1) or not _isdigit(c2)):
        return _signed(c1) - _signed(c2)
    z1 = begin
    while _at(a, z1) == 0x30:
        z1 += 1
    z2 = begin
    while _at(b, z2) == 0x30:
        z2 += 1
    if z1 > begin and not _isdigit(_at(a, z1)):
        z1 -= 1
    if z2 > begin and not _isdigit(_at(b, z2)):
        z2 -= 1
    if z1 != z2:
        return z2 - z1
    if z1 > begin:
        return _signed(c1) - _signed(c2)
    e1 = z1
    while _isdigit(_at(a, e1)):
        e1 += 1
    e2 = z2
    while _isdigit(_at(b, e2)):
        e2 += 1
    if e1 != e2:
        return e1 - e2
    return _signed(c1) - _signed(c2)


def _make_version_compare(
    verdict: Callable[[int], Value],
) -> Callable[[EvalContext, tuple[Value, ...]], Value]:
    def compare(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
        if len(args) != 2:
            return ERROR
        if args[0] is UNDEFINED or args[1] is UNDEFINED:
            return UNDEFINED
        left = to_string(args[0])
        right = to_string(args[1])
        if type(left) is not str or type(right) is not str:
            return ERROR
        return verdict(natural_cmp(left, right))

    return compare


def version_in_range(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """version_in_range(v, min, max): min <= v <= max in version order."""
    if len(args) != 3:
        return ERROR
    if args[1] is UNDEFINED or args[2] is UNDEFINED:
        return UNDEFINED
    test, low, high = (to_string(a) for a in args)
    if type(test) is not str or type(low) is not str or type(high) is not str:
        return ERROR
    return natural_cmp(low, test) <= 0 and natural_cmp(test, high) <= 0


def user_home(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """userHome(user [, default]): the default (HTCondor's user-home lookup is off by
    default), else UNDEFINED; ERROR for a user that is not a string."""
    if len(args) not in (1, 2):
        return ERROR
    default = args[1] if len(args) == 2 and type(args[1]) is str else ""
    owner = args[0]
    if owner is UNDEFINED and not default:
        return UNDEFINED
    if type(owner) is not str:
        return default or ERROR
    return default or UNDEFINED


def user_map(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    """userMap(map, user [, preferred [, default]]): no maps are configured, so the
    default when given, else UNDEFINED (ERROR when map or user is ERROR)."""
    if not 2 <= len(args) <= 4:
        return ERROR
    name, user = args[0], args[1]
    if (type(name) is not str or type(user) is not str) and (name is ERROR or user is ERROR):
        return ERROR
    return args[3] if len(args) == 4 else UNDEFINED


MISC_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "versioncmp": _make_version_compare(lambda r: r),
    "versionle": _make_version_compare(lambda r: r <= 0),
    "versionlt": _make_version_compare(lambda r: r < 0),
    "versionge": _make_version_compare(lambda r: r >= 0),
    "versiongt": _make_version_compare(lambda r: r > 0),
    "versioneq": _make_version_compare(lambda r: r == 0),
    "version_in_range": version_in_range,
    "userhome": user_home,
    "usermap": user_map,
}
