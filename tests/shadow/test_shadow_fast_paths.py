"""Issue 16 (shadow CPU): each fast path of the shadow against the plain way it replaces."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd, LazyAd
from condorsim.wire import decode, encode
from condorsim.wire import messages as m
from daemons.shadow.logic import ShadowJob

T = 1_767_225_600.0

_NAMES = st.sampled_from(["ImageSize", "imagesize", "RemoteUserCpu", "JobState", "jobStartDate",
                          "MemoryUsage", "CpusProvisioned", "NumPids", "Foo"])
_VALUES = st.one_of(st.integers(-3, 3), st.sampled_from(["Running", "Suspended", "x", ""]),
                    st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["Cpus + 1", "ImageSize * 2", "undefined", "{1, 2}"]))


def _tree(value: object) -> object:
    if isinstance(value, str) and value and value[0] in "CIu{":
        return ClassAd.parse(f"[ x = {value} ]").lookup("x")  # an expression, made anew
    return value


def _plain_register_job_info(job: ShadowJob, ad: ClassAd, now: float) -> None:
    """The merge as it was written before issue 16's fast path (the events part is shared)."""
    job.had_contact(now)
    for name, tree in ad.pairs():
        if name.lower() in ("jobstate", "jobstartdate"):
            continue
        if job.ad.lookup(name) != tree:
            job.set(name, tree)


def _job() -> ShadowJob:
    job = ClassAd.parse("[ ClusterId = 4; ProcId = 2; ImageSize = 10; RemoteUserCpu = 1;"
                        " MemoryUsage = (ResidentSetSize + 1023) / 1024; Foo = {1, 2} ]")
    return ShadowJob(job, ClassAd({"Name": "slot1@exec1"}), "claim", "<127.0.0.1:5>")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.tuples(_NAMES, _VALUES), max_size=6), min_size=1, max_size=4))
def test_a_starter_update_merges_as_the_plain_way(updates: list[list[tuple[str, object]]]) -> None:
    """The same job ad (values and spellings), the same dirty names, the same events, whether
    the update's trees are the job's own (shared literals), equal ones made anew, or others."""
    fast, plain = _job(), _job()
    for i, pairs in enumerate(updates):
        ad = ClassAd()
        for name, value in pairs:
            ad[name] = _tree(value)
        now = T + 300 * i
        fast.register_job_info(ad, now)
        _plain_register_job_info(plain, ad, now)
        plain.max_image_size = fast.max_image_size  # the events part is not the fast path
        assert fast.ad.pairs() == plain.ad.pairs()
        assert [(n, str(t)) for n, t in fast.ad.pairs()] == \
            [(n, str(t)) for n, t in plain.ad.pairs()]
        assert fast.dirty == plain.dirty
    assert fast.take_dirty().pairs() == plain.take_dirty().pairs()


def test_a_nan_update_is_dirty_as_before() -> None:
    """A literal that is not equal to an equal-looking one stays dirty; the very same tree
    (a tree is equal to itself) does not."""
    job = _job()
    nan = ClassAd({"X": math.nan}).lookup("X")
    job.register_job_info(ClassAd({"X": nan}), T)
    job.take_dirty()
    job.register_job_info(ClassAd({"X": nan}), T)
    assert job.dirty == {"LastJobLeaseRenewal"}


def test_shadow_start_slot_ad_is_lazy_and_the_same_ad() -> None:
    """SHADOW_START's slot ad is decoded lazily (the shadow reads its Name only); it is the ad
    decoded in full, and the message encodes to the same bytes again."""
    slot = ClassAd.parse('[ Name = "slot1_1@m1"; Cpus = 1; Memory = 512; Start = true;'
                         ' Requirements = Cpus > 0 && TARGET.RequestMemory <= Memory;'
                         ' LoadAvg = 0.25; ChildCpus = {1, 2} ]')
    job = ClassAd.parse("[ ClusterId = 1; ProcId = 0; Cmd = \"/bin/sleep\" ]")
    msg = m.SHADOW_START(job_ad=job, claim_id="c", startd_addr="<1:2>", slot_ad=slot,
                         schedd_addr="<3:4>")
    for _ in range(3):  # the first decodes learn the map's shape
        payload = encode(msg)
        got = decode(payload)
        assert isinstance(got, m.SHADOW_START)
        assert type(got.slot_ad) is LazyAd
        assert got.slot_ad.evaluate("Name") == "slot1_1@m1"
        assert got.slot_ad.names() == slot.names()
        assert got.slot_ad == slot and str(got.slot_ad) == str(slot)
        assert got.job_ad == job and type(got.job_ad) is ClassAd
        assert encode(got) == payload
