"""condor_status's views: the tables, the long form and autoformat.

How this works
--------------
A table view is a list of :class:`Column`. Each column renders one cell per ad (None
when the value is missing); a column is at least its nominal width and grows to fit its
header and cells (condor_status's auto-width columns: "Benchmarking" widens the 8-wide
Activity column), except a *truncating* column, which has a fixed width and cuts longer
text (the ``-any`` view's ``%-41.41s`` Name). Headers are left-aligned, cells left- or right-aligned;
cells are joined by one space unless a column has no prefix (condor_status's ActvtyTime).
After the rows come the summary blocks of totals.py.

Sorting is condor_status's default: ``Machine`` then ``Name``, natural order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from condorsim.classad import UNDEFINED, ClassAd, EvalContext, parse_expr, unparse_value

from .totals import summary

SORT_ATTRS = ("Machine", "Name")


# ----------------------------------------------------------------- values
def value_text(value: object) -> str:
    """A value as ``-af`` prints it: strings unquoted, anything else in old ClassAd syntax
    (UNDEFINED as "undefined", reals as ``2.0``), as condor_status's unparser does."""
    if type(value) is str:
        return value
    # ClassAd.to_long() is the package's old-syntax writer; the round trip is exact.
    holder = ClassAd()
    holder["v"] = parse_expr(unparse_value(value))
    return holder.to_long()[len("v = "):-1]


def format_time(seconds: int) -> str:
    """condor_status's ``d+hh:mm:ss`` (HTCondor's format_time)."""
    seconds = max(0, seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days}+{hours:02d}:{minutes:02d}:{secs:02d}"


def _get(ad: ClassAd, attr: str) -> object:
    return ad.evaluate(attr) if attr in ad else UNDEFINED


def _is_num(value: object) -> TypeGuard[int | float]:
    return type(value) is int or type(value) is float


# -------------------------------------------------------------------- sort
_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[tuple[int, int, str], ...]:
    # digit runs compare as numbers, the rest as text (HTCondor's natural_cmp)
    return tuple(
        (1, int(part), "") if i % 2 else (0, 0, part)
        for i, part in enumerate(_DIGITS.split(text))
        if part
    )


def _sort_field(value: object) -> str:
    if type(value) is str:
        return value
    if type(value) is bool:
        return str(int(value))
    return value_text(value)


def sort_ads(ads: Sequence[ClassAd]) -> list[ClassAd]:
    """The ads in condor_status's default order: Machine, then Name, natural order."""
    def key(item: tuple[int, ClassAd]) -> tuple[object, ...]:
        index, ad = item
        fields = "\n".join(_sort_field(_get(ad, attr)) for attr in SORT_ATTRS)
        return (_natural(fields), index)

    return [ad for _, ad in sorted(enumerate(ads), key=key)]


# ----------------------------------------------------------------- columns
@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[ClassAd, int], str | None]  # (ad, now) -> text, None if missing
    width: int = 0  # least width; the exact width when ``truncate``
    right: bool = False
    truncate: bool = False
    prefix: bool = True  # one space before the column
    missing: str | None = None  # text for a missing value (default "[???]" filling the width)
    attrs: tuple[str, ...] = ()  # what the cell reads (for the projection)


def _string(attr: str) -> Callable[[ClassAd, int], str | None]:
    def cell(ad: ClassAd, now: int) -> str | None:
        value = _get(ad, attr)
        return value if type(value) is str else None

    return cell


def _integer(attr: str) -> Callable[[ClassAd, int], str | None]:
    def cell(ad: ClassAd, now: int) -> str | None:
        value = _get(ad, attr)
        return str(int(value)) if _is_num(value) else None

    return cell


def _load_avg(ad: ClassAd, now: int) -> str | None:
    value = _get(ad, "CondorLoadAvg")
    return f"{value:.3f}" if _is_num(value) else None


def _activity_time(ad: ClassAd, now: int) -> str | None:
    # HTCondor's render_activity_time: the ad's own clock (MyCurrentTime, else
    # LastHeardFrom) minus EnteredCurrentActivity; we fall back to ``now``.
    entered = _get(ad, "EnteredCurrentActivity")
    if type(entered) is not int:
        return None
    for attr in ("MyCurrentTime", "LastHeardFrom"):
        clock = _get(ad, attr)
        if type(clock) is int:
            return format_time(clock - entered)
    return format_time(now - entered)


def _elapsed(attr: str) -> Callable[[ClassAd, int], str | None]:
    def cell(ad: ClassAd, now: int) -> str | None:
        start = _get(ad, attr)
        return format_time(now - start) if type(start) is int else None

    return cell


def _condor_version(ad: ClassAd, now: int) -> str | None:
    # "$CondorVersion: 24.0.1 2024-10-31 BuildID: ... $" -> "24.0.1"
    value = _get(ad, "CondorVersion")
    if type(value) is not str:
        return None
    words = value.split()
    return words[1] if len(words) > 1 else value


