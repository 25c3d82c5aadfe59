"""Matchmaking throughput: one job against 1,000 slots, ours against HTCondor's C++ library.

For every slot: the symmetric match (job Requirements with the slot as TARGET and the
slot's Requirements/START with the job as TARGET) and the job's Rank. Both evaluators
get the same ads and do the same work the same number of times in this one run; the
lines give matches per second for each and the ratio ours / classad2.
"""

from __future__ import annotations

import random
import time
import warnings

from condorsim.classad import ClassAd, rank, symmetric_match

SLOTS = 1_000
REPEATS = 3

JOB = """[
    MyType = "Job"; TargetType = "Machine"; ClusterId = 1234; ProcId = 0;
    Owner = "alice"; User = "alice@example.org"; AcctGroup = "physics";
    Cmd = "/home/alice/bin/simulate"; Iwd = "/home/alice/run"; JobUniverse = 5;
    RequestCpus = 2; RequestMemory = 4096; RequestDisk = 2000000;
    DiskUsage = 1500000; ImageSize = 250000; ExecutableSize = 120;
    FileSystemDomain = "example.org"; WantRemoteIO = true; ShouldTransferFiles = "IF_NEEDED";
    JobPrio = 0; NiceUser = false; QDate = 1700000000; JobStatus = 1;
    Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX")
        && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)
        && (TARGET.Cpus >= RequestCpus)
        && ((TARGET.HasFileTransfer) || (TARGET.FileSystemDomain == MY.FileSystemDomain));
    Rank = TARGET.Mips / 1000 + (TARGET.Memory >= 8192 ? 10 : 0)
]"""

SLOT_START = (
    '(TARGET.Owner != "mallory") && (MY.LoadAvg < 0.3 || MY.KeyboardIdle > 15 * 60)'
    " && (TARGET.RequestMemory <= MY.Memory)"
)


def _slot(i: int, rng: random.Random) -> str:
    memory = rng.choice([2048, 4096, 8192, 16384])
    arch = "X86_64" if rng.random() < 0.9 else "aarch64"
    transfer = "true" if rng.random() < 0.8 else "false"
    return f"""[
        MyType = "Machine"; TargetType = "Job"; Name = "slot{i % 8 + 1}@node{i // 8}.example.org";
        Machine = "node{i // 8}.example.org"; Arch = "{arch}"; OpSys = "LINUX";
        OpSysAndVer = "AlmaLinux9"; Cpus = {rng.choice([1, 2, 4, 8])}; Memory = {memory};
        Disk = {rng.randint(1_000_000, 50_000_000)}; Mips = {rng.randint(10_000, 40_000)};
        KFlops = {rng.randint(1_000_000, 3_000_000)}; LoadAvg = {rng.random():.3f};
        KeyboardIdle = {rng.randint(0, 100_000)}; HasFileTransfer = {transfer};
        FileSystemDomain = "node{i // 8}.example.org"; State = "Unclaimed"; Activity = "Idle";
        SlotType = "Static"; SlotWeight = Cpus; TotalSlots = 8; CondorVersion = "24.0.4";
        START = {SLOT_START}; Requirements = START; Rank = 0
    ]"""


def _ours(job: ClassAd, slots: list[ClassAd]) -> tuple[int, float]:
    matched = 0
    total = 0.0
    for slot in slots:
        if symmetric_match(job, slot):
            matched += 1
            total += rank(job, slot)
    return matched, total


def _theirs(job: object, slots: list[object]) -> tuple[int, float]:
    import classad2

    rank_expr = classad2.ExprTree("MY.Rank")
    matched = 0
    total = 0.0
    for slot in slots:
        if job.symmetricMatch(slot):  # type: ignore[attr-defined]
            matched += 1
            total += float(rank_expr.eval(job, slot))
    return matched, total


def main() -> list[str]:
    """Run the benchmark; the lines to print."""
    rng = random.Random(42)
    slot_texts = [_slot(i, rng) for i in range(SLOTS)]
    job = ClassAd.parse(JOB)
    slots = [ClassAd.parse(text) for text in slot_texts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import classad2
        import htcondor  # noqa: F401  (HTCondor's function set and settings)

    job2 = classad2.ClassAd(JOB)
    slots2 = [classad2.ClassAd(text) for text in slot_texts]

    ours_result = _ours(job, slots)  # warm up (compiles the expressions once)
    theirs_result = _theirs(job2, slots2)

    t0 = time.perf_counter()
    for _ in range(REPEATS):
        ours_result = _ours(job, slots)
    ours_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(REPEATS):
        theirs_result = _theirs(job2, slots2)
    theirs_time = time.perf_counter() - t0

    count = SLOTS * REPEATS
    ours_rate = count / ours_time
    theirs_rate = count / theirs_time
    agree = ours_result[0] == theirs_result[0] and abs(ours_result[1] - theirs_result[1]) < 1e-6
    return [
        f"1 job x {SLOTS} slots x {REPEATS}: symmetric match + Rank per slot; "
        f"{ours_result[0]} of {SLOTS} slots match (classad2: {theirs_result[0]}, "
        f"{'same' if agree else 'DIFFERENT'} ranks)",
        f"ours:     {ours_rate:12,.0f} matches/s",
        f"classad2: {theirs_rate:12,.0f} matches/s",
        f"ratio ours/classad2: {ours_rate / theirs_rate:.2f}",
    ]


if __name__ == "__main__":  # pragma: no cover
    print("\n".join(main()))
