"""Every field of a scenario file is read, with its type and its default."""

from __future__ import annotations

import datetime as dt
import textwrap
from pathlib import Path

import pytest

from condorsim.scenario import (
    DEFAULT_START,
    END,
    QUIET,
    ActionSpec,
    ExpectSpec,
    MachineSpec,
    Scenario,
    SiteSpec,
    load_scenario,
    parse_scenario,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "scenarios" / "examples"


def parse(text: str, base_dir: Path = Path(".")) -> Scenario:
    return parse_scenario(textwrap.dedent(text), source="t.toml", base_dir=base_dir)


def test_defaults_of_a_minimal_file() -> None:
    scenario = parse('[scenario]\nname = "n"\n')
    assert scenario == Scenario(name="n", start=DEFAULT_START, source="t.toml")
    assert DEFAULT_START == int(dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp())
    assert (scenario.description, scenario.timezone, scenario.until, scenario.max) == \
        ("", "UTC", QUIET, 7 * 86400)
    assert (scenario.seed, scenario.clock, scenario.speed) == (1, "virtual", 1.0)
    assert scenario.config == {} and scenario.config_file is None
    assert (scenario.machines, scenario.sites, scenario.submits) == ((), (), ())
    assert (scenario.actions, scenario.expects) == ((), ())
    assert scenario.deadline == DEFAULT_START + 7 * 86400


def test_scenario_section() -> None:
    scenario = parse('''
        [scenario]
        name = "deferral window missed"
        description = "why"
        start = 2026-01-01T09:30:00-06:00
        timezone = "America/Chicago"
        until = "2h"
        max = "1d"
        seed = 42
        clock = "wall"
        speed = 60
    ''')
    assert scenario.name == "deferral window missed"
    assert scenario.description == "why"
    assert scenario.start == int(dt.datetime(2026, 1, 1, 15, 30, tzinfo=dt.UTC).timestamp())
    assert scenario.timezone == "America/Chicago"
    assert (scenario.until, scenario.max, scenario.seed) == (7200, 86400, 42)
    assert (scenario.clock, scenario.speed) == ("wall", 60.0)


def test_start_as_epoch_seconds_and_until_quiet() -> None:
    scenario = parse('[scenario]\nname = "n"\nstart = 1000\nuntil = "quiet"\n')
    assert (scenario.start, scenario.until) == (1000, QUIET)


def test_config_values_become_config_text() -> None:
    scenario = parse('''
        [scenario]
        name = "n"
        [config]
        SCHEDD_INTERVAL = 300
        ENABLE_THING = true
        DISABLED = false
        RATIO = 0.25
        JOB_ROUTER_SOURCE_JOB_CONSTRAINT = "WantJobRouter"
        JOB_ROUTER_ROUTE_NAMES = "Site1 Site2"
        JOB_ROUTER_ROUTE_Site1 = \'\'\'
          GridResource = "batch slurm"
          MaxIdleJobs = 5
        \'\'\'
        SCHEDD.SCHEDD_INTERVAL = 60
        "STARTD.START" = "TRUE"
    ''')
    assert scenario.config == {
        "SCHEDD_INTERVAL": "300",
        "ENABLE_THING": "true",
        "DISABLED": "false",
        "RATIO": "0.25",
        "JOB_ROUTER_SOURCE_JOB_CONSTRAINT": "WantJobRouter",
        "JOB_ROUTER_ROUTE_NAMES": "Site1 Site2",
        "JOB_ROUTER_ROUTE_Site1": '  GridResource = "batch slurm"\n  MaxIdleJobs = 5\n',
        "SCHEDD.SCHEDD_INTERVAL": "60",
        "STARTD.START": "TRUE",
    }


def test_config_file_is_resolved_against_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "pool.conf").write_text("SCHEDD_INTERVAL = 10\n")
    (tmp_path / "s.toml").write_text('[scenario]\nname = "n"\n[config]\n'
                                     'config_file = "pool.conf"\nX = 1\n')
    scenario = load_scenario(tmp_path / "s.toml")
    assert scenario.config_file == (tmp_path / "pool.conf").resolve()
    assert scenario.config == {"X": "1"}
    assert scenario.source == str(tmp_path / "s.toml")
    assert scenario.base_dir == tmp_path


