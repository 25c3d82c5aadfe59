"""``condorsim submit -dry-run``: show the job ads a submit description makes.

How this works
--------------
``dry_run`` reads a submit file (or text), builds every job ad with ``Submit`` as
condor_submit would (``JobSubmitMethod = 0``), and prints what ``condor_submit
-dry-run:full -`` prints for a submit file: the progress line, one summary line per
cluster, a blank line, then each job ad in long form (``Attr = value``, attributes
sorted by name), ads separated by a blank line. Errors go to ``err`` as
``ERROR: ...`` lines and make the return value 1.

This is an edge of the program: it may read the clock (for QDate), the user name and
the current directory; the submit logic itself does not.
"""

from __future__ import annotations

import getpass
import os
import sys
import time
from collections.abc import Mapping
from typing import TextIO

from condorsim.classad import ClassAd

from ._errors import SubmitError
from ._submit import Submit


def _read(path_or_text: str | os.PathLike[str]) -> tuple[str, str]:
    """(text, source name): a string with a newline is the text itself, ``-`` is stdin."""
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return path_or_text, "<submit>"
    path = os.fspath(path_or_text)
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read(), path


def _long_form(ad: ClassAd) -> str:
    lines = ad.to_long().splitlines()
    return "".join(line + "\n" for line in sorted(lines, key=lambda s: s.split(" =")[0].lower()))


def dry_run(
    path_or_text: str | os.PathLike[str],
    out: TextIO,
    *,
    err: TextIO | None = None,
    owner: str | None = None,
    clusterid: int = 1,
    qdate: int | None = None,
    config: Mapping[str, str] | None = None,
) -> int:
    """Print the job ads of a submit description as ``condor_submit -dry-run:full -``.

    Returns 0, or 1 when the description (or the file) is refused; the reason is printed
    on ``err`` (default stderr).
    """
    err = err if err is not None else sys.stderr
    try:
        text, source = _read(path_or_text)
    except OSError as exc:
        print(f"ERROR: Failed to open command file ({exc.strerror})", file=err)
        return 1
    try:
        submit = Submit(text, source=source)
        if submit.queue_count() == 0:
            raise SubmitError("no queue statement", source=source)
        ads = list(
            submit.jobs(
                clusterid=clusterid,
                qdate=int(time.time()) if qdate is None else qdate,
                owner=owner or getpass.getuser(),
                config=config,
                submit_method=0,
            )
        )
    except SubmitError as exc:
        where = f"{exc.source}, line {exc.line}" if exc.line else exc.source
        print(f"ERROR: {exc.message}\n({where})", file=err)
        return 1
    for warning in submit.warnings:
        print(f"WARNING: {warning}", file=err)
    counts: dict[int, int] = {}
    for ad in ads:
        cluster = ad.evaluate("ClusterId")
        assert isinstance(cluster, int)
        counts[cluster] = counts.get(cluster, 0) + 1
    out.write("Dry-Run job(s)" + "." * len(ads) + "\n")
    for cluster, n in counts.items():
        out.write(f"{n} job(s) dry-run to cluster {cluster}.\n")
    out.write("\n")
    out.write("\n".join(_long_form(ad) for ad in ads))
    return 0