def _readable_mb(attr: str) -> Callable[[ClassAd, int], str | None]:
    def cell(ad: ClassAd, now: int) -> str | None:
        value = _get(ad, attr)
        if not _is_num(value):
            return None
        mb = float(value)
        return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{int(mb)} MB"

    return cell


def _ad_type(attr: str) -> Callable[[ClassAd, int], str | None]:
    def cell(ad: ClassAd, now: int) -> str | None:
        value = _get(ad, attr)
        return value if type(value) is str and value else "None"

    return cell


def _date(attr: str) -> Callable[[ClassAd, int], str | None]:
    import time as _time  # formatting an epoch value only; no clock is read

    def cell(ad: ClassAd, now: int) -> str | None:
        value = _get(ad, attr)
        if type(value) is not int:
            return None
        return _time.strftime("%m/%d %H:%M", _time.gmtime(value))

    return cell


_VIEWS: dict[str, list[Column]] = {
    "default": [
        Column("Name", _string("Name"), 4, attrs=("Name",)),
        Column("OpSys", _string("OpSys"), 10, attrs=("OpSys",)),
        Column("Arch", _string("Arch"), 6, attrs=("Arch",)),
        Column("State", _string("State"), 9, attrs=("State",)),
        Column("Activity", _string("Activity"), 8, attrs=("Activity",)),
        Column("LoadAv", _load_avg, 6, right=True, attrs=("CondorLoadAvg",)),
        Column("Mem", _integer("Memory"), 4, right=True, attrs=("Memory",)),
        Column("  ActvtyTime", _activity_time, 12, right=True, prefix=False,
               missing="[Unknown]", attrs=("EnteredCurrentActivity", "MyCurrentTime", "LastHeardFrom")),
    ],
    "schedd": [
        Column("Name", _string("Name"), attrs=("Name",)),
        Column("Machine", _string("Machine"), attrs=("Machine",)),
        Column("RunningJobs", _integer("TotalRunningJobs"), 11, right=True, attrs=("TotalRunningJobs",)),
        Column("  IdleJobs", _integer("TotalIdleJobs"), 10, right=True, attrs=("TotalIdleJobs",)),
        Column("  HeldJobs", _integer("TotalHeldJobs"), 10, right=True, attrs=("TotalHeldJobs",)),
    ],
    "submitters": [
        Column("Name", _string("Name"), attrs=("Name",)),
        Column("Machine", _string("Machine"), attrs=("Machine",)),
        Column("RunningJobs", _integer("RunningJobs"), 11, right=True, attrs=("RunningJobs",)),
        Column("  IdleJobs", _integer("IdleJobs"), 10, right=True, attrs=("IdleJobs",)),
        Column("  HeldJobs", _integer("HeldJobs"), 10, right=True, attrs=("HeldJobs",)),
    ],
    "master": [
        Column("Name", _string("Name"), attrs=("Name",)),
        Column("Version", _condor_version, 14, attrs=("CondorVersion",)),
        Column("Cpus", _integer("DetectedCpus"), 4, right=True, missing="??", attrs=("DetectedCpus",)),
        Column("  Memory", _readable_mb("DetectedMemory"), 10, right=True, missing="??", attrs=("DetectedMemory",)),
        Column("   Uptime", _elapsed("DaemonStartTime"), 13, right=True, attrs=("DaemonStartTime",)),
    ],
    "negotiator": [
        Column("Name", _string("Name"), attrs=("Name",)),
        Column("LastCycleEnd", _date("LastNegotiationCycleEnd0"), 12, attrs=("LastNegotiationCycleEnd0",)),
        Column("(Sec)", _integer("LastNegotiationCycleDuration0"), 5, right=True, attrs=("LastNegotiationCycleDuration0",)),
        Column("  Slots", _integer("LastNegotiationCycleCandidateSlots0"), 7, right=True, attrs=("LastNegotiationCycleCandidateSlots0",)),
        Column("Submitrs", _integer("LastNegotiationCycleActiveSubmitterCount0"), 8,
               right=True, attrs=("LastNegotiationCycleActiveSubmitterCount0",)),
        Column("Schedds", _integer("LastNegotiationCycleNumSchedulers0"), 7, right=True, attrs=("LastNegotiationCycleNumSchedulers0",)),
        Column("   Jobs", _integer("LastNegotiationCycleNumIdleJobs0"), 7, right=True, attrs=("LastNegotiationCycleNumIdleJobs0",)),
        Column("Matches", _integer("LastNegotiationCycleMatches0"), 7, right=True, attrs=("LastNegotiationCycleMatches0",)),
        Column("Rejections", _integer("LastNegotiationCycleRejections0"), 10, right=True, attrs=("LastNegotiationCycleRejections0",)),
    ],
    "collector": [
        Column("Name", _string("Name"), attrs=("Name",)),
        Column("Machine", _string("Machine"), attrs=("Machine",)),
        Column("RunningJobs", _integer("RunningJobs"), 11, right=True, attrs=("RunningJobs",)),
        Column("IdleJobs", _integer("IdleJobs"), 8, right=True, attrs=("IdleJobs",)),
        Column("HostsTotal", _integer("HostsTotal"), 10, right=True, attrs=("HostsTotal",)),
    ],
    "any": [
        Column("MyType", _ad_type("MyType"), 18, truncate=True, attrs=("MyType",)),
        Column("TargetType", _ad_type("TargetType"), 18, truncate=True, attrs=("TargetType",)),
        Column("Name", _string("Name"), 41, truncate=True, missing="[???]", attrs=("Name",)),
    ],
}

