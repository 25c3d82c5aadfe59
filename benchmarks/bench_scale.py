"""Memory of a large pool (issue: matchmaking and execution).

The issue's figure: "A pool of 1,000 slots with 1,000 running jobs runs on a 2-core, 24 GiB
machine under 4 GiB of memory in all." This replays, every daemon a process, a pool of 50
machines x 20 slots (hosted by the one startd, as SIM machines) with 1,000 jobs of ten hours,
until an expectation sees all 1,000 Running. Printed: wall time, whether they all ran, and
the summed peak RSS (VmHWM) of every process of the pool -- this process (the replay host,
which also hosts the master) and each descendant, read from /proc while the pool runs.

``BENCH_SCALE_SLOTS`` scales it down for a quick run (default 1000: the issue's figure; the
machine count is slots / 20, the job count equals the slot count).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

from condorsim.replay.runner import replay
from condorsim.scenario import parse_scenario

SLOTS_PER_MACHINE = 20
RUNNING_BY = "30m"  # simulated: when every job must be Running
GIB = 1024 * 1024  # in KiB


def scenario_text(machines: int, jobs: int, seed: int = 1) -> str:
    """A pool of ``machines`` x 20 slots and ``jobs`` ten-hour jobs (in one submission: past
    HTCondor's default MAX_JOBS_PER_SUBMISSION of 20000 the scenario raises it, and past
    MAX_JOBS_PER_OWNER's 100000 that one)."""
    config = f"\n[config]\nMAX_JOBS_PER_SUBMISSION = {jobs}\n" if jobs > 20000 else ""
    if jobs > 100000:
        config += f"MAX_JOBS_PER_OWNER = {jobs}\n"
    return f'''
[scenario]
name = "bench: {machines * SLOTS_PER_MACHINE} slots, {jobs} running jobs"
start = 2026-01-05T00:00:00Z
until = "{RUNNING_BY}"
max = "1d"
seed = {seed}
{config}
[[machine]]
name = "exec"
count = {machines}
slots = {SLOTS_PER_MACHINE}
cpus = {SLOTS_PER_MACHINE}
memory = {SLOTS_PER_MACHINE * 2048}

[[submit]]
owner = "alice"
text = """
executable = /bin/sleep
arguments = 36000
request_memory = 1024
queue {jobs}
"""

[[expect]]
at = "{RUNNING_BY}"
constraint = "JobStatus == 2"
count = {jobs}
description = "every job is Running"
'''


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _descendants(root: int) -> list[int]:
    """``root`` and every process under it. Read from each thread's ``children`` file
    (Linux 3.5 and later): a scan of all of /proc every half second cost this process (the
    replay's, whose CPU the bench reports) about 7 ms of CPU per look on a busy machine."""
    if not os.path.exists(f"/proc/{root}/task/{root}/children"):
        return _descendants_by_scan(root)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:  # it has just exited
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                    todo += [int(child) for child in f.read().split()]
            except OSError:
                continue
    return out


def _descendants_by_scan(root: int) -> list[int]:
    tree = _children()
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += tree.get(pid, [])
    return out


def _status_kib(pid: int, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class PeakMemory:
    """Polls this process and its descendants; keeps each one's VmHWM (its peak RSS), CPU
    seconds (user + system) and command line. A process's last reading before it exits
    stands for its peak and its CPU time."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.peaks: dict[int, int] = {}
        self.cpu: dict[int, float] = {}
        self.names: dict[int, str] = {}
        self._cpu_before: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> PeakMemory:
        # What the processes already running (this one above all: a bench replays more
        # than one pool in it) spent before is not this measurement's.
        self._cpu_before = {pid: _cpu_seconds(pid) for pid in _descendants(os.getpid())}
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        me = os.getpid()
        while True:
            for pid in _descendants(me):
                hwm = _status_kib(pid, "VmHWM")
                if hwm is None:
                    continue
                self.peaks[pid] = max(hwm, self.peaks.get(pid, 0))
                spent = _cpu_seconds(pid) - self._cpu_before.get(pid, 0.0)
                self.cpu[pid] = max(spent, self.cpu.get(pid, 0.0))
                if self.names.get(pid, "zygote") == "zygote":
                    # a daemon just forked from the zygote shows the zygote's command
                    # line until it sets its own: look again until it has
                    self.names[pid] = _name(pid)
            if self._stop.wait(self.interval):
                return

    def total_kib(self) -> int:
        return sum(self.peaks.values())

    def by_name(self) -> dict[str, int]:
        """Peak KiB summed by process name."""
        out: dict[str, int] = {}
        for pid, kib in self.peaks.items():
            name = self.names.get(pid, "?")
            out[name] = out.get(name, 0) + kib
        return out

    def cpu_by_name(self) -> dict[str, float]:
        """CPU seconds summed by process name."""
        out: dict[str, float] = {}
        for pid, seconds in self.cpu.items():
            name = self.names.get(pid, "?")
            out[name] = out.get(name, 0.0) + seconds
        return out


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _name(pid: int) -> str:
    """``daemons.<name>`` from the command line, else the executable's name."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return "?"
    if b"condorsim.runtime.zygote" in argv[:3]:
        return "zygote"  # its arguments name the daemons it preloads
    for arg in argv:
        if arg.startswith(b"daemons."):
            return arg.decode(errors="replace").split(".")[1]
    if pid == os.getpid():
        return "replay+master"
    return os.path.basename(argv[0].decode(errors="replace")) if argv and argv[0] else "?"


def run(slots: int) -> tuple[float, bool, PeakMemory, str]:
    """Replay the pool; (wall seconds, all jobs Running, peaks, the failure text)."""
    machines = max(1, slots // SLOTS_PER_MACHINE)
    return replay_measured(scenario_text(machines, machines * SLOTS_PER_MACHINE))


def replay_measured(text: str, keep: Path | None = None, final_job_ads: bool = True
                    ) -> tuple[float, bool, PeakMemory, str]:
    """Replay the scenario ``text``; (wall seconds, its checks passed, peaks, the failures).
    ``keep`` and ``final_job_ads`` as ``replay``'s."""
    scenario = parse_scenario(text, source="<bench>", base_dir=Path(tempfile.gettempdir()))
    t0 = time.perf_counter()
    with PeakMemory() as peaks:
        outcome = replay(scenario, keep=keep, final_job_ads=final_job_ads)
    wall = time.perf_counter() - t0
    why = "; ".join(r.line for r in outcome.results
                    if not r.ok) if not outcome.ok else ""
    return wall, outcome.ok, peaks, why


def main() -> list[str]:
    slots = int(os.environ.get("BENCH_SCALE_SLOTS", "1000"))
    wall, ok, peaks, why = run(slots)
    slots = max(1, slots // SLOTS_PER_MACHINE) * SLOTS_PER_MACHINE
    total = peaks.total_kib()
    parts = ", ".join(f"{name} {kib / 1024:,.0f}" for name, kib in
                      sorted(peaks.by_name().items(), key=lambda kv: -kv[1]))
    lines = [
        f"{slots} slots ({slots // SLOTS_PER_MACHINE} machines x {SLOTS_PER_MACHINE}),"
        f" {slots} jobs, replayed to {RUNNING_BY} simulated: {wall:.1f} s wall;"
        f" all {slots} Running: {ok}" + (f" ({why})" if why else ""),
        f"peak memory of the whole pool (sum of VmHWM over {len(peaks.peaks)} processes):"
        f" {total / 1024:,.0f} MiB = {total / GIB:.2f} GiB"
        f" ({'under' if total < 4 * GIB else 'OVER'} the issue's 4 GiB)",
        f"by process, MiB: {parts}",
    ]
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
