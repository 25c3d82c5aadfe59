"""The two clocks: virtual time jumps only when told; wall time runs at SIM_SPEED."""

from __future__ import annotations

import math
import time

import trio

from condorsim.runtime.clock import VirtualClock, WallClock


def test_a_300_second_timer_at_speed_600_takes_half_a_real_second() -> None:
    clock = WallClock(start=1_767_225_600, speed=600)

    async def main() -> tuple[float, float]:
        t0, r0 = trio.current_time(), time.monotonic()
        await trio.sleep(300)
        return trio.current_time() - t0, time.monotonic() - r0

    simulated, real = trio.run(main, clock=clock)
    assert simulated >= 300
    assert 0.5 <= real < 2.0  # 300 s / 600, plus scheduling latency of a loaded machine


def test_virtual_time_stands_still_until_advanced_and_never_goes_back() -> None:
    clock = VirtualClock(start=1000.0)
    assert clock.deadline_to_sleep_time(1300.0) == math.inf
    assert clock.deadline_to_sleep_time(1000.0) == 0.0
    clock.advance(1300.0)
    assert clock.current_time() == 1300.0
    assert clock.deadline_to_sleep_time(1300.0) == 0.0
    clock.advance(1200.0)
    assert clock.current_time() == 1300.0


def test_wall_clocks_of_one_pool_agree_however_late_each_process_started() -> None:
    """The master hands every child the simulated time and the host's epoch time of one
    moment; a child that took 5 s to start reads the same simulated time as its parent
    (before, each process counted from its own start, and a job's CommittedTime came out
    a second longer than its RemoteWallClockTime)."""
    origin = time.time() - 5.0
    early = WallClock(1_000_000.0, 2.0, origin=origin)
    late = WallClock(1_000_000.0, 2.0, origin=origin)
    assert abs(early.current_time() - late.current_time()) < 0.05
    assert abs(late.current_time() - 1_000_010.0) < 0.5
