"""``condorsim status``: condor_status against the pool's collector, or a file of ads.

How this works
--------------
The request (:mod:`condorsim.status.args`) names the ad type and the constraint; the ads
come from the collector (``QUERY_GENERIC_ADS``) or, with ``-ads FILE``, from a file in
any of HTCondor's ClassAd forms (no pool needed). ``-any`` leaves out the ads of the
simulator's own shadow and starter processes (``MyType`` "Shadow" and "Starter"):
HTCondor runs one shadow and one starter per job and they advertise nothing, while
condorsim's serve all the jobs of a schedd or startd and advertise themselves so that
their daemons find them (docs/execution.md). They stay in the collector for the daemons.
The ads are sorted (Machine, then Name) and shown in the request's form.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from condorsim import pool as poolmod
from condorsim.classad import ClassAd, ClassAdError, EvalContext, parse_expr
from condorsim.status import USAGE, StatusArgError, parse_status_args
from condorsim.status.compact import compact_table
from condorsim.status.views import sort_ads, table
from condorsim.wire import messages as m

from .adfiles import AdFileError, AdWriter, project, read_ads
from .columns import combine, parse_af_options
from .common import ToolError, query_collector
from .fmt import tool_zone

SIMULATOR_ADS = ("Shadow", "Starter")


def _own_ads_out(constraint: str) -> str:
    """The -any query without the simulator's own Shadow and Starter ads."""
    own = " && ".join(f'MyType =!= "{t}"' for t in SIMULATOR_ADS)
    return f"({constraint}) && ({own})" if constraint else own


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim status``."""
    try:
        req = parse_status_args(argv)
    except StatusArgError as e:
        print(f"Error:  {e.reason}", file=sys.stderr)
        sys.stdout.write(USAGE)
        return 1
    if req.help:
        sys.stdout.write(USAGE)
        return 0
    if req.version:
        from .version import version_lines
        sys.stdout.write(version_lines())
        return 0
    now = poolmod.pool_time()
    try:
        ads = _ads(req.ads_file, req.ads_form, req.adtype, req.constraint, now)
    except (ToolError, AdFileError, poolmod.PoolNotRunning) as e:
        print(f"condorsim status: {e}", file=sys.stderr)
        return 1
    ordered = sort_ads(ads)
    out = sys.stdout
    if req.form == "custom":
        try:
            mask = combine([(k, v, req.af_options) for k, v in req.columns])
        except ClassAdError as e:
            print(f"condorsim status: {e}", file=sys.stderr)
            return 1
        ctx = EvalContext(now=now)
        rows = [mask.render(ad, ctx) for ad in ordered]
        if parse_af_options(req.af_options).headings and rows:
            out.write(mask.headings())
        out.write("".join(mask.display(row) for row in rows))
        return 0
    if req.form in ("long", "json", "new"):
        writer = AdWriter(out, req.form)
        for ad in ordered:
            writer.write(project(ad, req.attributes))
        writer.close()
        return 0
    width, cut = _display(req.wide, req.width)
    if req.compact:
        if req.totals_only:
            print("Warning: ignoring -compact option because -total option is also set",
                  file=sys.stderr)
        out.write(compact_table(ads, req.style, now=now, totals_only=req.totals_only, cut=cut))
        return 0
    out.write(table(ordered, req.style, width=width, wide=req.wide, now=now, tz=tool_zone(),
                    totals_only=req.totals_only, cut=cut))
    return 0


def _display(wide: bool, forced: int) -> tuple[int, int]:
    """(display width, the width rows are cut at: 0 for none), as condor_status."""
    if forced:
        return forced, forced - 1
    try:
        columns = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return (1024 if wide else 80), 0
    return columns, (0 if wide else columns - 1)


def _ads(path: str | None, form: str, adtype: str, constraint: str, now: int) -> list[ClassAd]:
    if path is None:
        if adtype == "Any":
            constraint = _own_ads_out(constraint)
        return query_collector(poolmod.pool_home(), m.QUERY_GENERIC_ADS(
            adtype=adtype, constraint=constraint, projection=[]))
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ToolError(f"cannot read {path}: {e.strerror}") from None
    ads = read_ads(text, form if form in ("long", "new", "json", "auto") else "auto", path)
    if adtype not in ("Any", "Machine"):
        ads = [ad for ad in ads if _my_type(ad) in (adtype.lower(), "")]
    elif adtype == "Machine":
        ads = [ad for ad in ads if _my_type(ad) in ("machine", "slot", "")]
    if constraint:
        try:
            tree = parse_expr(constraint)
        except ClassAdError as e:
            raise ToolError(f"bad constraint {constraint}: {e}") from None
        ctx = EvalContext(now=now)
        ads = [ad for ad in ads if tree.evaluate(my=ad, ctx=ctx) is True]
    return ads


def _my_type(ad: ClassAd) -> str:
    value = ad.evaluate("MyType") if ad.lookup("MyType") is not None else None
    return value.lower() if isinstance(value, str) else ""
