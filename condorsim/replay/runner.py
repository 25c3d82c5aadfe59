"""``condorsim replay``: build a scenario's pool, run it on simulated time, check it.

How this works
--------------
:func:`replay` loads the scenario (a :class:`ScenarioError` is raised before anything
starts), makes the run directory (:mod:`.poolconfig`) and runs one trio program on the
scenario's clock. On virtual time this process hosts the pool's coordinator
(:class:`.instants.ReplayHost`, limit ``start + max`` or ``start + until``) and is one
participant of it, shared by two parties: the master (``daemons.master``, which starts
every daemon of DAEMON_LIST as an OS process and announces each to the coordinator) and
the scenario driver (:class:`.driver.Driver`, named ``replay`` in the trace). When the
timeline is done and ``until`` is reached (a duration, or ``"quiet"``: the queue is
empty), or the coordinator reaches its limit, the ``"end"`` expectations are checked
and the master stops every daemon. Nothing moves simulated time while that happens: the
process stays *busy* until the pool is down.
"""

from __future__ import annotations

import importlib
import json
import shutil
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from condorsim.config import Config
from condorsim.runtime.clock import VirtualClock, WallClock
from condorsim.runtime.daemon import DaemonContext, seeded_rng
from condorsim.runtime.logs import daemon_logger
from condorsim.runtime.network import Endpoint, TcpNetwork
from condorsim.runtime.participant import Participant
from condorsim.runtime.trace import Tracer
from condorsim.scenario import END, QUIET, Scenario, ScenarioError, load_scenario
from condorsim.scenario.checks import ExpectResult, results_json
from condorsim.security import Security

from .client import PoolClient, PoolUnreachable
from .driver import Driver
from .instants import Instants, ReplayCoordinator, ReplayHost
from .poolconfig import CONFIG_HEADER, make_run_dir
from .progress import Progress
from .runfacts import run_facts
from .scratch import scratch_dir
from .view import snapshot

RESULT_FILE = "result.json"  # in every kept run directory: what --json writes


@dataclass
class ReplayOutcome:
    """What a replay found. ``exit_code`` is 0 when every result passed, else 1."""

    scenario: Scenario
    results: list[ExpectResult]
    notes: list[str]
    run_dir: Path | None
    final_time: float
    finish_reason: str
    job_ads: list[Any] = field(default_factory=list)
    json: dict[str, Any] = field(default_factory=dict)
    stopped_at_max: bool = False  # until = "quiet" and the queue never emptied
    # on virtual time, what the clock's coordination cost: jumps, runs, holds (the counters
    # of condorsim.runtime.coordinator.Coordinator)
    coordination: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1


def replay(path_or_scenario: str | Path | Scenario, *, keep: Path | None = None,
           json_out: Path | None = None, explain: bool = False,
           progress: bool = False, final_job_ads: bool = True) -> ReplayOutcome:
    """Run a scenario and check its expectations.

    ``keep``: run in this directory and leave it (logs, trace, queue) for ``condorsim
    trace``; otherwise a temporary directory is removed afterwards. ``json_out``: write
    the results as JSON. ``explain``: keep the run directory until the caller has
    narrated it or written its report (the outcome's ``run_dir``; the caller removes it).
    A run directory that outlives the call gets ``result.json`` (:data:`RESULT_FILE`).
    ``progress``: a progress bar on stderr. ``final_job_ads=False``: the job ads are not
    fetched at the end (``job_ads`` and the JSON's jobs stay empty; a benchmark of a large
    queue does not measure a copy of every job ad in this process). Raises :class:`condorsim.scenario.ScenarioError` for a bad
    file before any daemon starts.
    """
    scenario = (path_or_scenario if isinstance(path_or_scenario, Scenario)
                else load_scenario(path_or_scenario))
    run_dir = _fresh_keep_dir(keep) if keep is not None else \
        Path(scratch_dir("condorsim-replay-"))
    try:
        outcome = _run(scenario, run_dir, progress=progress, final_job_ads=final_job_ads)
    finally:
        if keep is None and not explain:
            shutil.rmtree(run_dir, ignore_errors=True)
    outcome.run_dir = run_dir if keep is not None or explain else None
    outcome.json = results_json(scenario, outcome.results, outcome.job_ads)
    outcome.json["run"] = run_facts(outcome)
    if outcome.run_dir is not None:
        (run_dir / RESULT_FILE).write_text(json.dumps(outcome.json, indent=1) + "\n",
                                           encoding="utf-8")
    if json_out is not None:
        json_out.write_text(json.dumps(outcome.json, indent=2) + "\n", encoding="utf-8")
    return outcome


