"""HTCondor's own macro expansion (``htcondor.Submit(text).expand(key)`` of 24.0) as a reference.

A macro function error makes HTCondor's submit code call EXCEPT, which ends the process
(status 4, the message on stderr), and some calls crash it. So the binding runs in a child
process that imports htcondor once and lives for the whole test run: it reads one JSON case
per line and forks a process for each case, which answers one JSON line or dies; the child
then answers for it with its status and what it wrote on stderr -- recorded as HTCondor's
error message, or as ``("crash", status, stderr)``. (A new Python importing htcondor after
each death took a minute and a half of the test run; a fork takes milliseconds.)
"""

from __future__ import annotations

import atexit
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable

_CHILD = r"""
import json, os, sys, tempfile, traceback, warnings
import htcondor
warnings.simplefilter("ignore")

def answer(case):
    sub = htcondor.Submit(case["text"])
    if case.get("jobs"):
        ad = list(sub.jobs())[0]
        return ["ok", ad.get(case["key"])]
    try:
        return ["ok", sub.expand(case["key"])]
    except RuntimeError as exc:  # the binding cannot return an empty expansion
        if "construction from null" not in str(exc):
            raise
        return ["ok", ""]
    except UnicodeDecodeError:  # HTCondor made bytes that are not UTF-8 ($INT(-3,%c))
        return ["undecodable", None]

for line in sys.stdin:
    case = json.loads(line)
    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the case's own process: its stdout and stderr go to err
            os.close(read_end)
            os.dup2(err.fileno(), 1)
            os.dup2(err.fileno(), 2)
            try:
                os.write(write_end, json.dumps(answer(case)).encode())
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            out = pipe.read()
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if out and status == 0:
            print(out.decode(), flush=True)
        else:
            err.seek(0)
            died = ["died", status, err.read().decode(errors="replace")]
            print(json.dumps(died), flush=True)
"""

_EXCEPT = re.compile(r'ERROR "(.*)" at line \d+ in file', re.DOTALL)


_server: subprocess.Popen[str] | None = None
"""The child, started at the first call and kept for the rest of the run."""


def _stop_server() -> None:
    if _server is not None:
        assert _server.stdin is not None
        _server.stdin.close()
        _server.wait(timeout=30)
        for stream in (_server.stdout, _server.stderr):
            if stream is not None:
                stream.close()


def _ask(lines: list[str]) -> list[list[object]]:
    global _server
    if _server is None:
        _server = subprocess.Popen(
            [sys.executable, "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=dict(os.environ, CONDOR_CONFIG="/dev/null"),
        )  # fmt: skip
        atexit.register(_stop_server)
    assert _server.stdin is not None and _server.stdout is not None
    answers = []
    for line in lines:  # one at a time: a case's answer is short, the pipes never fill
        _server.stdin.write(line + "\n")
        _server.stdin.flush()
        answer = _server.stdout.readline()
        if not answer:
            assert _server.stderr is not None
            raise AssertionError("the htcondor child died: " + _server.stderr.read()[-2000:])
        answers.append(json.loads(answer))
    return answers


def reference(cases: Iterable[dict[str, object]]) -> list[tuple[str, object]]:
    """For each case ``{"text": submit text, "key": name[, "jobs": True]}``: ("ok", value)
    or ("error", HTCondor's message) or ("crash", description), or ("undecodable", None)
    when HTCondor's text is not UTF-8 (not comparable)."""
    results: list[tuple[str, object]] = []
    for answer in _ask([json.dumps(c) for c in cases]):
        if answer[0] != "died":
            results.append((answer[0], answer[1]))
            continue
        _, status, stderr = answer
        found = _EXCEPT.search(str(stderr))
        if found:
            results.append(("error", found.group(1)))
        else:
            results.append(("crash", f"status {status}: {str(stderr).strip()[-200:]}"))
    return results
