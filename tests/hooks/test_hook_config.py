"""Hook paths, keywords, arguments and timeouts as HTCondor reads them, and hook ad text."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.hooks import (
    check_hook_path,
    hook_args,
    hook_timeout,
    job_hooks,
    machine_lookup,
    parse_all_or_nothing,
    parse_until_bad,
    print_ad,
)


def _exe(path: Path, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(mode)
    return path


@pytest.fixture
def hooks_dir(tmp_path: Path) -> Path:
    d = tmp_path / "hooks"
    d.mkdir(mode=0o755)
    d.chmod(0o755)
    return d


def test_a_usable_hook_path_passes(hooks_dir: Path) -> None:
    hook = _exe(hooks_dir / "fetch.sh")
    assert check_hook_path("K_HOOK_FETCH_WORK", str(hook)).path == str(hook)
    relative = check_hook_path("K_HOOK_FETCH_WORK", "hooks/fetch.sh", base=hooks_dir.parent)
    assert relative.path == str(hook)


@pytest.mark.parametrize(("mode", "dir_mode", "message"), [
    (0o644, 0o755, "is not executable."),
    (0o757, 0o755, "is world-writable! Refusing to use."),
    (0o755, 0o777, "is a world-writable directory! Refusing to use."),
])
def test_htcondor_refuses_unsafe_hook_paths(hooks_dir: Path, mode: int, dir_mode: int,
                                            message: str) -> None:
    hook = _exe(hooks_dir / "fetch.sh", mode)
    hook.chmod(mode)
    hooks_dir.chmod(dir_mode)
    try:
        checked = check_hook_path("K_HOOK_FETCH_WORK", str(hook))
    finally:
        hooks_dir.chmod(0o755)
    assert checked.path is None
    assert checked.error == f"path specified for K_HOOK_FETCH_WORK ({hook}) {message}"


def test_a_missing_hook_path_is_reported_as_htcondor_words_it(hooks_dir: Path) -> None:
    checked = check_hook_path("K_HOOK_FETCH_WORK", str(hooks_dir / "nope"))
    assert checked.error == (f"invalid path specified for K_HOOK_FETCH_WORK ({hooks_dir}/nope): "
                             "stat() failed with errno 2 (No such file or directory)")


def _cfg(text: str) -> Config:
    return Config.from_text(text)


def _job(keyword: str | None) -> ClassAd:
    return ClassAd({"HookKeyword": keyword} if keyword else {})


def test_the_job_keyword_counts_only_when_a_hook_of_it_is_defined(hooks_dir: Path) -> None:
    hook = _exe(hooks_dir / "prep.sh")
    cfg = _cfg(f"JAVA5_HOOK_PREPARE_JOB = {hook}\n")
    chosen = job_hooks(cfg.get, "STARTER", _job("JAVA5"), ["PREPARE_JOB", "JOB_EXIT"])
    assert (chosen.keyword, chosen.paths, chosen.failed) == ("JAVA5", {"PREPARE_JOB": str(hook)},
                                                             None)
    ignored = job_hooks(cfg.get, "STARTER", _job("NOPE"), ["PREPARE_JOB"])
    assert ignored.keyword is None and ignored.notes[0][0] == "hook_keyword_ignored"


def test_the_daemon_keyword_wins_and_the_default_fills_in(hooks_dir: Path) -> None:
    a, b = _exe(hooks_dir / "a.sh"), _exe(hooks_dir / "b.sh")
    cfg = _cfg(f"A_HOOK_PREPARE_JOB = {a}\nB_HOOK_PREPARE_JOB = {b}\n"
               "STARTER_JOB_HOOK_KEYWORD = B\nSHADOW_DEFAULT_JOB_HOOK_KEYWORD = A\n")
    assert job_hooks(cfg.get, "STARTER", _job("A"), ["PREPARE_JOB"]).keyword == "B"
    assert job_hooks(cfg.get, "SHADOW", _job(None), ["PREPARE_JOB"]).keyword == "A"
    assert job_hooks(cfg.get, "SHADOW", _job("B"), ["PREPARE_JOB"]).keyword == "B"


def test_an_unusable_configured_hook_fails_the_manager(hooks_dir: Path) -> None:
    good = _exe(hooks_dir / "good.sh")
    cfg = _cfg(f"K_HOOK_PREPARE_JOB = {good}\nK_HOOK_JOB_EXIT = {hooks_dir}/missing.sh\n")
    chosen = job_hooks(cfg.get, "STARTER", _job("K"), ["PREPARE_JOB", "JOB_EXIT"])
    assert chosen.keyword == "K" and chosen.failed and "K_HOOK_JOB_EXIT" in chosen.failed


def test_machine_knobs_override_pool_knobs() -> None:
    cfg = _cfg("X = pool\nSIM_MACHINE_m1_X = m1\n")
    assert machine_lookup(cfg, "m1")("X") == "m1"
    assert machine_lookup(cfg, "m2")("X") == "pool"
    assert machine_lookup(cfg, None)("X") == "pool"


def test_timeouts_and_arguments() -> None:
    cfg = _cfg("K_HOOK_JOB_EXIT_TIMEOUT = 7\nSIM_HOOK_TIMEOUT = 11\n"
               "K_HOOK_PREPARE_JOB_ARGS = alpha 'two words' ''''\nBAD_HOOK_PREPARE_JOB_ARGS = 'x\n")
    assert hook_timeout(cfg.get, "K", "JOB_EXIT", 30) == 7
    assert hook_timeout(cfg.get, "K", "PREPARE_JOB", 30) == 30  # HTCondor's default
    assert hook_timeout(cfg.get, "K", "FETCH_WORK") == 11  # SIM_HOOK_TIMEOUT
    assert hook_timeout(_cfg("").get, None, "FETCH_WORK") == 60
    assert hook_args(cfg.get, "K", "PREPARE_JOB") == (["alpha", "two words", "'"], None)
    assert hook_args(cfg.get, "BAD", "PREPARE_JOB")[1] is not None


def test_ads_are_printed_one_attribute_a_line() -> None:
    ad = ClassAd.parse('[ Cmd = "/bin/java"; RequestCpus = 1; Requirements = TARGET.X > 2 ]')
    assert print_ad(ad) == 'Cmd = "/bin/java"\nRequestCpus = 1\nRequirements = TARGET.X > 2\n'


def test_fetch_output_is_all_or_nothing() -> None:
    good = parse_all_or_nothing('Cmd = "/bin/sleep"\n\nArgs = "60"\r\nRank = 2 + 3\n')
    assert good.bad_line is None
    assert (good.ad.evaluate("Cmd"), good.ad.evaluate("Args"), good.ad.evaluate("Rank")) == (
        "/bin/sleep", "60", 5)
    for garbage in ("hello world", "A == 1", "= 3", "A = ", "A = [", "# comment"):
        bad = parse_all_or_nothing(f'Cmd = "/bin/sleep"\n{garbage}\n')
        assert bad.bad_line == garbage and len(bad.ad) == 0


def test_prepare_output_stops_at_the_first_bad_line() -> None:
    out = parse_until_bad('  SimRuntime = 50\nnot an ad\nLater = 1\n')
    assert out.bad_line == "not an ad"
    assert dict(out.ad.items()).keys() == {"SimRuntime"}
