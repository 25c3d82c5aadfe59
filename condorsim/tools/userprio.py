"""``condorsim userprio``: condor_userprio's table of the submitters' priorities.

How this works
--------------
The negotiator sends the collector one Accounting ad per submitter after each cycle
(NEGOTIATOR_ADVERTISE_ACCOUNTING): its effective priority (``Priority``), its priority
factor, the slot weight it uses now and the weighted slot-hours it has used. This tool
reads them from the collector (HTCondor's condor_userprio asks the negotiator with
GET_PRIORITY; the ads are the same) and prints ``PrintInfo`` of HTCondor's
``user_prio.cpp``: ``Last Priority Update:``, two heading lines centred over each
column, a dashed line, one line per user active in the last day (``-allusers``: every
user; ``-activefrom M D Y``: since that date), a dashed line and ``Number of users: N``
with the totals. Every submitter is in the ``<none>`` accounting group, so the group and
quota columns are left out, as condor_userprio does when no group is configured; the
columns are Effective Priority, Priority Factor, Weighted In Use, Total Usage
(wghted-hrs), Time Since Last Usage, and the empty Submitter Floor and Ceiling.
``-priority`` shows the priority columns (with Real Priority), ``-usage`` the usage
columns (with Usage Start Time and Last Usage Time), ``-long`` the ads.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from condorsim import pool as poolmod
from condorsim.classad import ClassAd
from condorsim.wire import messages as m

from .adfiles import AdWriter
from .cliargs import ArgsError, ToolArgs
from .common import ToolError, query_collector
from .fmt import format_date, local_time, tool_zone
from .qrender import lookup_float, lookup_int, lookup_str

USAGE = """\
usage: condorsim userprio [options] [display-options]
    where [options] are
\t-help\t\t\tThis message
\t-allusers\t\tDisplay data for all users, not only those active in the last day
\t-activefrom <month> <day> <year>\tDisplay data for users active since that date
    and [display-options] are
