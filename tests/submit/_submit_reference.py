"""HTCondor's own submit (``htcondor.Submit`` of 24.0) as the reference, and the comparison.

``reference_jobs`` runs the binding on a submit text in the current directory. The
binding stops at the first queue statement, so a text with several is run once per
queue statement (with the earlier ones removed), continuing the proc ids and starting a
new cluster when ``executable`` changes -- what condor_submit does with the whole file.
condor_submit prints some errors on stderr and the binding then only says "Failed to
get next job"; that text is captured and returned as the message.

``differences`` compares our ad to the binding's: the same attribute names (without
regard to case) and the same values, with ours re-parsed by classad2 and both unparsed
by classad2. Only the attributes in ``IGNORED`` are skipped.
"""

from __future__ import annotations

import os
import re
import tempfile
import warnings
from typing import Any

import classad2
import htcondor

from condorsim.classad import ClassAd

IGNORED = {
    "condorversion": "the version string names the build (HTCondor's wheel vs condorsim)",
    "condorplatform": "the platform string names the build",
    "owner": "the binding leaves Owner = undefined for the schedd to fill in; condorsim's "
    "Submit writes the submitting user, as the schedd stores it",
    "user": "set by the schedd (owner@UID_DOMAIN), not by the binding; condorsim's Submit "
    "writes it",
}

CLUSTER = 7
QDATE = 1700000000
OWNER = "alice"
HOST = htcondor.param["FULL_HOSTNAME"]
"""The binding's host name; our FILESYSTEM_DOMAIN/UID_DOMAIN default comes from it too."""


def split_queues(text: str) -> list[str]:
    """One text per queue statement: the commands before it, earlier queues removed."""
    lines = text.split("\n")
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        if re.match(r"\s*queue(\s|$)", lines[i], re.IGNORECASE):
            start = i
            if re.search(r"\(\s*$", lines[i]):
                while i < len(lines) and not lines[i].lstrip().startswith(")"):
                    i += 1
            spans.append((start, i))
        i += 1
    parts = []
    for k, (_, end) in enumerate(spans):
        kept = [
            line
            for j, line in enumerate(lines[: end + 1])
            if not any(a <= j <= b for a, b in spans[:k])
        ]
        parts.append("\n".join(kept) + "\n")
    return parts or [text]


def _binding(text: str, cluster: int, proc: int) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sub = htcondor.Submit(text)
        return list(sub.jobs(clusterid=cluster, procid=proc, qdate=QDATE, owner=OWNER))


def reference_jobs(text: str) -> tuple[list[Any] | None, str | None]:
    """(the binding's job ads, None) or (None, its error message)."""
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            ads: list[Any] = []
            cluster, proc, last = CLUSTER, 0, None
            for part in split_queues(text):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sub = htcondor.Submit(part)
                exe = (sub.get("executable", ""), sub.get("cmd", ""))
                if last is not None and exe != last:
                    cluster, proc = cluster + 1, 0
                last = exe
                got = _binding(part, cluster, proc)
                ads += got
                proc += len(got)
            return ads, None
        except Exception as exc:
            os.dup2(saved, 2)
            tmp.seek(0)
            printed = tmp.read().decode(errors="replace")
            message = str(exc)
            if message in ("", "Failed to get next job"):
                found = re.search(r"ERROR: (.*)", printed, re.DOTALL)
                message = found.group(1) if found else message
            return None, message
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def normalize(message: str) -> str:
    """Error text with condor_submit's line wrapping undone."""
    return " ".join(message.split())


def differences(ours: ClassAd, theirs: Any) -> list[str]:
    """Why our ad and the binding's differ (empty when they agree)."""
    mine = {name.lower(): name for name in ours}
    ref = {name.lower(): name for name in theirs.keys()}
    out = []
    for key in sorted(set(mine) | set(ref)):
        if key in IGNORED:
            continue
        if key not in ref:
            out.append(f"extra {mine[key]} = {ours[mine[key]]}")
        elif key not in mine:
            out.append(f"missing {ref[key]} = {theirs.lookup(ref[key])}")
        else:
            expected = str(theirs.lookup(ref[key]))
            got = str(classad2.ExprTree(str(ours[mine[key]])))
            if expected != got:
                out.append(f"{ref[key]}: binding {expected} | ours {got}")
    return out
