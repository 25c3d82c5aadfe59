"""What-if sweeps: many variants of one scenario, each an ordinary replay in a Dask task
(docs/sweeps.md).

Public API::

    sweep = load_sweep("scenarios/sweeps/negotiator-interval.toml")   # SweepError
    sweep.variants                       # each a scenario file's text, checked
    prepare_output(out, sweep, resume=False)                           # OutputError
    run = run_sweep(sweep, out, scheduler=None, workers=None, reports=True)
    frame = write_outputs(sweep, out, run.rows)    # results.csv/.parquet, index.html
    run_variant(job)                     # what one Dask task does (condorsim.sweep.task)

Nothing in the simulator knows it runs under Dask: a task calls
:func:`condorsim.replay.replay` and reads the run it kept (:mod:`.metrics`).
"""

from __future__ import annotations

from ._model import TARGETS, Axis, Sweep, Variant
from ._parse import MAX_VARIANTS, SweepError, load_sweep, parse_sweep
from .metrics import METRICS, run_metrics
from .output import write_outputs
from .runner import OutputError, SweepRun, prepare_output, run_sweep
from .task import VariantFailed, VariantJob, run_variant

__all__ = [
    "MAX_VARIANTS",
    "METRICS",
    "TARGETS",
    "Axis",
    "OutputError",
    "Sweep",
    "SweepError",
    "SweepRun",
    "Variant",
    "VariantFailed",
    "VariantJob",
    "load_sweep",
    "parse_sweep",
    "prepare_output",
    "run_metrics",
    "run_sweep",
    "run_variant",
    "write_outputs",
]

