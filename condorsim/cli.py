"""The ``condorsim`` command: one subcommand per HTCondor tool, plus the simulator's own.

How this works
--------------
``condorsim <command> [args]`` looks the command up in :data:`COMMANDS` (an explicit table,
no attribute lookups; ``condor_q`` is ``q``) and hands it the rest of the arguments. Each
command returns the exit status. Pool commands find the pool through ``$CONDORSIM_HOME``
(see :mod:`condorsim.pool`). ``-help`` (or ``-h``, ``--help``) anywhere on a command line
describes the command and runs nothing: a command with a parser of its own prints its own
usage, the others the usage text of the table. ``condorsim --version`` is ``condorsim
version``. A user error is a one-line message on stderr and a non-zero exit, never a
traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from condorsim import pool as poolmod


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: condorsim <command> [arguments]", "", "commands:"]
    for name, command in COMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {command.summary}")
    lines.append("")
    lines.append("`condorsim <command> -help` describes a command's arguments; "
                 "docs/tools.md lists them all.")
    return "\n".join(lines)


HELP_WORDS = ("-h", "-help", "--help")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in (*HELP_WORDS, "help"):
        print(_usage())
        return 0
    if args[0] in ("--version", "-version"):
        args = ["version"]
    name, rest = args[0], args[1:]
    entry = COMMANDS.get(name) or COMMANDS.get(name.removeprefix("condor_"))
    if entry is None:
        print(f"condorsim: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    try:
        if any(a in HELP_WORDS for a in rest) and entry.help is not None:
            return _help(name, entry)
        return entry.run(rest)
    except poolmod.PoolNotRunning as e:
        print(f"condorsim {name}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `condorsim q | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _help(name: str, entry: Command) -> int:
    """``condorsim NAME -help``: the command's usage; nothing is run."""
    if entry.help == "argparse":
        try:
            return entry.run(["--help"])
        except SystemExit as e:
            return int(e.code or 0)
    print(entry.help)
    return 0


# -- commands that belong to modules of their own ------------------------------------------------
def _classad_eval(argv: list[str]) -> int:
    from condorsim.classad.tool import main as tool

    return tool(argv, now=poolmod.pool_time())


def _config_val(argv: list[str]) -> int:
    from condorsim.config.tool import main as tool

    return tool(argv)


def _status(argv: list[str]) -> int:
    from condorsim.tools.status import main as tool

    return tool(argv)


def _transform_ads(argv: list[str]) -> int:
    from condorsim.tools.transform_ads import main as tool

    return tool(argv)


def _job_router_info(argv: list[str]) -> int:
    from condorsim.tools.job_router_info import main as tool

    return tool(argv)


def _demo(argv: list[str]) -> int:
    from condorsim.tools.demo import main as tool

    return tool(argv)


def _jobs_command(name: str) -> Callable[[list[str]], int]:
    def run(argv: list[str]) -> int:
        from condorsim.tools import jobs

        return jobs.COMMANDS[name][0](argv)

    return run


def _jobs_help(name: str, tool: str) -> str:
    return (f"usage: condorsim {name} [-reason TEXT] [-constraint EXPR | -all | CLUSTER | "
            f"CLUSTER.PROC | USER ...]\n\nActs on the jobs named, as {tool} does.")


def _router_q(argv: list[str]) -> int:
    from condorsim.tools.router import router_q_main

    return router_q_main(argv)


def _router_history(argv: list[str]) -> int:
    from condorsim.tools.router import router_history_main

    return router_history_main(argv)


def _replay(argv: list[str]) -> int:
    from condorsim.tools.replay import main as tool

    return tool(argv)


def _sweep(argv: list[str]) -> int:
    from condorsim.tools.sweep import main as tool

    return tool(argv)


def _trace(argv: list[str]) -> int:
    from condorsim.tools.trace import main as tool

    return tool(argv)


def _report(argv: list[str]) -> int:
    from condorsim.tools.report import main as tool

    return tool(argv)