def _fresh_keep_dir(keep: Path) -> Path:
    """``--keep DIR``: a new or empty directory, or an earlier replay's (emptied first: a
    stale queue or user log would change the run). Anything else is refused."""
    run_dir = keep.resolve()
    if run_dir.exists() and not run_dir.is_dir():
        raise ScenarioError(f"--keep {keep}: not a directory")
    if run_dir.is_dir() and any(run_dir.iterdir()):
        config = run_dir / "condor_config"
        first = config.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0] \
            if config.is_file() else ""
        if not first.startswith(CONFIG_HEADER):
            raise ScenarioError(f"--keep {keep}: the directory is not empty and is not an "
                                "earlier replay's run directory; give a new one")
        shutil.rmtree(run_dir)
    return run_dir


def _run(scenario: Scenario, run_dir: Path, *, progress: bool,
         final_job_ads: bool = True) -> ReplayOutcome:
    config_path = make_run_dir(scenario, run_dir)
    (run_dir / "trace.jsonl").write_text("")
    virtual = scenario.clock == "virtual"
    clock: trio.abc.Clock = VirtualClock(scenario.start) if virtual else \
        WallClock(scenario.start, scenario.speed)
    stop_at = scenario.deadline if scenario.until == QUIET else \
        scenario.start + int(scenario.until)
    outcome = ReplayOutcome(scenario, [], [], run_dir, scenario.start, "")

    async def main() -> None:
        participant = Participant(clock) if isinstance(clock, VirtualClock) else None
        network = TcpNetwork()
        tracer = Tracer(run_dir / "trace.jsonl")
        log = daemon_logger("replay", run_dir / "log", tz=scenario.timezone)
        master_config = Config.load(config_path, subsystem="MASTER")
        # the replay's pool has its own key, in its run directory (the master and the driver
        # live in this process and hold it; the daemons read it)
        security = Security.for_daemon(master_config, run_dir, create=True)
        master_log = daemon_logger("master", run_dir / "log", tz=scenario.timezone)
        host: ReplayHost | None = None
        async with trio.open_nursery() as nursery:
            coordinator_address = None
            coordinator = None
            if isinstance(clock, VirtualClock):
                assert participant is not None
                coordinator = ReplayCoordinator(now=scenario.start, limit=stop_at)
                host = ReplayHost(coordinator, clock, participant, local_name="replay",
                                  log=log, key=security.key)
                coordinator_address = await nursery.start(
                    lambda task_status: host.run(network, task_status=task_status))
            master_mod = importlib.import_module("daemons.master.master")
            options = master_mod.ChildOptions(
                run_dir=run_dir, config_path=config_path,
                clock="virtual" if virtual else "wall", speed=scenario.speed,
                coordinator_address=coordinator_address, seed=scenario.seed,
                trace_path=run_dir / "trace.jsonl")
            master = master_mod.Master(options, coordinator)
            ctx = DaemonContext(
                name="master", config=master_config,
                endpoint=Endpoint(name="master", network=network, participant=participant,
                                  tracer=tracer, log=master_log, security=security),
                log=master_log,
                rng=seeded_rng(scenario.seed, "master"), run_dir=run_dir,
                participant=participant)
            master_scope = trio.CancelScope()
            master_done = trio.Event()

            async def run_master(task_status: trio.TaskStatus[str]) -> None:
                try:
                    with master_scope:
                        await master.run(ctx, task_status)
                finally:
                    master_done.set()

            master_address = await nursery.start(run_master)
            instants = Instants(participant, host)
            client = PoolClient(
                Endpoint(name="replay", network=network, participant=participant,
                         tracer=tracer, log=log, security=security), participant, master,
                instants=instants, log=log, start=scenario.start)
            driver = Driver(scenario, client, instants, run_dir, config_path,
                            master_address, log, background=nursery)
            meter = Progress(scenario, driver, enabled=progress, stop_at=stop_at)
            if progress:
                nursery.start_soon(meter.run, instants)

            with trio.CancelScope() as drive_scope:
                async with trio.open_nursery() as inner:
                    if host is not None:
                        inner.start_soon(_cancel_when, host.finished, drive_scope)
                    if await _pool_started(master, instants):
                        await driver.run_timeline()
                        if scenario.until == QUIET:
                            await driver.wait_quiet()
                        elif host is not None:
                            await host.finished.wait()
                        else:
                            await trio.sleep_until(stop_at)
                    inner.cancel_scope.cancel()
            if not master.all_up.is_set():
                failed = [name for name, child in master.children.items() if not child.up.is_set()]
                why = f"the pool did not start: {', '.join(failed)} failed to start " \
                      f"(see log/{failed[0] if failed else '<daemon>'}.stderr)"
                outcome.results.append(ExpectResult(False, why, "", entry="pool", at="0s"))
            with _busy(participant):
                client.frozen = True  # time stands still: a dead daemon stays dead
                outcome.final_time = trio.current_time()
                outcome.finish_reason = host.finish_reason if host is not None and \
                    host.finished.is_set() else "until reached"
                outcome.stopped_at_max = scenario.until == QUIET and \
                    outcome.finish_reason == "limit reached"
                at_end = [e for e in scenario.events_in_order() if e.at == END]
                if at_end:
                    await driver.check(at_end)
                try:
                    if final_job_ads:
                        final = await snapshot(client, [], scenario.timezone)
                        outcome.job_ads = final.all_job_ads()
                except PoolUnreachable as e:
                    outcome.notes.append(f"final job ads: {e}")
                meter.finish()
                await stop_pool(master)
                master_scope.cancel()
                await master_done.wait()
            if coordinator is not None:
                outcome.coordination = {"jumps": coordinator.jumps, "runs": coordinator.runs,
                                        "self_thaws": coordinator.self_thaws,
                                        "holds": coordinator.holds}
            tracer.close()
            _close_log(log)
            _close_log(master_log)
            nursery.cancel_scope.cancel()
        outcome.results += driver.results
        outcome.notes = outcome.notes + driver.notes

    trio.run(main, clock=clock)
    return outcome


