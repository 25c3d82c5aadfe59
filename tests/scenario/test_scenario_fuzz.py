"""Whatever a scenario file holds, loading it gives a Scenario or a ScenarioError."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.scenario import Scenario, ScenarioError, parse_scenario

KEYS = {
    "scenario": ["name", "description", "start", "timezone", "until", "max", "seed", "clock",
                 "speed", "nmae"],
    "config": ["SCHEDD_INTERVAL", "schedd_interval", "config_file", "A.B", "BAD NAME"],
    "machine": ["name", "count", "slots", "cpus", "memory", "disk", "start", "rank", "attrs",
                "clock_offset", "slot"],
    "site": ["resource", "slots", "start_delay", "failure_rate"],
    "file": ["path", "text", "file", "executable", "mode"],
    "submit": ["at", "owner", "text", "file", "expect_error"],
    "action": ["at", "do", "job", "constraint", "reason", "attr", "value", "daemon", "config",
               "atr"],
    "expect": ["at", "job", "constraint", "that", "count", "events", "ads", "where",
               "description", "messages", "after", "first", "every", "intervals"],
}
WORDS = ["", "1.0", "1", "0", "10m", "-5s", "1h30m", "end", "quiet", "hold", "qedit", "kill",
         "schedd", "Machine", "SUBMIT", "JOB_HELD", "TRUE", "JobStatus == 5", "x ==", "UTC",
         "Mars/Olympus", "wall", "virtual", "batch slurm", "alice", 'Owner == "alice"',
         "OK", "STARTER_UPDATE", "starter", "startd@exec1", "300s", "hooks/fetch.sh",
         "../up", "/etc/passwd", "a/./b", "condor_config", "#!/bin/sh\necho A = 1\n"]

scalars = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet=st.characters(blacklist_characters="/\\", blacklist_categories=["Cs"]),
            max_size=8),
    st.integers(min_value=-10, max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.datetimes(min_value=dt.datetime(2025, 1, 1), max_value=dt.datetime(2027, 1, 1),
                 timezones=st.sampled_from([None, dt.UTC])),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3),
                   st.dictionaries(st.sampled_from(["HasGPU", "X", "Bad Name", "cmd", "from",
                                                    "to", "attrs"]),
                                   st.one_of(scalars, st.lists(scalars, max_size=2)),
                                   max_size=3))


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value).replace("inf", "inf").lower() if value == value else "nan"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def table(section: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(KEYS[section]), values, max_size=6)


# [scenario] is mostly valid, so that most documents get as far as the array sections.
header = st.builds(lambda extra: {"name": "n", **extra},
                   st.dictionaries(st.sampled_from(KEYS["scenario"]), values, max_size=1))
documents = st.fixed_dictionaries(
    {"scenario": header,
     "config": st.dictionaries(st.sampled_from(KEYS["config"]), values, max_size=2)},
    optional={s: st.lists(table(s), max_size=3) for s in
              ("machine", "site", "file", "submit", "action", "expect")},
)


def render(doc: dict[str, Any]) -> str:
    lines = []
    for section, body in doc.items():
        for entry in body if isinstance(body, list) else [body]:
            lines.append(f"[[{section}]]" if isinstance(body, list) else f"[{section}]")
            if section == "submit":
                entry = {"expect_error": "refused", **entry}  # no submit is built here
            lines.extend(f"{json.dumps(k)} = {toml_value(v)}" for k, v in entry.items())
    return "\n".join(lines) + "\n"


@settings(deadline=None, max_examples=400)
@given(documents)
def test_any_file_loads_or_raises_scenario_error(doc: dict[str, Any]) -> None:
    text = render(doc)
    try:
        scenario = parse_scenario(text, source="fuzz.toml", base_dir=Path("/nonexistent-dir"))
    except ScenarioError as err:
        assert str(err).startswith("fuzz.toml")
        assert err.message
    else:
        assert isinstance(scenario, Scenario)
        assert len(scenario.events_in_order()) == \
            len(scenario.submits) + len(scenario.actions) + len(scenario.expects)


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=200))
def test_any_text_loads_or_raises_scenario_error(text: str) -> None:
    try:
        parse_scenario(text, source="fuzz.toml")
    except ScenarioError as err:
        assert str(err).startswith("fuzz.toml")
