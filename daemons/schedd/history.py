"""The schedd's history file: jobs that left the queue, newest last.

How this works
--------------
Each job is appended in long form (``Attr = expr`` lines) followed by HTCondor's
banner line ``*** Offset = <byte offset of the ad> ClusterId = C ProcId = P Owner = "o"
CompletionDate = N`` (qmgmt/history code, ``AppendHistory``). Reading splits the file at
the banners and gives the ads newest first, as condor_history does.
"""

from __future__ import annotations

import os
from pathlib import Path

from condorsim.classad import ClassAd, ClassAdError, EvalContext, parse_expr

from .store import ScheddError


def _int(ad: ClassAd, name: str, default: int) -> int:
    v = ad.evaluate(name)
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def append_history(path: Path, ad: ClassAd) -> None:
    """Append one job ad and its banner to the history file at ``path``."""
    owner = ad.evaluate("Owner")
    banner = (
        f"ClusterId = {_int(ad, 'ClusterId', -1)} ProcId = {_int(ad, 'ProcId', -1)} "
        f'Owner = "{owner if isinstance(owner, str) else "?"}" '
        f"CompletionDate = {_int(ad, 'CompletionDate', -1)}\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        offset = fh.tell()
        fh.write(ad.to_long())
        fh.write(f"*** Offset = {offset} {banner}")
        fh.flush()
        os.fsync(fh.fileno())


def read_history(
    path: Path, constraint: str = "", projection: list[str] | None = None, limit: int = 0,
    now: int = 0,
) -> list[ClassAd]:
    """Ads of the history file, newest first, matching ``constraint``, at most ``limit``
    (0: all), reduced to ``projection`` if given."""
    try:
        tree = parse_expr(constraint) if constraint.strip() else None
    except ClassAdError as e:
        raise ScheddError(f"bad constraint {constraint!r}: {e}") from None
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    chunks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("*** "):
            chunks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    out: list[ClassAd] = []
    ctx = EvalContext(now=now)
    for chunk in reversed(chunks):
        try:
            ad = ClassAd.parse_old(chunk)
        except ClassAdError:
            continue
        if tree is not None and tree.evaluate(my=ad, ctx=ctx) is not True:
            continue
        out.append(project(ad, projection))
        if limit and len(out) >= limit:
            break
    return out


def project(ad: ClassAd, projection: list[str] | None) -> ClassAd:
    """The ad reduced to the attributes named in ``projection`` (all when empty)."""
    from condorsim.tools.adfiles import project as keep

    return keep(ad, projection or [])
