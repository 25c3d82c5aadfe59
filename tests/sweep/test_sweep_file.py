"""Sweep files: what each axis changes in the base scenario, how variants are enumerated,
and every refusal -- one line naming the file, line, entry and field -- before anything
runs."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from condorsim.config import Config
from condorsim.routing import load_router_config
from condorsim.scenario import parse_scenario
from condorsim.sweep import OutputError, Sweep, SweepError, load_sweep, prepare_output
from condorsim.sweep.metrics import METRICS
from condorsim.tools.sweep import main as sweep_main


def write(base_dir: Path, text: str, name: str = "sweep.toml") -> Path:
    path = base_dir / name
    path.write_text(text, encoding="utf-8")
    return path


def load(base_dir: Path, text: str) -> Sweep:
    return load_sweep(write(base_dir, text))


def scenarios(sweep: Sweep) -> list:
    return [parse_scenario(v.text, base_dir=sweep.base_dir) for v in sweep.variants]


def test_a_grid_is_every_combination_in_axis_order(base_dir: Path) -> None:
    sweep = load(base_dir, '''
[sweep]
scenario = "base.toml"
[[axis]]
knob = "NEGOTIATOR_INTERVAL"
values = [20, 300]
[[axis]]
name = "slots"
machine = "big"
field = "slots"
values = [1, 4]
[[axis]]
scenario = "seed"
values = [1, 2]
''')
    assert [v.settings for v in sweep.variants][:3] == [
        (("NEGOTIATOR_INTERVAL", 20), ("slots", 1), ("seed", 1)),
        (("NEGOTIATOR_INTERVAL", 20), ("slots", 1), ("seed", 2)),
        (("NEGOTIATOR_INTERVAL", 20), ("slots", 4), ("seed", 1))]
    assert len(sweep.variants) == 8
    for variant, scenario in zip(sweep.variants, scenarios(sweep), strict=True):
        values = dict(variant.settings)
        assert scenario.config["NEGOTIATOR_INTERVAL"] == str(values["NEGOTIATOR_INTERVAL"])
        big = next(m for m in scenario.machines if m.name == "big")
        # the defaults that follow slots follow it in the variant too
        assert (big.slots, big.cpus, big.memory) == (values["slots"], values["slots"],
                                                      1024 * values["slots"])
        assert scenario.seed == values["seed"]
        assert variant.slots == 1 + values["slots"]  # exec's one slot and big's
    assert len({v.key for v in sweep.variants}) == len({v.dir_name for v in sweep.variants}) == 8
    assert [v.key for v in load_sweep(base_dir / "sweep.toml").variants] == \
        [v.key for v in sweep.variants]  # the same file, the same variants: --resume's key
    assert sweep.metrics == METRICS and sweep.per_owner and sweep.name == "sweep"


def test_points_are_crossed_with_the_grid_axes(base_dir: Path) -> None:
    sweep = load(base_dir, '''
[sweep]
scenario = "base.toml"
[[axis]]
name = "execs"
machine = "exec"
field = "count"
[[axis]]
name = "rate"
site = "batch slurm"
field = "failure_rate"
[[axis]]
scenario = "seed"
values = [7, 8]
[[point]]
execs = 1
rate = 0.0
[[point]]
execs = 3
rate = 0.5
''')
    assert [dict(v.settings) for v in sweep.variants] == [
        {"execs": 1, "rate": 0.0, "seed": 7}, {"execs": 1, "rate": 0.0, "seed": 8},
        {"execs": 3, "rate": 0.5, "seed": 7}, {"execs": 3, "rate": 0.5, "seed": 8}]
    last = scenarios(sweep)[-1]
    assert [m.machine_names() for m in last.machines] == [["exec1", "exec2", "exec3"], ["big"]]
    assert last.sites[0].failure_rate == 0.5 and last.seed == 8
    assert sweep.variants[-1].slots == 5


def test_a_submit_count_and_a_route_macro_are_rewritten(base_dir: Path) -> None:
    sweep = load(base_dir, '''
[sweep]
scenario = "base.toml"
metrics = ["wait", "makespan"]
per_owner = false
[[axis]]
submit = 2
field = "queue"
values = [5]
[[axis]]
name = "idle"
route = "Site1"
field = "MaxIdleJobs"
values = [7]
[[axis]]
name = "maxjobs"
route = "Site1"
field = "MaxJobs"
values = [9]
''')
    (scenario,) = scenarios(sweep)
    bob = scenario.submits[1]
    assert bob.file is None and "queue 5" in bob.text and "log        = bob.log" in bob.text
    route_text = scenario.config["JOB_ROUTER_ROUTE_Site1"]
    assert "MaxIdleJobs = 2" not in route_text
    config = Config.from_text("".join(f"{k} @=end\n{v}\n@end\n" for k, v in
                                      scenario.config.items()), name="[config]")
    (route,) = load_router_config(config).routes
    assert (route.max_idle_jobs, route.max_jobs) == (7, 9)
    assert sweep.metrics == ("makespan", "wait_mean", "wait_p95") and not sweep.per_owner


def test_a_knob_is_replaced_in_any_spelling(base_dir: Path) -> None:
    sweep = load(base_dir, '''
[sweep]
scenario = "base.toml"
[[axis]]
knob = "negotiator_interval"
values = [30]
[[axis]]
knob = "SCHEDD.SCHEDD_INTERVAL"
values = [10]
''')
    (scenario,) = scenarios(sweep)
    assert {k.upper(): v for k, v in scenario.config.items()}["NEGOTIATOR_INTERVAL"] == "30"
    assert scenario.config["SCHEDD.SCHEDD_INTERVAL"] == "10"
    # the variant is a scenario file of its own: it says what it varies and replays alone
    text = sweep.variants[0].text
    assert text.startswith("# a variant of ") and "negotiator_interval=30" in text
    assert tomllib.loads(text)["submit"][1]["text"].endswith("queue 2\n")


BAD = [
    ("[scenario]\nname = 'x'\n", "sweep.toml, line 1: unknown section 'scenario'"),
    ("[[axes]]\n", "unknown section 'axes' (did you mean 'axis'?)"),
    ("[[axis]]\nknob = 'A'\nvalues = [1]\n", "missing the [sweep] section"),
    ("[sweep]\nscenario = 'base.toml'\n", "no [[axis]]"),
    ("[sweep]\nscenario = 'nope.toml'\n[[axis]]\nknob = 'A'\nvalues = [1]\n",
     "sweep.toml, line 2: [sweep]: scenario: no such file: "),
    ("[sweep]\nscenario = 'broken.toml'\n[[axis]]\nknob = 'A'\nvalues = [1]\n",
     "sweep.toml, line 2: [sweep]: scenario: the base scenario is invalid: "),
    ("[sweep]\nscenario = 'base.toml'\nmetrics = ['makspan']\n[[axis]]\nknob = 'A'\n"
     "values = [1]\n", "line 3: [sweep]: metrics: unknown metric 'makspan' (did you mean "
                       "'makespan'?)"),
    ("[sweep]\nscenario = 'base.toml'\nper_owner = 1\n[[axis]]\nknob = 'A'\nvalues = [1]\n",
     "[sweep]: per_owner: expected true or false, found an integer"),
    ("[sweep]\nscenario = 'base.toml'\nnmae = 'x'\n[[axis]]\nknob = 'A'\nvalues = [1]\n",
     "line 3: [sweep]: unknown key 'nmae' (did you mean 'name'?)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nmachine = 'exec'\n"
     "values = [1]\n", "[[axis]] #1: give exactly one of knob, scenario, machine, site, "
                       "submit, route: what the axis varies (found knob and machine)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nmachine = 'exec'\nvalues = [1]\n",
     "line 3: [[axis]] #1: field: missing (required: which field of the machine it varies)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nmachine = 'exex'\nfield = 'slots'\n"
     "values = [1]\n", 'line 4: [[axis]] #1: machine: the scenario has no [[machine]] named '
                       '"exex" (machines: "exec", "big")'),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nmachine = 'exec'\nfield = 'start'\n"
     "values = [1]\n", "line 5: [[axis]] #1: field: a machine axis varies one of count, slots, "
                       "cpus, memory, disk, not 'start'"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nmachine = 'exec'\nfield = 'slots'\n"
     "values = [1, 0]\n", "line 6: [[axis]] #1: values: item 2: must be at least 1, not 0"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nvalues = [1, 2, 1]\n",
     "values: item 3: 1 is given twice"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nvalues = []\n",
     "values: expected an array of values, found an empty array"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nvalues = [[1]]\n",
     "values: item 1: expected a number, a boolean or a string, found an array"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nscenario = 'name'\nvalues = ['x']\n",
     "line 4: [[axis]] #1: scenario: an axis varies one of seed, until, max of [scenario], "
     "not 'name'"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nscenario = 'until'\nvalues = ['1 hour']\n",
     "values: item 1: '1 hour' is not a duration"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nfield = 'x'\nvalues = [1]\n",
     "line 5: [[axis]] #1: field: not used with knob (the knob names the field)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'BAD NAME'\nvalues = [1]\n",
     "knob: 'BAD NAME' is not a knob name"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nsubmit = 3\nfield = 'queue'\nvalues = [1]\n",
     "line 4: [[axis]] #1: submit: the scenario has no [[submit]] #3 (it has 2)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nsite = 'batch slurm'\nfield = 'failure_rate'\n"
     "values = [1.5]\n", "values: item 1: must be between 0 and 1, not 1.5"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nroute = 'Site9'\nfield = 'MaxIdleJobs'\n"
     "values = [1]\n", "route: the scenario's [config] has no JOB_ROUTER_ROUTE_Site9"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nvalues = [1]\n[[axis]]\n"
     "name = 'A'\nknob = 'B'\nvalues = [1]\n",
     "line 7: [[axis]] #2 (name \"A\"): name: 'A' is also the name of [[axis]] #1"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nname = 'status'\nknob = 'A'\nvalues = [1]\n",
     "name: 'status' is a column of the results already"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nname = '2 words'\nknob = 'A'\nvalues = [1]\n",
     "name: '2 words' is not an axis name"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\n",
     "line 3: [[axis]] #1 (name \"A\"): values: missing (give values = [...], or [[point]]s"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\nvalues = [1]\n[[point]]\nA = 2\n",
     "line 6: [[point]] #1: every axis has values, so a point has nothing to set"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\n[[point]]\nB = 2\n",
     "line 6: [[point]] #1: no axis is named 'B' (axes: A)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\n[[axis]]\nknob = 'B'\n"
     "values = [1]\n[[point]]\nA = 1\nB = 2\n", "[[point]] #1: B: axis 'B' has values of its "
                                               "own (a grid axis)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\n[[axis]]\nknob = 'C'\n"
     "[[point]]\nA = 1\n", "line 7: [[point]] #1: no value for the axis C"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nname = 'cpus'\nmachine = 'big'\n"
     "field = 'cpus'\nvalues = [2, 1]\n",
     "line 7: [[axis]] #1 (name \"cpus\"): values: 1 makes the variant cpus=1 an invalid "
     "scenario: [[machine]] #2 (name \"big\") cpus: 1 cannot be split over 2 slots"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nscenario = 'until'\nvalues = ['30m']\n",
     "values: '30m' makes the variant until='30m' an invalid scenario: [[expect]] #1 "
     "(at \"35m\") at: 35m is after the run stops (until = 30m)"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'JOB_ROUTER_ROUTE_Site1'\n"
     "values = ['FROB x']\n", "an invalid scenario: [config] JOB_ROUTER_ROUTE_Site1: the pool "
                             "cannot use it"),
    ("[sweep]\nscenario = 'base.toml'\n[[axis]\n", "sweep.toml, line 3: not valid TOML"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_a_bad_sweep_file_is_refused_with_file_line_and_field(base_dir: Path, text: str,
                                                               message: str) -> None:
    (base_dir / "broken.toml").write_text("[scenario]\nname = 'b'\n[[machine]]\nslots = 0\n")
    path = write(base_dir, text)
    with pytest.raises(SweepError) as caught:
        load_sweep(path)
    assert str(caught.value).startswith(str(path))
    assert message in str(caught.value)


def test_a_queue_statement_that_is_not_queue_n_cannot_be_varied(base_dir: Path) -> None:
    (base_dir / "base.toml").write_text('[scenario]\nname = "q"\n[[submit]]\ntext = """\n'
                                        'executable = /bin/true\nqueue x from (a b)\n"""\n')
    with pytest.raises(SweepError, match=r"line 4: \[\[axis\]\] #1: submit: its queue "
                                         r"statement is `queue x from \(a b\)`"):
        load(base_dir, "[sweep]\nscenario = 'base.toml'\n[[axis]]\nsubmit = 1\n"
                       "field = 'queue'\nvalues = [2]\n")


