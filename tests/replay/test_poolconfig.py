"""The condor_config a scenario's pool runs with: what the daemons read from it."""

from __future__ import annotations

from pathlib import Path

from condorsim.config import Config
from condorsim.replay.poolconfig import append_knobs, make_run_dir
from condorsim.scenario import parse_scenario

SCENARIO = '''
[scenario]
name = "two kinds of machine"
timezone = "America/Chicago"
seed = 9

[config]
NEGOTIATOR_INTERVAL = 20
SCHEDD.SCHEDD_INTERVAL = 60
JOB_ROUTER_ROUTE_Site1 = """
  GridResource = "batch slurm"
  MaxIdleJobs = 5
"""

[[machine]]
name = "exec"
count = 2
slots = 2
cpus = 4
memory = 8192
start = 'Owner == "alice"'
attrs = { HasGPU = false, Site = '"lab"' }
clock_offset = "-2s"

[[machine]]
name = "big"
'''


def _config(tmp_path: Path, subsystem: str = "STARTD") -> Config:
    path = make_run_dir(parse_scenario(SCENARIO), tmp_path / "run")
    return Config.load(path, subsystem=subsystem, env={})


def test_run_directory_layout_and_pool_knobs(tmp_path: Path) -> None:
    config = _config(tmp_path)
    run = tmp_path / "run"
    assert all((run / sub).is_dir() for sub in ("log", "spool", "execute"))
    assert config.get("LOG") == f"{run}/log"
    assert config.get("SPOOL") == f"{run}/spool"
    assert config.get("COLLECTOR_HOST") == "127.0.0.1:0"
    assert config.get("SIM_TIMEZONE") == "America/Chicago"
    assert config.get("SIM_SEED") == "9"
    assert config.get_list("DAEMON_LIST")[:2] == ["MASTER", "COLLECTOR"]


def test_each_machine_is_described_by_sim_machine_knobs(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert config.get_list("SIM_MACHINES") == ["exec1", "exec2", "big"]
    assert config.get("SIM_MACHINE_exec2_SLOTS") == "2"
    assert config.get("SIM_MACHINE_exec2_CPUS") == "4"
    assert config.get("SIM_MACHINE_exec2_MEMORY") == "8192"
    assert config.get("SIM_MACHINE_exec1_START") == 'Owner == "alice"'
    assert config.get("SIM_MACHINE_exec1_CLOCK_OFFSET") == "-2"
    attrs = (config.get("SIM_MACHINE_exec1_ATTRS") or "").splitlines()
    assert attrs == ["HasGPU = false", 'Site = "lab"']
    assert config.get("SIM_MACHINE_big_SLOTS") == "1"
    assert config.get("SIM_MACHINE_big_RANK") == "0"
    assert (config.get("SIM_MACHINE_big_ATTRS") or "") == ""


def test_scenario_knobs_win_and_keep_subsystem_prefixes(tmp_path: Path) -> None:
    assert _config(tmp_path, "SCHEDD").get("SCHEDD_INTERVAL") == "60"
    config = _config(tmp_path, "NEGOTIATOR")
    assert config.get("SCHEDD_INTERVAL") != "60"
    assert config.get_int("NEGOTIATOR_INTERVAL") == 20
    route = (config.get("JOB_ROUTER_ROUTE_Site1") or "").split()
    assert route == ["GridResource", "=", '"batch', 'slurm"', "MaxIdleJobs", "=", "5"]


def test_a_reconfig_s_knobs_are_set_last(tmp_path: Path) -> None:
    path = make_run_dir(parse_scenario(SCENARIO), tmp_path / "run")
    append_knobs(path, {"NEGOTIATOR_INTERVAL": "300"}, "[[action]] #1: reconfig")
    assert Config.load(path, subsystem="NEGOTIATOR", env={}).get_int("NEGOTIATOR_INTERVAL") == 300


SITES = '''
[scenario]
name = "sites"

[[site]]
resource = "batch slurm"
slots = 3
start_delay = "1m"
failure_rate = 0.25

[[site]]
resource = 'condor ce.example.org "quoted"'
'''


def test_sites_become_the_gridmanagers_sim_grid_sites(tmp_path: Path) -> None:
    from daemons.gridmanager.site import SiteSpec
    from daemons.gridmanager.sites import read_sites

    path = make_run_dir(parse_scenario(SITES), tmp_path / "run")
    config = Config.load(path, subsystem="GRIDMANAGER", env={})
    assert read_sites(config) == [SiteSpec("batch slurm", 3, 60.0, 0.25),
                                  SiteSpec('condor ce.example.org "quoted"', 1, 0.0, 0.0)]
    without = make_run_dir(parse_scenario(SCENARIO), tmp_path / "other")
    assert read_sites(Config.load(without, env={})) == [SiteSpec("batch", 10, 0.0, 0.0)]
