"""The job tools that act on the queue: submit, hold, release, rm, qedit, suspend,
continue, vacate (condor_q is q.py, condor_history history.py).

How this works
--------------
Each ``*_main(argv)`` finds the schedd through the collector (its ad's MyAddress), sends
one message per request with :func:`~.common.send_command`, and prints what the HTCondor
tool prints. Exit status: 0 on success, 1 when anything failed, as HTCondor's tools do.
``COMMANDS`` is what condorsim/cli.py wires in.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from condorsim import pool as poolmod
from condorsim.classad import ClassAd, ClassAdError, parse_expr
from condorsim.wire import Message
from condorsim.wire import messages as m

from .common import ToolError, query_collector, send_command


class UsageError(Exception):
    pass


def _s(ad: ClassAd, attr: str, default: str = "") -> str:
    v = ad.evaluate(attr)
    return v if isinstance(v, str) else default


# ------------------------------------------------------------------ arguments

def selection(args: Sequence[str]) -> tuple[list[str], str]:
    """Job ids and a constraint from tool arguments: ids, owners, -constraint EXPR."""
    ids: list[str] = []
    parts: list[str] = []
    owners: list[str] = []
    it = iter(args)
    for arg in it:
        if arg in ("-constraint", "-const"):
            expr = next(it, None)
            if expr is None:
                raise UsageError("-constraint needs an expression")
            parts.append(f"({expr})")
        elif arg[:1].isdigit():
            ids.append(arg)
        elif arg.startswith("-"):
            raise UsageError(f"unknown option {arg}")
        else:
            owners.append(arg)
    if owners:
        parts.append("(" + " || ".join(f'Owner == "{o}"' for o in owners) + ")")
    for text in parts:
        try:
            parse_expr(text)
        except ClassAdError as e:
            raise UsageError(f"bad constraint {text}: {e}") from None
    return ids, " && ".join(parts)


def _id_constraint(ids: Sequence[str]) -> str:
    terms = []
    for text in ids:
        c, _, p = text.partition(".")
        terms.append(f"(ClusterId == {c} && ProcId == {p})" if p else f"ClusterId == {c}")
    return " || ".join(terms)


# ------------------------------------------------------------------ talking

def find_schedd() -> tuple[str, str]:
    """(Name, MyAddress) of the pool's schedd."""
    ads = query_collector(poolmod.pool_home(), m.QUERY_SCHEDD_ADS(constraint="", projection=[]))
    for ad in ads:
        addr = _s(ad, "MyAddress")
        if addr:
            return _s(ad, "Name", "schedd"), addr
    raise ToolError("no schedd in the pool (the collector has no Scheduler ad)")


def _ask(msg: Message) -> tuple[str, str, Message | None]:
    name, addr = find_schedd()
    return name, addr, send_command(addr, "schedd", msg)


def _run(tool: str, body: Callable[[], int]) -> int:
    try:
        return body()
    except UsageError as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return 1
    except (ToolError, poolmod.PoolNotRunning) as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return 1


_PAST = {"hold": "held", "release": "released", "remove": "marked for removal",
         "suspend": "suspended", "continue": "continued", "vacate": "vacated"}


def _act_main(tool: str, action: str, argv: list[str]) -> int:
    """condor_hold / release / rm / suspend / continue / vacate_job, with their messages."""
    def body() -> int:
        reason = ""
        procs: list[str] = []
        targets: list[tuple[str, str]] = []  # (constraint, how condor_rm names it)
        i = 0
        while i < len(argv):
            a = argv[i]
            if a == "-reason" and i + 1 < len(argv):
                reason = argv[i + 1]
                i += 1
            elif a in ("-constraint", "-const") and i + 1 < len(argv):
                expr = argv[i + 1]
                selection(["-constraint", expr])  # checks the expression
                targets.append((expr, f" matching constraint ({expr})"))
                i += 1
            elif a == "-all":
                targets.append(("ClusterId >= 0", ""))
            elif a.startswith("-"):
                raise UsageError(f"Unrecognized option: {a}")
            elif "." in a:
                selection([a])
                procs.append(a)
            elif a.isdigit():
                targets.append((f"ClusterId == {a}", f" in cluster {a}"))
            else:
                targets.append((f'Owner == "{a}"', f' of user "{a}"'))
            i += 1
        if not procs and not targets:
            raise UsageError("You did not specify any jobs")
        user, past, status = "", _PAST[action], 0  # "": the user we authenticated as
        word = {"remove": "remove"}.get(action, action)
        if procs:
            _, _, reply = _ask(m.ACT_ON_JOBS(action=action, ids=procs, constraint="",
                                             reason=reason, owner=user))
            if not isinstance(reply, m.ACT_RESULT):
                raise ToolError(reply.reason if isinstance(reply, m.FAILED) else "no answer")
            for jid in reply.done:
                print(f"Job {jid} {past}")
            for error in reply.errors:
                print(error, file=sys.stderr)
            status |= 1 if reply.errors else 0
        for constraint, named in targets:
            _, _, reply = _ask(m.ACT_ON_JOBS(action=action, ids=[], constraint=constraint,
                                             reason=reason, owner=user))
            ok = isinstance(reply, m.ACT_RESULT) and bool(reply.done) and not reply.errors
            if ok:
                print(f"All jobs{named} have been {past}")
            else:
                print(f"Couldn't find/{word} all jobs{named}", file=sys.stderr)
                status = 1
        return status
    return _run(tool, body)


def qedit_main(argv: list[str]) -> int:
    """condor_qedit ID|-constraint EXPR ATTR VALUE."""
    def body() -> int:
        if len(argv) < 3:
            raise UsageError("usage: qedit ID|OWNER|-constraint EXPR ATTR VALUE")
        attr, value = argv[-2], argv[-1]
        ids, constraint = selection(argv[:-2])
        _, _, reply = _ask(m.QEDIT(ids=ids, constraint=constraint, attr=attr, value=value,
                                   owner=""))
        if isinstance(reply, m.ACT_RESULT) and reply.done:
            print(f'Set attribute "{attr}" for {len(reply.done)} matching jobs.')
            return 0 if not reply.errors else 1
        reason = reply.reason if isinstance(reply, m.FAILED) else "; ".join(
            reply.errors if isinstance(reply, m.ACT_RESULT) else ["no answer"])
        print(f"Failed to set attribute \"{attr}\": {reason}", file=sys.stderr)
        return 1
    return _run("condorsim qedit", body)


def _action(tool: str, action: str) -> Callable[[list[str]], int]:
    return lambda argv: _act_main(f"condorsim {tool}", action, argv)


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "hold": (_action("hold", "hold"), "put jobs on hold (condor_hold)"),
    "release": (_action("release", "release"), "release held jobs (condor_release)"),
    "rm": (_action("rm", "remove"), "remove jobs (condor_rm)"),
    "qedit": (qedit_main, "change a job attribute (condor_qedit)"),
    "suspend": (_action("suspend", "suspend"), "suspend running jobs (condor_suspend)"),
    "continue": (_action("continue", "continue"), "continue suspended jobs (condor_continue)"),
    "vacate": (_action("vacate", "vacate"), "vacate running jobs (condor_vacate_job)"),
}
