"""The simulator's limits on a scenario (condorsim/scenario/_limits.py): what would hang or
fill the machine is refused at load, at once, with the file, line, field and the limit's
name; issue 16's P2 workload (10,000 slots, 100,000 queued jobs) stays allowed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from condorsim.scenario import ScenarioError, load_scenario, parse_scenario

H = '[scenario]\nname = "limits"\n'
SUB = '[[submit]]\ntext = """\nexecutable = /bin/sleep\narguments = 60\nqueue {n}\n"""\n'


def _refused(text: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="s.toml")
    return str(caught.value)


def test_a_hundred_million_machines_are_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(H + "\n[[machine]]\ncount = 100000000\n")
    began = time.monotonic()
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert time.monotonic() - began < 1.0
    assert str(caught.value) == (
        f"{path}, line 5: [[machine]] #1: count: machines x slots = 100,000,000 x 1 = "
        "100,000,000 exceeds the limit of 100,000 slots (MAX_SIM_SLOTS)")


@pytest.mark.parametrize(("body", "expected"), [
    ('[[machine]]\ncount = 50000\nslots = 40000\n',
     "s.toml, line 5: [[machine]] #1: count: machines x slots = 50,000 x 40,000 = "
     "2,000,000,000 exceeds the limit of 100,000 slots (MAX_SIM_SLOTS)"),
    ('[[machine]]\nslots = 200000\ncpus = 200000\n',
     "s.toml, line 5: [[machine]] #1: slots: machines x slots = 1 x 200,000 = 200,000 "
     "exceeds the limit of 100,000 slots (MAX_SIM_SLOTS)"),
    ('[[machine]]\nname = "a"\ncount = 60000\n[[machine]]\nname = "b"\ncount = 50000\n',
     's.toml, line 9: [[machine]] #2 (name "b"): count: slots of [[machine]] #1 to #2 = '
     "110,000 exceeds the limit of 100,000 slots (MAX_SIM_SLOTS)"),
    ('[[machine]]\ncpus = 1000000\n',
     "s.toml, line 5: [[machine]] #1: cpus: cpus = 1,000,000 exceeds the limit of 100,000 "
     "cpus per machine (MAX_SIM_MACHINE_CPUS)"),
    ('[[machine]]\nmemory = 99999999999999999999\n',
     "s.toml, line 5: [[machine]] #1: memory: memory = 99,999,999,999,999,999,999 exceeds "
     "the limit of 1,073,741,824 MB (1 PiB) per machine (MAX_SIM_MACHINE_MEMORY)"),
    ('[[machine]]\ndisk = 2000000000000000\n',
     "s.toml, line 5: [[machine]] #1: disk: disk = 2,000,000,000,000,000 exceeds the limit "
     "of 1,125,899,906,842,624 KB (1 EiB) per machine (MAX_SIM_MACHINE_DISK)"),
    ('[[site]]\nresource = "batch slurm"\nslots = 1000000\n',
     's.toml, line 6: [[site]] #1 (resource "batch slurm"): slots: slots = 1,000,000 '
     "exceeds the limit of 100,000 slots (MAX_SIM_SLOTS)"),
], ids=["product", "slots", "total", "cpus", "memory", "disk", "site"])
def test_pool_sizes_over_a_limit_are_refused(body: str, expected: str) -> None:
    assert _refused(H + "\n" + body) == expected


@pytest.mark.parametrize(("header", "expected"), [
    ('until = "36500d"\nmax = "36500d"\n',
     "s.toml, line 3: [scenario]: until: '36500d' (3,153,600,000 s) exceeds the limit of "
     "315,360,000 s = 10 years of simulated time (MAX_SIM_DURATION)"),
    ("max = 999999999999999999\n",
     "s.toml, line 3: [scenario]: max: 999,999,999,999,999,999 s exceeds the limit of "
     "315,360,000 s = 10 years of simulated time (MAX_SIM_DURATION)"),
    ('max = "' + "9" * 60 + 's"\n',
     "s.toml, line 3: [scenario]: max: '" + "9" * 40 + "'... is not a duration (expected "
     '"90s", "15m", "2h", "1h30m", "1d" or a number of seconds)'),
    ("start = 9500-01-01T00:00:00Z\n",
     "s.toml, line 3: [scenario]: start: 9500-01-01T00:00:00Z is not before "
     "9000-01-01T00:00:00Z, the simulator's limit (MAX_SIM_START)"),
])
def test_times_over_a_limit_are_refused(header: str, expected: str) -> None:
    assert _refused(H + header) == expected


def test_ten_years_are_allowed() -> None:
    scenario = parse_scenario(H + 'until = "3650d"\nmax = "3650d"\n')
    assert scenario.until == 3650 * 86400


def test_a_huge_queue_count_is_refused_before_any_job_is_built() -> None:
    began = time.monotonic()
    message = _refused(H + SUB.format(n=100000000))
    assert time.monotonic() - began < 1.0
    assert message == (
        's.toml, line 4: [[submit]] #1 (at "0s"): text: condor_submit refuses it (line 3 of '
        "the description): Failed to create proc: Number of submitted jobs would exceed "
        "MAX_JOBS_PER_SUBMISSION (20000)")


def test_max_jobs_per_submission_of_config_is_honoured() -> None:
    config = "[config]\nMAX_JOBS_PER_SUBMISSION = 2\n"
    assert "MAX_JOBS_PER_SUBMISSION (2)" in _refused(H + config + SUB.format(n=3))
    assert len(parse_scenario(H + config + SUB.format(n=2)).submits) == 1


def test_one_submission_over_max_jobs_per_owner_is_refused_at_load() -> None:
    # whatever else the owner has queued then, HTCondor's schedd refuses it
    config = "[config]\nMAX_JOBS_PER_SUBMISSION = 200000\n"
    assert _refused(H + config + SUB.format(n=100001)).endswith(
        "Failed to create proc: Number of submitted jobs would exceed MAX_JOBS_PER_OWNER "
        "(100000)")
    config += "MAX_JOBS_PER_OWNER = 3\n"
    assert "MAX_JOBS_PER_OWNER (3)" in _refused(H + config + SUB.format(n=4))
    # two of 3 are allowed at load: whether the second is refused depends on the queue then
    assert len(parse_scenario(H + config + SUB.format(n=3) + SUB.format(n=3)).submits) == 2


def test_all_the_submits_together_stay_under_max_sim_jobs() -> None:
    config = "[config]\nMAX_JOBS_PER_SUBMISSION = 2000000\nMAX_JOBS_PER_OWNER = 2000000\n"
    began = time.monotonic()
    message = _refused(H + config + SUB.format(n=600000) + SUB.format(n=500000))
    assert time.monotonic() - began < 5.0
    assert message.startswith('s.toml, line 13: [[submit]] #2 (at "0s"): text: ')
    assert message.endswith("the scenario's [[submit]] entries would queue more than "
                            "1,000,000 jobs in all, the simulator's limit (MAX_SIM_JOBS)")


def test_issue_16_p2_workload_is_allowed_at_load() -> None:
    """500 machines x 20 slots and 100,000 queued jobs: loaded, not replayed."""
    text = (H + "\n[config]\nMAX_JOBS_PER_SUBMISSION = 100000\n\n"
            "[[machine]]\ncount = 500\nslots = 20\ncpus = 20\nmemory = 40960\n\n"
            + SUB.format(n=100000))
    began = time.monotonic()
    scenario = parse_scenario(text, source="p2.toml")
    assert time.monotonic() - began < 20.0
    assert sum(m.count * m.slots for m in scenario.machines) == 10000
    assert len(scenario.machines[0].machine_names()) == 500


def test_a_sweep_of_too_many_variants_is_refused_before_they_are_made(tmp_path: Path) -> None:
    """Ten axes of ten values are 10**10 variants: counted, not made (MAX_VARIANTS)."""
    from condorsim.sweep import SweepError, load_sweep

    (tmp_path / "base.toml").write_text(H + "\n[config]\n" + "".join(
        f"K{n} = 0\n" for n in range(10)))
    axes = "".join(f'[[axis]]\nknob = "K{n}"\nvalues = {list(range(10))}\n' for n in range(10))
    (tmp_path / "sweep.toml").write_text('[sweep]\nscenario = "base.toml"\n' + axes)
    began = time.monotonic()
    with pytest.raises(SweepError) as caught:
        load_sweep(tmp_path / "sweep.toml")
    assert time.monotonic() - began < 2.0
    assert "10,000,000,000 variants is more than 10,000, the limit (MAX_VARIANTS)" in \
        str(caught.value)