def test_an_old_syntax_route_cannot_be_varied(base_dir: Path) -> None:
    (base_dir / "base.toml").write_text(
        '[scenario]\nname = "r"\n[config]\nJOB_ROUTER_ROUTE_NAMES = "Old"\n'
        'JOB_ROUTER_ROUTE_Old = \'[ GridResource = "batch slurm"; Requirements = true ]\'\n')
    with pytest.raises(SweepError, match="JOB_ROUTER_ROUTE_Old is in the old ClassAd syntax"):
        load(base_dir, "[sweep]\nscenario = 'base.toml'\n[[axis]]\nroute = 'Old'\n"
                       "field = 'MaxIdleJobs'\nvalues = [2]\n")


def test_the_command_exits_2_with_one_line_before_anything_runs(
        base_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(base_dir, "[sweep]\nscenario = 'base.toml'\n[[axis]]\nmachine = 'exec'\n"
                           "field = 'slots'\nvalues = [0]\n")
    out = base_dir / "out"
    assert sweep_main([str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"condorsim sweep: {path}, line 6: [[axis]] #1: values: item 1: must be " \
                  "at least 1, not 0\n"
    assert not out.exists()
    assert sweep_main([str(path), "--workers", "0"]) == 2
    assert "--workers 0: must be at least 1" in capsys.readouterr().err


def test_the_output_directory_is_new_or_an_earlier_sweep_with_resume(base_dir: Path) -> None:
    sweep = load(base_dir, "[sweep]\nscenario = 'base.toml'\n[[axis]]\nknob = 'A'\n"
                           "values = [1, 2]\n")
    out = base_dir / "out"
    prepare_output(out, sweep, resume=False)
    marker = json.loads((out / "sweep.json").read_text())
    assert marker["variants"] == 2 and marker["axes"][0]["changes"] == "[config] A"
    for variant in sweep.variants:
        assert (out / "variants" / variant.dir_name / "scenario.toml").read_text() == \
            variant.text
    with pytest.raises(OutputError, match="holds an earlier sweep: give --resume"):
        prepare_output(out, sweep, resume=False)
    prepare_output(out, sweep, resume=True)
    with pytest.raises(OutputError, match="is not empty and holds no sweep"):
        prepare_output(base_dir, sweep, resume=True)


def test_the_library_sweeps_load() -> None:
    library = Path(__file__).resolve().parents[2] / "scenarios" / "sweeps"
    counts = {p.name: len(load_sweep(p).variants) for p in sorted(library.glob("*.toml"))
              if "[sweep]" in p.read_text()}
    assert counts == {"negotiator-interval.toml": 18, "router-max-idle.toml": 12}


def test_a_variant_replays_from_anywhere(base_dir: Path,
                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    """The files a base scenario names are read in (a submit's) or made absolute (its
    config_file, a [[file]]'s file): the variant's scenario.toml works in any directory."""
    (base_dir / "pool.conf").write_text("SCHEDD_INTERVAL = 30\n")
    (base_dir / "hook.sh").write_bytes(b"#!/bin/sh\nexit 0\n")
    text = (base_dir / "base.toml").read_text()
    text = text.replace("[config]\n", '[config]\nconfig_file = "pool.conf"\n', 1)
    (base_dir / "base.toml").write_text(
        text + '\n[[file]]\npath = "hooks/h.sh"\nfile = "hook.sh"\nexecutable = true\n')
    sweep = load(base_dir, "[sweep]\nscenario = 'base.toml'\n[[axis]]\nscenario = 'seed'\n"
                           "values = [5]\n")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    scenario = parse_scenario(sweep.variants[0].text, base_dir=elsewhere)
    assert scenario.config_file == (base_dir / "pool.conf").resolve()
    (hook,) = scenario.files
    assert hook.content == b"#!/bin/sh\nexit 0\n" and hook.executable
    assert "queue 2" in scenario.submits[1].text and scenario.seed == 5