# -- the pool's life ----------------------------------------------------------------------------
def _up(argv: list[str]) -> int:
    """condorsim up: start the local pool and return once it is ready."""
    from condorsim.config import Config
    from condorsim.tools.waiting import StartFailures, Waiting, awaited
    from daemons.master.logic import daemon_plan

    home = poolmod.pool_home().resolve()
    config_path = poolmod.ensure_home(home)
    problem = check_pool_config(config_path)
    if problem is not None:
        print(f"condorsim up: {problem}", file=sys.stderr)
        return 2
    config = Config.load(config_path, subsystem="MASTER")
    plan = daemon_plan(config.get_list("DAEMON_LIST"))
    speed = config.get_float("SIM_SPEED", 1.0)
    pid = poolmod.master_pid(home)
    if pid is not None:
        print(f"condorsim up: a pool is already running at {home} (master pid {pid})")
        return 0
    log_dir = home / "log"
    for stale in log_dir.glob(".*_address"):
        stale.unlink()
    from condorsim.security import create_key, key_path

    # the pool key (mode 0600) the daemons prove they hold; kept across restarts
    create_key(key_path(config, home))
    start = time.time()
    poolmod.write_clock(home, start, speed)
    failures = StartFailures(log_dir)
    with open(log_dir / "master.stderr", "ab") as err:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "daemons.master", "--name", "master", "--start", repr(start),
                "--wall-origin", repr(start),
                "--run-dir", str(home), "--config", str(config_path), "--clock", "wall",
                "--speed", repr(speed), "--trace", str(home / "trace.jsonl"),
                "--address-file", str(poolmod.address_file(home, "master")),
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
            # in the pool's directory: `python -m daemons.X` looks in the working directory
            # first, and `up` run inside another checkout would start that checkout's daemons
            cwd=home, start_new_session=True,
        )
    (home / "master.pid").write_text(f"{proc.pid}\n")
    names = ["master", *(p.name for p in plan)]
    deadline = time.monotonic() + 60
    with Waiting("condorsim up") as waiting:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                waiting.show("the master exited")
                print(f"condorsim up: the master exited (status {proc.returncode}); see "
                      f"{log_dir / 'master.stderr'} and {log_dir / 'MasterLog'}", file=sys.stderr)
                return 1
            ready = [n for n in names if poolmod.address_file(home, n).exists()]
            if len(ready) == len(names):
                break
            failed = failures.first()
            if failed is not None:
                # the master would restart it again and again: say which and why, at once
                waiting.show(f"the {failed[0]} could not start")
                _stop_master(proc)
                (home / "master.pid").unlink(missing_ok=True)
                for stale in log_dir.glob(".*_address"):
                    stale.unlink()
                print(f"condorsim up: the {failed[0]} failed to start{failed[1]}\n"
                      f"condorsim up: the pool is stopped; see {log_dir / (failed[0] + '.stderr')}"
                      f" and {log_dir / 'MasterLog'}", file=sys.stderr)
                return 1
            waiting.show(awaited(names, ready, "start", "up"))
            time.sleep(0.05)
        else:
            missing = [n for n in names if not poolmod.address_file(home, n).exists()]
            print(f"condorsim up: the pool did not come up within 60 s (waiting for: "
                  f"{', '.join(missing)}); see {log_dir}", file=sys.stderr)
            return 1
    print(f"condorsim: pool running at {home} (master pid {proc.pid})")
    for n in names:
        print(f"  {n:<12} {poolmod.read_address(home, n)}")
    if "job_router" in names:
        _say_route_errors(config_path, log_dir)
    return 0


def check_pool_config(config_path: Path) -> str | None:
    """What ``condorsim up`` refuses before it starts anything (exit 2), or None: a
    configuration file that does not read, a DAEMON_LIST the master cannot start, or a knob
    the knob table types as an integer, a number or a boolean whose value the daemons could
    not read (they would refuse to start, one after the other). The message names the file
    and the line."""
    from condorsim.config import KNOBS, Config, ConfigError
    from daemons.master.logic import DaemonListError, daemon_plan

    try:
        config = Config.load(config_path, subsystem="MASTER")
        daemon_plan(config.get_list("DAEMON_LIST"))
        config.get_float("SIM_SPEED", 1.0)
        configs = {"MASTER": config}
        for name in sorted(config.names()):
            prefix, _, bare = name.rpartition(".")  # SCHEDD.SCHEDD_INTERVAL: as the schedd
            knob = KNOBS.get(bare)
            if knob is None or knob.type not in ("int", "float", "bool"):
                continue
            subsystem = prefix.upper() or "MASTER"
            if subsystem not in configs:
                configs[subsystem] = Config.load(config_path, subsystem=subsystem)
            view = configs[subsystem]
            {"int": view.get_int, "float": view.get_float, "bool": view.get_bool}[knob.type](bare)
    except (ConfigError, DaemonListError) as e:
        text = str(e)
        return text if str(config_path) in text else f"{config_path}: {text}"
    return None


