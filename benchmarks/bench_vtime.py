"""Virtual-time jumps per second: 8 real processes that keep timers, coordinated by one master.

The rate is over the storm itself (every process already up); the processes' start-up
(about 0.3 s of Python imports each) is shown apart.
"""

from __future__ import annotations

from condorsim.runtime.storm import run_storm


def main() -> list[str]:
    lines = []
    quiet = run_storm(8, seed=1, timers=150, horizon=86_400, max_burst=0, max_hops=0)
    lines.append(
        f"timers only: 8 processes x 150 timers: {quiet.jumps} jumps in "
        f"{quiet.run_seconds:.2f} s = {quiet.jumps / quiet.run_seconds:,.0f} jumps/s "
        f"(+ {quiet.wall_seconds - quiet.run_seconds:.1f} s starting the processes)"
    )
    busy = run_storm(8, seed=2, timers=60, horizon=86_400, max_burst=3, max_hops=2)
    pings = sum(int(t["pings_received"]) for t in busy.tallies)  # type: ignore[call-overload]
    lines.append(
        f"with messages: 8 processes x 60 timers, {pings} pings: {busy.jumps} jumps in "
        f"{busy.run_seconds:.2f} s = {busy.jumps / busy.run_seconds:,.0f} jumps/s, "
        f"{pings / busy.run_seconds:,.0f} pool messages/s"
    )
    return lines
