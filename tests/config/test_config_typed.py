"""Typed lookups read values as HTCondor's param_integer / param_boolean / param_double do."""

from __future__ import annotations

import sys

import pytest

from condorsim.config import Config, ConfigError


def cfg(text: str) -> Config:
    return Config.from_text(text, name="pool.conf")


def test_integer_literals_and_table_defaults() -> None:
    c = cfg("A = 42\nB =   -7  \nC = +3\n")
    assert (c.get_int("A"), c.get_int("B"), c.get_int("C")) == (42, -7, 3)
    assert c.get_int("SCHEDD_INTERVAL") == 300
    assert c.get_int("NOT_A_KNOB", 17) == 17


def test_table_default_wins_over_the_callers_default() -> None:
    # param_integer("SCHEDD_INTERVAL", 5) gives the param table's value, not 5.
    assert cfg("").get_int("NEGOTIATOR_INTERVAL", 5) == 60


def test_explicitly_empty_value_falls_back_to_the_table_default() -> None:
    c = cfg("NEGOTIATOR_INTERVAL =\nNOT_A_KNOB =\n")
    assert c.get("NEGOTIATOR_INTERVAL") is None
    assert c.get_int("NEGOTIATOR_INTERVAL") == 60
    assert c.get_int("NOT_A_KNOB", 3) == 3


def test_undefined_without_default_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"^NOT_A_KNOB is not defined and has no default \(an integer wanted\)$"):
        cfg("").get_int("not_a_knob")


@pytest.mark.usefixtures("evaluator")
def test_integer_expressions() -> None:
    c = cfg("A = 5 * 60\nB = $(MINUTE) * 2\nC = 7.9\nD = -7.9\nE = true\nF = 10 / 3\n")
    assert [c.get_int(k) for k in "ABCDEF"] == [300, 120, 7, -7, 1, 3]
    assert cfg("").get_int("MachineMaxVacateTime") == 600


@pytest.mark.usefixtures("evaluator")
def test_invalid_integer_names_the_knob_and_where_it_was_set() -> None:
    c = cfg("\nSCHEDD_INTERVAL = five\nX = $(Y) + 1\nY = \"s\"\n")
    with pytest.raises(ConfigError) as err:
        c.get_int("SCHEDD_INTERVAL")
    assert str(err.value).startswith("pool.conf, line 2: SCHEDD_INTERVAL = 'five' is not a valid integer: it evaluates to")
    with pytest.raises(ConfigError) as err:
        c.get_int("X")
    assert str(err.value).startswith(
        "pool.conf, line 3: X = '$(Y) + 1' (expands to '\"s\" + 1') is not a valid integer:"
    )


@pytest.mark.usefixtures("evaluator")
def test_unparsable_expression() -> None:
    with pytest.raises(ConfigError, match=r"^pool.conf, line 1: A = '5 \*' is not a valid integer: it is not a valid ClassAd expression"):
        cfg("A = 5 *\n").get_int("A")


def test_integer_range_from_the_table() -> None:
    with pytest.raises(ConfigError) as err:
        cfg("JOB_START_COUNT = 0\n").get_int("JOB_START_COUNT")
    assert str(err.value) == "pool.conf, line 1: JOB_START_COUNT = '0' is too low: it must be at least 1"
    with pytest.raises(ConfigError, match="too high: it must be at most 65535"):
        cfg("COLLECTOR_PORT = 70000\n").get_int("COLLECTOR_PORT")


def test_integer_too_big_for_64_bits() -> None:
    with pytest.raises(ConfigError, match="does not fit in a 64-bit integer"):
        cfg("A = 99999999999999999999\n").get_int("A")


@pytest.mark.usefixtures("evaluator")
@pytest.mark.parametrize(
    ("text", "expected"),
    [("true", True), ("TRUE", True), ("True  ", True), ("1", True), ("false", False), ("FALSE", False),
     ("0", False), ("10", True), ("0.0", False), ("2 > 1", True), ("1 == 2", False)],
)
def test_booleans(text: str, expected: bool) -> None:
    assert cfg(f"B = {text}\n").get_bool("B") is expected


@pytest.mark.usefixtures("evaluator")
@pytest.mark.parametrize("text", ["yes", "no", "t", "truex", '"true"'])
def test_words_that_are_not_booleans(text: str) -> None:
    with pytest.raises(ConfigError, match=r"^pool.conf, line 1: B = .* is not a valid boolean"):
        cfg(f"B = {text}\n").get_bool("B")


def test_boolean_defaults() -> None:
    c = cfg("")
    assert c.get_bool("SHADOW_LAZY_QUEUE_UPDATE") is True
    assert c.get_bool("SIM_EXECUTE_REAL_JOBS") is False
    assert c.get_bool("NOT_A_KNOB", True) is True


@pytest.mark.usefixtures("evaluator")
def test_floats() -> None:
    c = cfg("A = 2.5\nB = 1e3\nC = .5\nD = 3\nE = 1.0 / 4\nF = true\n")
    assert [c.get_float(k) for k in "ABCDEF"] == [2.5, 1000.0, 0.5, 3.0, 0.25, 1.0]
    assert c.get_float("SIM_SPEED") == 1.0
    assert c.get_float("PERIODIC_EXPR_TIMESLICE") == 0.01
    with pytest.raises(ConfigError, match="too high: it must be at most 1"):
        cfg("PERIODIC_EXPR_TIMESLICE = 2\n").get_float("PERIODIC_EXPR_TIMESLICE")


def test_lists() -> None:
    c = cfg("L = a, b  c,,d\n")
    assert c.get_list("L") == ["a", "b", "c", "d"]
    assert c.get_list("NOPE") == []
    assert c.get_list("QUEUE_SUPER_USERS") == ["root", "condor"]


def test_expressions_without_an_evaluator_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "condorsim.classad", None)
    assert cfg("A = 12\n").get_int("A") == 12
    with pytest.raises(ConfigError, match=r"the ClassAd evaluator .* is not available"):
        cfg("A = 5 * 60\n").get_int("A")
