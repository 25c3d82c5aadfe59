"""condor_status's views: the tables of each ad type, the long form and autoformat.

How this works
--------------
Each view is the column list condor_status builds in HTCondor 24's
``src/condor_status.V6/prettyPrint.cpp`` (``ppSetStartdNormalCols``, ``ppSetRunCols``,
``ppSetStateCols``, ``ppSetServerCols``, ``ppSetCollectorNormalCols``,
``ppSetAnyNormalCols`` and the ``*_PrintFormat`` tables of the schedd, submitter,
master and negotiator views), stated as :class:`~condorsim.tools.printmask.Column`
lists. ``ppSetColumn``'s rules apply: every column grows to fit its values; a column
asked to truncate (most of them unless ``-wide``) keeps its nominal width only when
no value is longer; a missing value shows ``[????]`` as wide as the column. The Name and
Machine columns of the schedd, submitter, master and negotiator views start at 15, 12
or 12 characters (``ppAdjustProjection``); the slot view's Name column is 18 wide (34
with ``-wide``).

The ads are sorted by ``Machine`` then ``Name`` in natural order ("slot2" before
"slot10"). A table is the headings, a blank line, one row per ad, then (for the views
that have them) the totals of :mod:`.totals` after a blank line. The module is pure:
ads, the display width and ``now`` in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from condorsim.classad import UNDEFINED, ClassAd, EvalContext
from condorsim.tools.fmt import format_date, format_time, value_text
from condorsim.tools.printmask import Column, PrintMask
from condorsim.tools.qrender import lookup, lookup_int, lookup_str, metric_units

from .totals import summary

SORT_ATTRS = ("Machine", "Name")
__all__ = ["MODES", "SORT_ATTRS", "Style", "format_status", "format_time", "long_form",
           "sort_ads", "style", "value_text"]


# ----------------------------------------------------------------- renderers
def _load_avg(value: Any) -> str:
    return f"{float(value):.3f}"


def render_activity_time(ad: ClassAd, value: Any) -> int | None:
    """ActvtyTime: the ad's clock (MyCurrentTime, else LastHeardFrom) minus the value."""
    if type(value) not in (int, float):
        return None
    now = lookup_int(ad, "MyCurrentTime")
    if now is None:
        now = lookup_int(ad, "LastHeardFrom")
    if now is None:
        return None
    return max(0, now - int(value))


def render_elapsed_time(ad: ClassAd, value: Any) -> int | None:
    """LastHeardFrom minus the value (StateTime, Uptime)."""
    now = lookup_int(ad, "LastHeardFrom")
    if now is None or type(value) not in (int, float):
        return None
    return now - int(value)


def render_version(_ad: ClassAd, value: Any) -> str | None:
    """``format_version``: ``24.0.24.<BuildId>`` from ``$CondorVersion: ... $``."""
    if type(value) is not str or not value:
        return None
    words = value.split()
    version = words[1] if len(words) > 1 else ""
    rest = words[2:]
    if rest and re.match(r"\d{4}-\d\d-", rest[0]):
        rest = rest[1:]
    elif len(rest) >= 3:
        rest = rest[3:]
    if rest and rest[0].startswith("B"):
        rest = rest[1:]
    if rest and not rest[0].startswith("$"):
        version += "." + re.split(r"[- ]", rest[0])[0]
    return version[:21]


def format_readable_mb(value: Any) -> str:
    if type(value) in (int, float):
        return metric_units(float(value) * 1024.0 * 1024.0)
    return " " * 8


def format_ad_type(value: Any) -> str:
    return value[:18] if type(value) is str and value else "None"


# ----------------------------------------------------------------- columns
def pp(attr: str, width: int, truncate: bool, heading: str | None = None, *,
       fmt: str | None = "%v", alt: str = "??", render: Callable[[ClassAd, Any], Any] | None = None,
       format: Callable[[Any], str] | None = None, format_type: str = "value",
       always: bool = False) -> Column:
    """``ppSetColumn``: every column grows to fit; ``truncate`` false also never cuts."""
    notruncate = width == 0 or not truncate
    return Column(attr, attr if heading is None else heading, width, fmt=fmt, render=render,
                  format=format, format_type=format_type, autowidth=True,
                  notruncate=notruncate, alt=alt, always=always)


