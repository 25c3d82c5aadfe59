"""The ``condorsim`` command: one subcommand per HTCondor tool, plus the simulator's own.

How this works
--------------
``condorsim <command> [args]`` looks the command up in :data:`COMMANDS` (an explicit table,
no attribute lookups) and hands it the rest of the arguments. Each command returns the exit
status. Pool commands find the pool through ``$CONDORSIM_HOME`` (see :mod:`condorsim.pool`).
A user error is a one-line message on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from condorsim import pool as poolmod


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: condorsim <command> [arguments]", "", "commands:"]
    for name, (_fn, summary) in COMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {summary}")
    lines.append("")
    lines.append("`condorsim <command> -help` describes a command's arguments.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help", "-help"):
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    entry = COMMANDS.get(name) or COMMANDS.get(name.removeprefix("condor_"))
    if entry is None:
        print(f"condorsim: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    try:
        return entry[0](rest)
    except poolmod.PoolNotRunning as e:
        print(f"condorsim {name}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `condorsim q | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
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


def _submit(argv: list[str]) -> int:
    if "-dry-run" in argv:
        # condor_submit -dry-run DEST [FILE] [-unused]: print the job ads, submit nothing;
        # DEST "-" is stdout.
        # The pool's configuration (or HTCondor's defaults) is what condor_submit reads.
        from condorsim.config import ConfigError
        from condorsim.submit.tool import dry_run, pool_config

        rest = [a for a in argv if a != "-unused"]
        toggle_unused = len(rest) != len(argv)
        i = rest.index("-dry-run")
        dest = rest[i + 1] if i + 1 < len(rest) else "-"
        del rest[i : i + 2]
        source = rest[0] if rest else "-"
        try:
            config = pool_config()
        except ConfigError as e:
            print(f"condorsim submit: {e}", file=sys.stderr)
            return 1
        if dest == "-":
            return dry_run(source, sys.stdout, config=config, toggle_unused=toggle_unused)
        with open(dest, "w", encoding="utf-8") as out:
            return dry_run(source, out, config=config, toggle_unused=toggle_unused)
    from condorsim.tools import jobs

    return jobs.COMMANDS["submit"][0](argv)


def _jobs_command(name: str) -> Callable[[list[str]], int]:
    def run(argv: list[str]) -> int:
        from condorsim.tools import jobs

        if name == "q" and any(a in ("-better-analyze", "-analyze") for a in argv):
            from condorsim.tools.analyze import main as analyze

            return analyze(argv)
        return jobs.COMMANDS[name][0](argv)

    return run


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
    if argv and argv[0] in ("-h", "-help", "--help"):
        print("usage: condorsim up\n\nStarts a local pool at $CONDORSIM_HOME (default "
              "~/.condorsim), writing a condor_config there on first use.")
        return 0
    from condorsim.config import Config, ConfigError
    from condorsim.tools.waiting import Waiting, awaited
    from daemons.master.logic import DaemonListError, daemon_plan

    home = poolmod.pool_home()
    config_path = poolmod.ensure_home(home)
    try:
        config = Config.load(config_path, subsystem="MASTER")
        plan = daemon_plan(config.get_list("DAEMON_LIST"))
        speed = config.get_float("SIM_SPEED", 1.0)
    except (ConfigError, DaemonListError) as e:
        print(f"condorsim up: {e}", file=sys.stderr)
        return 1
    pid = poolmod.master_pid(home)
    if pid is not None:
        print(f"condorsim up: a pool is already running at {home} (master pid {pid})")
        return 0
    log_dir = home / "log"
    for stale in log_dir.glob(".*_address"):
        stale.unlink()
    start = time.time()
    poolmod.write_clock(home, start, speed)
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
            start_new_session=True,
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
    return 0


def _down(argv: list[str]) -> int:
    """condorsim down: stop the local pool, leaving no process behind."""
    if argv and argv[0] in ("-h", "-help", "--help"):
        print("usage: condorsim down\n\nStops the pool at $CONDORSIM_HOME.")
        return 0
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
        from condorsim.wire.messages import DC_OFF_GRACEFUL

        send_command(poolmod.read_address(home, "master"), "master", DC_OFF_GRACEFUL())
    except (OSError, poolmod.PoolNotRunning):
        os.kill(pid, signal.SIGTERM)
    with Waiting("condorsim down") as waiting:
        def tick() -> None:
            pids = {**children, "master": pid}
            waiting.show(awaited(names, [n for n in names if not alive(pids[n])], "stop",
                                 "stopped"))

        if not _wait_gone(pid, 30, tick):
            os.kill(pid, signal.SIGTERM)
            if not _wait_gone(pid, 15, tick):
                os.kill(pid, signal.SIGKILL)
                _wait_gone(pid, 5)
    (home / "master.pid").unlink(missing_ok=True)
    for stale in (home / "log").glob(".*_address"):
        stale.unlink()
    print(f"condorsim: pool at {home} stopped")
    return 0


def _wait_gone(pid: int, seconds: float, tick: Callable[[], None] | None = None) -> bool:
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
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "up": (_up, "start a local pool at $CONDORSIM_HOME"),
    "down": (_down, "stop the local pool"),
    "status": (_status, "list collector ads, like condor_status"),
    "config_val": (_config_val, "show configuration values, like condor_config_val"),
    "classad_eval": (_classad_eval, "evaluate ClassAd expressions, like classad_eval"),
    "transform_ads": (_transform_ads, "transform ClassAds with rules, like condor_transform_ads"),
    "job_router_info": (_job_router_info, "show routes and route jobs offline, like condor_job_router_info"),
    "demo": (_demo, "the tour (make demo)"),
    "submit": (_submit, "submit jobs, like condor_submit (-dry-run - prints the job ads)"),
    "q": (_jobs_command("q"), "list the job queue, like condor_q"),
    "history": (_jobs_command("history"), "list jobs that left the queue, like condor_history"),
    "hold": (_jobs_command("hold"), "hold jobs, like condor_hold"),
    "release": (_jobs_command("release"), "release held jobs, like condor_release"),
    "rm": (_jobs_command("rm"), "remove jobs, like condor_rm"),
    "qedit": (_jobs_command("qedit"), "edit job attributes, like condor_qedit"),
    "suspend": (_jobs_command("suspend"), "suspend running jobs, like condor_suspend"),
    "continue": (_jobs_command("continue"), "continue suspended jobs, like condor_continue"),
    "vacate": (_jobs_command("vacate"), "vacate running jobs, like condor_vacate_job"),
    "router_q": (_router_q, "routed jobs, like condor_router_q (-S summarizes per route)"),
    "router_history": (_router_history, "routed jobs' history, like condor_router_history"),
    "replay": (_replay, "replay a scenario file and check its expectations"),
    "sweep": (_sweep, "replay every variant of a what-if sweep on Dask; tables, charts, a page"),
    "trace": (_trace, "one job's ClassAd flow from a run's message trace"),
    "report": (_report, "one HTML page showing a whole run (Gantt chart, flows, results)"),
}


if __name__ == "__main__":
    sys.exit(main())


