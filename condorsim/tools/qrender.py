"""condor_q's and condor_history's cell renderers (HTCondor's print-format functions).

How this works
--------------
Each function takes a job ad and the value of the column's attribute and returns the
value to print, or None when the cell is invalid (it then shows the column's ``OR``
text). They follow HTCondor's ``print_format_tables.cpp`` and condor_q's local
renderers in ``queue.cpp``: the status letter, the owner, the command with its
arguments, the run time (``job_time``), the memory in MB, the remote host, the
universe's name, bytes in B/KB/MB/GB/TB. :class:`RunTime` carries condor_q's
``-cputime`` / ``-currentrun`` / ``-cumulative-time`` choice.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from condorsim.classad import ClassAd

from .fmt import format_time

STATUS_LETTERS = {1: "I", 2: "R", 3: "X", 4: "C", 5: "H", 6: ">", 7: "S", 8: "F", 9: "B"}
UNIVERSES = {1: "Standard", 2: "Pipe", 3: "Linda", 4: "PVM", 5: "Vanilla", 6: "PVMD",
             7: "Scheduler", 8: "MPI", 9: "Grid", 10: "Java", 11: "Parallel", 12: "Local",
             13: "VM"}


def lookup(ad: ClassAd, attr: str) -> Any:
    """HTCondor's ``Lookup*``: the attribute's value, None when it is missing."""
    return ad.evaluate(attr) if ad.lookup(attr) is not None else None


def lookup_int(ad: ClassAd, attr: str) -> int | None:
    """``LookupInteger``: an integer (a real is truncated, a boolean is 0/1), or None."""
    value = lookup(ad, attr)
    if type(value) in (int, bool):
        return int(value)
    if type(value) is float:
        return int(value)
    return None


def lookup_float(ad: ClassAd, attr: str) -> float | None:
    value = lookup(ad, attr)
    return float(value) if type(value) in (int, float, bool) else None


def lookup_str(ad: ClassAd, attr: str) -> str | None:
    value = lookup(ad, attr)
    return value if type(value) is str else None


def status_letter(status: int | None) -> str:
    """``encode_status``: I R X C H > S F B, a blank for anything else."""
    return STATUS_LETTERS.get(status or 0, " ")


def render_job_status(ad: ClassAd, _value: Any) -> str | None:
    """condor_q's ST: the status letter then a blank, or ``<``/``>`` while transferring."""
    status = lookup_int(ad, "JobStatus")
    if status is None:
        return None
    first, second = status_letter(status), " "
    queued = lookup(ad, "TransferQueued") is True
    if lookup(ad, "TransferringInput") is True:
        first, second = "<", "q" if queued else " "
    if lookup(ad, "TransferringOutput") is True or status == 6:
        first, second = "q" if queued else " ", ">"
    return first + second


def format_history_status(status: Any) -> str:
    """condor_history's ST (``format_job_status_char``): I R X C F B >, else a blank."""
    return {1: "I", 2: "R", 3: "X", 4: "C", 8: "F", 9: "B", 6: ">"}.get(status, " ")


def render_owner(ad: ClassAd, _value: Any) -> str | None:
    return lookup_str(ad, "Owner")


def render_dag_owner(ad: ClassAd, value: Any) -> str | None:
    """The DAG node's name for a DAG node job (``-dag``), else the owner."""
    if ad.lookup("DAGManJobId") is not None:
        node = lookup_str(ad, "DAGNodeName")
        if node is not None:
            return node
    return render_owner(ad, value)


def render_batch_name(ad: ClassAd, _value: Any) -> str | None:
    """``JobBatchName``; ``DAG: C`` for a DAGMan job; ``NODE: name`` for a DAG node."""
    name = lookup_str(ad, "JobBatchName")
    if name is not None:
        return name
    if lookup_int(ad, "JobUniverse") == 7:
        return f"DAG: {lookup_int(ad, 'ClusterId') or 0}"
    node = lookup_str(ad, "DAGNodeName")
    if ad.lookup("DAGManJobId") is not None and node is not None:
        return "NODE: " + node
    return None


def render_job_description(ad: ClassAd, _value: Any) -> str | None:
    """CMD: ``(JobDescription)``, else the executable's base name and the arguments."""
    cmd = lookup_str(ad, "Cmd")
    if cmd is None:
        return None
    description = lookup_str(ad, "MATCH_EXP_JobDescription") or lookup_str(ad, "JobDescription")
    if description:
        return f"({description})"
    args = lookup_str(ad, "Arguments")
    if args is None:
        args = lookup_str(ad, "Args") or ""
    text = os.path.basename(cmd)
    return f"{text} {args}" if args else text


