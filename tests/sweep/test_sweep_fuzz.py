"""Whatever a sweep file holds, loading it gives a Sweep whose every variant is a valid
scenario, or a SweepError naming the file; and the TOML a variant is written as reads
back as the document it was written from."""

from __future__ import annotations

import datetime as dt
import json
import math
import tomllib
from pathlib import Path
from typing import Any

from _sweep_base import BASE, BOB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.scenario import parse_scenario
from condorsim.sweep import Sweep, SweepError, parse_sweep
from condorsim.sweep._toml import dumps

KEYS = {
    "sweep": ["name", "description", "scenario", "metrics", "per_owner", "nmae"],
    "axis": ["name", "knob", "scenario", "machine", "site", "submit", "route", "field",
             "values", "value"],
    "point": ["A", "slots", "seed", "NEGOTIATOR_INTERVAL", "nope"],
}
WORDS = ["", "base.toml", "missing.toml", "NEGOTIATOR_INTERVAL", "A", "exec", "big", "nope",
         "batch slurm", "Site1", "seed", "until", "max", "slots", "count", "cpus", "queue",
         "MaxIdleJobs", "failure_rate", "start_delay", "quiet", "10m", "1h", "wait",
         "makespan", "JOB_ROUTER_ROUTE_Site1", "FROB", "status", "a b"]

scalars = st.one_of(
    st.sampled_from(WORDS),
    st.text(max_size=6),
    st.integers(min_value=-3, max_value=12),
    st.floats(min_value=-1, max_value=2, allow_nan=False),
    st.booleans(),
)
values = st.one_of(scalars, st.lists(scalars, max_size=4), st.dictionaries(
    st.sampled_from(["x", "A"]), scalars, max_size=2))


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


# [sweep] is mostly valid and axes mostly aim somewhere real, so that most documents get
# as far as building and checking variants.
head = st.builds(lambda extra: {"scenario": "base.toml", **extra},
                 st.dictionaries(st.sampled_from(KEYS["sweep"]), values, max_size=1))
axis = st.one_of(
    st.dictionaries(st.sampled_from(KEYS["axis"]), values, max_size=4),
    st.builds(lambda field, vals: {"machine": "big", "field": field, "values": vals},
              st.sampled_from(["slots", "cpus", "count", "memory", "start"]),
              st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=3, unique=True)),
    st.builds(lambda field, vals: {"scenario": field, "values": vals},
              st.sampled_from(["seed", "until", "max"]),
              st.lists(st.sampled_from([0, 1, 60, "10m", "35m", "quiet", "x"]), max_size=3,
                       min_size=1, unique=True)),
    st.builds(lambda vals: {"route": "Site1", "field": "MaxIdleJobs", "values": vals},
              st.lists(st.one_of(scalars, st.integers(0, 9)), min_size=1, max_size=3, unique=True)),
    st.builds(lambda knob, vals: {"knob": knob, "values": vals},
              st.sampled_from(["NEGOTIATOR_INTERVAL", "negotiator_interval", "A", "A B",
                               "JOB_ROUTER_ROUTE_Site1"]),
              st.lists(st.one_of(scalars, st.integers(1, 600)), min_size=1, max_size=3, unique=True)),
    st.builds(lambda vals: {"submit": 2, "field": "queue", "name": "n", **vals},
              st.sampled_from([{}, {"values": [1, 3]}, {"values": [0]}])),
)
documents = st.fixed_dictionaries(
    {"sweep": head, "axis": st.lists(axis, min_size=1, max_size=2)},
    optional={"point": st.lists(st.dictionaries(st.sampled_from([*KEYS["point"], "n"]),
                                                values, max_size=2), max_size=2)})


def render(doc: dict[str, Any]) -> str:
    lines = ["[sweep]", *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in doc["sweep"].items())]
    for section in ("axis", "point"):
        for entry in doc.get(section, []):
            lines.append(f"[[{section}]]")
            lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


@settings(deadline=None, max_examples=150,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=documents)
def test_any_sweep_file_loads_or_raises_sweep_error(base_dir: Path, doc: dict[str, Any]) -> None:
    try:
        sweep = parse_sweep(render(doc), source="fuzz.toml", base_dir=base_dir)
    except SweepError as err:
        assert str(err).startswith("fuzz.toml")
        assert err.message and "\n" not in str(err)
    else:
        assert isinstance(sweep, Sweep) and sweep.variants
        for variant in sweep.variants:
            scenario = parse_scenario(variant.text, base_dir=sweep.base_dir)
            assert variant.slots == sum(m.count * m.slots for m in scenario.machines)


@settings(deadline=None, max_examples=100)
@given(st.text(max_size=120))
def test_any_text_loads_or_raises_sweep_error(text: str) -> None:
    try:
        parse_sweep(text, source="fuzz.toml", base_dir=Path("/nonexistent-dir"))
    except SweepError as err:
        assert str(err).startswith("fuzz.toml")


keys = st.text(min_size=1, max_size=8)
leaves = st.one_of(
    st.text(max_size=20), st.sampled_from(["a\nb", "x'''y\n", "ends with '\n", "tab\tline\n",
                                           "\r\n", "\x7f\n", "é\n"]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.booleans(),
    st.floats(allow_nan=False),
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1),
                 timezones=st.sampled_from([None, dt.UTC])),
)
inner = st.recursive(leaves, lambda children: st.one_of(
    st.lists(children, max_size=3), st.dictionaries(keys, children, max_size=3)), max_leaves=8)
toml_documents = st.dictionaries(keys, st.one_of(
    st.dictionaries(keys, inner, max_size=4),
    st.lists(st.dictionaries(keys, inner, max_size=3), min_size=1, max_size=3)), max_size=4)


@settings(deadline=None, max_examples=300)
@given(toml_documents)
def test_the_toml_writer_round_trips(doc: dict[str, Any]) -> None:
    assert tomllib.loads(dumps(doc)) == doc


def test_nan_and_infinities_round_trip() -> None:
    back = tomllib.loads(dumps({"t": {"a": math.inf, "b": -math.inf, "c": math.nan}}))["t"]
    assert back["a"] == math.inf and back["b"] == -math.inf and math.isnan(back["c"])


def test_the_base_scenario_round_trips_as_a_variant() -> None:
    doc = tomllib.loads(BASE)
    doc["submit"][1] = {"at": "2m", "owner": "bob", "text": BOB}
    assert tomllib.loads(dumps(doc)) == doc
