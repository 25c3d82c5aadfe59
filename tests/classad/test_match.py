"""Matchmaking helpers: symmetric match, Rank, $$() expansion, references, conjuncts."""

from __future__ import annotations

import pytest
from _core_reference import classad2

from condorsim.classad import (
    ClassAd,
    DollarDollarError,
    parse_expr,
    rank,
    symmetric_match,
)

JOB = ClassAd.parse(
    """
    MyType = "Job"
    Owner = "alice"
    RequestMemory = 2048
    RequestDisk = 1000
    Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer || (TARGET.FileSystemDomain == MY.FileSystemDomain))
    Rank = TARGET.Memory / 1024 + (TARGET.Name == "slot1@fast" ? 100 : 0)
    FileSystemDomain = "example.org"
    Cmd = "/bin/$$(OpSys)-$$(Arch)"
    Args = "--cpus $$(Cpus) --site $$(Site:unknown) --empty $$(Nope:)"
    Env = "MEM=$$([TARGET.Memory * 2]);X=$$(DOLLARDOLLAR)"
    MATCH_Keep = "$$(Untouched)"
    """
)


def slot(**overrides: object) -> ClassAd:
    ad = ClassAd.parse(
        """[ MyType = "Machine"; Name = "slot1@host"; Arch = "X86_64"; OpSys = "LINUX";
             Memory = 4096; Disk = 100000; Cpus = 4; HasFileTransfer = true;
             FileSystemDomain = "other.org";
             Requirements = START; START = TARGET.Owner != "mallory" && MY.Memory > 0;
             Rank = TARGET.RequestMemory > 1000 ]"""
    )
    for name, value in overrides.items():
        ad[name] = value
    return ad


def _classad2_match(job: ClassAd, machine: ClassAd) -> bool:
    return bool(classad2.ClassAd(str(job)).matches(classad2.ClassAd(str(machine)))) and bool(
        classad2.ClassAd(str(machine)).matches(classad2.ClassAd(str(job)))
    )


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, True),
        ({"Arch": "INTEL"}, False),
        ({"Memory": 1024}, False),
        ({"HasFileTransfer": False}, False),
        ({"HasFileTransfer": False, "FileSystemDomain": "example.org"}, True),
        ({"START": parse_expr('TARGET.Owner == "bob"')}, False),
        ({"Requirements": parse_expr("undefined")}, False),
        ({"Requirements": parse_expr("1")}, True),
        ({"Requirements": parse_expr('"yes"')}, False),
        ({"Disk": parse_expr("Disk + 1")}, False),  # circular: no match
    ],
)
def test_symmetric_match(overrides: dict[str, object], expected: bool) -> None:
    machine = slot(**overrides)
    assert symmetric_match(JOB, machine) is expected
    if "Disk" not in overrides:
        assert _classad2_match(JOB, machine) is expected


def test_job_without_requirements_does_not_match() -> None:
    job = JOB.copy()
    del job["Requirements"]
    assert symmetric_match(job, slot()) is False


def test_rank_both_ways() -> None:
    machine = slot()
    assert rank(JOB, machine) == 4.0
    assert rank(JOB, slot(Name="slot1@fast")) == 104.0
    assert rank(machine, JOB) == 1.0  # a boolean Rank reads as 1.0
    assert rank(JOB, slot(Memory="lots")) == 0.0  # not a number
    bare = ClassAd({"Requirements": True})
    assert rank(bare, ClassAd()) == 0.0
    # as the negotiator's EvalFloat: no Rank in the ad, the other ad's Rank is used
    assert rank(bare, ClassAd({"Rank": 7})) == 7.0


def test_dollar_dollar_expansion() -> None:
    expanded = expand(JOB, slot(Site="chtc"))
    assert expanded.evaluate("Cmd") == "/bin/LINUX-X86_64"
    assert expanded.evaluate("Args") == "--cpus 4 --site chtc --empty "
    assert expanded.evaluate("Env") == "MEM=8192;X=$$"
    assert expanded.evaluate("MATCH_Keep") == "$$(Untouched)"
    assert JOB.evaluate("Cmd") == "/bin/$$(OpSys)-$$(Arch)"  # the original is unchanged
    defaulted = expand(JOB, slot())
    assert defaulted.evaluate("Args") == "--cpus 4 --site unknown --empty "


def expand(job: ClassAd, machine: ClassAd) -> ClassAd:
    from condorsim.classad import expand_dollar_dollar

    return expand_dollar_dollar(job, machine)


def test_dollar_dollar_missing_attribute_raises_the_hold_reason() -> None:
    job = ClassAd({"Cmd": "/bin/x", "Args": "$$(NoSuchAttr)"})
    with pytest.raises(DollarDollarError) as info:
        expand(job, slot())
    assert info.value.attr == "NoSuchAttr"
    assert "NoSuchAttr" in str(info.value)


def test_dollar_dollar_of_a_string_attribute_drops_its_quotes() -> None:
    job = ClassAd({"Cmd": "x", "Name2": "at $$(Name)!", "Both": "$$(Cpus)$$(Cpus)"})
    expanded = expand(job, slot())
    assert expanded.evaluate("Name2") == "at slot1@host!"
    assert expanded.evaluate("Both") == "44"


def test_references_and_conjuncts() -> None:
    req = JOB.lookup("Requirements")
    assert req is not None
    refs = req.references()
    assert ("TARGET", "Arch") in refs
    assert (None, "RequestDisk") in refs
    assert ("MY", "FileSystemDomain") in refs
    clauses = req.conjuncts()
    assert [str(c) for c in clauses][:2] == ['TARGET.Arch == "X86_64"', 'TARGET.OpSys == "LINUX"']
    assert len(clauses) == 5
    assert parse_expr("a || b").conjuncts() == [parse_expr("a || b")]


def test_expression_equality_and_hash() -> None:
    a = parse_expr("TARGET.Memory >= 1024 && x")
    b = parse_expr("TARGET.Memory  >=  1024&&x")
    assert a == b and hash(a) == hash(b)
    assert parse_expr("1") != parse_expr("1.0")
    assert parse_expr("1") != parse_expr("true")
    assert len({a, b, parse_expr("x")}) == 2
    # against something else (the shadow compares ad.lookup(name), maybe None, to a tree):
    # NotImplemented, so Python's fallback (identity); compiled _tree.py once raised here
    assert a != None and None != a and not (a == None) and a != 5  # noqa: E711
    assert not (a != b) and a != parse_expr("x")
    assert parse_expr("5").is_literal and parse_expr("5").literal_value == 5
    assert not parse_expr("a").is_literal


def test_classad_container() -> None:
    ad = ClassAd({"Memory": 1024})
    ad["memory"] = 2048
    assert list(ad) == ["Memory"]
    assert "MEMORY" in ad and ad.lookup("mEmOrY") == parse_expr("2048")
    copy = ad.copy()
    copy["Disk"] = 5
    assert "Disk" not in ad
    other = ClassAd.parse("[ memory = 2048 ]")
    assert other == ad
    other.update(copy)
    assert other.evaluate("Disk") == 5
    del other["DISK"]
    assert len(other) == 1
    # str() is new syntax classad2 reads; to_long() is condor_q -l text
    assert dict(classad2.ClassAd(str(copy)).items()) == {"Memory": 2048, "Disk": 5}
    assert copy.to_long() == "Memory = 2048\nDisk = 5\n"
