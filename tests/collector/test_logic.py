"""CollectorState: keys and replacement, expiry, queries, invalidation, statistics."""

from __future__ import annotations

import pytest
from _collector_ads import make_ad, schedd, slot
from hypothesis import given, settings
from hypothesis import strategies as st

from daemons.collector.keys import CollectorError, adtype_for_command, host_of_address
from daemons.collector.logic import CollectorState


def names(ads: list) -> list[str]:  # type: ignore[type-arg]
    return [ad.evaluate("Name") for ad in ads]


# ------------------------------------------------------------------ updates
def test_update_stores_a_stamped_copy() -> None:
    state = CollectorState()
    original = make_ad(Name="slot1@a", Memory=1024)
    assert state.update("Machine", original, now=100) is True
    [stored] = state.query("Machine", now=100)
    assert stored.evaluate("LastHeardFrom") == 100
    assert stored.evaluate("MyType") == "Machine"  # added when missing
    assert "LastHeardFrom" not in original  # the caller's ad is untouched


def test_update_with_same_key_replaces() -> None:
    state = CollectorState()
    state.update("Machine", slot("slot1@a", State="Unclaimed"), now=100)
    assert state.update("machine", slot("slot1@a", State="Claimed"), now=200) is False
    [stored] = state.query("Machine", now=200)
    assert stored.evaluate("State") == "Claimed"
    assert stored.evaluate("LastHeardFrom") == 200
    assert state.counts() == {"Machine": 1}


def test_startd_key_includes_the_host_but_not_the_port() -> None:
    state = CollectorState()
    state.update("Machine", slot("slot1@a", MyAddress="<10.0.0.1:1000>"), now=1)
    state.update("Machine", slot("slot1@a", MyAddress="<10.0.0.1:2000>"), now=2)
    assert len(state) == 1
    state.update("Machine", slot("slot1@a", MyAddress="<10.0.0.2:1000>"), now=3)
    assert len(state) == 2


def test_startd_without_name_is_keyed_by_machine_and_slot_id() -> None:
    state = CollectorState()
    state.update("Machine", make_ad(Machine="a", SlotID=1), now=1)
    state.update("Machine", make_ad(Machine="a", SlotID=2), now=1)
    state.update("Machine", make_ad(Machine="a", SlotID=1, Memory=5), now=2)
    assert len(state) == 2
    with pytest.raises(CollectorError, match="neither 'Name' nor 'Machine'"):
        state.update("Machine", make_ad(SlotID=3), now=3)


def test_submitter_ads_of_two_schedds_are_two_ads() -> None:
    state = CollectorState()
    for schedd_name in ("s1@a", "s2@a"):
        ad = make_ad(MyType="Submitter", Name="alice@a", ScheddName=schedd_name,
                     MyAddress="<127.0.0.1:9618>")
        state.update("Submitter", ad, now=1)
    assert state.counts() == {"Submitter": 2}


def test_schedd_ad_needs_an_address_and_a_refused_ad_changes_nothing() -> None:
    state = CollectorState()
    with pytest.raises(CollectorError, match="neither 'MyAddress' nor 'ScheddIpAddr'"):
        state.update("Scheduler", make_ad(Name="s@a"), now=1)
    with pytest.raises(CollectorError, match="'Name' not found"):
        state.update("Negotiator", make_ad(Machine="cm"), now=1)
    assert len(state) == 0
    assert state.next_expiry() is None


def test_generic_types_key_by_name_and_match_case_insensitively() -> None:
    state = CollectorState()
    state.update("Gizmo", make_ad(MyType="Gizmo", Name="g1"), now=1)
    state.update("GIZMO", make_ad(MyType="Gizmo", Name="g1", Size=2), now=2)
    assert names(state.query("gizmo", now=2)) == ["g1"]
    assert state.query("gizmo", now=2)[0].evaluate("Size") == 2


def test_ads_cannot_be_stored_as_any() -> None:
    with pytest.raises(CollectorError, match="Any"):
        CollectorState().update("Any", make_ad(Name="x"), now=1)