def _print_format(attr: str, heading: str, *, auto: bool = False, width: int = 0,
                  fmt: str | None = "%v", **kw: Any) -> Column:
    """A column of a condor_status print-format table (``AS``, ``WIDTH``, ``PRINTF``)."""
    if width:
        return Column(attr, heading, width, fmt=fmt, **kw)
    return Column(attr, heading, -len(heading), fmt=fmt, autowidth=True, notruncate=True, **kw)


def _name_machine(name: int, machine: int | None) -> list[Column]:
    cols = [Column("Name", "Name", -name, autowidth=True, notruncate=True)]
    if machine is not None:
        cols.append(Column("Machine", "Machine", -machine, autowidth=True, notruncate=True))
    return cols


def _counts(*pairs: tuple[str, str, int]) -> list[Column]:
    return [_print_format(attr, heading, fmt=f"%{width}d") for attr, heading, width in pairs]


def slot_columns(width: int, wide: bool) -> list[Column]:
    """The default slot view (``ppSetStartdNormalCols``)."""
    name_width = -34 if wide else -18
    alt = "??"
    if width > 79 and not wide:
        name_width, alt = -12, ""  # FitToName: 12 wide, then it grows to fit the names
    return [
        pp("Name", name_width, not wide, alt=alt),
        pp("OpSys", -10, True), pp("Arch", -6, True), pp("State", -9, True),
        pp("Activity", -8, True),
        pp("CondorLoadAvg", 6, True, "LoadAv", fmt=None, format=_load_avg, format_type="float"),
        pp("Memory", 0, False, "Mem", fmt="%4d"),
        Column("EnteredCurrentActivity", "ActivityTime" if wide else "  ActvtyTime", 12,
               fmt="%T", render=render_activity_time, autowidth=True, noprefix=not wide,
               alt="-"),
    ]


def claimed_columns(width: int, wide: bool) -> list[Column]:
    """``-claimed`` (``ppSetRunCols``)."""
    name_width = -34 if wide else (max(-40, 63 - width) if width > 79 else -15)
    return [pp("Name", name_width, not wide), pp("OpSys", -11, True), pp("Arch", -6, True),
            pp("CondorLoadAvg", 6, True, "LoadAv", fmt=None, format=_load_avg,
               format_type="float"),
            pp("RemoteUser", -20, not wide), pp("ClientMachine", -16, not wide)]


def state_columns(width: int, wide: bool) -> list[Column]:
    """``-state`` (``ppSetStateCols``)."""
    timewid = 12 if (wide or width > 90) else 11
    name_width = -34 if wide else (max(-40, 34 + 3 * timewid - width) if width > 79 else -12)

    def elapsed(attr: str, heading: str) -> Column:
        col = pp(attr, timewid, True, heading, fmt="%T", render=render_elapsed_time)
        if timewid == 11:
            col.width, col.noprefix = 12, True
        return col

    kbd = pp("KeyboardIdle", timewid, True, "  KbdIdle", fmt=None,
             format=lambda t: format_time(int(t)), format_type="int")
    if timewid == 11:
        kbd.width, kbd.noprefix = 12, True
    return [pp("Name", name_width, not wide), pp("Cpus", 3, True, "Cpu"),
            pp("Memory", 5, True, " Mem"),
            pp("CondorLoadAvg", 6, True, "LoadAv", fmt=None, format=_load_avg,
               format_type="float"),
            kbd, pp("State", -7, True), elapsed("EnteredCurrentState", "  StateTime"),
            pp("Activity", -5, True, "Activ"), elapsed("EnteredCurrentActivity", "  ActvtyTime")]


def server_columns(width: int, wide: bool) -> list[Column]:
    """``-server`` (``ppSetServerCols``)."""
    name_width = -34 if wide else (max(-40, 65 - width) if width > 79 else -13)
    return [pp("Name", name_width, not wide), pp("OpSys", -11, True), pp("Arch", -6, True),
            pp("CondorLoadAvg", 6, True, "LoadAv", fmt=None, format=_load_avg,
               format_type="float"),
            pp("Memory", 0, True, fmt="%8d"), pp("Disk", 0, True, fmt="%9d"),
            pp("Mips", 0, True, fmt="%7d"), pp("KFlops", 0, True, fmt="%9d")]


