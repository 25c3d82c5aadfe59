"""The job tools: submit, q, history, hold, release, rm, qedit, suspend, continue, vacate.

How this works
--------------
Each ``*_main(argv)`` finds the schedd through the collector (its ad's MyAddress), sends
one message per request with :func:`~.common.send_command`, and prints what the HTCondor
tool prints. Formatting is in pure functions (``format_batch``, ``format_nobatch``,
``format_hold``, ``format_run``, ``format_history``, ``format_totals``) that take ``now``
and the time zone, so they are tested without a pool. Exit status: 0 on success, 1 when
anything failed, as HTCondor's tools do. ``COMMANDS`` is what condorsim/cli.py wires in.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from condorsim import pool as poolmod
from condorsim.classad import ClassAd, ClassAdError, EvalContext, parse_expr
from condorsim.jobs.codes import STATUS_LETTER
from condorsim.status.views import format_time, value_text
from condorsim.wire import Message
from condorsim.wire import messages as m

from .common import ToolError, query_collector, send_command


class UsageError(Exception):
    pass


# ------------------------------------------------------------------ formatting

def _v(ad: ClassAd, attr: str) -> object:
    return ad.evaluate(attr)


def _int(ad: ClassAd, attr: str, default: int = 0) -> int:
    v = ad.evaluate(attr)
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def _s(ad: ClassAd, attr: str, default: str = "") -> str:
    v = ad.evaluate(attr)
    return v if isinstance(v, str) else default


def _jid(ad: ClassAd) -> tuple[int, int]:
    return _int(ad, "ClusterId"), _int(ad, "ProcId")


def _date(t: int, tz: str) -> str:
    """condor_q's ``M/D HH:MM``."""
    d = datetime.fromtimestamp(t, ZoneInfo(tz))
    return f"{d.month}/{d.day:<2} {d.hour:02d}:{d.minute:02d}"


def _run_time(ad: ClassAd, now: int) -> int:
    wall = _int(ad, "RemoteWallClockTime")
    if _int(ad, "JobStatus") in (2, 7):
        start = _int(ad, "ShadowBday", _int(ad, "JobCurrentStartDate", now))
        wall += max(0, now - start)
    return wall


def _cmd(ad: ClassAd) -> str:
    cmd = os.path.basename(_s(ad, "Cmd"))
    args = _s(ad, "Args") or _s(ad, "Arguments")
    return f"{cmd} {args}".strip()


def _status_char(ad: ClassAd) -> str:
    return STATUS_LETTER.get(_int(ad, "JobStatus"), "?")


def server_time(ads: Sequence[ClassAd]) -> int:
    """The schedd's (simulated) time from the ServerTime it puts in every answer; the
    real clock when there is no ad."""
    for ad in ads:
        t = ad.evaluate("ServerTime")
        if isinstance(t, int) and not isinstance(t, bool):
            return t
    return poolmod.pool_time()


def header(name: str, address: str, now: int, tz: str) -> str:
    d = datetime.fromtimestamp(now, ZoneInfo(tz))
    return f"\n-- Schedd: {name} : {address} @ {d:%m/%d/%y %H:%M:%S}\n"


def _ids_text(jobs: list[tuple[int, int]]) -> str:
    if len(jobs) == 1:
        return f"{jobs[0][0]}.{jobs[0][1]}"
    first, last = jobs[0], jobs[-1]
    if first[0] == last[0]:
        return f"{first[0]}.{first[1]}-{last[1]}"
    return f"{first[0]}.{first[1]} ... {last[0]}.{last[1]}"