def _say_route_errors(config_path: Path, log_dir: Path) -> None:
    """The job router starts with a routing table that does not load, as HTCondor's does
    (it logs the errors and routes nothing, or leaves the bad route out): say so at once."""
    from condorsim.config import Config, ConfigError
    from condorsim.routing import load_router_config

    try:
        router = load_router_config(Config.load(config_path, subsystem="JOB_ROUTER"))
    except ConfigError:
        return  # the master's own load said it already
    for error in router.errors:
        print(f"condorsim up: job_router: {error}", file=sys.stderr)
    if router.errors:
        what = "routes nothing" if not router.enabled or not router.routes else \
            "leaves those routes out"
        print(f"condorsim up: job_router: the router {what} (see {log_dir / 'JobRouterLog'})",
              file=sys.stderr)


def _stop_master(proc: subprocess.Popen[bytes]) -> None:
    """Stop a master ``up`` started (and with it every daemon it started)."""
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def _down(argv: list[str]) -> int:
    """condorsim down [-fast]: stop the local pool, leaving no process behind.

    The master is told DC_OFF_GRACEFUL (``-fast``: DC_OFF_FAST, as condor_off -fast); it
    stops its daemons within seconds (daemons/master). Should it not be gone after
    DOWN_WAIT seconds, it and every daemon it started get SIGKILL.
    """
    args = [a.lower().lstrip("-") for a in argv]
    unknown = [a for a, low in zip(argv, args, strict=True) if low not in ("fast", "graceful")]
    if unknown:
        print(f"condorsim down: unknown argument {unknown[0]!r}\n{_DOWN_HELP}", file=sys.stderr)
        return 2
    fast = "fast" in args
    home = poolmod.pool_home()
    pid = poolmod.master_pid(home)
    if pid is None:
        print(f"condorsim down: no pool is running at {home}", file=sys.stderr)
        return 1
    from condorsim.tools.waiting import Waiting, alive, awaited, daemon_pids

    children = daemon_pids(home)
    names = [*children, "master"]
    try:
        from condorsim.tools.common import send_command
        from condorsim.wire.messages import DC_OFF_FAST, DC_OFF_GRACEFUL

        reply = send_command(poolmod.read_address(home, "master"), "master",
                             DC_OFF_FAST() if fast else DC_OFF_GRACEFUL())
        if reply is not None and reply.command == "FAILED":  # not ours to stop (ADMINISTRATOR)
            print(f"condorsim down: {getattr(reply, 'reason', '')}", file=sys.stderr)
            return 1
    except (OSError, poolmod.PoolNotRunning):
        os.kill(pid, signal.SIGQUIT if fast else signal.SIGTERM)
    with Waiting("condorsim down") as waiting:
        def tick() -> None:
            pids = {**children, "master": pid}
            waiting.show(awaited(names, [n for n in names if not alive(pids[n])], "stop",
                                 "stopped"))

        if not _wait_gone(pid, DOWN_WAIT, tick):
            print(f"condorsim down: the master (pid {pid}) did not stop within {DOWN_WAIT:g} "
                  "s; killing the pool's processes", file=sys.stderr)
            for left in [pid, *children.values()]:
                if alive(left):
                    os.kill(left, signal.SIGKILL)
            _wait_gone(pid, 5)
    (home / "master.pid").unlink(missing_ok=True)
    for stale in (home / "log").glob(".*_address"):
        stale.unlink()
    print(f"condorsim: pool at {home} stopped")
    return 0


DOWN_WAIT = 10.0  # real seconds `condorsim down` waits for the master before SIGKILL


def _wait_gone(pid: int, seconds: float, tick: Callable[[], None] | None = None) -> bool:
    from condorsim.tools.waiting import alive

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if tick is not None:
            tick()
        try:
            waited, _ = os.waitpid(pid, os.WNOHANG)
            if waited == pid:
                return True
        except ChildProcessError:
            pass
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


@dataclass(frozen=True)
class Command:
    """One ``condorsim`` command: what runs it, its one-line summary, and how ``-help`` is
    answered: None (the command handles ``-help`` itself), ``"argparse"`` (its parser's
    ``--help``), or a usage text."""

    run: Callable[[list[str]], int]
    summary: str
    help: str | None = None


def _tool(module: str, function: str = "main") -> Callable[[list[str]], int]:
    """A command run by ``condorsim.tools.<module>.<function>`` (imported when used)."""
    def run(argv: list[str]) -> int:
        import importlib

        return int(getattr(importlib.import_module(f"condorsim.tools.{module}"), function)(argv))

    return run