async def stop_pool(master: Any) -> None:
    """End the run: every daemon the master started is killed (SIGKILL) and waited for; the
    master restarts none of them.

    The replay is over and simulated time stands still at its end: nothing may happen after
    it. A SIGTERM would start each daemon's shutdown -- a starter killing its jobs, a shadow
    writing evictions and exits stamped with the frozen time -- into the trace and the user
    logs, in whatever order the processes happen to exit (a replay that ran twice differed
    there). Every daemon has already written what it did (logs are flushed per record;
    job_queue.log per transaction), so nothing is lost."""
    master._stopping = True  # the master's own flag: do not restart what exits now
    procs = [child.process for child in master.children.values()
             if child.process is not None and child.process.returncode is None]
    # First freeze them all (SIGSTOP): none can see another one's death and act on it (a
    # shadow writing an eviction for its starter's broken connection), then kill them.
    for proc in procs:
        proc.send_signal(signal.SIGSTOP)
    for proc in procs:
        proc.kill()
    for proc in procs:
        await proc.wait()


def _close_log(log: Any) -> None:
    """Close the files a :func:`daemon_logger` writes to."""
    from condorsim.runtime.logs import close_daemon_logger

    close_daemon_logger(log)


def _busy(participant: Participant | None) -> Any:
    from contextlib import nullcontext
    return participant.busy() if participant is not None else nullcontext()


async def _pool_started(master: Any, instants: Instants) -> bool:
    """Wait for every daemon to start. The master starts them all at the first simulated
    instant, so a clock that moves first means one failed (and is being restarted)."""
    async with trio.open_nursery() as nursery:
        async def moved() -> None:
            await instants.wait_moved()
            nursery.cancel_scope.cancel()
        if instants.host is not None:
            nursery.start_soon(moved)
        await master.all_up.wait()
        nursery.cancel_scope.cancel()
    return bool(master.all_up.is_set())


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


def print_outcome(outcome: ReplayOutcome, stream: Any = None) -> None:
    """The PASS/FAIL lines and the summary (on stdout), then notes (on stderr)."""
    from condorsim.scenario.checks import format_results

    (stream or sys.stdout).write(format_results(outcome.results))
    for note in outcome.notes:
        sys.stderr.write(f"note: {note}\n")
