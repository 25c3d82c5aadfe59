"""The simulated sites of a pool: the SIM_GRID_SITES knob, and which site serves a job.

How this works
--------------
``SIM_GRID_SITES`` holds one ClassAd per site, in condor_config syntax (a multi-line value
with ``@=end`` reads best)::

    SIM_GRID_SITES @=end
      [ Resource = "batch slurm"; Slots = 10; StartDelay = 30; FailureRate = 0.0 ]
      [ Resource = "arc ce.example.org"; Slots = 4 ]
    @end

The ads may be separated by white space or commas, or written as one ClassAd list
``{ [...], [...] }``. ``Resource`` is required; ``Slots`` (default 1), ``StartDelay``
(seconds, default 0) and ``FailureRate`` (0 to 1, default 0) are optional; anything else
is refused. :func:`read_sites` turns the knob into :class:`~.site.SiteSpec`\\ s or raises
:class:`SiteConfigError` with a one-line message naming the knob, the site and the field.

:func:`site_for` is the scenario format's rule: the site whose ``Resource`` equals the job's
``GridResource``, else the one with the longest ``Resource`` that is a whole-word prefix of
it (``batch`` serves ``batch slurm`` and ``batch pbs``), else none.
"""

from __future__ import annotations

from collections.abc import Iterable

from condorsim.classad import ClassAd, ClassAdError, parse_expr
from condorsim.config import Config

from .site import SiteSpec

KNOB = "SIM_GRID_SITES"
DEFAULT_SITES = '[ Resource = "batch"; Slots = 10; StartDelay = 0; FailureRate = 0.0 ]'
"""The default: one site serving every batch type, so a first ``universe = grid`` job runs."""

_FIELDS = {"resource", "slots", "startdelay", "failurerate"}


class SiteConfigError(ValueError):
    """SIM_GRID_SITES cannot be used; the message says where and why."""


def _split_ads(text: str) -> list[str]:
    """The top-level ``[...]`` ads of ``text`` (strings and nesting respected)."""
    ads: list[str] = []
    depth, start, quote, escaped = 0, -1, False, False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch in "[{(":
            if depth == 0:
                if ch != "[":
                    raise SiteConfigError(f"{KNOB}: expected '[' to start a site ad, found "
                                          f"{ch!r} at character {i + 1}")
                start = i
            depth += 1
        elif ch in "]})":
            depth -= 1
            if depth < 0:
                raise SiteConfigError(f"{KNOB}: unbalanced {ch!r} at character {i + 1}")
            if depth == 0:
                ads.append(text[start: i + 1])
        elif depth == 0 and not ch.isspace() and ch != ",":
            raise SiteConfigError(f"{KNOB}: expected '[' to start a site ad, found {ch!r} "
                                  f"at character {i + 1}")
    if depth or quote:
        raise SiteConfigError(f"{KNOB}: a site ad is not closed")
    return ads


def parse_sites(text: str) -> list[SiteSpec]:
    """The sites a SIM_GRID_SITES value describes (see the module comment)."""
    text = text.strip()
    ads: list[ClassAd] = []
    if text.startswith("{"):
        try:
            value = parse_expr(text).evaluate()
        except ClassAdError as e:
            raise SiteConfigError(f"{KNOB}: {e}") from None
        if not isinstance(value, list) or not all(isinstance(a, ClassAd) for a in value):
            raise SiteConfigError(f"{KNOB}: a list must hold site ads [ ... ]")
        ads = list(value)
    else:
        for n, piece in enumerate(_split_ads(text), start=1):
            try:
                ads.append(ClassAd.parse(piece))
            except ClassAdError as e:
                raise SiteConfigError(f"{KNOB}: site {n}: {e}") from None
    specs = [_spec(n, ad) for n, ad in enumerate(ads, start=1)]
    seen: dict[str, int] = {}
    for n, spec in enumerate(specs, start=1):
        first = seen.setdefault(spec.resource, n)
        if first != n:
            raise SiteConfigError(f'{KNOB}: site {n}: Resource "{spec.resource}" is also '
                                  f"site {first}'s")
    return specs


def _shown(ad: ClassAd, name: str) -> str:
    value = ad.evaluate(name)
    if type(value) in (int, float):
        return str(value)
    return str(ad.lookup(name))


def _spec(n: int, ad: ClassAd) -> SiteSpec:
    where = f"{KNOB}: site {n}"
    for name in ad:
        if name.lower() not in _FIELDS:
            raise SiteConfigError(f"{where}: unknown attribute {name} (a site has Resource, "
                                  "Slots, StartDelay and FailureRate)")
    resource = ad.evaluate("Resource")
    if not isinstance(resource, str) or not resource.split():
        raise SiteConfigError(f'{where}: Resource must be a GridResource string such as '
                              f'"batch slurm"')
    resource = " ".join(resource.split())
    slots = ad.evaluate("Slots") if "Slots" in ad else 1
    if type(slots) is not int or slots < 1:
        raise SiteConfigError(f"{where} ({resource}): Slots must be an integer >= 1, "
                              f"found {_shown(ad, 'Slots')}")
    delay = ad.evaluate("StartDelay") if "StartDelay" in ad else 0
    if type(delay) not in (int, float) or delay < 0:
        raise SiteConfigError(f"{where} ({resource}): StartDelay must be a number of "
                              f"seconds >= 0, found {_shown(ad, 'StartDelay')}")
    rate = ad.evaluate("FailureRate") if "FailureRate" in ad else 0.0
    if type(rate) not in (int, float) or not 0 <= rate <= 1:
        raise SiteConfigError(f"{where} ({resource}): FailureRate must be a number from 0 "
                              f"to 1, found {_shown(ad, 'FailureRate')}")
    return SiteSpec(resource, slots, float(delay), float(rate))


def read_sites(config: Config) -> list[SiteSpec]:
    """The pool's sites from SIM_GRID_SITES (the default site when it is not set)."""
    text = config.get(KNOB)
    return parse_sites(DEFAULT_SITES if text is None else text)


def site_for(specs: Iterable[SiteSpec], grid_resource: str) -> SiteSpec | None:
    """The site serving ``grid_resource``: exact, else the longest whole-word prefix."""
    specs = list(specs)
    for spec in specs:
        if spec.resource == grid_resource:
            return spec
    words = grid_resource.split()
    best: SiteSpec | None = None
    for spec in specs:
        mine = spec.resource.split()
        if words[: len(mine)] == mine and (best is None or len(mine) > len(best.resource.split())):
            best = spec
    return best
