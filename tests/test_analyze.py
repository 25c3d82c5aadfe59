"""condorsim q -better-analyze: which clauses fail against how many slots, which slots refuse."""

from __future__ import annotations

from condorsim.classad import ClassAd
from condorsim.tools.analyze import analyze

JOB = ClassAd.parse(
    "ClusterId = 7\nProcId = 0\nOwner = \"alice\"\nJobStatus = 1\nRequestMemory = 2048\n"
    'Requirements = (TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory)\n'
)


def _slot(name: str, arch: str, memory: int, start: str = "TRUE", remote: str = "") -> ClassAd:
    extra = f'; RemoteOwner = "{remote}"' if remote else ""
    return ClassAd.parse(
        f'[ Name = "{name}"; Arch = "{arch}"; Memory = {memory}; START = {start};'
        f" Requirements = START{extra} ]"
    )


def test_each_clause_counts_the_slots_it_matches_and_the_summary_sorts_every_slot() -> None:
    slots = [
        _slot("slot1@small", "X86_64", 1024),
        _slot("slot1@arm", "aarch64", 8192),
        _slot("slot1@picky", "X86_64", 4096, start='TARGET.Owner == "bob"'),
        _slot("slot1@busy", "X86_64", 4096, remote="carol@localhost"),
        _slot("slot1@free", "X86_64", 4096),
    ]
    text = analyze(JOB, slots, now=0)
    assert "[0]          4  TARGET.Arch == \"X86_64\"" in text
    assert "[1]          4  TARGET.Memory >= RequestMemory" in text
    assert "    RequestMemory = 2048" in text
    assert "      2 are rejected by your job's requirements" in text
    assert "      1 reject your job because of their own requirements" in text
    assert "      1 match but are serving other users" in text
    assert "      1 are able to run your job" in text
    assert 'slot1@picky: START = TARGET.Owner == "bob"' in text
    assert "slot1@small: TARGET.Memory >= RequestMemory" in text


def test_a_job_no_slot_can_run_is_said_so() -> None:
    text = analyze(JOB, [_slot("slot1@arm", "aarch64", 8192)], now=0)
    assert "No slot in the pool can run job 7.0 now." in text
