"""Files: include, LOCAL_CONFIG_FILE/DIR, the environment, overrides and finding the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.config import Config, ConfigError, find_config_file


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- include ---------------------------------------------------------------------------------


def test_include_is_relative_to_the_including_file(tmp_path: Path) -> None:
    write(tmp_path / "conf" / "sub" / "inner.conf", "INNER = $(OUTER)-in\nOUTER = changed\n")
    main = write(tmp_path / "conf" / "main.conf", "OUTER = out\ninclude : sub/inner.conf\nAFTER = 1\n")
    c = Config.load(main, env={})
    assert c.get("INNER") == "changed-in"
    assert c.where("OUTER") == f"{tmp_path / 'conf' / 'sub' / 'inner.conf'}, line 2"
    assert c.where("AFTER") == f"{main}, line 3"
    assert c.local_sources == (str(tmp_path / "conf" / "sub" / "inner.conf"),)


def test_include_file_name_is_expanded_at_once(tmp_path: Path) -> None:
    write(tmp_path / "site.x.conf", "SITE = x\n")
    main = write(tmp_path / "main.conf", "FILE = site.$(NAME).conf\nNAME = x\n@include : $(FILE)\n")
    assert Config.load(main, env={}).get("SITE") == "x"


def test_include_ifexist_skips_a_missing_file(tmp_path: Path) -> None:
    main = write(tmp_path / "main.conf", "include ifexist : nope.conf\nA = 1\n")
    c = Config.load(main, env={})
    assert c.get("A") == "1"
    assert c.local_sources == ()


def test_include_loop_is_stopped(tmp_path: Path) -> None:
    main = write(tmp_path / "main.conf", "include : main.conf\n")
    with pytest.raises(ConfigError, match=r"main.conf, line 1: includes nested too deep \(more than 20\)"):
        Config.load(main, env={})


# -- LOCAL_CONFIG_FILE and LOCAL_CONFIG_DIR ----------------------------------------------------


def test_local_config_files_are_read_after_the_main_file_in_order(tmp_path: Path) -> None:
    write(tmp_path / "etc" / "local1", "A = local1\nB = $(B) local1\n")
    write(tmp_path / "etc" / "local2", "A = local2\n")
    main = write(
        tmp_path / "etc" / "condor_config",
        "LOCAL_CONFIG_FILE = local1, $(ETC_DIR)/local2\nETC_DIR = " + str(tmp_path / "etc") + "\n"
        "A = main\nB = main\n",
    )
    c = Config.load(main, env={})
    assert c.get("A") == "local2"
    assert c.get("B") == "main local1"
    assert c.config_source == str(main)
    assert c.local_sources == (str(tmp_path / "etc" / "local1"), str(tmp_path / "etc" / "local2"))


def test_missing_local_file_is_an_error_unless_not_required(tmp_path: Path) -> None:
    main = write(tmp_path / "condor_config", "LOCAL_CONFIG_FILE = nope.local\nA = 1\n")
    with pytest.raises(ConfigError) as err:
        Config.load(main, env={})
    assert str(err.value) == (
        f"{main}, line 1: cannot read configuration file {tmp_path / 'nope.local'}: No such file or directory"
    )
    write(main, "LOCAL_CONFIG_FILE = nope.local\nREQUIRE_LOCAL_CONFIG_FILE = false\nA = 1\n")
    assert Config.load(main, env={}).get("A") == "1"


def test_a_local_file_may_extend_the_list(tmp_path: Path) -> None:
    write(tmp_path / "one", "LOCAL_CONFIG_FILE = $(LOCAL_CONFIG_FILE) two\nFROM = one\n")
    write(tmp_path / "two", "FROM = $(FROM) two\n")
    main = write(tmp_path / "condor_config", "LOCAL_CONFIG_FILE = one\n")
    c = Config.load(main, env={})
    assert c.get("FROM") == "one two"
    assert [Path(s).name for s in c.local_sources] == ["one", "two"]


def test_local_config_dir_reads_sorted_files_and_skips_excluded_ones(tmp_path: Path) -> None:
    write(tmp_path / "config.d" / "20-second", "ORDER = $(ORDER) 20\n")
    write(tmp_path / "config.d" / "10-first", "ORDER = $(ORDER) 10\n")
    write(tmp_path / "config.d" / "30-skip.rpmsave", "ORDER = $(ORDER) skipped\n")
    write(tmp_path / "config.d" / ".hidden", "ORDER = $(ORDER) hidden\n")
    (tmp_path / "config.d" / "subdir").mkdir()
    write(tmp_path / "local", "ORDER = $(ORDER) local\n")
    main = write(
        tmp_path / "condor_config",
        "LOCAL_CONFIG_DIR = config.d\nLOCAL_CONFIG_FILE = local\nORDER = main\n",
    )
    assert Config.load(main, env={}).get("ORDER") == "main 10 20 local"


def test_local_files_apply_to_text_too(tmp_path: Path) -> None:
    write(tmp_path / "extra.conf", "EXTRA = yes\n")
    c = Config.from_text("LOCAL_CONFIG_FILE = extra.conf\n", base_dir=tmp_path)
    assert c.get("EXTRA") == "yes"


# -- environment and overrides -------------------------------------------------------------


def test_condor_environment_variables_override_files() -> None:
    c = Config.from_text(
        "SCHEDD_INTERVAL = 60\nA = file\n",
        env={"_CONDOR_SCHEDD_INTERVAL": " 30", "_condor_a": "env $(A)", "OTHER": "x", "_CONDOR_": "x"},
    )
    assert c.get("SCHEDD_INTERVAL") == "30"
    assert c.where("SCHEDD_INTERVAL") == "<environment>"
    assert c.get("A") == "env file"
    assert c.names() == ["A", "SCHEDD_INTERVAL"]


def test_load_reads_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_CONDOR_FROM_PROCESS_ENV", "yes")
    assert Config.load(None).get("FROM_PROCESS_ENV") == "yes"
    assert Config.load(None, env={}).get("FROM_PROCESS_ENV") is None
    assert Config.from_text("").get("FROM_PROCESS_ENV") is None


def test_start_owner_environment_special_case() -> None:
    c = Config.from_text("", env={"_CONDOR_START_owner": "alice"})
    assert c.get("START") == 'Owner == "alice"'


def test_overrides_come_last_and_are_converted() -> None:
    c = Config.from_text(
        "A = file\nB = $(A)\n",
        env={"_CONDOR_A": "env"},
        overrides={"A": "override", "N": 5, "F": 0.5, "T": True, "SCHEDD.X": "s"},  # type: ignore[dict-item]
        subsystem="SCHEDD",
    )
    assert [c.get(k) for k in ("A", "B", "N", "F", "T", "X")] == ["override", "override", "5", "0.5", "true", "s"]
    assert c.where("A") == "<overrides>"


def test_defaults_only() -> None:
    c = Config.load(None, env={"CONDORSIM_HOME": "/sim"})
    assert c.names() == []
    assert c.get("SPOOL") == "/sim/spool"
    assert c.config_source is None
    assert c.get("TILDE") == "/sim"


def test_config_root_is_the_main_file_directory(tmp_path: Path) -> None:
    main = write(tmp_path / "condor_config", "X = $(CONFIG_ROOT)/x\n")
    assert Config.load(main, env={}).get("X") == f"{tmp_path}/x"


# -- find_config_file ----------------------------------------------------------------------


def test_find_config_file(tmp_path: Path) -> None:
    assert find_config_file({"CONDORSIM_CONFIG": "/some/where.conf"}) == Path("/some/where.conf")
    home = tmp_path / "simhome"
    assert find_config_file({"CONDORSIM_HOME": str(home)}) is None
    write(home / "condor_config", "")
    assert find_config_file({"CONDORSIM_HOME": str(home)}) == home / "condor_config"
    assert find_config_file({"CONDORSIM_CONFIG": "", "CONDORSIM_HOME": str(home)}) == home / "condor_config"
    write(tmp_path / "user" / ".condorsim" / "condor_config", "")
    assert find_config_file({"HOME": str(tmp_path / "user")}) == tmp_path / "user" / ".condorsim" / "condor_config"
