"""Running a sweep's variants on Dask: a LocalCluster sized to the machine, or any Dask
cluster by its scheduler's address.

How this works
--------------
:func:`prepare_output` makes the output directory (or finds the earlier sweep in it, for
``--resume``) and writes each variant's ``scenario.toml``. :func:`run_sweep` then submits
one Dask task per variant not done yet -- :func:`.task.run_variant`, an ordinary replay
in the variant's own directory -- and takes the results as they come
(``distributed.as_completed``): a row of data for each variant, or the error of one that
failed, which is reported and does not stop the others. A rich progress bar (and the Dask
dashboard's address) shows how far it is.

A replay is several processes (the replay itself, which hosts the master and the clock,
and one per daemon), so a worker runs one replay at a time: the default cluster is
``LocalCluster(n_workers=<CPUs>, threads_per_worker=1, processes=True)``. Another cluster
(``dask scheduler`` and ``dask worker``, or dask-jobqueue's ``HTCondorCluster``) must run
the same condorsim and see the output directory (and the base scenario's directory, when
it names a ``config_file``) at the same path.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._model import Sweep, Variant
from .task import SCENARIO_FILE, VariantJob, read_row, run_variant

__all__ = ["MARKER", "OutputError", "SweepRun", "dask_client", "prepare_output", "run_sweep",
           "variant_dir"]

MARKER = "sweep.json"  # in every sweep's output directory
VARIANTS = "variants"
ERROR_FILE = "error.txt"


class OutputError(Exception):
    """The output directory cannot take this sweep (the message is one line)."""


@dataclass
class SweepRun:
    """What a sweep did: a row per variant (in the sweep's order), how many were done
    before (``--resume``), and the dashboard's address when there was one."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    ran: int = 0
    failed: int = 0
    dashboard: str = ""
    workers: int = 0


def variant_dir(out: Path, variant: Variant) -> Path:
    return out / VARIANTS / variant.dir_name


def prepare_output(out: Path, sweep: Sweep, resume: bool) -> None:
    """Make ``out`` ready: new (or empty), or an earlier sweep's with ``resume``."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise OutputError(f"{out} is not empty and holds no sweep: give a new --out DIR")
        if not resume:
            raise OutputError(f"{out} holds an earlier sweep: give --resume to go on with it "
                              "(the variants done are kept), or another --out DIR")
    out.mkdir(parents=True, exist_ok=True)
    marker = {"sweep": sweep.name, "file": str(Path(sweep.source).resolve()),
              "scenario": str(sweep.scenario_path),
              "axes": [{"name": a.name, "changes": a.describe(),
                        "values": list(a.values) if a.values is not None else None}
                       for a in sweep.axes],
              "variants": len(sweep.variants)}
    (out / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    for variant in sweep.variants:
        directory = variant_dir(out, variant)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / SCENARIO_FILE).write_text(variant.text, encoding="utf-8")


def default_workers() -> int:
    """One worker per CPU this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_sweep(sweep: Sweep, out: Path, *, scheduler: str | None = None,
              workers: int | None = None, reports: bool = True,
              on_start: Callable[[SweepRun, int], None] | None = None,
              on_done: Callable[[Variant, dict[str, Any]], None] | None = None) -> SweepRun:
    """Run every variant not done yet in ``out`` (prepared by :func:`prepare_output`) and
    return every variant's row. ``on_start(run, todo)`` is called once the cluster is up,
    ``on_done(variant, row)`` as each variant ends (``row["status"]`` is ``"failed"`` with
    ``row["error"]`` for one that failed)."""
    run = SweepRun()
    rows: dict[int, dict[str, Any]] = {}
    todo: list[Variant] = []
    for variant in sweep.variants:
        row = read_row(variant_dir(out, variant), variant.key)
        if row is not None:
            rows[variant.number] = row
            run.skipped += 1
        else:
            todo.append(variant)
    if todo:
        jobs = {v.number: _job(sweep, out, v, reports) for v in todo}
        with dask_client(scheduler, workers or min(default_workers(), len(todo))) as client:
            run.dashboard = _dashboard(client)
            run.workers = len(client.scheduler_info().get("workers", {}))
            if on_start is not None:
                on_start(run, len(todo))
            for variant, row in _results(client, sweep, out, todo, jobs):
                rows[variant.number] = row
                run.ran += 1
                run.failed += row["status"] == "failed"
                if on_done is not None:
                    on_done(variant, row)
    run.rows = [rows[v.number] for v in sweep.variants if v.number in rows]
    return run


def _job(sweep: Sweep, out: Path, variant: Variant, reports: bool) -> VariantJob:
    return VariantJob(key=variant.key, directory=str(variant_dir(out, variant).resolve()),
                      text=variant.text, base_dir=str(sweep.base_dir),
                      slots=variant.slots, metrics=sweep.metrics,
                      per_owner=sweep.per_owner, report=reports,
                      settings=dict(variant.settings))


@contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Client of the cluster at ``scheduler``, or of a new LocalCluster (closed after)."""
    import dask.distributed

    dd: Any = dask.distributed  # untyped calls
    Client, LocalCluster = dd.Client, dd.LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as e:
            raise OutputError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        with client:
            yield client
        return
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def _dashboard(client: Any) -> str:
    try:
        services = client.scheduler_info().get("services", {})
    except Exception:  # an old scheduler without the call: no address to show
        return ""
    return str(client.dashboard_link) if "dashboard" in services else ""


def _results(client: Any, sweep: Sweep, out: Path, todo: list[Variant],
             jobs: dict[int, VariantJob]) -> Any:
    """(variant, row) as each variant ends, failures included."""
    import dask.distributed

    as_completed: Any = dask.distributed.as_completed
    salt = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:8]
    futures = {client.submit(run_variant, jobs[v.number], key=f"replay-{salt}-{v.key[:16]}",
                             pure=False, retries=0): v for v in todo}
    for future in as_completed(futures):
        variant = futures[future]
        if future.status == "finished":
            yield variant, future.result()
            continue
        try:
            error = future.exception()
            trace = future.traceback()
        except Exception as lost:  # cancelled: the scheduler lost the task
            error, trace = lost, None
        message = f"{type(error).__name__}: {error}"
        detail = "".join(traceback.format_tb(trace)) if trace else ""
        (variant_dir(out, variant) / ERROR_FILE).write_text(
            f"{message}\n\n{detail}", encoding="utf-8")
        yield variant, {**dict(variant.settings), "variant": variant.dir_name,
                        "status": "failed", "error": message}