def format_batch(ads: Sequence[ClassAd], tz: str) -> str:
    """condor_q's default view: one line per owner and batch (JobBatchName or cluster)."""
    groups: dict[tuple[str, str], list[ClassAd]] = {}
    for ad in sorted(ads, key=_jid):
        batch = _s(ad, "JobBatchName") or f"ID: {_int(ad, 'ClusterId')}"
        groups.setdefault((_s(ad, "Owner"), batch), []).append(ad)
    held = any(_int(a, "JobStatus") == 5 for a in ads)
    cols = ["DONE", "RUN", "IDLE"] + (["HOLD"] if held else []) + ["TOTAL"]
    out = f"{'OWNER':<5} {'BATCH_NAME':<10} {'SUBMITTED':>10} " + " ".join(
        f"{c:>6}" for c in cols) + " JOB_IDS\n"
    for (owner, batch), members in groups.items():
        counts = {"DONE": 0, "RUN": 0, "IDLE": 0, "HOLD": 0}
        for ad in members:
            st = _int(ad, "JobStatus")
            key = {1: "IDLE", 2: "RUN", 4: "DONE", 5: "HOLD", 7: "RUN"}.get(st)
            if key:
                counts[key] += 1
        cells = [str(counts[c]) if counts[c] else "_" for c in cols[:-1]] + [str(len(members))]
        submitted = _date(min(_int(a, "QDate") for a in members), tz)
        out += (f"{owner:<5} {batch:<10} {submitted:>10} " + " ".join(f"{c:>6}" for c in cells)
                + f" {_ids_text([_jid(a) for a in members])}\n")
    return out


def format_nobatch(ads: Sequence[ClassAd], now: int, tz: str) -> str:
    out = " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n"
    for ad in sorted(ads, key=_jid):
        c, p = _jid(ad)
        size = _int(ad, "ImageSize") / 1024.0
        out += (f"{c:>4}.{p:<3} {_s(ad, 'Owner'):<14} {_date(_int(ad, 'QDate'), tz):>11} "
                f"{format_time(_run_time(ad, now)):>12} {_status_char(ad):<2} "
                f"{_int(ad, 'JobPrio'):<3} {size:<4.1f} {_cmd(ad)}\n")
    return out


def format_hold(ads: Sequence[ClassAd], tz: str) -> str:
    out = " ID      OWNER          HELD_SINCE  HOLD_REASON\n"
    for ad in sorted(ads, key=_jid):
        c, p = _jid(ad)
        out += (f"{c:>4}.{p:<3} {_s(ad, 'Owner'):<14} "
                f"{_date(_int(ad, 'EnteredCurrentStatus'), tz):>11} {_s(ad, 'HoldReason')}\n")
    return out


def format_run(ads: Sequence[ClassAd], now: int, tz: str) -> str:
    out = " ID      OWNER            SUBMITTED     RUN_TIME HOST(S)\n"
    for ad in sorted(ads, key=_jid):
        c, p = _jid(ad)
        out += (f"{c:>4}.{p:<3} {_s(ad, 'Owner'):<14} {_date(_int(ad, 'QDate'), tz):>11} "
                f"{format_time(_run_time(ad, now)):>12} {_s(ad, 'RemoteHost')}\n")
    return out


def _totals_line(label: str, ads: Sequence[ClassAd]) -> str:
    n = {k: 0 for k in range(1, 8)}
    for ad in ads:
        n[_int(ad, "JobStatus")] = n.get(_int(ad, "JobStatus"), 0) + 1
    return (f"Total for {label}: {len(ads)} jobs; {n[4]} completed, {n[3]} removed, "
            f"{n[1]} idle, {n[2]} running, {n[5]} held, {n[7]} suspended \n")


def format_totals(shown: Sequence[ClassAd], all_ads: Sequence[ClassAd], user: str) -> str:
    """condor_q's summary: the query, the user's jobs, every user's."""
    mine = [a for a in all_ads if _s(a, "Owner") == user]
    return ("\n" + _totals_line("query", shown) + _totals_line(user, mine)
            + _totals_line("all users", all_ads))


def format_long(ads: Sequence[ClassAd]) -> str:
    return "\n".join(ad.to_long() for ad in ads) + ("\n" if ads else "")