_UP_HELP = ("usage: condorsim up\n\nStarts a local pool at $CONDORSIM_HOME (default "
            "~/.condorsim), writing a condor_config there on first use (the pool runs "
            "the jobs' real executables: SIM_EXECUTE_REAL_JOBS = true).")
_DOWN_HELP = ("usage: condorsim down [-fast]\n\nStops the pool at $CONDORSIM_HOME, leaving no "
              "process: gracefully (running jobs are vacated and run again after the next "
              "`condorsim up`), or with -fast at once, as condor_off -fast.")
_DEMO_HELP = ("usage: condorsim demo\n\nReplays the tour (scenarios/tour.toml) with its "
              "narrated timeline and writes its HTML report (make demo).")

COMMANDS: dict[str, Command] = {
    "up": Command(_up, "start a local pool at $CONDORSIM_HOME", _UP_HELP),
    "down": Command(_down, "stop the local pool", _DOWN_HELP),
    "status": Command(_status, "list collector ads, like condor_status"),
    "q": Command(_tool("q"), "list the job queue, like condor_q"),
    "history": Command(_tool("history"), "list jobs that left the queue, like condor_history"),
    "submit": Command(_tool("submit"), "submit jobs, like condor_submit"),
    "hold": Command(_jobs_command("hold"), "hold jobs, like condor_hold",
                    _jobs_help("hold", "condor_hold")),
    "release": Command(_jobs_command("release"), "release held jobs, like condor_release",
                       _jobs_help("release", "condor_release")),
    "rm": Command(_jobs_command("rm"), "remove jobs, like condor_rm", _jobs_help("rm", "condor_rm")),
    "qedit": Command(_jobs_command("qedit"), "edit job attributes, like condor_qedit",
                     "usage: condorsim qedit [-constraint EXPR | ID | OWNER ...] ATTR VALUE\n\n"
                     "Sets ATTR to VALUE in the jobs named, as condor_qedit does."),
    "suspend": Command(_jobs_command("suspend"), "suspend running jobs, like condor_suspend",
                       _jobs_help("suspend", "condor_suspend")),
    "continue": Command(_jobs_command("continue"), "continue suspended jobs, like condor_continue",
                        _jobs_help("continue", "condor_continue")),
    "vacate": Command(_jobs_command("vacate"), "vacate running jobs, like condor_vacate_job",
                      _jobs_help("vacate", "condor_vacate_job")),
    "wait": Command(_tool("wait"), "wait for jobs of a user log to finish, like condor_wait"),
    "userprio": Command(_tool("userprio"), "user priorities, like condor_userprio"),
    "reconfig": Command(_tool("daemonctl", "reconfig_main"), "reconfigure daemons, like condor_reconfig"),
    "off": Command(_tool("daemonctl", "off_main"), "stop daemons, like condor_off"),
    "on": Command(_tool("daemonctl", "on_main"), "start daemons, like condor_on"),
    "restart": Command(_tool("daemonctl", "restart_main"), "restart daemons, like condor_restart"),
    "drain": Command(_tool("drain"), "drain a machine of its jobs, like condor_drain"),
    "version": Command(_tool("version"), "the HTCondor version condorsim follows, like condor_version"),
    "config_val": Command(_config_val, "show configuration values, like condor_config_val"),
    "classad_eval": Command(_classad_eval, "evaluate ClassAd expressions, like classad_eval"),
    "transform_ads": Command(_transform_ads, "transform ClassAds with rules, like condor_transform_ads"),
    "job_router_info": Command(_job_router_info, "show routes and route jobs offline, like condor_job_router_info"),
    "router_q": Command(_router_q, "routed jobs, like condor_router_q (-S summarizes per route)"),
    "router_history": Command(_router_history, "routed jobs' history, like condor_router_history"),
    "replay": Command(_replay, "replay a scenario file and check its expectations", "argparse"),
    "sweep": Command(_sweep, "replay every variant of a what-if sweep on Dask; tables, charts, "
                     "a page", "argparse"),
    "trace": Command(_trace, "one job's ClassAd flow from a run's message trace", "argparse"),
    "report": Command(_report, "one HTML page showing a whole run (Gantt chart, flows, results)",
                      "argparse"),
    "demo": Command(_demo, "the tour (make demo)", _DEMO_HELP),
}


if __name__ == "__main__":
    sys.exit(main())


