"""HTCondor's own macro expansion (``htcondor.Submit(text).expand(key)`` of 24.0) as a reference.

A macro function error makes HTCondor's submit code call EXCEPT, which ends the process
(status 4, the message on stderr), and some calls crash it. So the binding runs in a child
process that reads one JSON case per line and answers one JSON line each; when it dies,
the case it was on is recorded as ``("crash", status, stderr)`` and a new child carries on
with the next case.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable

_CHILD = r"""
import json, sys, warnings
import htcondor
warnings.simplefilter("ignore")
for line in sys.stdin:
    case = json.loads(line)
    sub = htcondor.Submit(case["text"])
    if case.get("jobs"):
        ad = list(sub.jobs())[0]
        value = ad.get(case["key"])
    else:
        try:
            value = sub.expand(case["key"])
        except RuntimeError as exc:  # the binding cannot return an empty expansion
            if "construction from null" not in str(exc):
                raise
            value = ""
        except UnicodeDecodeError:  # HTCondor made bytes that are not UTF-8 ($INT(-3,%c))
            print(json.dumps(["undecodable", None]), flush=True)
            continue
    print(json.dumps(["ok", value]), flush=True)
"""

_EXCEPT = re.compile(r'ERROR "(.*)" at line \d+ in file', re.DOTALL)


def reference(cases: Iterable[dict[str, object]]) -> list[tuple[str, object]]:
    """For each case ``{"text": submit text, "key": name[, "jobs": True]}``: ("ok", value)
    or ("error", HTCondor's message) or ("crash", description), or ("undecodable", None)
    when HTCondor's text is not UTF-8 (not comparable)."""
    pending = [json.dumps(c) for c in cases]
    results: list[tuple[str, object]] = []
    env = dict(os.environ, CONDOR_CONFIG="/dev/null")
    while len(results) < len(pending):
        todo = pending[len(results) :]
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD], input="\n".join(todo) + "\n",
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        results.extend((a[0], a[1]) for a in answers)
        if len(results) < len(pending):  # the child died on the next case
            found = _EXCEPT.search(proc.stderr)
            if found:
                results.append(("error", found.group(1)))
            else:
                results.append(("crash", f"status {proc.returncode}: {proc.stderr.strip()[-200:]}"))
    return results
