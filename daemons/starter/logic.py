"""The starter's decisions about one job, with no I/O: deferral, runtime, the payload's clock.

How this works
--------------
:func:`deferral_decision` is HTCondor's ``Starter::jobWaitUntilExecuteTime``: given the job
ad and the *execute machine's* clock it says run now, wait N seconds, or abort (the job
missed its deferral time or its DeferralTime is invalid). :func:`payload_runtime` and
:func:`payload_exit_code` say what a simulated job does (``+SimRuntime``, a ``sleep``
executable's argument, SIM_DEFAULT_RUNTIME; ``+SimExitCode``). :class:`PayloadClock` keeps
the running time of a job that may be suspended: suspension stops its clock, so a job
suspended for 100 s finishes 100 s later. :func:`usage_ad` builds the attributes of a
starter update (REGISTER_JOB_INFO / STARTER_UPDATE) and :func:`exit_ad` those of JOB_EXIT.
"""

from __future__ import annotations

import enum
import shlex
from dataclasses import dataclass

from condorsim.classad import ClassAd, EvalContext, SealedAd, ad_to_wire
from condorsim.classad._classad import to_tree
from condorsim.classad._tree import Literal

STARTER_UPDATE_ATTRS = (
    "JobState", "NumPids", "JobPid", "JobStartDate", "ImageSize", "ResidentSetSize",
    "MemoryUsage", "DiskUsage", "RemoteUserCpu", "RemoteSysCpu",
)


class DeferralAction(enum.Enum):
    RUN = "run"
    WAIT = "wait"
    ABORT = "abort"


@dataclass(frozen=True)
class DeferralDecision:
    action: DeferralAction
    delay: int = 0
    message: str = ""


def _int_value(value: object) -> int | None:
    return value if type(value) is int else None


def deferral_decision(job_ad: ClassAd, machine_now: int, job_id: str) -> DeferralDecision:
    """What the starter does with the job's DeferralTime at ``machine_now`` (facts 1.3)."""
    if "DeferralTime" not in job_ad:
        return DeferralDecision(DeferralAction.RUN)
    ctx = EvalContext(now=machine_now)
    when = _int_value(job_ad.evaluate("DeferralTime", ctx=ctx))
    if when is None:
        return DeferralDecision(
            DeferralAction.ABORT, message=f"Invalid deferred execution time for Job {job_id}."
        )
    if when <= 0:
        return DeferralDecision(
            DeferralAction.ABORT, message=f"Invalid execution time '{when}' for Job {job_id}."
        )
    window = _int_value(job_ad.evaluate("DeferralWindow", ctx=ctx)) or 0
    delta = when - machine_now
    if delta > 0:
        return DeferralDecision(
            DeferralAction.WAIT, delay=delta, message=f"Job {job_id} deferred for {delta} seconds"
        )
    if abs(delta) <= window:
        return DeferralDecision(
            DeferralAction.RUN,
            message=f"Job {job_id} missed its execution time but is within the "
            f"{window} seconds window",
        )
    return DeferralDecision(DeferralAction.ABORT, message=f"Job {job_id} missed its execution time.")


_SLEEP_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _sleep_seconds(word: str) -> float | None:
    unit = 1
    if word and word[-1] in _SLEEP_UNITS:
        unit = _SLEEP_UNITS[word[-1]]
        word = word[:-1]
    try:
        value = float(word)
    except ValueError:
        return None
    return value * unit if value >= 0 else None


def _first_argument(job_ad: ClassAd) -> str | None:
    for attr, split in (("Arguments", shlex.split), ("Args", str.split)):
        value = job_ad.evaluate(attr)
        if isinstance(value, str) and value.strip():
            try:
                words = split(value)
            except ValueError:
                words = value.split()
            return words[0] if words else None
    return None


def payload_runtime(job_ad: ClassAd, default: float, now: int) -> float:
    """How long the simulated payload runs: +SimRuntime, a sleep's argument, or ``default``."""
    value = job_ad.evaluate("SimRuntime", ctx=EvalContext(now=now))
    if type(value) in (int, float) and value >= 0:
        return float(value)
    cmd = job_ad.evaluate("Cmd")
    if isinstance(cmd, str) and cmd.rstrip().endswith("sleep"):
        word = _first_argument(job_ad)
        seconds = _sleep_seconds(word) if word is not None else None
        if seconds is not None:
            return seconds
    return float(default)


