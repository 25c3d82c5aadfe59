"""The schedd classifies a fresh queue's jobs in bulk (AutoClusters.classify_many): the
procs of a cluster in a row share their trees, so the second and later take the first's
autocluster and stamps. It must give what classifying each job on its own gives: the same
AutoClusterId and AutoClusterAttrs, set in the same order in each ad (the ads' text, and so
the messages and logs that carry them, must not change)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd, parse_expression
from daemons.schedd.autocluster import AutoClusters

_CHANGES = st.sampled_from([
    None, None, None,
    ("JobStatus", 2),  # running: no autocluster
    ("JobStatus", 1),  # idle again, a tree of its own
    ("RequestMemory", 4),
    ("JobStatus", "expr"),  # an expression: evaluated in each ad
    ("Cpus", 2),  # what the cluster's JobStatus expression (if any) reads: not idle
    ("AutoClusterId", 7),  # a stamp left by another classification
    ("AutoClusterAttrs", "Nope"),
    ("shared", None),  # an ad sharing its dicts (copied on first change)
])


def _queue(clusters: list[tuple[int, int, bool, list[Any]]]) -> list[ClassAd]:
    """Job ads: per cluster its procs, copies of one ad (so sharing its trees)."""
    ads = []
    for cluster, (procs, memory, expr_status, changes) in enumerate(clusters):
        base = ClassAd.parse(
            f'[ ClusterId = {cluster}; JobStatus = 1; RequestMemory = {memory}; '
            f'Requirements = TARGET.Memory >= RequestMemory; JobUniverse = 5; '
            f'Owner = "alice"; Cpus = 1 ]')
        if expr_status:
            base["JobStatus"] = parse_expression("Cpus")  # 1, but not a constant
        for proc in range(procs):
            ad = base.copy()
            ad["ProcId"] = proc
            change = changes[proc % len(changes)] if changes else None
            if change is not None:
                name, value = change
                if name == "shared":
                    ad = ClassAd._view(ad._attrs, ad._names, None)
                elif value == "expr":
                    ad[name] = parse_expression("Cpus + 1")
                else:
                    ad[name] = value
            ads.append(ad)
    return ads


def _seen(ads: list[ClassAd]) -> list[list[tuple[str, str]]]:
    """Every ad's attributes, in its order, with their text."""
    return [[(name, str(ad[name])) for name in ad] for ad in ads]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.sampled_from([1, 2]), st.booleans(),
                          st.lists(_CHANGES, max_size=3)), min_size=1, max_size=5),
       st.randoms(use_true_random=False),
       st.lists(st.sampled_from(["", "Memory,Cpus", "Cpus"]), min_size=1, max_size=3))
def test_classifying_in_bulk_gives_what_classifying_each_job_gives(
        clusters: list[Any], rng: Any, extras: list[str]) -> None:
    ads = _queue(clusters)
    if rng.random() < 0.5:
        rng.shuffle(ads)  # not in clusters: fewer in a row
    one, bulk = [ad.copy() for ad in ads], [ad.copy() for ad in ads]
    by_one, by_bulk = AutoClusters(), AutoClusters()
    for extra in extras:  # classified again with other significant attributes
        got = []
        for ac, each in ((by_one, one), (by_bulk, bulk)):
            attrs = ac.significant(extra)
            attr_list = ",".join(attrs)
            lowered = tuple(a.lower() for a in attrs)
            tree = ac._literal(attr_list)
            if ac is by_one:
                by_trees: dict[Any, Any] = {}
                got.append([ac.classify(ad, lowered, attr_list, tree, by_trees) for ad in each])
            else:
                got.append(ac.classify_many(each, lowered, attr_list, tree, {}))
        assert got[0] == got[1]
        assert _seen(one) == _seen(bulk)
        assert [ad.names() for ad in one] == [ad.names() for ad in bulk]
        assert by_one._ids == by_bulk._ids


def test_the_procs_of_a_cluster_take_the_first_ones_answer_and_stamps() -> None:
    ads = _queue([(3, 1, False, []), (2, 2, False, [])])
    ac = AutoClusters()
    attrs = ac.significant("")
    cids = ac.classify_many(ads, tuple(a.lower() for a in attrs), ",".join(attrs),
                            ac._literal(",".join(attrs)), {})
    assert cids == [1, 1, 1, 2, 2]
    assert [ad.evaluate("AutoClusterId") for ad in ads] == cids
    assert all(ad.names()[-2:] == ("AutoClusterId", "AutoClusterAttrs") for ad in ads)
    assert ads[1].evaluate("AutoClusterAttrs") == ",".join(attrs)