def test_host_of_address() -> None:
    assert host_of_address("<127.0.0.1:9618?addrs=127.0.0.1-9618&sock=x>") == "127.0.0.1"
    assert host_of_address("<[::1]:9618>") == "::1"
    assert host_of_address("") == ""


# ------------------------------------------------------------------- expiry
def test_expiry_is_strictly_after_the_lifetime() -> None:
    state = CollectorState(lifetime=900)
    state.update("Machine", slot("slot1@a"), now=100)
    assert state.next_expiry() == 1001
    assert state.expire(1000) == []  # exactly 900 s old: still there
    assert len(state) == 1
    assert names(state.expire(1001)) == ["slot1@a"]
    assert len(state) == 0
    assert state.next_expiry() is None


def test_per_ad_classad_lifetime_overrides_the_default() -> None:
    state = CollectorState(lifetime=900)
    state.update("Machine", slot("long@a"), now=100)
    state.update("Machine", slot("short@a", ClassAdLifetime=60), now=100)
    assert state.next_expiry() == 161
    assert names(state.expire(161)) == ["short@a"]
    assert names(state.query("Machine", now=161)) == ["long@a"]
    assert state.next_expiry() == 1001


def test_an_update_renews_the_lifetime() -> None:
    state = CollectorState(lifetime=900)
    state.update("Machine", slot("slot1@a"), now=100)
    state.update("Machine", slot("slot1@a"), now=500)
    assert state.expire(1001) == []
    assert state.next_expiry() == 1401


def test_housekeeping_interval_expires_only_on_ticks() -> None:
    state = CollectorState(lifetime=900, housekeeping_interval=900, start_time=0)
    state.update("Machine", slot("slot1@a"), now=100)  # stale from 1001
    assert state.next_expiry() == 1800
    assert names(state.expire(1800)) == ["slot1@a"]


# ------------------------------------------------------------------ queries
@pytest.fixture
def pool() -> CollectorState:
    state = CollectorState()
    state.update("Machine", slot("slot2@b", State="Unclaimed", Memory=2048), now=10)
    state.update("Machine", slot("slot1@b", State="Claimed", Memory=4096), now=10)
    state.update("Machine", slot("slot1@a", State="Unclaimed", Memory=512), now=10)
    state.update("Scheduler", schedd("s@a", TotalIdleJobs=3), now=10)
    state.update("DaemonMaster", make_ad(Name="a", Machine="a"), now=10)
    return state


def test_constraint_query_with_projection(pool: CollectorState) -> None:
    ads = pool.query("Machine", 'Memory >= 1024 && State == "Unclaimed"', ["Name", "memory"],
                     now=10)
    assert len(ads) == 1
    assert sorted(ads[0]) == ["Memory", "Name"]
    assert ads[0].evaluate("Memory") == 2048


def test_projection_keeps_what_projected_expressions_refer_to() -> None:
    state = CollectorState()
    ad = make_ad({"Start": "KeyboardIdle > Limit && TARGET.Owner == MY.Boss",
                  "Limit": "2 * Base"}, Name="s@a", KeyboardIdle=5, Base=3, Boss="x", Other=1)
    state.update("Machine", ad, now=1)
    [got] = state.query("Machine", projection=["Start"], now=1)
    assert sorted(got) == ["Base", "Boss", "KeyboardIdle", "Limit", "Start"]


def test_query_time_is_now(pool: CollectorState) -> None:
    assert len(pool.query("Machine", "LastHeardFrom >= time() - 5", now=15)) == 3
    assert pool.query("Machine", "LastHeardFrom >= time() - 5", now=16) == []


def test_constraint_truth_is_true_or_nonzero_number(pool: CollectorState) -> None:
    assert len(pool.query("Machine", "Memory - 512", now=10)) == 2
    assert pool.query("Machine", '"yes"', now=10) == []
    assert pool.query("Machine", "NoSuchAttr", now=10) == []
    assert pool.query("Machine", "1/0", now=10) == []


