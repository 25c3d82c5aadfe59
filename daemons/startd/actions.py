"""What a slot tells its runner to do, and the claim a slot holds (plain data).

How this works
--------------
The slot state machine (slot.py) returns :data:`Action` values instead of doing I/O: the
runner tells the starter to stop, suspend or continue a job, answers a REQUEST_CLAIM that
waited for a preemption, or appends a job to the startd history. A :class:`Claim` is the
slot's record of one claim: the request it came with, its lease, and its running job.
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


Action = StopJob | SuspendJob | ClaimGranted | ClaimRefused | WriteHistory


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

    @property
    def user(self) -> str:
        for attr in ("User", "Owner"):
            value = self.request_ad.evaluate(attr)
            if type(value) is str:
                return value
        return ""

    def job_id(self) -> str:
        ad = self.job_ad if self.job_ad is not None else self.request_ad
        cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
        return f"{cluster}.{proc}" if type(cluster) is int and type(proc) is int else ""
