"""``condorsim reconfig``, ``off``, ``on`` and ``restart``: condor_reconfig, condor_off,
condor_on and condor_restart for the pool at $CONDORSIM_HOME.

How this works
--------------
Each tool sends one command to the pool's master (its address file, as HTCondor's tools
find the local master) and prints condor_tool's line, ``Sent "<command>" command to
local master``:

* ``off``: ``Kill-All-Daemons`` (DAEMONS_OFF): the master stops every daemon and stays
  up; ``off -master``: the master too (DC_OFF_GRACEFUL); ``off -daemon NAME`` (or
  ``-schedd``, ``-startd``, ``-collector``, ``-negotiator``): ``Kill-Daemon`` for that
  daemon only (DAEMON_OFF), which stays off until ``on``;
* ``on``: ``Spawn-All-Daemons`` (DAEMONS_ON), or ``Spawn-Daemon`` for one daemon;
* ``restart``: ``Restart`` (RESTART): every daemon is stopped and started again; with
  ``-daemon NAME`` only that one (DAEMON_OFF then DAEMON_ON);
* ``reconfig``: ``Reconfig``: condorsim sends DC_RECONFIG to the master and to each
  daemon of the pool (HTCondor's master forwards it; the effect is the same).

``-fast``, ``-graceful`` and ``-peaceful`` are accepted (condorsim's daemons stop the
same way). A daemon the pool does not run is an error naming it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from condorsim import pool as poolmod
from condorsim.wire import Message
from condorsim.wire import messages as m

from .cliargs import ArgsError, ToolArgs
from .common import ToolError, send_command

_DAEMON_FLAGS = ("master", "schedd", "startd", "collector", "negotiator")


def _usage(tool: str, what: str) -> str:
    return f"""\
Usage: condorsim {tool} [general-options] [targets]
    {what}
    where [general-options] can be zero or more of:
\t-help\t\t\tgives this usage information
\t-version\t\tprints the version information
\t-graceful\t\tgracefully shutdown daemons (the default)
\t-fast\t\t\tquickly shutdown daemons
\t-peaceful\t\twait indefinitely for jobs to finish
    and where [targets] can be zero or more of:
\t-daemon <name>\t\tsend the command to the named daemon (schedd, startd, ...)
\t-master, -schedd, -startd, -collector, -negotiator
\t\t\t\tthe same for that daemon
"""


_WHAT = {
    "reconfig": "Has the daemons of the pool at $CONDORSIM_HOME read their configuration again.",
    "off": "Stops the daemons of the pool at $CONDORSIM_HOME (the master stays up unless -master).",
    "on": "Starts daemons stopped by condorsim off.",
    "restart": "Stops and starts again the daemons of the pool at $CONDORSIM_HOME.",
}


def _parser(tool: str) -> ToolArgs:
    t = ToolArgs(f"condorsim {tool}")
    flag: dict[str, Any] = {"action": "store_true"}
    t.option("help", 1, **flag)
    t.option("version", 1, **flag)
    t.option("graceful", 1, **flag)
    t.option("fast", 1, **flag)
    t.option("peaceful", 1, **flag)
    t.option("daemon", 1, action="append", default=[])
    for name in _DAEMON_FLAGS:
        t.option(name, 2 if name != "master" else 1, action="append_const", const=name,
                 dest="daemon")
    return t


def _run(tool: str, argv: Sequence[str]) -> int:
    try:
        args = _parser(tool).parse(argv)
    except ArgsError as e:
        print(f"condorsim {tool}: {e}", file=sys.stderr)
        sys.stdout.write(_usage(tool, _WHAT[tool]))
        return 1
    if args.help:
        sys.stdout.write(_usage(tool, _WHAT[tool]))
        return 0
    if args.version:
        from .version import version_lines
        sys.stdout.write(version_lines())
        return 0
    if args.words:
        print(f"condorsim {tool}: only the local pool can be named; unexpected "
              f"{' '.join(args.words)}", file=sys.stderr)
        return 1
    home = poolmod.pool_home()
    try:
        master = poolmod.read_address(home, "master")
        return _send(tool, home, master, list(args.daemon), args.fast)
    except (ToolError, poolmod.PoolNotRunning, OSError) as e:
        print(f"condorsim {tool}: {e}", file=sys.stderr)
        return 1


def _ask(address: str, peer: str, msg: Message) -> None:
    reply = send_command(address, peer, msg)
    if isinstance(reply, m.FAILED):
        raise ToolError(reply.reason)


def _send(tool: str, home: object, master: str, daemons: list[str], fast: bool) -> int:
    from pathlib import Path

    assert isinstance(home, Path)
    suffix = "-Fast" if fast else ""
    if tool == "reconfig":
        if not daemons:
            send_command(master, "master", m.DC_RECONFIG(), want_reply=False)
            for stale in sorted((home / "log").glob(".*_address")):
                name = stale.name[1:-len("_address")]
                if name != "master":
                    _reconfig(home, name)
            print('Sent "Reconfig" command to local master')
        for name in daemons:
            _reconfig(home, name)
            print(f'Sent "Reconfig" command to local {name}')
        return 0
    if not daemons:
        msg: Message = {"off": m.DAEMONS_OFF(), "on": m.DAEMONS_ON(), "restart": m.RESTART()}[tool]
        _ask(master, "master", msg)
        word = {"off": f"Kill-All-Daemons{suffix}", "on": "Spawn-All-Daemons",
                "restart": "Restart"}[tool]
        print(f'Sent "{word}" command to local master')
        return 0
    for name in daemons:
        if tool == "off" and name == "master":
            _ask(master, "master", m.DC_OFF_GRACEFUL())
            print(f'Sent "Kill-Daemon{suffix}" command for "master" to local master')
        elif tool == "off":
            _ask(master, "master", m.DAEMON_OFF(name=name))
            print(f'Sent "Kill-Daemon{suffix}" command for "{name}" to local master')
        elif tool == "on":
            _ask(master, "master", m.DAEMON_ON(name=name))
            print(f'Sent "Spawn-Daemon" command for "{name}" to local master')
        else:
            _ask(master, "master", m.DAEMON_OFF(name=name))
            _ask(master, "master", m.DAEMON_ON(name=name))
            print('Sent "Restart" command to local master')
    return 0


def _reconfig(home: object, name: str) -> None:
    from pathlib import Path

    assert isinstance(home, Path)
    address = poolmod.read_address(home, name)
    send_command(address, name, m.DC_RECONFIG(), want_reply=False)


def reconfig_main(argv: Sequence[str]) -> int:
    return _run("reconfig", argv)


def off_main(argv: Sequence[str]) -> int:
    return _run("off", argv)


def on_main(argv: Sequence[str]) -> int:
    return _run("on", argv)


def restart_main(argv: Sequence[str]) -> int:
    return _run("restart", argv)
