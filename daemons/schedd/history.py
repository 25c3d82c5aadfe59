"""The schedd's history file: jobs that left the queue, newest last.

How this works
--------------
Each job is appended in long form (``Attr = expr`` lines) followed by HTCondor's
banner line ``*** Offset = <byte offset of the ad> ClusterId = C ProcId = P Owner = "o"
CompletionDate = N`` (qmgmt/history code, ``AppendHistory``). Reading splits the file at
the banners and gives the ads newest first, as condor_history does.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from condorsim.classad import ClassAd, ClassAdError, EvalContext, parse_expr
from condorsim.jobqueue.writer import write_all, write_failed

from .store import ScheddError


def _int(ad: ClassAd, name: str, default: int) -> int:
    v = ad.evaluate(name)
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def append_history(path: Path, ad: ClassAd) -> int:
    """Append one job ad and its banner to the history file at ``path`` in one write (not
    synced: HTCondor's AppendHistory flushes the record and never fsyncs it, and the job's
    leaving the queue is a non-durable commit too); return the offset it starts at (for
    :func:`unappend_history`).

    A write the disk refuses raises JobQueueWriteError (naming the file and the errno)
    after cutting what it wrote, so no torn record is left for the next one to follow."""
    owner = ad.evaluate("Owner")
    banner = (
        f"ClusterId = {_int(ad, 'ClusterId', -1)} ProcId = {_int(ad, 'ProcId', -1)} "
        f'Owner = "{owner if isinstance(owner, str) else "?"}" '
        f"CompletionDate = {_int(ad, 'CompletionDate', -1)}\n"
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as e:
        raise write_failed("open of", str(path), e) from None
    try:
        offset = os.fstat(fd).st_size
        data = f"{ad.to_long()}*** Offset = {offset} {banner}".encode()
        try:
            write_all(fd, data)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, offset)
            raise write_failed("write to", str(path), e) from None
    finally:
        os.close(fd)
    return offset


def unappend_history(path: Path, offset: int) -> None:
    """Cut the record :func:`append_history` wrote at ``offset`` (its job did not leave
    the queue after all, and will be written again when it does)."""
    with contextlib.suppress(OSError):
        os.truncate(path, offset)


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
