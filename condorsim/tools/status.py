"""``condorsim status``: condor_status against the pool at $CONDORSIM_HOME."""

from __future__ import annotations

import sys

from condorsim import pool as poolmod
from condorsim.status import USAGE, StatusArgError, format_status, parse_status_args
from condorsim.wire import messages as m

from .common import ToolError, query_collector


def main(argv: list[str]) -> int:
    try:
        req = parse_status_args(argv)
    except StatusArgError as e:
        print(f"condorsim status: {e.reason}\n{USAGE}", file=sys.stderr)
        return 1
    if req.help:
        print(USAGE)
        return 0
    home = poolmod.pool_home()
    query = m.QUERY_GENERIC_ADS(
        adtype=req.adtype, constraint=req.constraint or "", projection=list(req.projection or [])
    )
    try:
        ads = query_collector(home, query)
    except ToolError as e:
        print(f"condorsim status: {e}", file=sys.stderr)
        return 1
    now = poolmod.pool_time(home)
    text = format_status(ads, req.mode, attrs=req.attrs, now=now)
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