def collector_columns(width: int, wide: bool) -> list[Column]:
    """``-collector`` (``ppSetCollectorNormalCols``)."""
    name_width, mach_width = (-34, -34) if wide else (-28, -18)
    if width > 79 and not wide:
        extra = min(width - (28 + 18 + 11 + 8 + 10 + 4), 50)
        nw = min(20, extra * 2 // 3)
        name_width -= nw
        mach_width -= min(30, extra - nw)
    return [pp("Name", name_width, not wide), pp("Machine", mach_width, not wide),
            pp("RunningJobs", 0, True, fmt="%11d"), pp("IdleJobs", 0, True, fmt="%8d"),
            pp("HostsTotal", 0, True, fmt="%10d")]


def any_columns(width: int, wide: bool) -> list[Column]:
    """``-any`` (``ppSetAnyNormalCols``): MyType, TargetType, Name."""
    return [pp("MyType", -18, True, fmt=None, format=format_ad_type, always=True),
            pp("TargetType", -18, True, fmt=None, format=format_ad_type, always=True),
            pp("Name", 0, not wide, fmt="%-41s" if wide else "%-41.41s", alt="?")]


def schedd_columns(width: int, wide: bool) -> list[Column]:
    return [*_name_machine(15, 12), *_counts(("TotalRunningJobs", "RunningJobs", 11),
                                              ("TotalIdleJobs", "  IdleJobs", 10),
                                              ("TotalHeldJobs", "  HeldJobs", 10))]


def schedd_run_columns(width: int, wide: bool) -> list[Column]:
    """``-run`` (bare, since HTCondor 8.5.7: the schedds that run jobs)."""
    return [*_name_machine(15, None), *_counts(
        ("TotalJobAds", "TotalJobs", 9), ("ShadowsRunning", "Shadows", 7),
        ("TotalSchedulerJobsRunning", "ActiveDAGs", 10), ("TotalSchedulerJobsIdle", "IdleDAGs", 8),
        ("RecentJobsCompleted", "RcntDone", 8), ("RecentJobsStarted", "RcntStart", 9))]


def submitter_columns(width: int, wide: bool) -> list[Column]:
    return [*_name_machine(15, 12), *_counts(("RunningJobs", "RunningJobs", 11),
                                              ("IdleJobs", "  IdleJobs", 10),
                                              ("HeldJobs", "  HeldJobs", 10))]


def master_columns(width: int, wide: bool) -> list[Column]:
    return [*_name_machine(12, None),
            Column("CondorVersion", "Version", -14, fmt=None, render=render_version),
            Column("DetectedCpus", "Cpus", 4, fmt="%4d", alt="??"),
            Column("DetectedMemory", "  Memory", 10, fmt=None, format=format_readable_mb,
                   alt="??"),
            Column("DaemonStartTime", "   Uptime", 13, fmt="%T", render=render_elapsed_time)]


def negotiator_columns(width: int, wide: bool, tz: str = "UTC") -> list[Column]:
    return [*_name_machine(12, None),
            Column("LastNegotiationCycleEnd0", "LastCycleEnd", 12, fmt=None,
                   format=lambda t: format_date(t, tz), format_type="int"),
            *_counts(("LastNegotiationCycleDuration0", "(Sec)", 5),
                     ("LastNegotiationCycleCandidateSlots0", "  Slots", 7),
                     ("LastNegotiationCycleActiveSubmitterCount0", "Submitrs", 8),
                     ("LastNegotiationCycleNumSchedulers0", "Schedds", 7),
                     ("LastNegotiationCycleNumIdleJobs0", "   Jobs", 7),
                     ("LastNegotiationCycleMatches0", "Matches", 7),
                     ("LastNegotiationCycleRejections0", "Rejections", 10))]


@dataclass(frozen=True)
class Style:
    """One condor_status view: the ads it asks for, its columns, its totals."""

    name: str
    adtype: str
    columns: Callable[..., list[Column]]
    totals: str | None = None  # the totals kind (see totals.py)
    constraint: str | None = None  # ORed into the query, as condor_status's mode constraint
    where: str | None = None  # ANDed into the query (a print format's WHERE)


_STYLES = {
    "slots": Style("slots", "Machine", slot_columns, "slots"),
    "avail": Style("avail", "Machine", slot_columns, "slots",
                   constraint='State == "Unclaimed" && Cpus > 0 && Memory > 0'),
    "claimed": Style("claimed", "Machine", claimed_columns, "run",
                     constraint='State == "Claimed"'),
    "state": Style("state", "Machine", state_columns, "state"),
    "server": Style("server", "Machine", server_columns, "server"),
    "schedd": Style("schedd", "Scheduler", schedd_columns, "schedd"),
    "schedd_run": Style("schedd_run", "Scheduler", schedd_run_columns,
                        where="(ShadowsRunning+TotalSchedulerJobsRunning) > 0"),
    "submitters": Style("submitters", "Submitter", submitter_columns, "submitters"),
    "master": Style("master", "DaemonMaster", master_columns),
    "negotiator": Style("negotiator", "Negotiator", negotiator_columns),
    "collector": Style("collector", "Collector", collector_columns),
    "any": Style("any", "Any", any_columns),
    "accounting": Style("accounting", "Accounting", any_columns),
}
MODES = tuple(_STYLES)


def style(name: str) -> Style:
    return _STYLES[name]


# -------------------------------------------------------------------- sort
_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple((1, int(part), "") if i % 2 else (0, 0, part)
                 for i, part in enumerate(_DIGITS.split(text)) if part)


def _sort_field(value: object) -> str:
    if type(value) is str:
        return value
    if value is None or value is UNDEFINED:
        return ""
    if type(value) is bool:
        return str(int(value))
    return value_text(value)


def sort_ads(ads: Sequence[ClassAd]) -> list[ClassAd]:
    """The ads in condor_status's default order: Machine, then Name, natural order."""
    def key(item: tuple[int, ClassAd]) -> tuple[object, ...]:
        index, ad = item
        fields = "\n".join(_sort_field(lookup(ad, attr)) for attr in SORT_ATTRS)
        return (_natural(fields), index)

    return [ad for _, ad in sorted(enumerate(ads), key=key)]


# ------------------------------------------------------------------- views
def table(ads: Sequence[ClassAd], style_name: str, *, width: int = 80, wide: bool = False,
          now: int = 0, tz: str = "UTC", totals_only: bool = False, cut: int = 0) -> str:
    """A table view of ``ads`` (already sorted): headings, blank line, rows, totals.

    ``width`` is the display width (80 when the output is not a terminal); ``cut``, when
    not 0, the width rows are cut at (a terminal's width less one, as condor_status)."""
    st = _STYLES[style_name]
    cols = st.columns(width - 1, wide, tz) if st.columns is negotiator_columns \
        else st.columns(width - 1, wide)
    mask = PrintMask(cols, overall_width=cut)
    ctx = EvalContext(now=now)
    out = ""
    if not ads:
        return out
    if not totals_only:
        rows = [mask.render(ad, ctx) for ad in ads]
        out = mask.headings() + "\n" + "".join(mask.display(row) for row in rows)
    if st.totals:
        out += "\n" + summary(ads, st.totals, wide)
    return out


def format_status(ads: Sequence[ClassAd], mode: str, *, attrs: Sequence[str] | None = None,
                  now: int, width: int = 80, wide: bool = False, tz: str = "UTC") -> str:
    """``ads`` as condor_status shows them in ``mode`` (a style, ``long`` or ``af``)."""
    if not ads:
        return ""
    ordered = sort_ads(ads)
    if mode == "long":
        return "".join(long_form(ad) + "\n" for ad in ordered)
    if mode == "af":
        from condorsim.tools.columns import af_mask, parse_af_options

        mask = af_mask(list(attrs or ()), parse_af_options(""))
        ctx = EvalContext(now=now)
        return "".join(mask.display_ad(ad, ctx) for ad in ordered)
    return table(ordered, mode, width=width, wide=wide, now=now, tz=tz)


def long_form(ad: ClassAd) -> str:
    """``attr = expression`` lines in old ClassAd syntax, sorted case-insensitively."""
    ordered = ClassAd()
    for name in sorted(ad, key=str.lower):
        ordered[name] = ad[name]
    return ordered.to_long()


def lookup_name(ad: ClassAd) -> str | None:
    return lookup_str(ad, "Name")
