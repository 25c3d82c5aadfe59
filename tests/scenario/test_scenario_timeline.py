"""The timeline of a scenario, the cluster ids of its submits, and HTCondor's names."""

from __future__ import annotations

import htcondor

from condorsim.scenario import (
    DEFAULT_START,
    EVENT_NAMES,
    ActionSpec,
    ExpectSpec,
    SubmitSpec,
    expected_cluster_ids,
    parse_scenario,
)

TEXT = '''
[scenario]
name = "timeline"

[[expect]]
at = "10m"
job = "1.0"
that = "true"

[[expect]]
job = "1.0"
that = "true"

[[action]]
at = "10m"
do = "hold"
job = "1"

[[submit]]
at = "10m"
text = "queue"
expect_error = "x"

[[submit]]
at = "0s"
text = "queue"
expect_error = "y"

[[action]]
at = "5m"
do = "release"
job = "1"

[[expect]]
at = "10m"
constraint = "true"
count = 1

[[submit]]
at = "10m"
text = "queue"
expect_error = "z"
'''


def test_events_in_order() -> None:
    scenario = parse_scenario(TEXT)
    order = [(type(e).__name__, e.index) for e in scenario.events_in_order()]
    assert order == [
        ("SubmitSpec", 2),   # 0s
        ("ActionSpec", 2),   # 5m
        ("SubmitSpec", 1),   # 10m: submits, then actions, then expectations,
        ("SubmitSpec", 3),   #      each kind in the file's order
        ("ActionSpec", 1),
        ("ExpectSpec", 1),
        ("ExpectSpec", 3),
        ("ExpectSpec", 2),   # "end" is last
    ]
    kinds = {SubmitSpec: "submit", ActionSpec: "action", ExpectSpec: "expect"}
    assert all(kinds[type(e)] == e.kind for e in scenario.events_in_order())


def test_expected_cluster_ids_follow_time_then_file_order() -> None:
    scenario = parse_scenario(TEXT)
    # submits in file order: #1 at 10m, #2 at 0s, #3 at 10m; refused ones take an id too
    assert expected_cluster_ids(scenario) == [2, 1, 3]
    assert expected_cluster_ids(parse_scenario('[scenario]\nname = "n"\n')) == []
    assert DEFAULT_START == scenario.submits[1].at


def test_event_names_are_htcondors() -> None:
    names = sorted(htcondor.JobEventType.values.items())
    assert list(EVENT_NAMES) == [str(t.name) for _, t in names]
