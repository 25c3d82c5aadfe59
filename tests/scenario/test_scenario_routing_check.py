"""A scenario whose routes or transforms the pool could not use is refused up front, with the
error the schedd or the router would log (knob, line, what is wrong)."""

from __future__ import annotations

import pytest

from condorsim.scenario import ScenarioError, parse_scenario

HEAD = '[scenario]\nname = "x"\nstart = 2026-01-01T09:30:00Z\n[config]\n'


def refused(config: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(HEAD + config, "s.toml")
    return str(caught.value)


def test_a_route_that_does_not_parse() -> None:
    message = refused('JOB_ROUTER_ROUTE_NAMES = "A"\nJOB_ROUTER_ROUTE_A = """\nREQUIREMENTS true\n'
                      'FROB x\n"""\n')
    assert message == ("s.toml, line 6: [config]: JOB_ROUTER_ROUTE_A: the pool cannot use it: "
                       "JOB_ROUTER_ROUTE_A, line 2: FROB is not a valid transform keyword")


def test_a_route_without_requirements() -> None:
    message = refused('JOB_ROUTER_ROUTE_NAMES = "A"\nJOB_ROUTER_ROUTE_A = \'GridResource = "x"\'\n')
    assert message.endswith("JOB_ROUTER_ROUTE_A: JobRouter CONFIGURATION ERROR: Missing "
                            "Requirements in job route.")


def test_a_job_transform_that_does_not_parse() -> None:
    message = refused('JOB_TRANSFORM_NAMES = "T"\nJOB_TRANSFORM_T = "if true"\n')
    assert message.endswith("JOB_TRANSFORM_T, line 1: endif(s) not found before end-of-file")


def test_good_routes_pass() -> None:
    scenario = parse_scenario(
        HEAD + 'JOB_ROUTER_ROUTE_NAMES = "A"\nJOB_ROUTER_ROUTE_A = "REQUIREMENTS true"\n'
        'JOB_TRANSFORM_NAMES = "T"\nJOB_TRANSFORM_T = "SET A 1"\n', "s.toml")
    assert scenario.config["JOB_ROUTER_ROUTE_NAMES"] == "A"


def test_a_typed_knob_the_daemons_cannot_read_is_refused_before_any_daemon_starts() -> None:
    # issue #15: the pool used to start and fail with exit 1 (negotiator failed to start)
    message = refused('NEGOTIATOR_INTERVAL = "soon"\n')
    assert message == ("s.toml, line 5: [config]: NEGOTIATOR_INTERVAL: the pool cannot use it: "
                       "NEGOTIATOR_INTERVAL = 'soon' is not a valid integer: it evaluates to "
                       "UNDEFINED, not an integer")
    assert "is not a valid boolean" in refused("SIM_EXECUTE_REAL_JOBS = \"sometimes\"\n")


def test_typed_knobs_with_usable_values_pass() -> None:
    scenario = parse_scenario(HEAD + 'NEGOTIATOR_INTERVAL = 20\nSIM_EXECUTE_REAL_JOBS = true\n'
                              'SCHEDD_INTERVAL = "$(NEGOTIATOR_INTERVAL) * 5"\n', "s.toml")
    assert scenario.config["NEGOTIATOR_INTERVAL"] == "20"
