"""What a slot tells its runner to do, and the claim a slot holds (plain data).

How this works
--------------
The slot state machine (slot.py) returns :data:`Action` values instead of doing I/O: the
runner tells the starter to stop, suspend or continue a job, answers a REQUEST_CLAIM that
waited for a preemption, appends a job to the startd history, starts a fetched job, or
runs the EVICT_CLAIM hook of a fetched claim. A :class:`Claim` is the
slot's record of one claim: the request it came with, its lease, its running job, and the
clocks HTCondor's claim keeps (claim.cpp ``changeState``): when it was claimed, how many
jobs it activated, and how long its jobs ran and were suspended -- the current job's
(TotalJobRunTime, TotalJobSuspendTime) and the whole claim's (TotalClaimRunTime,
TotalClaimSuspendTime).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorsim.classad import ClassAd


@dataclass(frozen=True)
class StopJob:
    """Tell the starter to stop the job of ``claim_id`` (STARTER_REMOVE)."""

    claim_id: str
    job: str


@dataclass(frozen=True)
class SuspendJob:
    claim_id: str
    job: str
    suspend: bool  # False: continue


@dataclass(frozen=True)
class ClaimGranted:
    """Answer the waiting REQUEST_CLAIM of ``claim_id`` (a preempting claim took over)."""

    claim_id: str


@dataclass(frozen=True)
class ClaimRefused:
    claim_id: str
    reason: str


@dataclass(frozen=True)
class WriteHistory:
    """Append this job ad to the startd history."""

    job_ad: ClassAd


@dataclass(frozen=True)
class StartFetchedJob:
    """Start the fetched job of ``claim_id`` in the starter (no shadow)."""

    claim_id: str
    job_ad: ClassAd


@dataclass(frozen=True)
class FetchClaimEvicted:
    """A claim on fetched work is being evicted: run ``<keyword>_HOOK_EVICT_CLAIM`` with the
    claim's job ad (advisory)."""

    claim_id: str
    keyword: str
    job_ad: ClassAd


Action = (StopJob | SuspendJob | ClaimGranted | ClaimRefused | WriteHistory | StartFetchedJob
          | FetchClaimEvicted)


@dataclass
class Claim:
    """A claim on the slot: who holds it, its lease, and the job it runs (if any)."""

    claim_id: str
    request_ad: ClassAd
    scheduler_addr: str
    lease_deadline: float
    rank: float = 0.0
    job_ad: ClassAd | None = None
    job_started: float = 0.0
    starter_ad: ClassAd = field(default_factory=ClassAd)
    claimed_at: float = 0.0  # HTCondor's c_claim_started: the claim's age counts from here
    activations: int = 0
    # run/suspend clocks: closed totals plus the open period (clock "run" or "suspend")
    clock: str = ""
    clock_since: float = 0.0
    job_run: float = 0.0
    job_suspend: float = 0.0
    claim_run: float = 0.0
    claim_suspend: float = 0.0
    # a claim on fetched work (no schedd): the keyword whose hook fetched it, and the key
    # the starter knows its job by ("<cluster>.<proc>@<slot>")
    fetched: bool = False
    keyword: str = ""
    fetch_key: str = ""

    @property
    def user(self) -> str:
        for attr in ("User", "Owner"):
            value = self.request_ad.evaluate(attr)
            if type(value) is str:
                return value
        return ""

    def set_clock(self, clock: str, now: float) -> None:
        """Close the open run or suspend period and open ``clock`` ("run", "suspend", "")."""
        spent = now - self.clock_since
        if self.clock == "run":
            self.job_run += spent
            self.claim_run += spent
        elif self.clock == "suspend":
            self.job_suspend += spent
            self.claim_suspend += spent
        self.clock, self.clock_since = clock, now

    def begin_job(self, now: float) -> None:
        """An activation: the job's clocks start from zero, the claim's go on."""
        self.activations += 1
        self.job_run = self.job_suspend = 0.0
        self.set_clock("run", now)

    def times(self, now: float) -> dict[str, int]:
        """TotalJobRunTime, ... as the slot ad publishes them (only those above zero)."""
        spent = now - self.clock_since
        run = spent if self.clock == "run" else 0.0
        suspend = spent if self.clock == "suspend" else 0.0
        values = {
            "TotalJobRunTime": self.job_run + run if self.job_ad is not None else 0.0,
            "TotalJobSuspendTime": self.job_suspend + suspend if self.job_ad is not None
            else 0.0,
            "TotalClaimRunTime": self.claim_run + run,
            "TotalClaimSuspendTime": self.claim_suspend + suspend,
        }
        return {k: int(v) for k, v in values.items() if int(v) > 0}

    def starter_job(self) -> str:
        """How the starter names this claim's job (STARTER_REMOVE, STARTER_SUSPEND)."""
        return self.fetch_key if self.fetched else self.job_id()

    def job_id(self) -> str:
        ad = self.job_ad if self.job_ad is not None else self.request_ad
        cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
        return f"{cluster}.{proc}" if type(cluster) is int and type(proc) is int else ""
