"""Submit descriptions are checked when the scenario is loaded, as condor_submit would."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.scenario import ScenarioError, parse_scenario

H = '[scenario]\nname = "n"\n'


def submit(description: str, extra: str = "") -> str:
    return H + f"[[submit]]\n{extra}text = '''\n{description}'''\n"


def error_of(text: str, base_dir: Path = Path(".")) -> str:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="s.toml", base_dir=base_dir)
    return str(caught.value)


def test_a_good_description_loads() -> None:
    scenario = parse_scenario(submit("executable = /bin/sleep\narguments = 60\nqueue 3\n"))
    assert scenario.submits[0].text == "executable = /bin/sleep\narguments = 60\nqueue 3\n"


def test_condor_submits_message_with_the_line_of_the_description() -> None:
    assert error_of(submit("universe = bogus\nexecutable = /bin/true\nqueue\n")) == (
        's.toml, line 4: [[submit]] #1 (at "0s"): text: condor_submit refuses it '
        "(line 1 of the description): I don't know about the 'bogus' universe."
    )


def test_a_missing_executable() -> None:
    assert error_of(submit("queue\n")) == (
        's.toml, line 4: [[submit]] #1 (at "0s"): text: condor_submit refuses it '
        "(line 1 of the description): No 'executable' parameter was provided"
    )


def test_paths_resolve_against_an_empty_run_directory() -> None:
    assert error_of(submit("executable = /bin/true\ninitialdir = data\nqueue\n")) == (
        's.toml, line 4: [[submit]] #1 (at "0s"): text: condor_submit refuses it '
        "(line 2 of the description): No such directory: <run directory>/data"
    )


def test_a_submit_file_is_named_in_the_message(tmp_path: Path) -> None:
    (tmp_path / "a.sub").write_text("executable = /bin/true\nuniverse = bogus\nqueue\n")
    text = H + '[[submit]]\nat = "1m"\nfile = "a.sub"\n'
    assert error_of(text, tmp_path) == (
        's.toml, line 5: [[submit]] #1 (at "1m"): file: condor_submit refuses it '
        "(a.sub, line 2): I don't know about the 'bogus' universe."
    )


def test_the_second_submit_is_named() -> None:
    text = submit("executable = /bin/true\nqueue\n") + \
        "[[submit]]\nat = \"5m\"\nowner = \"bob\"\ntext = \"queue\"\n"
    assert error_of(text) == (
        's.toml, line 11: [[submit]] #2 (at "5m"): text: condor_submit refuses it '
        "(line 1 of the description): No 'executable' parameter was provided"
    )


def test_expect_error_is_not_built_at_load() -> None:
    scenario = parse_scenario(submit("universe = bogus\nqueue\n",
                                     extra='expect_error = "bogus"\n'))
    assert scenario.submits[0].expect_error == "bogus"


def test_the_host_environment_does_not_leak_in(monkeypatch: pytest.MonkeyPatch) -> None:
    # With the host's environment, initialdir would be "/" and exist; a scenario sees an
    # empty environment, so the same file behaves the same on every host.
    description = "executable = /bin/true\ninitialdir = $ENV(SCENARIO_TEST_DIR)\nqueue\n"
    monkeypatch.setenv("SCENARIO_TEST_DIR", "/")
    assert error_of(submit(description)) == (
        's.toml, line 4: [[submit]] #1 (at "0s"): text: condor_submit refuses it '
        "(line 2 of the description): No such directory: <run directory>/UNDEFINED"
    )