def render_cmd_and_args(ad: ClassAd, _value: Any) -> str | None:
    """condor_history's CMD: the full ``Cmd`` and the raw argument string."""
    cmd = lookup_str(ad, "Cmd")
    if cmd is None:
        return None
    args = lookup_str(ad, "Args")
    if args is None:
        args = lookup_str(ad, "Arguments")
    return f"{cmd} {args}" if args is not None else cmd


def render_hist_runtime(ad: ClassAd, _value: Any) -> str | None:
    """condor_history's RUN_TIME: RemoteWallClockTime (else RemoteUserCpu); blank when 0."""
    wall = lookup_float(ad, "RemoteWallClockTime")
    if wall is None:
        wall = lookup_float(ad, "RemoteUserCpu") or 0.0
    seconds = int(wall)
    return format_time(seconds) if seconds != 0 else None


def render_job_id(ad: ClassAd, _value: Any) -> str | None:
    cluster = lookup_int(ad, "ClusterId")
    if cluster is None:
        return None
    return f"{cluster}.{lookup_int(ad, 'ProcId') or 0}"


@dataclass(frozen=True)
class RunTime:
    """condor_q's RUN_TIME column (``job_time``): wall clock of the current run by
    default, the runs before it too with ``cumulative``, the CPU time with ``cpu``."""

    cpu: bool = False
    current_run: bool = True

    def __call__(self, ad: ClassAd, _value: Any) -> float | None:
        cpu = lookup_float(ad, "RemoteUserCpu")
        if cpu is None:
            return None
        if self.cpu:
            return cpu
        status = lookup_int(ad, "JobStatus") or 0
        now = lookup_int(ad, "ServerTime") or 0
        bday = lookup_int(ad, "ShadowBday") or 0
        previous = 0.0 if self.current_run else (lookup_float(ad, "RemoteWallClockTime") or 0.0)
        if now == 0:
            return -1.0
        total = previous
        if status in (2, 6, 7) and bday:
            total += now - bday
        elif status in (1, 5, 9) and self.current_run:
            last = lookup_float(ad, "LastRemoteWallClockTime")
            if last is not None:
                total = last
        return total


def render_memory_usage(ad: ClassAd, _value: Any) -> float | None:
    """SIZE: MemoryUsage (MB), else ImageSize (KB) / 1024."""
    usage = lookup(ad, "MemoryUsage")
    if type(usage) is int:
        return float(usage)
    size = lookup(ad, "ImageSize")
    if type(size) is int:
        return size / 1024.0
    return None


def render_remote_host(ad: ClassAd, _value: Any) -> str | None:
    """HOST(S): RemoteHost (GridResource for a grid job)."""
    if lookup_int(ad, "JobUniverse") == 9:
        return lookup_str(ad, "EC2RemoteVirtualMachineName") or lookup_str(ad, "GridResource")
    return lookup_str(ad, "RemoteHost")


def format_universe(universe: Any) -> str:
    """``CondorUniverseNameUcFirst``."""
    return UNIVERSES.get(universe, "Unknown") if type(universe) is int else "Unknown"


def metric_units(amount: float) -> str:
    """HTCondor's ``metric_units``: ``%.1f`` and B, KB, MB, GB or TB."""
    suffixes = ("B ", "KB", "MB", "GB", "TB")
    power = 0
    while amount > 1024.0 and power < len(suffixes) - 1:
        amount /= 1024.0
        power += 1
    return f"{amount:.1f} {suffixes[power]}"


def format_readable_bytes(value: Any) -> str:
    if type(value) in (int, float):
        return metric_units(float(value))
    return " " * 8


def render_buffer_io_misc(ad: ClassAd, _value: Any) -> str:
    """condor_q -io's MISC: `` transfer=in,out,queued`` while files move."""
    index = (1 if lookup(ad, "TransferringInput") is True else 0) \
        + (2 if lookup(ad, "TransferringOutput") is True else 0) \
        + (4 if lookup(ad, "TransferQueued") is True else 0)
    names = ("in", "out", "in,out", "queued", "in,queued", "out,queued", "in,out,queued")
    return f" transfer={names[index - 1]}" if index else ""