def test_results_are_ordered_by_type_then_name(pool: CollectorState) -> None:
    assert names(pool.query("Machine", now=10)) == ["slot1@a", "slot1@b", "slot2@b"]
    types = [ad.evaluate("MyType") for ad in pool.query("Any", now=10)]
    assert types == ["DaemonMaster", "Machine", "Machine", "Machine", "Scheduler"]


def test_the_order_follows_ads_that_come_and_go() -> None:
    state = CollectorState()
    state.update("Machine", make_ad(Machine="m", SlotID=1, Name="b"), now=1)
    state.update("Machine", make_ad(Machine="m", SlotID=2, Name="c"), now=1)
    assert names(state.query("Machine", now=1)) == ["b", "c"]
    state.update("Machine", slot("a"), now=2)
    assert names(state.query("Machine", now=2)) == ["a", "b", "c"]
    state.update("Machine", make_ad(Machine="m", SlotID=3, Name="0"), now=3)
    state.update("Machine", make_ad(Machine="m", SlotID=2, Name="c", State="Claimed"), now=3)
    assert names(state.query("Machine", now=3)) == ["0", "a", "b", "c"]
    state.invalidate("Machine", slot("a"), now=4)
    assert names(state.query("Machine", now=4)) == ["0", "b", "c"]


def test_shared_results_are_the_stored_ads_which_an_update_replaces(
        pool: CollectorState) -> None:
    [shared] = pool.query("Scheduler", now=10, shared=True)
    assert shared == pool.query("Scheduler", now=10)[0]
    assert pool.query("Scheduler", now=10, shared=True)[0] is shared
    pool.update("Scheduler", schedd("s@a", TotalIdleJobs=4), now=11)
    assert shared.evaluate("TotalIdleJobs") == 3
    assert pool.query("Scheduler", now=11, shared=True)[0].evaluate("TotalIdleJobs") == 4


def test_query_of_an_unknown_type_is_empty(pool: CollectorState) -> None:
    assert pool.query("Negotiator", now=10) == []


def test_query_results_are_copies(pool: CollectorState) -> None:
    [ad] = pool.query("Scheduler", now=10)
    ad["TotalIdleJobs"] = pool.query("Machine", now=10)[0]["Memory"]
    assert pool.query("Scheduler", now=10)[0].evaluate("TotalIdleJobs") == 3


def test_bad_constraint_is_a_collector_error(pool: CollectorState) -> None:
    with pytest.raises(CollectorError, match="bad constraint 'Memory >'"):
        pool.query("Machine", "Memory >", now=10)


# ------------------------------------------------------------- invalidation
def test_invalidation_ad_with_a_key_removes_that_ad(pool: CollectorState) -> None:
    query = make_ad(MyType="Query", TargetType="Scheduler", Name="s@a",
                    MyAddress="<127.0.0.1:4000>", Requirements=False)
    assert pool.invalidate("Scheduler", query, now=20) == 1
    assert pool.query("Scheduler", now=20) == []
    assert pool.invalidate("Scheduler", query, now=20) == 0


def test_invalidation_by_requirements(pool: CollectorState) -> None:
    query = make_ad({"Requirements": 'State == "Unclaimed"'}, MyType="Query")
    assert pool.invalidate("Machine", query, now=20) == 2
    assert names(pool.query("Machine", now=20)) == ["slot1@b"]


def test_invalidation_by_constraint_text(pool: CollectorState) -> None:
    assert pool.invalidate("Any", 'Machine == "a"', now=20) == 1
    assert pool.counts() == {"Machine": 3, "Scheduler": 1}


def test_invalidation_ad_needs_key_or_requirements(pool: CollectorState) -> None:
    with pytest.raises(CollectorError, match="Requirements"):
        pool.invalidate("Machine", make_ad(MyType="Query"), now=20)
    with pytest.raises(CollectorError, match="without a constraint"):
        pool.invalidate("Machine", "  ", now=20)
    assert len(pool) == 5


def test_invalidation_also_drops_stale_ads_of_that_type() -> None:
    state = CollectorState(lifetime=100)
    state.update("Machine", slot("old@a"), now=0)
    state.update("Machine", slot("new@a"), now=150)
    assert state.invalidate("Machine", "false", now=150) == 0
    assert names(state.query("Machine", now=150)) == ["new@a"]


