"""Test-wide settings: HTCondor's bindings without a pool, a watchdog against hangs, no
hypothesis database, and a check that the tests leave no file behind in the checkout; the
library's scenarios replayed once per run for every test that reads them.

The run is shared by two pytest-xdist workers (pyproject.toml's addopts; docs/performance.md):
what is made once per run -- the bytecode, the zygote, the directory of the library's
replays, the look at the checkout before and after -- is made by the controller, the
process that starts the workers, and the workers inherit or are given it."""

from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _library_runs import REPLAY_ZYGOTE_ENV, LibraryRuns

# hypothesis keeps caches (unicode tables) in a directory of its own: not in the checkout
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY",
                      os.path.join(tempfile.gettempdir(), "condorsim-hypothesis"))
from hypothesis import settings

# examples are not kept between runs: a run writes nothing into the checkout
settings.register_profile("condorsim", database=None)
settings.load_profile("condorsim")
CHECKOUT = Path(__file__).resolve().parents[1]

# The reference bindings (htcondor, classad2) look for a condor_config at import; there is none.
os.environ.setdefault("CONDOR_CONFIG", "/dev/null")

WATCHDOG_SECONDS = 240
"""No single test may take longer: a hang prints every thread's stack and ends the process --
the run, or a pytest-xdist worker, which the controller reports as crashed while running
that test (the run goes on in a new worker, and fails)."""


def pytest_configure(config: pytest.Config) -> None:
    # While a test runs, pytest captures its stderr (file descriptor 2) into a file of its
    # own, and what is written there as the process ends is lost with it: the watchdog writes
    # to a copy of the terminal's stderr, taken here (pytest captures nothing meanwhile).
    config.stash[_TERMINAL] = os.fdopen(os.dup(sys.stderr.fileno()), "w")


def pytest_unconfigure(config: pytest.Config) -> None:
    terminal = config.stash.get(_TERMINAL, None)
    if terminal is not None:
        terminal.close()


