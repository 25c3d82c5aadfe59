"""A route's counters and its black-hole throttle (HTCondor's ``JobRoute``, facts 3.1).

How this works
--------------
Every poll the router recounts each route's jobs (``current``: routed copies it manages,
``running``: those whose copy runs); ``idle`` is the difference. A route takes another job
(:meth:`RouteStats.accepting`) while its throttle allows (no throttle, or fewer jobs routed
in this throttle window than the throttle), its idle jobs are below MaxIdleJobs (a negative
MaxIdleJobs means no limit) and its jobs below MaxJobs.

Every THROTTLE_UPDATE_INTERVAL (600 s) :meth:`RouteStats.adjust` looks at the window's
failures and successes. Above FailureRateThreshold (failures per second, and at least one
failure) the throttle becomes ``600 * threshold / (F / (F + current + S))``: jobs routed per
window. Otherwise it is multiplied by ``2 + (3S - 2F) / (S + F)`` (the fraction only when
``3S - 2F > 0``), removed above ``600 * threshold * 10000``, and raised to 1 when it fell
below 1 with no failure. Then the window's counters start again.
"""

from __future__ import annotations

from dataclasses import dataclass

THROTTLE_UPDATE_INTERVAL = 600


@dataclass
class RouteStats:
    max_jobs: int = 100
    max_idle_jobs: int = 50
    failure_rate_threshold: float = 0.03
    current: int = 0
    running: int = 0
    throttle: float = 0.0
    recent_routed: int = 0
    recent_succeeded: int = 0
    recent_failed: int = 0
    window_start: float = 0.0

    @property
    def idle(self) -> int:
        return self.current - self.running

    def accepting(self) -> bool:
        """JobRoute::AcceptingMoreJobs."""
        if self.throttle > 0 and self.throttle <= self.recent_routed:
            return False
        if self.max_idle_jobs >= 0 and self.max_idle_jobs <= self.idle:
            return False
        return self.current < self.max_jobs

    def refusal(self) -> str | None:
        """Why the route takes no more jobs now (None when it takes them)."""
        if self.throttle > 0 and self.throttle <= self.recent_routed:
            return (f"throttled by its failure rate ({self.recent_routed} jobs routed in this "
                    f"window, throttle {describe(self.throttle)})")
        if self.max_idle_jobs >= 0 and self.max_idle_jobs <= self.idle:
            return f"MaxIdleJobs reached ({self.idle} idle of {self.max_idle_jobs})"
        if self.current >= self.max_jobs:
            return f"MaxJobs reached ({self.current} of {self.max_jobs})"
        return None

    def routed_one(self) -> None:
        """A job was given to this route (IncrementRoutedJobs)."""
        self.current += 1
        self.recent_routed += 1

    def adjust(self, now: float) -> str | None:
        """AdjustFailureThrottles; a description of the change when the throttle moved."""
        delta = now - self.window_start
        if delta < THROTTLE_UPDATE_INTERVAL:
            return None
        new = self.throttle
        failures, successes = self.recent_failed, self.recent_succeeded
        if failures and failures / delta > self.failure_rate_threshold:
            ratio = failures / (failures + self.current + successes)
            new = THROTTLE_UPDATE_INTERVAL * self.failure_rate_threshold / ratio
        else:
            accel = 3.0 * successes - 2.0 * failures
            if accel > 0:
                accel /= successes + failures
            accel += 2.0
            if accel > 1.0:
                new *= accel
            if new > THROTTLE_UPDATE_INTERVAL * self.failure_rate_threshold * 10000:
                new = 0.0
            if 0 < new < 1 and failures == 0:
                new = 1.0
        change = None
        if abs(new - self.throttle) > 0.0001:
            change = f"adjusting throttle from {describe(self.throttle)} to {describe(new)}"
            self.throttle = new
        self.window_start = now
        self.recent_routed = self.recent_failed = self.recent_succeeded = 0
        return change


def describe(throttle: float) -> str:
    """ThrottleDesc: "none" or "<jobs per second> jobs/sec" (%g)."""
    if throttle <= 0:
        return "none"
    return f"{throttle / THROTTLE_UPDATE_INTERVAL:g} jobs/sec"