def payload_exit_code(job_ad: ClassAd, now: int) -> int:
    """The simulated payload's exit code: +SimExitCode (an integer), else 0."""
    value = job_ad.evaluate("SimExitCode", ctx=EvalContext(now=now))
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value)
    return 0


class PayloadClock:
    """Running time of a payload that may be suspended (suspension stops the clock)."""

    def __init__(self, started: float, runtime: float) -> None:
        self.started = started
        self.runtime = runtime
        self._run_before = 0.0
        self._resumed_at: float | None = started

    @property
    def suspended(self) -> bool:
        return self._resumed_at is None

    def running_seconds(self, now: float) -> float:
        extra = now - self._resumed_at if self._resumed_at is not None else 0.0
        return self._run_before + extra

    def suspend(self, now: float) -> bool:
        """Stop the clock; False if it was already stopped."""
        if self._resumed_at is None:
            return False
        self._run_before += now - self._resumed_at
        self._resumed_at = None
        return True

    def resume(self, now: float) -> bool:
        """Restart the clock; False if it was running."""
        if self._resumed_at is not None:
            return False
        self._resumed_at = now
        return True

    def finish_time(self) -> float | None:
        """When the payload exits if nothing changes; None while suspended."""
        if self._resumed_at is None:
            return None
        return self._resumed_at + (self.runtime - self._run_before)


def _job_number(job_ad: ClassAd, attr: str) -> int:
    value = job_ad.evaluate(attr)
    if type(value) in (int, float):
        return int(value)
    return 0


def starter_ad(slot_ad: ClassAd, address: str, execute_dir: str, pid: int) -> ClassAd:
    """What the starter tells the shadow about itself (REGISTER_STARTER_INFO).

    As HTCondor's starter ad: the slot's name, the starter's address, the job's scratch
    directory (``<EXECUTE>/dir_<starter pid>``) and the slot's machine resources (the
    attributes named by ``MachineResources``, ``CopyMachineResources``), which the shadow
    prints in the execute event.
    """
    ad = ClassAd({"StarterIpAddr": address, "HasJobDeferral": True,
                  "CondorScratchDir": f"{execute_dir}/dir_{pid}"})
    name = slot_ad.evaluate("Name")
    if isinstance(name, str):
        ad["Name"] = name
    names = slot_ad.evaluate("MachineResources")
    tags = names if isinstance(names, str) else "Cpus, Disk, Memory"
    for tag in tags.replace(",", " ").split():
        tree = slot_ad.lookup(tag)
        if tree is not None:
            ad[slot_ad.spelling(tag) or tag] = tree
    return ad


def provisioned_ad(slot_ad: ClassAd) -> ClassAd:
    """What the starter tells the shadow of the slot the job got (HTCondor corrects the job
    ad's "bogus Provisioned* attributes" when the job starts): ProvisionedResources (the
    slot's MachineResources), ``<Res>Provisioned`` (the slot's ``<Res>``) and the slot's
    ``Assigned<Res>``, for each resource named. The shadow keeps them in the job ad; the
    terminate event's Allocated column comes from them."""
    ad = ClassAd()
    names = slot_ad.evaluate("MachineResources")
    if isinstance(names, str):
        ad["ProvisionedResources"] = names
    else:
        names = "CPUs, Disk, Memory"
    for name in names.replace(",", " ").split():
        tree = slot_ad.lookup(name)
        if tree is not None:
            ad[f"{name}Provisioned"] = tree
        assigned = slot_ad.lookup(f"Assigned{name}")
        if assigned is not None:
            ad[f"Assigned{name}"] = assigned
    return ad


def usage_ad(job_ad: ClassAd, clock: PayloadClock, now: float, pid: int) -> ClassAd:
    """The attributes of a periodic starter update (REGISTER_JOB_INFO and STARTER_UPDATE)."""
    image = _job_number(job_ad, "SimImageSize") or _job_number(job_ad, "ImageSize")
    cpu = clock.running_seconds(now)
    return ClassAd({
        "JobState": "Suspended" if clock.suspended else "Running",
        "NumPids": 1,
        "JobPid": pid,
        "JobStartDate": int(clock.started),
        "ImageSize": image,
        "ResidentSetSize": image,
        "MemoryUsage": (image + 1023) // 1024,
        "DiskUsage": _job_number(job_ad, "SimDiskUsage") or _job_number(job_ad, "DiskUsage"),
        "RemoteUserCpu": float(int(cpu)),
        "RemoteSysCpu": 0.0,
    })