@pytest.fixture(autouse=True)
def _watchdog(request: pytest.FixtureRequest) -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True,
                                      file=request.config.stash[_TERMINAL])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def _left_in_checkout() -> set[str] | None:
    """Untracked, ignored and changed paths of the checkout (git's view), __pycache__ aside:
    a test that writes over a tracked file (a user log of the same name) is caught too."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--ignored=matching"],
            cwd=CHECKOUT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return {line[3:] for line in done.stdout.splitlines()
            if "__pycache__" not in line}


def _compile_the_project() -> None:
    """Byte-compile condorsim and daemons once, when Python is told not to write bytecode
    (PYTHONDONTWRITEBYTECODE): every daemon process of a pool test (ten per replay, over a
    thousand in a run) would otherwise compile the project's sources again (the two replays
    of tests/replay/test_determinism.py: 16.0 s of CPU without, 13.3 s with).
    The .pyc files go in __pycache__, where Python itself puts them (ignored by git and by
    the check below); an up-to-date tree is only checked, in a few milliseconds."""
    if not sys.flags.dont_write_bytecode:
        return  # each process writes what it compiles, as usual
    import compileall
    for package in ("condorsim", "daemons"):
        compileall.compile_dir(CHECKOUT / package, quiet=1)
    from condorsim.config._knobs import write_table_cache

    write_table_cache()  # the knob table's rows, kept beside the bytecode


def _is_worker(config: pytest.Config) -> bool:
    """A pytest-xdist worker (the controller, or a run without workers, is not one)."""
    return hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _is_worker(session.config):
        return  # the controller did it all before starting this worker
    session.config.stash[_BEFORE] = _left_in_checkout()
    _compile_the_project()
    _share_a_zygote(session)  # its socket is in the environment the workers inherit
    session.config.stash[_LIBRARY] = tempfile.mkdtemp(prefix="condorsim-scenarios-")


def _share_a_zygote(session: pytest.Session) -> None:
    """One zygote (condorsim/runtime/zygote.py) for the whole session: every master of
    this process and of its `condorsim up` / `condorsim replay` subprocesses forks its
    daemons from it instead of importing them in a zygote of its own. A second one forks
    the library's `condorsim replay` processes (tests/_library_runs.py) with the replay's
    modules already imported (about 0.5 CPU s of each of the hundred-odd replays)."""
    import socket

    from condorsim.runtime.zygote import SHARED_ENV, Zygote
    from daemons.master.logic import KNOWN_DAEMONS

    if os.environ.get(SHARED_ENV):
        return
    where = tempfile.mkdtemp(prefix="condorsim-zygote-")  # mode 0700: only this user
    daemons = sorted({module for _, module in KNOWN_DAEMONS.values()})
    zygotes = []
    for name, modules in (("socket", daemons), ("replay-socket", list(REPLAY_MODULES))):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(os.path.join(where, name))
        listener.listen(64)
        try:
            zygotes.append(Zygote(sys.executable, dict(os.environ), str(CHECKOUT), modules,
                                  listener))
        finally:
            listener.close()
    session.config.stash[_ZYGOTE] = (zygotes, where)
    os.environ[SHARED_ENV] = os.path.join(where, "socket")
    os.environ[REPLAY_ZYGOTE_ENV] = os.path.join(where, "replay-socket")


REPLAY_MODULES = ("condorsim.pool", "condorsim.tools.replay", "condorsim.replay.runner",
                  "condorsim.replay.explain")
"""What `python -m condorsim.cli replay` imports before it replays (never condorsim.cli
itself, which the fork runs as ``__main__``)."""


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """A pytest-xdist worker about to start (in the controller): where the library's
    replays of this run are kept."""
    node.workerinput[_LIBRARY_INPUT] = node.config.stash[_LIBRARY]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _is_worker(session.config):
        from condorsim.runtime.zygote import close_all

        close_all()  # its connections to the controller's zygote (left open: ResourceWarning)
        # A worker's view of the checkout is no measure: the other worker may be in the
        # middle of a test. The controller looks once every worker is done.
        return
    library = session.config.stash.get(_LIBRARY, None)
    if library is not None:
        import shutil

        shutil.rmtree(library, ignore_errors=True)
    shared = session.config.stash.get(_ZYGOTE, None)
    if shared is not None:
        import shutil

        from condorsim.runtime.zygote import SHARED_ENV, close_all

        os.environ.pop(SHARED_ENV, None)
        os.environ.pop(REPLAY_ZYGOTE_ENV, None)
        close_all()  # this process's connections to it
        for zygote in shared[0]:
            zygote.close()
        shutil.rmtree(shared[1], ignore_errors=True)
    before = session.config.stash.get(_BEFORE, None)
    after = _left_in_checkout()
    if before is None or after is None:
        return
    new = sorted(after - before)
    if new:
        sys.stderr.write("\nThe tests left files in the checkout: " + ", ".join(new) + "\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_BEFORE = pytest.StashKey[set[str] | None]()
_ZYGOTE = pytest.StashKey[tuple[list[Any], str]]()
_LIBRARY = pytest.StashKey[str]()
_TERMINAL = pytest.StashKey[Any]()
_DONT_WRITE: bool | None = None  # Python's own setting, while a process collects
_LIBRARY_INPUT = "condorsim_library_runs"


@pytest.fixture(scope="session")
def library_runs(request: pytest.FixtureRequest) -> LibraryRuns:
    """The library's replays of this run: one directory for the controller and its
    workers, removed by the controller as the run ends."""
    config = request.config
    workerinput = getattr(config, "workerinput", None)
    where = config.stash[_LIBRARY] if workerinput is None else workerinput[_LIBRARY_INPUT]
    return LibraryRuns(Path(where), CHECKOUT / "scenarios")


# -- the two workers (pytest-xdist) ----------------------------------------------------------

MAX_WORKERS = 2
"""Workers of ``-n auto`` (pyproject.toml's addopts): one per usable core, at most two --
the suite is measured and kept free of flaky tests with two (docs/performance.md); ``-n N``
asks for N, ``-n 0`` runs the tests in pytest's own process as before."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own reading of it
    if config.getoption("capture") == "no":
        return 0  # -s: a worker's output would not reach the terminal
    files = {arg.split("::", 1)[0] for arg in config.args}
    if len(files) == 1 and os.path.isfile(next(iter(files))):
        return 0  # one file is one worker's (--dist loadfile): no worker to start
    cores = len(os.sched_getaffinity(0))
    return min(cores, MAX_WORKERS) if cores > 1 else 0


LONGEST_FIRST = (
    "tests/replay/test_scenarios.py",  # ~110 replays, three at a time: two cores by itself
    "tests/sweep/test_sweep_dask.py",
    "tests/classad/test_functions_diff.py",
    "tests/submit/test_submit_differential.py",
    "tests/wire/test_wire_roundtrip.py",
    "tests/classad/test_eval_diff.py",
    "tests/wire/test_wire_fuzz.py",
    "tests/report/test_report_cli.py",
    "tests/reliability/test_handler_fuzz.py",
    "tests/master/test_shutdown_live.py",
    "tests/tools/test_live_tools.py",
    "tests/report/test_report_browser.py",
    "tests/classad/test_ops.py",
    "tests/runtime/test_pool_processes.py",
    "tests/test_crontab.py",
    "tests/runtime/test_vtime_storm.py",
    "tests/sweep/test_sweep_fuzz.py",
    "tests/replay/test_perf_golden.py",
    "tests/scenario/test_scenario_fuzz.py",
    "tests/shadow/test_real_shadow_restart.py",
    "tests/test_eventlog.py",
    "tests/job_router/test_router_live.py",
)
"""The files that took longest (``--durations=0``, summed per file, 2026-11-29; measured
again one file at a time after the second pass of docs/performance.md), longest
first. A worker is given a whole file at a time (``--dist loadfile``: a module's fixtures are
made once) in the order of the collection: these go first, so that the run does not end
with one worker busy on a long file and the other idle. Any other file comes after them in
its usual order; a file renamed only loses its place."""


def pytest_collectstart(collector: pytest.Collector) -> None:
    """pytest keeps each test module as it rewrote its asserts (__pycache__/*-pytest-*.pyc)
    and reads it back in the next run, but writes it only where Python may write bytecode:
    with PYTHONDONTWRITEBYTECODE every process that collects (each worker) rewrote and
    compiled all ~180 test modules in every run (about 9 of its 19 CPU s of collecting).
    They are written while a process collects (the controller of the workers does not)."""
    global _DONT_WRITE
    if _DONT_WRITE is None:
        _DONT_WRITE = sys.dont_write_bytecode
        sys.dont_write_bytecode = False


def pytest_collection_finish(session: pytest.Session) -> None:
    if _DONT_WRITE is not None:
        sys.dont_write_bytecode = _DONT_WRITE


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _is_worker(config):
        return  # in one process, the usual order
    rank = {path: n for n, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