# -------------------------------------------------------------- statistics
def test_stats_count_hosts_jobs_and_lost_updates() -> None:
    state = CollectorState()
    for name, s in [("1@a", "Claimed"), ("2@a", "Unclaimed"), ("3@a", "Owner"),
                    ("4@a", "Matched")]:
        state.update("Machine", slot(name, State=s), now=1)
    for user, running, idle in [("alice@a", 2, 5), ("bob@a", 1, 0)]:
        ad = make_ad(MyType="Submitter", Name=user, MyAddress="<127.0.0.1:9>",
                     RunningJobs=running, IdleJobs=idle)
        state.update("Submitter", ad, now=1)
    for seq in (1, 2, 5, 4):  # 2 lost between 2 and 5, 1 for going backwards
        state.update("Scheduler", schedd("s@a", UpdateSequenceNumber=seq, DaemonStartTime=7),
                     now=1)
    state.update("Scheduler", schedd("s@a", UpdateSequenceNumber=1, DaemonStartTime=8), now=1)
    stats = state.stats()
    assert stats == {
        "RunningJobs": 3, "IdleJobs": 5, "HostsTotal": 4, "HostsClaimed": 1,
        "HostsUnclaimed": 1, "HostsOwner": 1, "MachineAds": 4, "SubmitterAds": 2,
        "UpdatesTotal": 11, "UpdatesSequenced": 4, "UpdatesLost": 3,
    }


def test_commands_map_to_ad_types() -> None:
    empty = make_ad()
    assert adtype_for_command("UPDATE_STARTD_AD", empty) == "Machine"
    assert adtype_for_command("QUERY_SUBMITTOR_ADS", empty) == "Submitter"
    assert adtype_for_command("INVALIDATE_MASTER_ADS", empty) == "DaemonMaster"
    assert adtype_for_command("QUERY_ANY_ADS", empty) == "Any"
    assert adtype_for_command("UPDATE_AD_GENERIC", make_ad(MyType="gizmo")) == "gizmo"
    assert adtype_for_command("QUERY_GENERIC_ADS", make_ad(TargetType="machine")) == "Machine"
    with pytest.raises(CollectorError, match="no string 'MyType'"):
        adtype_for_command("UPDATE_AD_GENERIC", empty)
    with pytest.raises(CollectorError, match="does not handle"):
        adtype_for_command("NEGOTIATE", empty)


# ------------------------------------------------------------------ model
_NAMES = ["s1", "s2", "s3", "s4"]
_op = st.one_of(
    st.tuples(st.just("update"), st.sampled_from(_NAMES), st.sampled_from([None, 5, 50])),
    st.tuples(st.just("invalidate"), st.sampled_from(_NAMES), st.none()),
    st.tuples(st.just("expire"), st.none(), st.none()),
)


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 40), _op), max_size=40))
def test_random_operations_agree_with_a_simple_model(steps: list) -> None:  # type: ignore[type-arg]
    state = CollectorState(lifetime=30)
    model: dict[str, tuple[int, int]] = {}  # name -> (heard, lifetime)
    now = 1000
    for advance, (kind, name, lifetime) in steps:
        now += advance
        if kind == "update":
            attrs = {} if lifetime is None else {"ClassAdLifetime": lifetime}
            state.update("Machine", slot(name, **attrs), now=now)
            model[name] = (now, 30 if lifetime is None else lifetime)
        elif kind == "invalidate":
            stale = {n for n, (heard, life) in model.items() if now - heard > life}
            assert state.invalidate("Machine", f'Name == "{name}"', now=now) == int(
                name in model)
            model.pop(name, None)
            for n in stale:
                model.pop(n, None)
        else:
            gone = sorted(n for n, (heard, life) in model.items() if now - heard > life)
            assert sorted(names(state.expire(now))) == gone
            for n in gone:
                del model[n]
        assert names(state.query("Machine", now=now)) == sorted(model)
        deadlines = [heard + life + 1 for heard, life in model.values()]
        assert state.next_expiry() == (min(deadlines) if deadlines else None)