\t-priority\t\tDisplay user priorities
\t-usage\t\t\tDisplay usage information
\t-all\t\t\tDisplay all information
\t-long\t\t\tVerbose output (entire ClassAds)
"""


@dataclass(frozen=True)
class _Col:
    flag: str
    width: int
    head: tuple[str, str]


# aCols of user_prio.cpp, in its order (the group and quota columns left out)
_COLUMNS = (
    _Col("priority", 12, ("Effective", "Priority")),
    _Col("realprio", 8, ("Real", "Priority")),
    _Col("factor", 9, ("Priority", "Factor")),
    _Col("resused", 6, ("Wghted", "In Use")),
    _Col("wtresused", 12, ("Total Usage", "(wghted-hrs)")),
    _Col("usetime1", 16, ("Usage", "Start Time")),
    _Col("usetime2", 16, ("Last", "Usage Time")),
    _Col("deltat", 10, ("Time Since", "Last Usage")),
    _Col("floor", 9, ("Submitter", "Floor")),
    _Col("ceiling", 9, ("Submitter", "Ceiling")),
)
DEFAULT = {"priority", "factor", "resused", "wtresused", "deltat", "floor", "ceiling"}
PRIORITY = {"priority", "factor", "realprio"}
USAGE_COLS = {"resused", "wtresused", "usetime1", "usetime2"}


def _pad(text: str | None, width: int, fill: str = " ", how: str = "right") -> str:
    """``CopyAndPadToWidth`` to ``width`` visible characters."""
    text = (text or "")[:width]
    if how == "left":
        return text.rjust(width, fill)
    if how == "center":
        left = (width - len(text)) // 2
        return (fill * max(0, left) + text).ljust(width, fill)
    return text.ljust(width, fill)


def _float(width: int, decimals: int, value: float) -> str:
    text = f"{value:{width}.{decimals}f}"
    if len(text) > width:
        text = f"{value:.{width - 6}g}"
    return _pad(text, width, how="left")


def _nosecs(seconds: int) -> str:
    if seconds < 0:
        return "[?????]"
    days, rest = divmod(seconds, 86400)
    return f"{days:3d}+{rest // 3600:02d}:{rest % 3600 // 60:02d}"


def _date_year(t: int, tz: str) -> str:
    d = local_time(t, tz)
    return f"{d.month:2d}/{d.day:02d}/{d.year:<4d} {d.hour:02d}:{d.minute:02d}"


def table(ads: Sequence[ClassAd], flags: set[str], min_last_usage: int, tz: str) -> str:
    """condor_userprio's table of ``ads`` (``PrintInfo``)."""
    cols = [c for c in _COLUMNS if c.flag in flags]
    users = []
    for ad in ads:
        name, prio = lookup_str(ad, "Name"), lookup_float(ad, "Priority")
        if name is None or prio is None or ad.evaluate("IsAccountingGroup") is True:
            continue
        last = lookup_int(ad, "LastUsageTime")
        last = -1 if last == 0 else (min_last_usage if last is None else last)
        users.append((name, prio, ad, last))
    users.sort(key=lambda u: (u[1], u[0]))
    shown = [u for u in users if u[3] >= min_last_usage]
    last_update = max((lookup_int(ad, "LastUpdate") or 0 for ad in ads), default=0)
    count_text = f"Number of users: {len(users)}"
    width = max(min(max([10, *(len(u[0]) for u in shown)]), 99), len(count_text))
    lines = [f"Last Priority Update: {format_date(last_update, tz)}"]
    lines.append(" " * width + "".join(" " + _pad(c.head[0], c.width, how="center")
                                       for c in cols))
    lines.append(_pad("User Name", width) + "".join(" " + _pad(c.head[1], c.width,
                                                              how="center") for c in cols))
    rule = "-" * width + "".join(" " + "-" * c.width for c in cols)
    lines.append(rule)
    total_used = total_usage = 0.0
    for name, prio, ad, last in shown:
        cells = []
        factor = lookup_float(ad, "PriorityFactor") or 0.0
        used = lookup_float(ad, "WeightedResourcesUsed")
        if used is None:
            used = float(lookup_int(ad, "ResourcesUsed") or 0)
        usage = lookup_float(ad, "WeightedAccumulatedUsage")
        begin = lookup_int(ad, "BeginUsageTime") or 0
        for c in cols:
            if c.flag == "priority":
                cells.append(_float(c.width, 2, prio))
            elif c.flag == "realprio":
                cells.append(_float(c.width, 2, prio / factor if factor > 0 else 0.0))
            elif c.flag == "factor":
                cells.append(_float(c.width, 2, factor) if factor > 0 else " " * c.width)
            elif c.flag == "resused":
                cells.append(_float(c.width, 0, used))
            elif c.flag == "wtresused":
                cells.append(_float(c.width, 2, (usage or 0.0) / 3600.0)
                             if usage is not None else " " * c.width)
            elif c.flag == "usetime1":
                cells.append(_pad(_date_year(begin, tz), c.width, how="left"))
            elif c.flag == "usetime2":
                cells.append(_pad(_date_year(last, tz), c.width, how="left"))
            elif c.flag == "deltat":
                delta = last_update - last
                cells.append(_pad("<now>" if delta <= 0 else _nosecs(delta), c.width, how="left"))
            else:
                cells.append(" " * c.width)
        lines.append(_pad(name, width) + "".join(" " + cell for cell in cells))
        total_used += used
        total_usage += usage or 0.0
    lines.append(rule)
    cells = []
    for c in cols:
        if c.flag == "resused":
            cells.append(_float(c.width, 0, total_used))
        elif c.flag == "wtresused":
            cells.append(_float(c.width, 2, total_usage / 3600.0))
        elif c.flag == "deltat":
            cells.append(_pad("" if min_last_usage <= 0 else _nosecs(last_update - min_last_usage),
                              c.width, how="left"))
        else:
            cells.append(" " * c.width)
    lines.append(_pad(f"Number of users: {len(shown)}", width) + "".join(" " + x for x in cells))
    return "".join(line + "\n" for line in lines)


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim userprio``."""
    t = ToolArgs("condorsim userprio")
    flag: dict[str, Any] = {"action": "store_true"}
    t.option("help", 1, **flag)
    t.option("allusers", 4, **flag)
    t.option("activefrom", 2, nargs=3, type=int)
    t.option("priority", 2, **flag)
    t.option("usage", 2, **flag)
    t.option("all", 3, **flag)
    t.option("long", 1, **flag)
    t.option("setfactor", 4, nargs=2)
    try:
        args = t.parse(argv)
    except ArgsError as e:
        print(f"condorsim userprio: {e}", file=sys.stderr)
        sys.stderr.write(USAGE)
        return 1
    if args.help:
        sys.stdout.write(USAGE)
        return 0
    if args.setfactor:
        print("condorsim userprio: -setfactor is not supported by condorsim (set "
              "DEFAULT_PRIO_FACTOR in the pool's configuration)", file=sys.stderr)
        return 1
    try:
        ads = query_collector(poolmod.pool_home(), m.QUERY_GENERIC_ADS(
            adtype="Accounting", constraint="", projection=[]))
    except (ToolError, poolmod.PoolNotRunning) as e:
        print(f"condorsim userprio: {e}", file=sys.stderr)
        return 1
    if args.long:
        writer = AdWriter(sys.stdout, "long")
        for ad in ads:
            writer.write(ad)
        return 0
    flags = set(DEFAULT)
    if args.priority or args.usage or args.all:
        flags = set()
        if args.priority:
            flags |= PRIORITY
        if args.usage:
            flags |= USAGE_COLS
        if args.all:
            flags = DEFAULT | PRIORITY | USAGE_COLS
    now = poolmod.pool_time()
    min_last = -1 if args.allusers else now - 86400
    if args.activefrom:
        from datetime import datetime

        month, day, year = args.activefrom
        min_last = int(datetime(year, month, day).timestamp())
    if not ads:
        return 0
    sys.stdout.write(table(ads, flags, min_last, tool_zone()))
    return 0