def test_machine_defaults() -> None:
    scenario = parse('[scenario]\nname = "n"\n[[machine]]\n')
    assert scenario.machines == (MachineSpec(index=1),)
    machine = scenario.machines[0]
    assert (machine.name, machine.count, machine.slots) == ("exec", 1, 1)
    assert (machine.cpus, machine.memory, machine.disk) == (1, 1024, 10485760)
    assert (machine.start, machine.rank, machine.attrs, machine.clock_offset) == \
        ("TRUE", "0", {}, 0)
    assert machine.machine_names() == ["exec"]


def test_machine_fields() -> None:
    scenario = parse('''
        [scenario]
        name = "n"
        [[machine]]
        name = "node"
        count = 3
        slots = 4
        cpus = 8
        memory = 8193
        disk = 100000000
        start = 'TARGET.Owner == "alice"'
        rank = "TARGET.JobPrio"
        attrs = { HasGPU = "false", Gpus = 2, Speed = 1.5, Big = true, Site = '"lab"' }
        clock_offset = "-1m30s"
        [[machine]]
        slots = 2
    ''')
    node, other = scenario.machines
    assert node.machine_names() == ["node1", "node2", "node3"]
    assert (node.count, node.slots, node.cpus, node.memory, node.disk) == \
        (3, 4, 8, 8193, 100000000)
    assert (node.slot_cpus, node.slot_memory, node.slot_disk) == (2, 2048, 25000000)
    assert node.start == 'TARGET.Owner == "alice"' and node.rank == "TARGET.JobPrio"
    assert node.attrs == {"HasGPU": "false", "Gpus": "2", "Speed": "1.5", "Big": "true",
                          "Site": '"lab"'}
    assert node.clock_offset == -90
    # cpus, memory and disk default per slot
    assert (other.cpus, other.memory, other.disk) == (2, 2048, 2 * 10485760)


def test_site_fields_and_defaults() -> None:
    scenario = parse('''
        [scenario]
        name = "n"
        [[site]]
        resource = "batch slurm"
        slots = 10
        start_delay = "30s"
        failure_rate = 0.25
        [[site]]
        resource = "batch pbs"
    ''')
    assert scenario.sites == (
        SiteSpec(index=1, resource="batch slurm", slots=10, start_delay=30, failure_rate=0.25),
        SiteSpec(index=2, resource="batch pbs", slots=1, start_delay=0, failure_rate=0.0),
    )


def test_submit_fields_and_defaults(tmp_path: Path) -> None:
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "a.sub").write_text("executable = /bin/true\nuniverse = scheduler\n"
                                             "queue\n")
    scenario = parse('''
        [scenario]
        name = "n"
        [[submit]]
        text = "executable = /bin/true\\nqueue\\n"
        expect_error = "no such thing"
        [[submit]]
        at = "5m"
        owner = "alice"
        file = "jobs/a.sub"
        expect_error = "scheduler universe"
    ''', base_dir=tmp_path)
    first, second = scenario.submits
    assert (first.at, first.at_text, first.owner, first.file) == \
        (DEFAULT_START, "0s", "condor", None)
    assert first.text == "executable = /bin/true\nqueue\n"
    assert first.expect_error == "no such thing"
    assert (second.at, second.at_text, second.owner) == (DEFAULT_START + 300, "5m", "alice")
    assert second.file == (tmp_path / "jobs" / "a.sub").resolve()
    assert second.text == "executable = /bin/true\nuniverse = scheduler\nqueue\n"
    assert second.label == '[[submit]] #2 (at "5m")'


