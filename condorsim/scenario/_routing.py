"""The up-front check of a scenario's configuration: its typed knobs, transforms and routes.

How this works
--------------
:func:`check_routing` reads the scenario's configuration (its ``config_file`` and its
``[config]`` knobs) as the pool will, and refuses the scenario when a
``JOB_TRANSFORM_<name>`` of JOB_TRANSFORM_NAMES, a route of JOB_ROUTER_ROUTE_NAMES (or
the old JOB_ROUTER_ENTRIES) or a pre/post-route transform cannot be used: the message is
the :class:`~condorsim.transform.TransformError` the schedd or the router would log
(knob, line and what is wrong), so a run never starts with a route silently left out.
:func:`check_knob_values` reads every ``[config]`` knob that the knob table types as an
integer, a number or a boolean as the daemons will, and refuses a value they could not use
(``NEGOTIATOR_INTERVAL = "soon"``) or one out of HTCondor's range, before any daemon starts.
"""

from __future__ import annotations

from condorsim.config import KNOBS, Config, ConfigError
from condorsim.routing import load_router_config
from condorsim.transform import JobTransforms

from ._fields import FileContext
from ._model import Scenario

__all__ = ["check_knob_values", "check_routing"]

_ROUTER_KNOBS = ("JOB_ROUTER_ROUTE_NAMES", "JOB_ROUTER_ENTRIES", "JOB_ROUTER_ENTRIES_FILE",
                 "JOB_ROUTER_ENTRIES_CMD", "JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES",
                 "JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES")  # fmt: skip


def _config_text(scenario: Scenario) -> str:
    text = scenario.config_file.read_text() + "\n" if scenario.config_file is not None else ""
    for name, value in scenario.config.items():
        if "\n" in value.strip("\n"):
            text += f"{name} @=end\n{value.strip(chr(10))}\n@end\n"
        else:
            text += f"{name} = {value.strip()}\n"
    return text


def _pool_config(scenario: Scenario) -> Config | None:
    """The scenario's ``[config]`` read as the daemons will read it; None when it does not
    parse (the pool's own start-up reports configuration errors)."""
    try:
        return Config.from_text(_config_text(scenario), name="[config]",
                                base_dir=scenario.base_dir)  # fmt: skip
    except ConfigError:
        return None


def check_routing(ctx: FileContext, scenario: Scenario) -> None:
    """Refuse a scenario whose transforms or routes the pool could not use."""
    names = {name.upper() for name in scenario.config}
    if scenario.config_file is None and not names & {"JOB_TRANSFORM_NAMES", *_ROUTER_KNOBS}:
        return
    config = _pool_config(scenario)
    if config is None:
        return
    errors = list(JobTransforms.from_config(config).errors)
    if any(config.get(knob) for knob in _ROUTER_KNOBS):
        errors += load_router_config(config).errors
    if errors:
        error = errors[0]
        raise ctx.error(f"the pool cannot use it: {error}", section="config",
                        key=error.source, where="[config]", field=error.source)  # fmt: skip


def check_knob_values(ctx: FileContext, scenario: Scenario) -> None:
    """Refuse a scenario whose ``[config]`` gives a typed knob a value the daemons cannot
    read (the daemon would refuse to start, and the replay would fail instead of saying
    why)."""
    typed = [(name, KNOBS[name]) for name in scenario.config
             if name in KNOBS and KNOBS[name].type in ("int", "float", "bool")]
    if not typed:
        return
    config = _pool_config(scenario)
    if config is None:
        return
    getters = {"int": config.get_int, "float": config.get_float, "bool": config.get_bool}
    for name, knob in typed:
        try:
            getters[knob.type](name)
        except ConfigError as e:
            raise ctx.error(f"the pool cannot use it: {e.message}",
                            section="config", key=name, where="[config]",
                            field=name) from None