def format_af(ads: Sequence[ClassAd], attrs: Sequence[str], now: int | None = None) -> str:
    """condor_q/condor_history -af: one line per ad; ``time()`` is the schedd's time of the
    answer (ServerTime), else ``now`` (the pool's time)."""
    out = ""
    default = poolmod.pool_time() if now is None else now
    for ad in ads:
        server = ad.evaluate("ServerTime")
        ctx = EvalContext(now=server if type(server) is int else default)
        cells = []
        for attr in attrs:
            try:
                cells.append(value_text(parse_expr(attr).evaluate(my=ad, ctx=ctx)))
            except ClassAdError:
                cells.append("undefined")
        out += " ".join(cells) + "\n"
    return out


def format_history(ads: Sequence[ClassAd], tz: str) -> str:
    out = " ID     OWNER          SUBMITTED   RUN_TIME     ST  COMPLETED   CMD\n"
    for ad in ads:
        c, p = _jid(ad)
        done = _int(ad, "CompletionDate")
        completed = _date(done, tz) if done > 0 else "???"
        out += (f"{c:>4}.{p:<3} {_s(ad, 'Owner'):<14} {_date(_int(ad, 'QDate'), tz):>11} "
                f"{format_time(_int(ad, 'RemoteWallClockTime')):>12} {_status_char(ad):<3} "
                f"{completed:>11} {_cmd(ad)}\n")
    return out


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


def submit_main(argv: list[str]) -> int:
    """condor_submit FILE [-unused] (``-dry-run -`` shows the ads instead).

    The description is built and checked here first, as condor_submit does (a missing
    executable, a bad command... are refused before the schedd sees them; warnings are
    printed), then sent to the schedd, which queues it.
    """
    def body() -> int:
        from condorsim.config import ConfigError
        from condorsim.submit.tool import dry_run, pool_config, prepare
        toggle_unused = "-unused" in argv
        args = [a for a in argv if a != "-unused"]
        try:
            config = pool_config()  # what the schedd builds the jobs with, too
        except ConfigError as e:
            raise ToolError(str(e)) from None
        if "-dry-run" in args or "-dry" in args:
            files = [a for a in args if not a.startswith("-") or a == "-"]
            path = next((a for a in files if a != "-"), None) if len(files) > 1 else None
            if path is None:
                raise UsageError("usage: submit FILE -dry-run -")
            return dry_run(path, sys.stdout, config=config, toggle_unused=toggle_unused)
        files = [a for a in args if not a.startswith("-")]
        if len(files) != 1:
            raise UsageError("usage: submit FILE")
        prepared = prepare(files[0], err=sys.stderr, config=config, toggle_unused=toggle_unused)
        if prepared is None:
            return 1
        print("Submitting job(s)", end="")
        _, _, reply = _ask(m.SUBMIT_JOBS(owner=getpass.getuser(), text=prepared.text,
                                         iwd=os.getcwd(), source=files[0]))
        if isinstance(reply, m.SUBMIT_RESULT):
            print("." * reply.procs)
            print(f"{reply.procs} job(s) submitted to cluster {reply.cluster}.")
            return 0
        print()
        reason = reply.reason if isinstance(reply, m.FAILED) else "no answer"
        print(f"ERROR: {reason}", file=sys.stderr)
        return 1
    return _run("condorsim submit", body)