_SUMMARY_ATTRS = {"default": ("State", "Arch", "OpSys")}


def projection_of(mode: str) -> list[str]:
    """The attributes a table view reads from each ad (columns and summary)."""
    attrs = [attr for column in _VIEWS[mode] for attr in column.attrs]
    return [*attrs, *_SUMMARY_ATTRS.get(mode, ())]


def _fit(text: str, column: Column, width: int) -> str:
    if column.truncate:
        text = text[:width]
    return text.rjust(width) if column.right else text.ljust(width)


def table(ads: Sequence[ClassAd], mode: str, now: int) -> str:
    """A table view: header, blank line, one row per ad, then the summary (if any)."""
    columns = _VIEWS[mode]
    cells = [[c.cell(ad, now) for c in columns] for ad in ads]
    widths = []
    for i, column in enumerate(columns):
        if column.truncate:
            widths.append(column.width)
            continue
        base = max(column.width, len(column.header))
        widths.append(max([base, *(len(_missing(column, base)) if row[i] is None
                                   else len(row[i] or "") for row in cells)]))
    lines = [_join(columns, widths, [c.header for c in columns], header=True), ""]
    for row in cells:
        texts = [_missing(c, w) if t is None else t for c, w, t in zip(columns, widths, row, strict=True)]
        lines.append(_join(columns, widths, texts, header=False))
    text = "\n".join(lines) + "\n"
    block = summary(ads, mode)
    return text + ("\n" + block if block else "")


def _missing(column: Column, width: int) -> str:
    if column.missing is not None:
        return column.missing
    return "[" + "?" * max(1, width - 2) + "]"


def _join(columns: Sequence[Column], widths: Sequence[int], texts: Sequence[str],
          header: bool) -> str:
    out = []
    for i, (column, width, text) in enumerate(zip(columns, widths, texts, strict=True)):
        if i and column.prefix:
            out.append(" ")
        if header:
            out.append(text[:width].ljust(width) if column.truncate else text.ljust(width))
        else:
            out.append(_fit(text, column, width))
    return "".join(out).rstrip()


# ------------------------------------------------------------------- views
MODES = ("default", "schedd", "submitters", "master", "negotiator", "collector", "any", "long", "af")


def format_status(
    ads: Sequence[ClassAd], mode: str, *, attrs: Sequence[str] | None = None, now: int
) -> str:
    """Render ``ads`` as condor_status does in ``mode`` (one of :data:`MODES`).

    ``attrs`` are the ``af`` view's attributes or expressions; ``now`` is the simulated
    time (for elapsed-time columns and ``time()``). No ads give "" (condor_status prints
    neither headers nor totals then).
    """
    if mode not in MODES:
        raise ValueError(f"unknown status view {mode!r}; expected one of {', '.join(MODES)}")
    if mode == "af" and not attrs:
        raise ValueError("the af view needs attributes")
    if not ads:
        return ""
    ordered = sort_ads(ads)
    if mode == "long":
        return "".join(long_form(ad) + "\n" for ad in ordered)
    if mode == "af":
        return autoformat(ordered, attrs or (), now)
    return table(ordered, mode, now)


def long_form(ad: ClassAd) -> str:
    """``attr = expression`` lines in old ClassAd syntax, attributes sorted
    case-insensitively (condor_status -l)."""
    ordered = ClassAd()
    for name in sorted(ad, key=str.lower):
        ordered[name] = ad[name]
    return ordered.to_long()


def autoformat(ads: Sequence[ClassAd], attrs: Sequence[str], now: int) -> str:
    """condor_status -af: per ad, the values of ``attrs`` separated by one space."""
    exprs = [parse_expr(a) for a in attrs]
    ctx = EvalContext(now=now)
    return "".join(
        " ".join(value_text(e.evaluate(my=ad, target=None, ctx=ctx)) for e in exprs) + "\n"
        for ad in ads
    )
