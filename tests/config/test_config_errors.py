"""Every mistake in a configuration is a ConfigError naming the file, the line and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.config import Config, ConfigError


def error_of(text: str, **kwargs: object) -> str:
    with pytest.raises(ConfigError) as err:
        Config.from_text(text, name="pool.conf", **kwargs)  # type: ignore[arg-type]
    return str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A = 1\nbad line here\n", "pool.conf, line 2: expected NAME = value, not 'bad line here'"),
        ("JUSTANAME\n", "pool.conf, line 1: expected NAME = value, not 'JUSTANAME'"),
        ("A B = 1\n", "pool.conf, line 1: unexpected 'B' between A and '='"),
        ("A-B = 1\n", "pool.conf, line 1: illegal name 'A-B': a name has only letters, digits, '_', '.' and '/'"),
        ("$(EMPTY) = 1\n", "pool.conf, line 1: illegal name '': a name has only letters, digits, '_', '.' and '/'"),
        ("X @ 1\n", "pool.conf, line 1: expected '@=' after X"),
        ("A = 1\nT @=end\nline\n", "pool.conf, line 2: the file ended while looking for '@end', the end of T's value"),
        ("else\n", "pool.conf, line 1: else without matching if"),
        ("endif\n", "pool.conf, line 1: endif without matching if"),
        ("elif true\n", "pool.conf, line 1: elif without matching if"),
        ("if true\nelse\nelse\nendif\n", "pool.conf, line 3: else is not allowed after else"),
        ("if true\nelse\nelif true\nendif\n", "pool.conf, line 3: elif is not allowed after else"),
        ("if true\nA = 1\n", "pool.conf, line 2: endif(s) not found before end-of-file"),
        ("if A == 1\nendif\n", "pool.conf, line 1: A == 1 is not a valid if condition because complex conditionals are not supported"),
        ("if SOMENAME\nendif\n", "pool.conf, line 1: SOMENAME is not a valid if condition because expression is not a conditional"),
        ("if version >= 5.1\nendif\n", "pool.conf, line 1: version >= 5.1 is not a valid if condition because the version literal is invalid"),
        ("if defined a b\nendif\n", "pool.conf, line 1: defined a b is not a valid if condition because defined argument must be param name, boolean, or number"),
        ("if\nendif\n", "pool.conf, line 1:  is not a valid if condition because the condition is empty"),
        ("X = $(Y)\nY = $(X)\nif $(X)\nendif\n", "pool.conf, line 3: macro expansion is recursive: X -> Y -> X"),
        ("REASON = because\nerror : stop here, $(REASON)\n", "pool.conf, line 2: configuration error: stop here, because"),
        ("use ROLE : Nope\n", "pool.conf, line 1: use ROLE : Nope is not supported by condorsim (supported: ROLE : Personal, Execute, Submit, CentralManager; POLICY : ALWAYS_RUN_JOBS; SECURITY : recommended_v9_0)"),
        ("use FEATURE : GPUs\n", "pool.conf, line 1: use FEATURE : GPUs is not supported by condorsim (supported: ROLE : Personal, Execute, Submit, CentralManager; POLICY : ALWAYS_RUN_JOBS; SECURITY : recommended_v9_0)"),
        ("use POLICY : LIMIT_JOB_RUNTIMES(3600)\n", "pool.conf, line 1: use POLICY : LIMIT_JOB_RUNTIMES(3600): templates with arguments are not supported by condorsim"),
        ("use : Personal\n", "pool.conf, line 1: use needs a keyword before : (as in use ROLE : Personal): Personal"),
        ("include command : make_config\n", "pool.conf, line 1: 'include command' is not supported: condorsim does not run programs to build its configuration"),
        ("include : make_config |\n", "pool.conf, line 1: 'include : <command> |' is not supported: condorsim does not run programs to build its configuration"),
        ("include sometimes : x\n", "pool.conf, line 1: unexpected keyword(s) 'sometimes' after include"),
        ("include :\n", "pool.conf, line 1: include : needs a file name"),
    ],
)
def test_error_messages(text: str, message: str) -> None:
    assert error_of(text, overrides={"REASON": "because"}) == message


def test_missing_include_names_the_including_line(tmp_path: Path) -> None:
    message = error_of("A = 1\ninclude : missing.conf\n", base_dir=tmp_path)
    assert message == f"pool.conf, line 2: cannot read configuration file {tmp_path / 'missing.conf'}: No such file or directory"


def test_error_in_included_file_names_that_file(tmp_path: Path) -> None:
    (tmp_path / "inner.conf").write_text("OK = 1\n\noops\n")
    message = error_of("include : inner.conf\n", base_dir=tmp_path)
    assert message == f"{tmp_path / 'inner.conf'}, line 3: expected NAME = value, not 'oops'"


def test_include_of_a_directory_is_refused(tmp_path: Path) -> None:
    message = error_of("include : .\n", base_dir=tmp_path)
    assert message.endswith("not a regular file")


def test_file_name_with_a_nul_is_refused(tmp_path: Path) -> None:
    message = error_of("include : bad\x00name\n", base_dir=tmp_path)
    assert message.startswith("pool.conf, line 1: cannot read configuration file") and "invalid file name" in message


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "pool.conf"
    path.write_bytes(b"A = 1\nB = \xff\xfe\n")
    with pytest.raises(ConfigError) as err:
        Config.load(path, env={})
    assert str(err.value) == f"{path}, line 2: the file is not valid UTF-8 text"


def test_missing_main_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        Config.load(tmp_path / "nope.conf", env={})
    assert str(err.value) == f"cannot read configuration file {tmp_path / 'nope.conf'}: No such file or directory"


def test_bad_override_name_and_value() -> None:
    with pytest.raises(ConfigError, match=r"^<overrides>: illegal name 'A B'$"):
        Config.from_text("", overrides={"A B": "1"})
    with pytest.raises(ConfigError, match=r"^<overrides>: X: a configuration value must be"):
        Config.from_text("", overrides={"X": [1, 2]})  # type: ignore[dict-item]


def test_expansion_errors_at_lookup_name_the_knob_and_line() -> None:
    c = Config.from_text("\n\nA = $CHOICE(5, x, y)\n", name="pool.conf")
    with pytest.raises(ConfigError) as err:
        c.get("A")
    assert str(err.value) == "pool.conf, line 3: A: $CHOICE() macro: index 5 is out of range"