def q_main(argv: list[str]) -> int:
    """condor_q."""
    def body() -> int:
        rest: list[str] = []
        mode, af, everyone = "batch", [], False
        i = 0
        while i < len(argv):
            a = argv[i]
            if a in ("-nobatch", "-l", "-long", "-hold", "-run", "-idle", "-batch"):
                mode = {"-long": "-l"}.get(a, a)
            elif a in ("-af", "-autoformat"):
                mode, af = "-af", argv[i + 1:]
                break
            elif a in ("-allusers", "-all"):
                everyone = True
            else:
                rest.append(a)
            i += 1
        ids, constraint = selection(rest)
        parts = [p for p in (constraint, _id_constraint(ids)) if p]
        if not parts and not everyone:  # condor_q shows only your own jobs by default
            parts.append(f'Owner == "{getpass.getuser()}"')
        if mode == "-hold":
            parts.append("JobStatus == 5")
        elif mode == "-run":
            parts.append("(JobStatus == 2 || JobStatus == 7)")
        elif mode == "-idle":
            parts.append("JobStatus == 1")
        full = " && ".join(f"({p})" for p in parts)
        name, addr, reply = _ask(m.QUERY_JOB_ADS(constraint=full, projection=[]))
        if not isinstance(reply, m.QUERY_RESULT):
            raise ToolError(reply.reason if isinstance(reply, m.FAILED) else "no answer")
        ads = reply.ads
        tz = os.environ.get("TZ") or "UTC"
        now = server_time(ads)
        if mode == "-l":
            sys.stdout.write(format_long(ads))
            return 0
        if mode == "-af":
            sys.stdout.write(format_af(ads, af))
            return 0
        _, _, every = _ask(m.QUERY_JOB_ADS(constraint="", projection=[]))
        all_ads = every.ads if isinstance(every, m.QUERY_RESULT) else ads
        now = server_time(all_ads) if not ads else now
        if mode == "-hold":
            view = format_hold(ads, tz)
        elif mode == "-run":
            view = format_run(ads, now, tz)
        elif mode in ("-nobatch", "-idle"):
            view = format_nobatch(ads, now, tz)
        else:
            view = format_batch(ads, tz)
        sys.stdout.write(header(name, addr, now, tz) + view
                         + format_totals(ads, all_ads, getpass.getuser()) + "\n")
        return 0
    return _run("condorsim q", body)


def history_main(argv: list[str]) -> int:
    """condor_history."""
    def body() -> int:
        mode, af, limit, rest = "", [], 0, []
        i = 0
        while i < len(argv):
            a = argv[i]
            if a in ("-l", "-long"):
                mode = "-l"
            elif a in ("-match", "-limit"):
                limit = int(argv[i + 1]) if i + 1 < len(argv) and argv[i + 1].isdigit() else 0
                i += 1
            elif a in ("-af", "-autoformat"):
                mode, af = "-af", argv[i + 1:]
                break
            else:
                rest.append(a)
            i += 1
        ids, constraint = selection(rest)
        full = " && ".join(f"({p})" for p in (constraint, _id_constraint(ids)) if p)
        _, _, reply = _ask(m.QUERY_HISTORY(constraint=full, projection=[], limit=limit))
        if not isinstance(reply, m.QUERY_RESULT):
            raise ToolError(reply.reason if isinstance(reply, m.FAILED) else "no answer")
        tz = os.environ.get("TZ") or "UTC"
        if mode == "-l":
            sys.stdout.write(format_long(reply.ads))
        elif mode == "-af":
            sys.stdout.write(format_af(reply.ads, af))
        else:
            sys.stdout.write(format_history(reply.ads, tz))
        return 0
    return _run("condorsim history", body)


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
        user, past, status = getpass.getuser(), _PAST[action], 0
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
                                   owner=getpass.getuser()))
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
    "submit": (submit_main, "submit jobs from a submit description (condor_submit)"),
    "q": (q_main, "show the job queue (condor_q)"),
    "history": (history_main, "show jobs that left the queue (condor_history)"),
    "hold": (_action("hold", "hold"), "put jobs on hold (condor_hold)"),
    "release": (_action("release", "release"), "release held jobs (condor_release)"),
    "rm": (_action("rm", "remove"), "remove jobs (condor_rm)"),
    "qedit": (qedit_main, "change a job attribute (condor_qedit)"),
    "suspend": (_action("suspend", "suspend"), "suspend running jobs (condor_suspend)"),
    "continue": (_action("continue", "continue"), "continue suspended jobs (condor_continue)"),
    "vacate": (_action("vacate", "vacate"), "vacate running jobs (condor_vacate_job)"),
}