class UpdateAd:
    """A running job's update ad, made once: what :func:`usage_ad` and :func:`provisioned_ad`
    give merged (``usage_ad(...)`` updated with ``provisioned_ad(...)``), at any later ``now``.

    While the payload runs neither the job ad nor the slot ad changes (the prepare hooks,
    which change the job ad, have run), nor do the pid and the start: of the update's
    attributes only JobState and RemoteUserCpu move. So the merged ad and its wire form
    are made at the first update, and each later one copies them and sets those two
    values: the same names in the same order, the same trees, the same wire map. The ad
    is a :class:`SealedAd` whose wire form is already set, so the update's two messages
    (REGISTER_JOB_INFO and STARTER_UPDATE) encode it without a pass over its attributes
    (any change to the ad drops that form).
    """

    def __init__(self, job_ad: ClassAd, slot_ad: ClassAd, clock: PayloadClock, pid: int,
                 now: float) -> None:
        ad = usage_ad(job_ad, clock, now, pid)
        provisioned = provisioned_ad(slot_ad)
        # never so (no resource's attribute is named thus), but then only the plain way is right
        self._plain = "jobstate" in provisioned or "remoteusercpu" in provisioned
        ad.update(provisioned)
        self._args = (job_ad, slot_ad, clock, pid)
        self._clock = clock
        self._attrs = ad._attrs
        self._names = ad._names
        self._wire = ad_to_wire(ad)
        self._state_name = ad._names["jobstate"]
        self._cpu_name = ad._names["remoteusercpu"]

    def at(self, now: float) -> ClassAd:
        """The update ad at ``now``: equal to ``usage_ad`` merged with ``provisioned_ad``."""
        if self._plain:
            job_ad, slot_ad, clock, pid = self._args
            plain = usage_ad(job_ad, clock, now, pid)
            plain.update(provisioned_ad(slot_ad))
            return plain
        clock = self._clock
        state = "Suspended" if clock.suspended else "Running"
        cpu = float(int(clock.running_seconds(now)))
        ad = SealedAd.__new__(SealedAd)
        ad._parent = None
        ad._shared = False
        ad._packed = None
        ad._names = dict(self._names)
        attrs = ad._attrs = dict(self._attrs)
        attrs["jobstate"] = to_tree(state)
        attrs["remoteusercpu"] = Literal(cpu)
        wire = ad._wire = dict(self._wire)
        wire[self._state_name] = state
        wire[self._cpu_name] = cpu
        return ad


def exit_ad(
    job_ad: ClassAd, clock: PayloadClock | None, now: float, pid: int, exit_code: int | None,
    *, signal: int = 15, own_accord: bool = False,
) -> ClassAd:
    """The ad of JOB_EXIT: usage plus ExitCode (normal exit) or ExitSignal (killed).

    A payload that ended of its own accord (not killed at anyone's request) also carries
    HTCondor's termination-of-execution tag ``ToE`` (os_proc.cpp: Who "itself", How
    "OF_ITS_OWN_ACCORD", HowCode 0, When, and the exit code or signal), which the shadow
    keeps in the job ad and prints in the terminate event.
    """
    ad = usage_ad(job_ad, clock, now, pid) if clock is not None else ClassAd()
    if clock is not None:
        ad["JobDuration"] = float(now - clock.started)
    if exit_code is not None:
        ad["ExitCode"] = exit_code
        ad["ExitBySignal"] = False
    elif clock is not None:
        ad["ExitBySignal"] = True
        ad["ExitSignal"] = signal
        ad["ExitReason"] = f"died on signal {signal}"
    ad["JobCoreDumped"] = False
    if own_accord and clock is not None:
        toe = ClassAd({"Who": "itself", "How": "OF_ITS_OWN_ACCORD", "HowCode": 0,
                       "When": int(now)})
        if exit_code is not None:
            toe.update({"ExitBySignal": False, "ExitCode": exit_code})
        else:
            toe.update({"ExitBySignal": True, "ExitSignal": signal})
        ad["ToE"] = toe
    return ad
