"""``condorsim drain``: condor_drain, for a machine of the pool at $CONDORSIM_HOME.

How this works
--------------
The tool finds the machine's startd in the collector (a slot ad whose ``Machine`` is the
name given: its ``MyAddress``) and sends it DRAIN_JOBS, or CANCEL_DRAIN_JOBS with
``-cancel``. The startd stops taking claims on the machine's slots (each advertises
``Draining`` and ``DrainReason``), ends the claims as asked -- ``-graceful`` (the
default) lets a running job retire up to MAXJOBRETIREMENTTIME, ``-quick`` vacates it,
``-fast`` kills it -- and puts every slot whose claim is gone in Drained/Idle.
``-resume-on-completion`` makes the slots Unclaimed again once all are drained;
``-cancel`` does it at once. ``-check EXPR`` must be true on every slot or nothing
drains. It prints condor_drain's lines: ``Sent request to drain the startd <addr> with
<name>. ...`` and ``Sent request to cancel draining on <name>``; a refusal is
``Attempt to send DRAIN_JOBS to startd <addr> failed`` and the startd's reason.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from condorsim import pool as poolmod
from condorsim.classad import ClassAdError, parse_expr
from condorsim.wire import messages as m

from .cliargs import ToolArgs, read_args
from .common import ToolError, query_collector, send_command

USAGE = """\
Usage: condorsim drain [OPTIONS] machine

OPTIONS:
-cancel           Stop draining.
-graceful         (the default) Honor MaxVacateTime and MaxJobRetirementTime.
-quick            Honor MaxVacateTime but not MaxJobRetirementTime.
-fast             Honor neither MaxVacateTime nor MaxJobRetirementTime.
-reason <text>    While draining, advertise <text> as the reason.
-resume-on-completion    When done draining, resume normal operation.
-request-id <id>  Specific request id to cancel (optional).
-check <expr>     Must be true for all slots to be drained or request is aborted.
"""


def parser() -> ToolArgs:
    t = ToolArgs("condorsim drain")
    flag: dict[str, Any] = {"action": "store_true"}
    t.option("help", 1, **flag)
    t.option("version", 1, **flag)
    t.option("cancel", 1, **flag)
    t.option("fast", 1, action="store_const", const="fast", dest="how")
    t.option("quick", 1, action="store_const", const="quick", dest="how")
    t.option("graceful", 1, action="store_const", const="graceful", dest="how")
    t.option("resume-on-completion", 1, action="store_const", const="resume",
             dest="completion")
    t.option("exit-on-completion", 2, action="store_const", const="exit", dest="completion")
    t.option("restart-on-completion", 4, action="store_const", const="restart",
             dest="completion")
    t.option("reconfig-on-completion", 3, action="store_const", const="reconfig",
             dest="completion")
    t.option("reason", 3, default="")
    t.option("request-id", 3, default="")
    t.option("check", 2, default="")
    t.option("start", 5, default="")
    return t


def main(argv: Sequence[str]) -> int:
    """Entry point of ``condorsim drain``."""
    args = read_args(parser(), argv, USAGE, "condorsim drain: ")
    if isinstance(args, int):
        return args
    if args.version:
        from .version import version_lines
        sys.stdout.write(version_lines())
        return 0
    if len(args.words) != 1:
        print("ERROR: must specify one target machine", file=sys.stderr)
        return 1
    if args.cancel and (args.check or args.completion or args.reason):
        print("ERROR: -check, -reason and the -on-completion options may not be used with "
              "-cancel", file=sys.stderr)
        return 1
    if args.request_id and not args.cancel:
        print("ERROR: -request-id may only be used with -cancel", file=sys.stderr)
        return 1
    if args.completion not in (None, "resume") or args.start:
        print("condorsim drain: only -resume-on-completion is supported by condorsim "
              "(not -exit/-restart/-reconfig-on-completion nor -start)", file=sys.stderr)
        return 1
    if args.check:
        try:
            parse_expr(args.check)
        except ClassAdError as e:
            print(f"ERROR: invalid -check expression: {e}", file=sys.stderr)
            return 1
    machine = args.words[0]
    try:
        address = _startd_of(machine)
    except (ToolError, poolmod.PoolNotRunning) as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1
    msg: m.DRAIN_JOBS | m.CANCEL_DRAIN_JOBS
    if args.cancel:
        msg = m.CANCEL_DRAIN_JOBS(machine=machine, request_id=args.request_id)
    else:
        msg = m.DRAIN_JOBS(machine=machine, how=args.how or "graceful",
                           reason=args.reason or "by command",
                           check=args.check, start="", on_completion=args.completion or "")
    try:
        reply = send_command(address, "startd", msg)
    except ToolError as e:
        reply = m.FAILED(reason=str(e))
    if not isinstance(reply, m.OK):
        reason = reply.reason if isinstance(reply, m.FAILED) else "no answer"
        print(f"Attempt to send {msg.command} to startd {address} failed\n{reason}",
              file=sys.stderr)
        return 1
    if args.cancel:
        print(f"Sent request to cancel draining on {machine}")
    else:
        print(f"Sent request to drain the startd {address} with {machine}. This only affects "
              "the single startd; any other startds running on the same host will not be "
              "drained.")
    return 0


def _startd_of(machine: str) -> str:
    quoted = machine.replace("\\", "\\\\").replace('"', '\\"')
    ads = query_collector(poolmod.pool_home(), m.QUERY_STARTD_ADS(
        constraint=f'Machine == "{quoted}"', projection=["MyAddress"]))
    for ad in ads:
        address = ad.evaluate("MyAddress")
        if isinstance(address, str):
            return address
    raise ToolError(f"unknown machine {machine} (no slot ad of it in the collector)")
