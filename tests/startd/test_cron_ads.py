"""How the startd's cron and benchmark ads enter slot ads (StartdNamedClassAd's rules)."""

from __future__ import annotations

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.daemoncron import STARTD_CRON, read_cron_params, read_output
from daemons.startd.cronads import NamedAds, targets


def _job(extra: str = "", name: str = "J"):  # type: ignore[no-untyped-def]
    cfg = Config.from_text(f"STARTD_CRON_JOBLIST = {name}\nSTARTD_CRON_{name}_EXECUTABLE = /x\n"
                           f"STARTD_CRON_{name}_MODE = OneShot\n{extra}")
    return read_cron_params(cfg.get, STARTD_CRON).jobs[0]


def _slot(n: int) -> ClassAd:
    return ClassAd({"Name": f"slot{n}@exec", "SlotID": n, "State": "Unclaimed"})


def _publish(ads: NamedAds, job, text: str) -> list[bool]:  # type: ignore[no-untyped-def]
    return [ads.publish(job, block) for block in read_output(text, job.prefix, 100)]


def test_the_manuals_example_gives_each_slot_its_value() -> None:
    ads = NamedAds()
    job = _job()
    ads.register(job)
    updates = _publish(ads, job, "Value=1\nSlotId=1\n-s1\nValue=2\nSlotId=2\n-s2\nValue=10\n"
                                 "- update:true\n")
    assert updates == [False, False, True]
    values = {n: ads.merge(_slot(n), n).evaluate("Value") for n in (1, 2, 3, 4)}
    assert values == {1: 1, 2: 2, 3: 10, 4: 10}
    merged = ads.merge(_slot(1), 1)
    assert "SlotId" not in merged and merged.evaluate("LastUpdate") == 100


def test_a_tagged_ad_is_replaced_by_its_tag_and_slots_limits_the_job() -> None:
    ads = NamedAds()
    job = _job("STARTD_CRON_J_SLOTS = 2")
    ads.register(job)
    _publish(ads, job, "A = 1\n-t\n")
    _publish(ads, job, "A = 2\n-t\n")
    assert ads.merge(_slot(2), 2).evaluate("A") == 2
    assert "A" not in ads.merge(_slot(1), 1)


def test_targeting_order_constraint_then_name_then_type_then_id() -> None:
    slot = ClassAd({"Name": "slot2@exec", "SlotID": 2, "SlotTypeId": 1, "Cpus": 4})
    assert targets(ClassAd.parse("[ SlotMergeConstraint = TARGET.Cpus > 2; SlotID = 9 ]"), slot)
    assert not targets(ClassAd.parse("[ SlotMergeConstraint = TARGET.Cpus > 8 ]"), slot)
    assert targets(ClassAd.parse('[ SlotName = "slot2"; SlotID = 9 ]'), slot)
    assert not targets(ClassAd.parse('[ Name = "slot1" ]'), slot)
    assert targets(ClassAd.parse("[ SlotTypeId = 1; SlotID = 9 ]"), slot)
    assert not targets(ClassAd.parse("[ SlotID = 3 ]"), slot)
    assert targets(ClassAd.parse("[ X = 1 ]"), slot)
    # the first targeting attribute present decides, even against the ones after it
    assert not targets(ClassAd.parse('[ SlotMergeConstraint = false; SlotName = "slot2" ]'), slot)
    assert not targets(ClassAd.parse('[ SlotName = "slot1"; SlotTypeId = 1; SlotID = 2 ]'), slot)
    assert not targets(ClassAd.parse("[ SlotTypeId = 2; SlotID = 2 ]"), slot)


def test_autopublish_always_and_if_changed_ignore_last_update() -> None:
    job = _job("STARTD_CRON_J_PREFIX = p_")
    ads = NamedAds(autopublish="if_changed")
    ads.register(job)
    assert _publish(ads, job, "A = 1\n") == [True]
    assert [ads.publish(job, b) for b in read_output("A = 1\n", "p_", 200)] == [False]
    assert _publish(ads, job, "A = 2\n") == [True]
    always = NamedAds(autopublish="always")
    assert _publish(always, job, "A = 1\n") == [True]
    assert _publish(always, job, "A = 1\n- update:false\n") == [False]


def test_a_job_that_leaves_the_list_takes_its_ads_along() -> None:
    ads = NamedAds()
    job = _job()
    ads.register(job)
    _publish(ads, job, "A = 1\n-x\nB = 2\n")
    assert len(ads) == 2
    ads.drop_job("J")
    assert len(ads) == 0 and len(ads.merge(_slot(1), 1)) == 0
