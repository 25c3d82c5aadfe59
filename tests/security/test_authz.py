"""Authorization: every command has an access level; the defaults are HTCondor's
``use security:recommended_v9_0``; ALLOW/DENY and the level hierarchy decide."""

from __future__ import annotations

import pytest

from condorsim.config import Config
from condorsim.security import Policy
from condorsim.wire import messages as m
from condorsim.wire import registered_messages


def test_every_message_of_the_catalogue_has_an_access_level() -> None:
    catalogue = {name for name, cls in registered_messages().items()
                 if cls.__module__ == m.__name__}
    assert catalogue - m.COMMAND_LEVELS.keys() == set()
    assert set(m.COMMAND_LEVELS.values()) == {None, "READ", "WRITE", "ADMINISTRATOR", "DAEMON",
                                              "NEGOTIATOR"}
    assert m.command_level("SIM_SOMETHING_NEW") == "DAEMON"  # unlisted: daemons only


@pytest.mark.parametrize(("command", "level"), [
    ("QUERY_JOB_ADS", "READ"), ("QUERY_STARTD_ADS", "READ"), ("SUBMIT_JOBS", "WRITE"),
    ("ACT_ON_JOBS", "WRITE"), ("QEDIT", "WRITE"), ("DC_OFF_GRACEFUL", "ADMINISTRATOR"),
    ("DAEMONS_OFF", "ADMINISTRATOR"), ("DRAIN_JOBS", "ADMINISTRATOR"),
    ("UPDATE_STARTD_AD", "DAEMON"), ("REQUEST_CLAIM", "DAEMON"), ("QMGMT_SUBMIT_AD", "DAEMON"),
    ("NEGOTIATE", "NEGOTIATOR"), ("OK", None)])
def test_levels_as_htcondor_registers_the_commands(command: str, level: str | None) -> None:
    assert m.command_level(command) == level


def _refusal(policy: Policy, who: str, command: str, authenticated: bool = True) -> str | None:
    return policy.refusal(who, authenticated, command, m.command_level(command))


def test_recommended_v9_0_defaults() -> None:
    p = Policy.from_config(Config.from_text(""))
    anon = "unauthenticated@unmapped"
    assert _refusal(p, anon, "QUERY_JOB_ADS", authenticated=False) is None
    assert _refusal(p, anon, "SUBMIT_JOBS", authenticated=False) == (
        "PERMISSION DENIED to unauthenticated@unmapped from host 127.0.0.1 for command "
        "SUBMIT_JOBS, access level WRITE: reason: WRITE requires authentication "
        "(SEC_DEFAULT_AUTHENTICATION = REQUIRED) and the peer did not authenticate")
    assert _refusal(p, "alice@x", "SUBMIT_JOBS") is None
    assert _refusal(p, "alice@x", "DC_OFF_GRACEFUL") == (
        "PERMISSION DENIED to alice@x from host 127.0.0.1 for command DC_OFF_GRACEFUL, access "
        "level ADMINISTRATOR: reason: ADMINISTRATOR authorization policy contains no matching "
        "ALLOW entry for this request")
    assert _refusal(p, "alice@x", "UPDATE_STARTD_AD") is not None
    assert _refusal(p, "alice@x", "NEGOTIATE") is not None
    for daemon in ("condor@x", "condor_pool@x"):
        for command in ("UPDATE_STARTD_AD", "NEGOTIATE", "DC_OFF_GRACEFUL", "SUBMIT_JOBS"):
            assert _refusal(p, daemon, command) is None, (daemon, command)
    assert _refusal(p, "root@x", "DC_OFF_GRACEFUL") is None
    assert _refusal(p, "root@x", "REQUEST_CLAIM") is not None


def test_deny_wins_and_levels_imply_lower_ones() -> None:
    p = Policy.from_config(Config.from_text(
        "DENY_WRITE = mallory@*\nALLOW_READ = carol@*\nALLOW_WRITE = bob@*\n"))
    assert _refusal(p, "mallory@x", "SUBMIT_JOBS") is not None
    assert _refusal(p, "mallory@x", "QUERY_JOB_ADS") is not None  # not in ALLOW_READ either
    assert _refusal(p, "bob@x", "QUERY_JOB_ADS") is None  # WRITE implies READ
    assert _refusal(p, "carol@x", "SUBMIT_JOBS") is not None
    assert _refusal(p, "condor@x", "QUERY_JOB_ADS") is None  # DAEMON implies WRITE implies READ


def test_the_metaknob_says_the_same() -> None:
    config = Config.from_text("use security : recommended_v9_0\n")
    assert config.get("ALLOW_DAEMON") == "condor@* condor_pool@*"
    assert Policy.from_config(config).required == Policy.from_config(
        Config.from_text("")).required
