"""The summary blocks condor_status prints after a table (HTCondor's totals.cpp).

How this works
--------------
Each view that has totals groups the ads by a key, counts per key and overall, and
prints a header line, a blank line, one line per key, a blank line and a "Total" line.
The key column is right-aligned to a width of at least 14 (condor_status passes
``MAX(14, longest key)``; submitters use the longest key, at least 5). Ads that cannot be
keyed or counted are reported as "(Omitted N malformed ads in computed attribute
totals)", as condor_status does.

* slots (``default``): keyed by ``Arch/OpSys``; counts of each State;
* ``schedd``: one key; only the Total line carries numbers (HTCondor prints an empty line
  for the key);
* ``submitters``: keyed by Name; RunningJobs, IdleJobs, HeldJobs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from condorsim.classad import ClassAd

_STATES = ("Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drained", "Backfill")
_SLOT_WIDTHS = (6, 5, 7, 9, 7, 10, 6, 8, 6)  # totals.cpp: "%6.6s %5.5s %7.7s ..." / "%6d %5d ..."
_SLOT_HEADER = " ".join(
    f"{title:>{w}.{w}}" for title, w in zip(
        ("Total", "Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drain", "Backfill",
         "BkIdle"), _SLOT_WIDTHS, strict=True)
) + "\n"


def _string(ad: ClassAd, attr: str) -> str | None:
    value = ad.evaluate(attr) if attr in ad else None
    return value if type(value) is str else None


def _int(ad: ClassAd, attr: str) -> int | None:
    value = ad.evaluate(attr) if attr in ad else None
    return value if type(value) is int else None


class _Counts:
    """The counters of one summary row."""

    def __init__(self, size: int) -> None:
        self.values = [0] * size


def _slot_key(ad: ClassAd) -> str | None:
    arch, opsys = _string(ad, "Arch"), _string(ad, "OpSys")
    return f"{arch}/{opsys}" if arch is not None and opsys is not None else None


def _slot_add(counts: _Counts, ad: ClassAd) -> bool:
    # values: machines, then one per state in _STATES order, then BkIdle (always 0 here)
    state = _string(ad, "State")
    if state not in _STATES:
        return False
    counts.values[0] += 1
    counts.values[1 + _STATES.index(state)] += 1
    return True


def _slot_row(counts: _Counts, top: bool) -> str:
    return " ".join(f"{n:{w}d}" for n, w in zip(counts.values, _SLOT_WIDTHS, strict=True)) + "\n"


def _jobs_add(attrs: tuple[str, str, str]) -> Callable[[_Counts, ClassAd], bool]:
    def add(counts: _Counts, ad: ClassAd) -> bool:
        good = True
        for i, attr in enumerate(attrs):
            value = _int(ad, attr)
            if value is None:
                good = False
            else:
                counts.values[i] += value
        return good

    return add


def _schedd_row(counts: _Counts, top: bool) -> str:
    return " ".join(f"{n:18d}" for n in counts.values[:3]) + "\n" if top else ""


def _submitter_row(counts: _Counts, top: bool) -> str:
    running, idle, held = counts.values[:3]
    return f"{running:11d} {idle:10d} {held:10d}\n"


_KINDS = {
    # mode: (key of an ad, add an ad to a row, render a row, header, auto key width)
    "default": (_slot_key, _slot_add, _slot_row, _SLOT_HEADER, False),
    "schedd": (lambda ad: " ", _jobs_add(("TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs")),
               _schedd_row, f"{'TotalRunningJobs':>18} {'TotalIdleJobs':>18} {'TotalHeldJobs':>18}\n", False),
    "submitters": (lambda ad: _string(ad, "Name"),
                   _jobs_add(("RunningJobs", "IdleJobs", "HeldJobs")), _submitter_row,
                   f"{'RunningJobs':>11} {'IdleJobs':>10} {'HeldJobs':>10}\n", True),
}


def summary(ads: Sequence[ClassAd], mode: str) -> str:
    """The totals block of ``mode`` for ``ads``, or "" when the view has none."""
    kind = _KINDS.get(mode)
    if kind is None or not ads:
        return ""
    key_of, add, row, header, auto_width = kind
    groups: dict[str, _Counts] = {}
    top = _Counts(9)
    malformed = 0
    for ad in ads:
        key = key_of(ad)
        if key is None:
            malformed += 1
            continue
        ok = add(groups.setdefault(key, _Counts(9)), ad)
        add(top, ad)
        if not ok:
            malformed += 1
    longest = max((len(k) for k in groups), default=0)
    width = max(5, longest) if auto_width else max(14, longest)
    lines = [" " * width + header, "\n"]
    for key in sorted(groups):
        lines.append(key.rjust(width) + row(groups[key], False))
    if groups:
        lines.append("\n")
    lines.append("Total".rjust(width) + row(top, True))
    if malformed:
        lines.append(f"\n{'':{width}}(Omitted {malformed} malformed ads in computed attribute "
                     "totals)\n\n")
    text = "".join(lines)
    return "\n".join(line.rstrip() for line in text.split("\n"))