def test_action_fields() -> None:
    scenario = parse('''
        [scenario]
        name = "n"
        start = 2026-01-01T00:00:00Z
        [[action]]
        at = "10m"
        do = "hold"
        job = "1.0"
        reason = "checking"
        [[action]]
        at = 2026-01-01T00:20:00Z
        do = "qedit"
        constraint = 'Owner == "alice"'
        attr = "JobPrio"
        value = 10
        [[action]]
        at = 1800
        do = "remove"
        job = "012"
        [[action]]
        at = "1h"
        do = "kill"
        daemon = "schedd"
        [[action]]
        at = "2h"
        do = "reconfig"
        config = { SCHEDD_INTERVAL = 60, SCHEDD.FOO = true }
        [[action]]
        at = "3h"
        do = "reconfig"
        daemon = "negotiator"
    ''')
    hold, qedit, remove, kill, reconfig, reconfig_one = scenario.actions
    assert hold == ActionSpec(index=1, at=DEFAULT_START + 600, at_text="10m", do="hold",
                              job="1.0", reason="checking")
    assert qedit == ActionSpec(index=2, at=DEFAULT_START + 1200, at_text="2026-01-01T00:20:00Z",
                               do="qedit", constraint='Owner == "alice"', attr="JobPrio",
                               value="10")
    assert (remove.job, remove.at, remove.at_text) == ("12", DEFAULT_START + 1800, "1800")
    assert (kill.do, kill.daemon) == ("kill", "schedd")
    assert reconfig.config == {"SCHEDD_INTERVAL": "60", "SCHEDD.FOO": "true"}
    assert (reconfig.daemon, reconfig_one.daemon, reconfig_one.config) == \
        (None, "negotiator", {})


@pytest.mark.parametrize("do", ["release", "suspend", "continue", "vacate"])
def test_actions_on_jobs(do: str) -> None:
    scenario = parse(f'[scenario]\nname = "n"\n[[action]]\nat = "1m"\ndo = "{do}"\n'
                     'constraint = "JobStatus == 2"\n')
    assert scenario.actions[0].do == do
    assert scenario.actions[0].constraint == "JobStatus == 2"


def test_expect_fields_and_defaults() -> None:
    scenario = parse('''
        [scenario]
        name = "n"
        [[expect]]
        at = "15m"
        job = "1.0"
        that = 'JobStatus == 5 && HoldReasonCode == 20'
        events = ["SUBMIT", "execute", "JOB_HELD"]
        description = "shown when it fails"
        [[expect]]
        constraint = 'Owner == "alice"'
        count = 3
        [[expect]]
        at = "end"
        ads = "machine"
        where = 'State == "Claimed"'
        count = 0
    ''')
    job, jobs, ads = scenario.expects
    assert job == ExpectSpec(index=1, at=DEFAULT_START + 900, at_text="15m", job="1.0",
                             that="JobStatus == 5 && HoldReasonCode == 20",
                             events=("SUBMIT", "EXECUTE", "JOB_HELD"),
                             description="shown when it fails")
    assert jobs == ExpectSpec(index=2, at=END, at_text="end", constraint='Owner == "alice"',
                              count=3)
    assert (ads.ads, ads.where, ads.count, ads.at) == ("Machine", 'State == "Claimed"', 0, END)


def test_the_example_scenario_parses() -> None:
    scenario = load_scenario(EXAMPLES / "minimal.toml")
    assert scenario.name == "minimal: hold and release"
    assert scenario.timezone == "America/Chicago"
    assert [m.machine_names() for m in scenario.machines] == [["exec1", "exec2"]]
    assert scenario.machines[0].clock_offset == -2
    assert [s.owner for s in scenario.submits] == ["alice", "bob"]
    assert scenario.submits[1].file == (EXAMPLES / "minimal-bob.sub").resolve()
    assert [a.do for a in scenario.actions] == ["hold", "qedit", "release"]
    assert len(scenario.expects) == 6
