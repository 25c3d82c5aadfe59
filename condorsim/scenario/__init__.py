"""Scenario files: the TOML description of a pool, a workload, what happens to it and
what must then be true (docs/scenarios.md is the reference for users).

Public API::

    scenario = load_scenario("scenarios/examples/minimal.toml")   # or parse_scenario(text)
    scenario.events_in_order()            # submits, actions, expects on one timeline
    expected_cluster_ids(scenario)        # the cluster id each [[submit]] gets
    check_expectation(expect, view, now)  # in condorsim.scenario.checks

Everything wrong in a file is a :class:`ScenarioError` raised before any daemon starts.

Other TOML files that are checked the same way (sweep files, condorsim.sweep) use the
same readers: :func:`read_text` and :func:`load_toml` (syntax errors with their line),
:class:`Entry` (one table, field by field), :class:`FileContext` and :class:`Locator`
(line numbers), :class:`BadValue`, :func:`did_you_mean`, and the value checks
:func:`config_text`, :func:`flatten_config` and :func:`check_knob_name`.
"""

from __future__ import annotations

from ._errors import BadValue, ScenarioError
from ._fields import Entry, FileContext, did_you_mean
from ._jobs import expected_cluster_ids
from ._locate import Locator
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
from ._parse import DEFAULT_START, load_scenario, load_toml, parse_scenario, read_text
from ._times import (
    END,
    Moment,
    format_duration,
    format_moment,
    parse_duration,
    parse_moment,
    type_name,
)
from ._values import check_knob_name, config_text, flatten_config

__all__ = [
    "ACTIONS",
    "AD_TYPES",
    "DAEMONS",
    "DEFAULT_START",
    "END",
    "EVENT_NAMES",
    "QUIET",
    "ActionSpec",
    "BadValue",
    "Entry",
    "ExpectSpec",
    "FileContext",
    "FileSpec",
    "Locator",
    "MachineSpec",
    "Moment",
    "Scenario",
    "ScenarioError",
    "SiteSpec",
    "SubmitSpec",
    "TimelineEntry",
    "check_knob_name",
    "config_text",
    "did_you_mean",
    "expected_cluster_ids",
    "flatten_config",
    "format_duration",
    "format_moment",
    "load_scenario",
    "load_toml",
    "parse_duration",
    "parse_moment",
    "parse_scenario",
    "read_text",
    "type_name",
]
