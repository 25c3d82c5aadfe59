"""Scenario files: the TOML description of a pool, a workload, what happens to it and
what must then be true (docs/scenarios.md is the reference for users).

Public API::

    scenario = load_scenario("scenarios/examples/minimal.toml")   # or parse_scenario(text)
    scenario.events_in_order()            # submits, actions, expects on one timeline
    expected_cluster_ids(scenario)        # the cluster id each [[submit]] gets
    check_expectation(expect, view, now)  # in condorsim.scenario.checks

Everything wrong in a file is a :class:`ScenarioError` raised before any daemon starts.
"""

from __future__ import annotations

from ._errors import ScenarioError
from ._jobs import expected_cluster_ids
from ._model import (
    QUIET,
    ActionSpec,
    ExpectSpec,
    FileSpec,
    MachineSpec,
    Scenario,
    SiteSpec,
    SubmitSpec,
    TimelineEntry,
)
from ._names import ACTIONS, AD_TYPES, DAEMONS, EVENT_NAMES
from ._parse import DEFAULT_START, load_scenario, parse_scenario
from ._times import END, Moment, format_duration, format_moment, parse_duration, parse_moment

__all__ = [
    "ACTIONS",
    "AD_TYPES",
    "DAEMONS",
    "DEFAULT_START",
    "END",
    "EVENT_NAMES",
    "QUIET",
    "ActionSpec",
    "ExpectSpec",
    "FileSpec",
    "MachineSpec",
    "Moment",
    "Scenario",
    "ScenarioError",
    "SiteSpec",
    "SubmitSpec",
    "TimelineEntry",
    "expected_cluster_ids",
    "format_duration",
    "format_moment",
    "load_scenario",
    "parse_duration",
    "parse_moment",
    "parse_scenario",
]
