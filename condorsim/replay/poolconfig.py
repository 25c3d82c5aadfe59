"""The run directory and the condor_config a scenario's pool runs with.

How this works
--------------
:func:`make_run_dir` creates ``log/``, ``spool/`` and ``execute/`` and writes
``condor_config``: first what the pool needs (LOCAL_DIR, LOG, SPOOL, EXECUTE,
DAEMON_LIST, COLLECTOR_HOST, SIM_TIMEZONE, SIM_SEED), then the machines of
``[[machine]]`` as ``SIM_MACHINES`` and ``SIM_MACHINE_<name>_<FIELD>`` knobs (read by the
startd), the sites of ``[[site]]`` as ``SIM_GRID_SITES`` (read by the gridmanager; without
``[[site]]`` the knob's default site serves), then the scenario's ``config_file`` and its
``[config]`` knobs, which win. The scenario's ``[[file]]`` entries are written next
(files.py); ``$(LOCAL_DIR)`` in a knob names the run directory, so
``X_HOOK_FETCH_WORK = $(LOCAL_DIR)/hooks/fetch.sh`` finds one.

DAEMON_LIST names the daemons whose modules are installed (``daemons.<name>``), so a
scenario runs with the pool that exists; a scenario's own ``DAEMON_LIST`` wins.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path

from condorsim.scenario import Scenario

from .files import write_files

CONFIG_HEADER = "# condor_config for the replay of"

# DAEMON_LIST entries of a scenario's pool, in the order condor_master starts them.
POOL_DAEMONS = ("COLLECTOR", "NEGOTIATOR", "SCHEDD", "STARTD")
ROUTER_DAEMONS = ("JOB_ROUTER",)


def installed(key: str) -> bool:
    """Whether ``daemons.<key lower>`` can be run as ``python -m``."""
    try:
        return importlib.util.find_spec(f"daemons.{key.lower()}.__main__") is not None
    except ModuleNotFoundError:
        return False


def daemon_list(scenario: Scenario) -> list[str]:
    """MASTER and the installed daemons a scenario's pool needs."""
    keys = list(POOL_DAEMONS)
    if any(k.upper() == "JOB_ROUTER_ROUTE_NAMES" for k in scenario.config):
        keys += ROUTER_DAEMONS
    return ["MASTER", *(k for k in keys if installed(k))]


def knob_lines(name: str, value: str) -> str:
    """One knob as config text (``@=end`` for a value of several lines, and always for a
    machine's ``_ATTRS``: one ``Name = expression`` line per attribute)."""
    several = "\n" in value.strip("\n") or (name.endswith("_ATTRS") and value.strip())
    if several:
        return f"{name} @=end\n{value.strip(chr(10))}\n@end\n"
    return f"{name} = {value.strip()}\n"


def machine_knobs(scenario: Scenario) -> dict[str, str]:
    """``SIM_MACHINES`` and each machine's ``SIM_MACHINE_<name>_*`` knobs."""
    knobs: dict[str, str] = {}
    names: list[str] = []
    for spec in scenario.machines:
        for name in spec.machine_names():
            names.append(name)
            prefix = f"SIM_MACHINE_{name}_"
            knobs[prefix + "SLOTS"] = str(spec.slots)
            knobs[prefix + "CPUS"] = str(spec.cpus)
            knobs[prefix + "MEMORY"] = str(spec.memory)
            knobs[prefix + "DISK"] = str(spec.disk)
            knobs[prefix + "START"] = spec.start
            knobs[prefix + "RANK"] = spec.rank
            knobs[prefix + "ATTRS"] = "".join(f"{k} = {v}\n" for k, v in spec.attrs.items())
            knobs[prefix + "CLOCK_OFFSET"] = str(spec.clock_offset)
    knobs["SIM_MACHINES"] = " ".join(names)
    return knobs


def _classad_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def site_knobs(scenario: Scenario) -> dict[str, str]:
    """``SIM_GRID_SITES``: one ClassAd per ``[[site]]`` (none without sites)."""
    if not scenario.sites:
        return {}
    ads = [f"[ Resource = {_classad_string(s.resource)}; Slots = {s.slots}; "
           f"StartDelay = {s.start_delay}; FailureRate = {s.failure_rate!r} ]"
           for s in scenario.sites]
    return {"SIM_GRID_SITES": "\n".join(ads) + "\n"}


def config_text(scenario: Scenario, run_dir: Path) -> str:
    """The whole condor_config of a scenario's pool running in ``run_dir``."""
    out = [f"{CONFIG_HEADER} {scenario.source}, written by condorsim replay.\n"]
    base = {
        "LOCAL_DIR": str(run_dir),
        "LOG": "$(LOCAL_DIR)/log",
        "SPOOL": "$(LOCAL_DIR)/spool",
        "EXECUTE": "$(LOCAL_DIR)/execute",
        "DAEMON_LIST": ", ".join(daemon_list(scenario)),
        "COLLECTOR_HOST": "127.0.0.1:0",
        "SIM_TIMEZONE": scenario.timezone,
        "SIM_SEED": str(scenario.seed),
    }
    out += _section("what every replay pool needs", base.items())
    out += _section("[[machine]]", machine_knobs(scenario).items())
    out += _section("[[site]]", site_knobs(scenario).items())
    if scenario.config_file is not None:
        out.append(f"\n# config_file = {scenario.config_file}\n")
        text = scenario.config_file.read_text(encoding="utf-8")
        out.append(text if text.endswith("\n") else text + "\n")
    out += _section("[config]", scenario.config.items())
    return "".join(out)


def append_knobs(config_path: Path, knobs: Mapping[str, str], why: str) -> None:
    """Set ``knobs`` after everything else in ``config_path`` (a reconfig's ``config``)."""
    with open(config_path, "a", encoding="utf-8") as f:
        f.writelines(_section(why, knobs.items()))


def _section(title: str, items: Iterable[tuple[str, str]]) -> list[str]:
    lines = [f"\n# {title}\n"]
    lines += [knob_lines(name, value) for name, value in items]
    return lines


def make_run_dir(scenario: Scenario, run_dir: Path) -> Path:
    """Create the run directory's layout, condor_config and the scenario's ``[[file]]``
    entries (files.py); return the config's path."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for sub in ("log", "spool", "execute"):
        (run_dir / sub).mkdir(exist_ok=True)
    path = run_dir / "condor_config"
    path.write_text(config_text(scenario, run_dir), encoding="utf-8")
    write_files(scenario, run_dir)
    return path
