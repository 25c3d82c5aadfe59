"""``condorsim config_val``: values, -verbose, -dump, -config, -subsystem and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.config.tool import main

pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.fixture
def pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "local.conf").write_text("FROM_LOCAL = yes\n")
    path = tmp_path / "pool.conf"
    path.write_text(
        "# a small pool\n"
        "LOCAL_DIR = /pool\n"
        "SCHEDD_INTERVAL = $(MINUTE)\n"
        "SCHEDD.SCHEDD_INTERVAL = 30\n"
        "MY_HELPER = helper\n"
        "ROUTE @=end\n"
        "  line one\n"
        "  line two\n"
        "@end\n"
        "LOCAL_CONFIG_FILE = local.conf\n"
    )
    monkeypatch.setenv("CONDORSIM_CONFIG", str(path))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_prints_values(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "SCHEDD_INTERVAL", "log", "FROM_LOCAL") == (0, "60\n/pool/log\nyes\n", "")


def test_subsystem(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-subsystem", "schedd", "SCHEDD_INTERVAL") == (0, "30\n", "")
    assert run(capsys, "-sub", "SCHEDD", "SUBSYSTEM") == (0, "SCHEDD\n", "")


def test_raw(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-raw", "SCHEDD_INTERVAL", "LOG") == (0, "$(MINUTE)\n$(LOCAL_DIR)/log\n", "")


def test_not_defined(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "SCHEDD_INTERVAL", "JOB_ROUTER_SOURCE_JOB_CONSTRAINT")
    assert (status, out, err) == (1, "60\n", "Not defined: JOB_ROUTER_SOURCE_JOB_CONSTRAINT\n")


def test_not_defined_and_not_honoured(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "no_such_knob")
    assert (status, out) == (1, "")
    assert err == (
        "Not defined: NO_SUCH_KNOB\n"
        "condorsim does not honour NO_SUCH_KNOB: it is not in its knob table (config/knobs.toml)\n"
    )


def test_verbose_layout(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "-verbose", "SCHEDD_INTERVAL", "LOG")
    assert (status, err) == (0, "")
    assert out == (
        "SCHEDD_INTERVAL = 60\n"
        " # description: Longest interval of the schedd's periodic work: collector updates and job evaluation\n"
        f" # at: {pool}, line 3\n"
        " # raw: SCHEDD_INTERVAL = $(MINUTE)\n"
        " # default: 300\n"
        "\n"
        "LOG = /pool/log\n"
        " # description: Directory of the daemon logs\n"
        " # at: <default>\n"
        " # raw: LOG = $(LOCAL_DIR)/log\n"
        " # default: $(LOCAL_DIR)/log\n"
        "\n"
    )


def test_verbose_multi_line_and_unknown_knob(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "-v", "ROUTE", "MY_HELPER")
    assert status == 0
    not_in_table = " # condorsim: not in the knob table; no daemon reads it (it may still be used in $(...))\n"
    assert out == (
        "ROUTE @=end\n   line one\n   line two\n@end\n"
        f" # at: {pool}, line 6\n"
        " # raw: ROUTE @=end\n #   line one\n #   line two\n # @end\n"
        + not_in_table
        + "\n"
        "MY_HELPER = helper\n"
        f" # at: {pool}, line 5\n"
        " # raw: MY_HELPER = helper\n"
        + not_in_table
        + "\n"
    )


def test_dump(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "-dump")
    assert (status, err) == (0, "")
    assert out == (
        "FROM_LOCAL = yes\n"
        "LOCAL_CONFIG_FILE = local.conf\n"
        "LOCAL_DIR = /pool\n"
        "MY_HELPER = helper\n"
        "ROUTE @=end\n   line one\n   line two\n@end\n"
        "SCHEDD.SCHEDD_INTERVAL = 30\n"
        "SCHEDD_INTERVAL = $(MINUTE)\n"
        "# Contributing configuration file(s):\n"
        f"#\t{pool}\n"
        f"#\t{pool.parent / 'local.conf'}\n"
    )


def test_dump_pattern_expanded_verbose(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "-dump", "-expand", "-verbose", "^schedd_int")
    assert status == 0
    assert out == f"SCHEDD_INTERVAL = 60\n # at: {pool}, line 3\n # raw: $(MINUTE)\n"


def test_config_files(pool: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-config") == (
        0,
        f"Configuration source:\n\t{pool}\nLocal configuration sources:\n\t{pool.parent / 'local.conf'}\n",
        "",
    )


def test_no_config_file_means_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "NEGOTIATOR_INTERVAL") == (0, "60\n", "")
    status, out, _ = run(capsys, "-config")
    assert (status, out) == (
        0, "Configuration source:\n\t<none> (set CONDORSIM_CONFIG or create ~/.condorsim/condor_config)\n")


def test_configuration_errors_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.conf"
    bad.write_text("A = 1\nnonsense\n")
    monkeypatch.setenv("CONDORSIM_CONFIG", str(bad))
    assert run(capsys, "A") == (1, "", f"ERROR: {bad}, line 2: expected NAME = value, not 'nonsense'\n")


def test_expansion_errors_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    loop = tmp_path / "loop.conf"
    loop.write_text("A = $(B)\nB = $(A)\nC = 3\n")
    monkeypatch.setenv("CONDORSIM_CONFIG", str(loop))
    status, out, err = run(capsys, "A", "C")
    assert (status, out) == (1, "3\n")
    assert err == f"ERROR: {loop}, line 1: A: macro expansion is recursive: A -> B -> A\n"


def test_warnings_go_to_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    conf = tmp_path / "w.conf"
    conf.write_text("warning : careful\nA = 1\n")
    monkeypatch.setenv("CONDORSIM_CONFIG", str(conf))
    assert run(capsys, "A") == (0, "1\n", f"{conf}, line 1: warning: careful\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "condorsim config_val: no knob names given\n"),
        (("-bogus",), "condorsim config_val: unknown or ambiguous option -bogus\n"),
        (("-subsystem",), "condorsim config_val: -subsystem needs a value\n"),
        (("-dump", "("), "condorsim config_val: bad -dump pattern: missing ), unterminated subpattern at position 0\n"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (1, "")
    assert err.startswith(message + "usage: condorsim config_val")


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "-help")
    assert (status, err) == (0, "")
    assert out.startswith("usage: condorsim config_val")
