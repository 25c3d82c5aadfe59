"""The old ClassAd route syntax, converted to the transform language at load time.

How this works
--------------
Before 8.9.7 a route was a ClassAd: ``[ GridResource = "batch slurm"; name = "Site_1";
set_ArcRte = "ENV/PROXY"; ... ]``, merged over the ``JOB_ROUTER_DEFAULTS`` ad.
:func:`convert_route_ad` turns the merged ad into transform text exactly as HTCondor's
``ConvertClassadJobRouterRouteToXForm`` does (24.0):

* a first comment line ``# autoconversion of route '<name>' from old route syntax``;
* ``NAME`` (from ``Name``), ``UNIVERSE n`` (from ``TargetUniverse``), ``REQUIREMENTS``
  (flattened against the route ad, ``TARGET.`` dropped: a route's REQUIREMENTS sees
  the job as MY);
* a blank line, then every other plain attribute as a macro line ``Attr = value``
  (GridResource keeps its quotes, other strings lose them; EditJobInPlace,
  FailureRateThreshold, JobFailureTest, JobShouldBeSandboxed, OverrideRoutingEntry,
  SharedX509UserProxy and UseSharedX509UserProxy are flattened with ``TARGET.`` made
  ``MY.``);
* the groups ``COPY`` (``copy_X``), ``DELETE`` (``delete_X``), ``SET`` (``set_X``) and
  ``EVALSET`` (``eval_set_X``, flattened when it uses the route ad's own attributes,
  with temporary SETs of those it still needs), each after a blank line and a
  ``# copy_* rules``-style comment, each sorted by attribute name without regard to
  case. Expressions are printed in old ClassAd syntax (``=?=``, not ``is``).

:func:`split_route_ads` reads a ``JOB_ROUTER_ENTRIES`` value (ClassAds one after another,
C and C++ comments allowed between them); :func:`defaults_ad` reads
``JOB_ROUTER_DEFAULTS`` (wrapped in ``[ ]`` when it does not start with ``[``; several
ads are merged with ``MERGE_JOB_ROUTER_DEFAULT_ADS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from condorsim.classad import ClassAd, ClassAdError, ExprTree
from condorsim.classad._unparse import unparse

from ._errors import TransformError
from ._flatten import flatten, retarget
from ._parse import is_attribute_name

__all__ = ["ConvertedRoute", "convert_route_ad", "defaults_ad", "split_route_ads"]

_SPECIAL = frozenset(
    a.lower() for a in ("EditJobInPlace", "FailureRateThreshold", "JobFailureTest",
                        "JobShouldBeSandboxed", "OverrideRoutingEntry", "SharedX509UserProxy",
                        "UseSharedX509UserProxy")
)  # fmt: skip


@dataclass(frozen=True)
class ConvertedRoute:
    """An old-syntax route as transform text; ``name`` is "" when the ad names no route."""

    name: str
    statements: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.statements)


def _old(tree: ExprTree) -> str:
    return unparse(tree, old_syntax=True)


def _string(ad: ClassAd, name: str) -> str | None:
    value = ad.evaluate(name)
    return value if type(value) is str else None


def _internal_refs(tree: ExprTree, ad: ClassAd) -> dict[str, str]:
    """The attributes of ``ad`` that ``tree`` refers to (``x`` or ``MY.x``), by lower name."""
    return {
        name.lower(): ad.spelling(name) or name
        for scope, name in tree.references()
        if scope in (None, "MY") and name in ad
    }


def _sorted(mapping: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    return [mapping[k] for k in sorted(mapping)]


def convert_route_ad(route: ClassAd, name: str = "", *, old_ce: bool = False) -> ConvertedRoute:
    """The transform statements of the merged route ad ``route`` (see the module comment).

    ``name`` is the route's name before the ad's own ``Name`` (a knob's name). With
    ``old_ce`` (converting a foreign configuration) a name that is a valid attribute name
    gets no NAME statement."""
    assignments: dict[str, tuple[str, str]] = {}
    strings: set[str] = set()
    copies: dict[str, tuple[str, str]] = {}
    deletes: dict[str, tuple[str, str]] = {}
    sets: dict[str, tuple[str, str]] = {}
    evalsets: dict[str, tuple[str, str]] = {}
    eval_refs: dict[str, str] = {}
    requirements = ""
    universe = 0
    for attr, tree in route.pairs():
        lower = attr.lower()
        if lower.startswith("copy_"):
            value = _string(route, attr)
            if value is not None:
                copies[lower[5:]] = (attr[5:], value)
        elif lower.startswith("delete_"):
            deletes[lower[7:]] = (attr[7:], "")
        elif lower.startswith("set_"):
            sets[lower[4:]] = (attr[4:], _old(tree))
        elif lower.startswith("eval_set_"):
            refs = _internal_refs(tree, route)
            if refs:
                tree = retarget(flatten(tree, route), "MY")
                refs = _internal_refs(tree, route)
            evalsets[lower[9:]] = (attr[9:], _old(tree))
            eval_refs.update(refs)
        elif lower == "name":
            name = _string(route, attr) or name
        elif lower == "targetuniverse":
            value = route.evaluate(attr)
            universe = int(value) if type(value) in (int, float, bool) else 0
        elif lower == "requirements":
            requirements = _old(retarget(flatten(tree, route), ""))
        else:
            if lower == "gridresource":
                text = _old(tree)
                strings.add(lower)
            elif lower in _SPECIAL:
                text = _old(retarget(flatten(tree, route), "MY"))
            elif tree.is_literal and type(tree.literal_value) is str:
                text = str(tree.literal_value)
                strings.add(lower)
            else:
                text = _old(tree)
            if text:
                assignments[lower] = (attr, text)
    out = [f"# autoconversion of route '{name}' from old route syntax"]
    if name and not (old_ce and is_attribute_name(name)):
        out.append(f"NAME {name}")
    if universe:
        out.append(f"UNIVERSE {universe}")
    if requirements:
        out.append(f"REQUIREMENTS {requirements}")
    out.append("")
    out += [f"{attr} = {text}" for attr, text in _sorted(assignments)]
    for title, group, form in (("copy", copies, "COPY {} {}"), ("delete", deletes, "DELETE {}"),
                               ("set", sets, "SET {} {}")):  # fmt: skip
        if group:
            out += ["", f"# {title}_* rules"]
            out += [form.format(attr, text) for attr, text in _sorted(group)]
    temporary = [k for k in sorted(eval_refs) if k in assignments and k not in sets]
    if temporary:
        out += ["", "# temporarily SET attrs because eval_set_ rules refer to them"]
        for key in temporary:
            ref = eval_refs[key]
            out.append(f'SET {ref} "$({ref})"' if key in strings else f"SET {ref} $({ref})")
    if evalsets:
        out += ["", "# eval_set_* rules"]
        out += [f"EVALSET {attr} {text}" for attr, text in _sorted(evalsets)]
    if temporary:
        out += ["", "# remove temporary attrs"]
        out += [f"DELETE {eval_refs[key]}" for key in temporary]
    return ConvertedRoute(name, tuple(out))


def split_route_ads(text: str, source: str) -> list[ClassAd]:
    """The ClassAds of a ``JOB_ROUTER_ENTRIES`` value, in order."""
    ads: list[ClassAd] = []
    for start, end, line in _ad_spans(text, source):
        try:
            ads.append(ClassAd.parse_new(text[start:end]))
        except ClassAdError as exc:
            raise TransformError(f"route ad does not parse: {exc}", source, line) from None
    return ads


def defaults_ad(text: str, source: str, merge: bool = False) -> ClassAd:
    """The ``JOB_ROUTER_DEFAULTS`` ad (the first ad, or all of them merged with ``merge``)."""
    if not text.strip():
        return ClassAd()
    if not text.lstrip().startswith("["):
        text = "[" + text + "]"
        merge = False
    ads = split_route_ads(text, source)
    merged = ClassAd()
    for ad in ads if merge else ads[:1]:
        merged.update(ad)
    return merged


def _ad_spans(text: str, source: str) -> list[tuple[int, int, int]]:
    """(start, end, line) of each top-level ``[ ... ]`` in ``text``."""
    spans: list[tuple[int, int, int]] = []
    i, n = 0, len(text)
    depth = start = 0
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if text.startswith("//", i):
            close = text.find("\n", i)
            i = n if close < 0 else close + 1
            continue
        if c == '"' and depth:
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "[":
            if depth == 0:
                start = i
            depth += 1
        elif c == "]" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1, text.count("\n", 0, start) + 1))
        elif depth == 0 and not c.isspace() and c != ",":
            line = text.count("\n", 0, i) + 1
            raise TransformError(f"expected a route ClassAd '[ ... ]', found {c!r}", source, line)
        i += 1
    if depth:
        raise TransformError("a route ClassAd has no closing ']'", source,
                             text.count("\n", 0, start) + 1)  # fmt: skip
    return spans


def convert_old_route(text: str, defaults: ClassAd | None, name: str, source: str) -> ConvertedRoute:
    """One ``JOB_ROUTER_ROUTE_<name>`` value in the old syntax (``[ ... ]``), converted."""
    ads = split_route_ads(text, source)
    if not ads:
        raise TransformError("no route ClassAd found", source)
    merged = defaults.copy() if defaults is not None else ClassAd()
    merged.update(ads[0])
    return convert_route_ad(merged, name)

