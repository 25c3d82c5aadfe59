"""Daemon cron jobs: their knobs, their output format and when they run (no processes)."""

from __future__ import annotations

import math

import pytest

from condorsim.config import Config
from condorsim.daemoncron import (
    BENCHMARKS,
    SCHEDD_CRON,
    STARTD_CRON,
    CronMode,
    CronSchedule,
    Step,
    parse_period,
    parse_separator,
    read_cron_params,
    read_output,
)


def _params(text: str, kind=STARTD_CRON):  # type: ignore[no-untyped-def]
    return read_cron_params(Config.from_text(text).get, kind)


def test_every_per_job_knob_is_read() -> None:
    p = _params("""
STARTD_CRON_JOBLIST = test, date
STARTD_CRON_MAX_JOB_LOAD = 0.2
STARTD_CRON_LOG_NON_ZERO_EXIT = true
STARTD_CRON_TEST_MODE = oneshot
STARTD_CRON_TEST_RECONFIG_RERUN = True
STARTD_CRON_TEST_PREFIX = test_
STARTD_CRON_TEST_EXECUTABLE = /m/test
STARTD_CRON_TEST_KILL = True
STARTD_CRON_TEST_ARGS = abc 123
STARTD_CRON_TEST_SLOTS = 1, 3
STARTD_CRON_TEST_JOB_LOAD = 0.05
STARTD_CRON_TEST_ENV = "A=1 B='x y'"
STARTD_CRON_TEST_CWD = /tmp
STARTD_CRON_TEST_CONDITION = TotalCpus > 1
STARTD_CRON_TEST_RECONFIG = true
STARTD_CRON_DATE_EXECUTABLE = /m/date
STARTD_CRON_DATE_PERIOD = 15s
""")
    assert p.problems == () and p.max_job_load == 0.2 and p.log_non_zero_exit
    test, date = p.jobs
    assert (test.mode, test.reconfig_rerun, test.prefix, test.kill, test.args, test.slots) == (
        CronMode.ONE_SHOT, True, "test_", True, ("abc", "123"), (1, 3))
    assert (test.job_load, dict(test.env), test.cwd, test.reconfig) == (
        0.05, {"A": "1", "B": "x y"}, "/tmp", True)
    assert test.condition is not None and test.in_slot_list(3) and not test.in_slot_list(2)
    assert (date.mode, date.period, date.job_load, date.slots) == (CronMode.PERIODIC, 15, 0.01,
                                                                   ())


@pytest.mark.parametrize(("knobs", "problem"), [
    ("", "STARTD_CRON_J_EXECUTABLE is not set"),
    ("STARTD_CRON_J_EXECUTABLE = /x", "needs a period"),
    ("STARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_PERIOD = 5d", "invalid period modifier"),
    ("STARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_PERIOD = soon", "invalid period"),
    ("STARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_PERIOD = 0", "non-zero period"),
    ("STARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_MODE = Sometimes", "unknown job mode"),
    ('STARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_MODE = OneShot\nSTARTD_CRON_J_ARGS = "a',
     "STARTD_CRON_J_ARGS"),
    ("STARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_MODE = OneShot\n"
     "STARTD_CRON_J_CONDITION = (((", "STARTD_CRON_J_CONDITION"),
])
def test_a_bad_job_is_left_out_with_a_message_naming_the_knob(knobs: str, problem: str) -> None:
    p = _params("STARTD_CRON_JOBLIST = J good\nSTARTD_CRON_good_EXECUTABLE = /g\n"
                "STARTD_CRON_good_MODE = OneShot\n" + knobs)
    assert [j.name for j in p.jobs] == ["good"]
    assert len(p.problems) == 1 and problem in p.problems[0]


def test_periods_are_htcondors() -> None:
    assert [parse_period(t) for t in ("90", "90s", "5m", "2H", " 7")] == [90, 90, 300, 7200, 7]
    for bad in ("5 m", "x", "-3", "5w"):
        with pytest.raises(ValueError):
            parse_period(bad)


def test_benchmarks_default_to_mips_and_kflops_on_demand() -> None:
    p = _params("", BENCHMARKS)  # BENCHMARKS_JOBLIST's default (param_info.in): mips kflops
    assert [(j.name, j.mode, j.job_load, j.executable) for j in p.jobs] == [
        ("mips", CronMode.ON_DEMAND, 1.0, "$(LIBEXEC)/condor_mips"),
        ("kflops", CronMode.ON_DEMAND, 1.0, "$(LIBEXEC)/condor_kflops")]
    assert p.max_job_load == 1.0
    other = _params("BENCHMARKS_JOBLIST = X\nBENCHMARKS_X_EXECUTABLE = /x\n"
                    "BENCHMARKS_X_MODE = Periodic\nBENCHMARKS_X_PERIOD = 1", BENCHMARKS)
    assert other.jobs == () and "not 'OnDemand'" in other.problems[0]
    assert _params("", SCHEDD_CRON).jobs == ()


def test_the_manuals_multi_ad_output() -> None:
    blocks = read_output("Value=1\nSlotId=1\n-s1\nValue=2\nSlotId=2\n-s2\nValue=10\n"
                         "- update:true\n", "", 100)
    assert [(b.tag, b.update, b.ad.evaluate("Value"), b.ad.evaluate("LastUpdate"))
            for b in blocks] == [("s1", None, 1, 100), ("s2", None, 2, 100), (None, True, 10, 100)]


def test_output_prefix_bad_lines_and_the_last_block() -> None:
    blocks = read_output("\nA = 1\nthis is junk\n-\n-\nB = 2\n", "Foo", 7)
    assert [sorted(b.ad.keys()) for b in blocks] == [["FooA", "FooLastUpdate"],
                                                    ["FooB", "FooLastUpdate"]]
    assert blocks[0].bad_lines == ("this is junk",) and blocks[1].tag is None
    assert read_output("", "", 1) == [] and read_output("-\n", "", 1) == []


@pytest.mark.parametrize(("text", "tag", "update"), [
    ("", None, None), ("s1", "s1", None), ("update:true", None, True),
    ("update:false", None, False), ("name update", "name", True),
    ("name update:false", "name", False), ("a:b", None, None), ("-", "-", None),
])
def test_separator_arguments(text: str, tag: str | None, update: bool | None) -> None:
    assert parse_separator(text) == (tag, update)


def _schedule(text: str, now: float = 0.0) -> CronSchedule:
    return CronSchedule(_params(text), now)


def test_periodic_jobs_run_at_start_then_every_period_from_the_start() -> None:
    s = _schedule("STARTD_CRON_JOBLIST = p\nSTARTD_CRON_p_EXECUTABLE = /p\n"
                  "STARTD_CRON_p_PERIOD = 10")
    assert s.poll(0) == [Step("start", "p")]
    s.started("p")
    assert s.next_deadline() == 10
    s.exited("p", 3)
    assert s.poll(10) == [Step("start", "p")]
    assert s.poll(15) == [] and s.next_deadline() == 20
    assert s.poll(20) == []  # still running, no KILL: this run is skipped
    s.exited("p", 21)
    assert s.poll(25) == [] and s.poll(30) == [Step("start", "p")]


def test_kill_and_wait_for_exit_and_one_shot() -> None:
    s = _schedule("STARTD_CRON_JOBLIST = k w o d\n"
                  "STARTD_CRON_k_EXECUTABLE = /k\nSTARTD_CRON_k_PERIOD = 5\nSTARTD_CRON_k_KILL = true\n"
                  "STARTD_CRON_w_EXECUTABLE = /w\nSTARTD_CRON_w_MODE = WaitForExit\n"
                  "STARTD_CRON_w_PERIOD = 0\n"
                  "STARTD_CRON_o_EXECUTABLE = /o\nSTARTD_CRON_o_MODE = OneShot\n"
                  "STARTD_CRON_d_EXECUTABLE = /d\nSTARTD_CRON_d_MODE = OnDemand\n")
    assert s.poll(0) == [Step("start", "k"), Step("start", "w"), Step("start", "o")]
    assert s.poll(5) == [Step("kill", "k")]
    s.exited("w", 7)
    s.exited("o", 7)
    assert s.next_deadline() == 8  # WaitForExit with PERIOD 0: condorsim waits 1 s
    assert s.poll(8) == [Step("start", "w")]
    s.exited("k", 9)
    s.demand()
    assert s.poll(9) == [Step("start", "d")]
    assert math.isinf(s.jobs["o"].timer)


def test_job_load_limits_what_runs_at_once() -> None:
    s = _schedule("STARTD_CRON_JOBLIST = a b c\nSTARTD_CRON_MAX_JOB_LOAD = 0.2\n"
                  "STARTD_CRON_a_EXECUTABLE = /a\nSTARTD_CRON_a_MODE = OneShot\n"
                  "STARTD_CRON_b_EXECUTABLE = /b\nSTARTD_CRON_b_MODE = OneShot\n"
                  "STARTD_CRON_c_EXECUTABLE = /c\nSTARTD_CRON_c_MODE = OneShot\n"
                  "STARTD_CRON_c_JOB_LOAD = 0.2\n")
    assert s.poll(0) == [Step("start", "a"), Step("start", "b")]
    s.exited("a", 0)
    assert s.poll(0) == []
    s.exited("b", 0)
    assert s.poll(0) == [Step("start", "c")]


def test_a_condition_holds_a_job_back_and_a_failed_start_is_not_retried() -> None:
    s = _schedule("STARTD_CRON_JOBLIST = w\nSTARTD_CRON_w_EXECUTABLE = /w\n"
                  "STARTD_CRON_w_MODE = WaitForExit\nSTARTD_CRON_w_PERIOD = 10\n")
    assert s.poll(0, allowed=lambda job: False) == []
    assert s.poll(1) == [Step("start", "w")]
    s.start_failed("w", 1)
    assert s.poll(100) == [] and s.next_deadline() is None


def test_reconfig_reruns_and_hups_and_drops() -> None:
    base = ("STARTD_CRON_o_EXECUTABLE = /o\nSTARTD_CRON_o_MODE = OneShot\n"
            "STARTD_CRON_o_RECONFIG_RERUN = true\n"
            "STARTD_CRON_w_EXECUTABLE = /w\nSTARTD_CRON_w_MODE = WaitForExit\n"
            "STARTD_CRON_w_PERIOD = 10\nSTARTD_CRON_w_RECONFIG = true\n")
    s = _schedule("STARTD_CRON_JOBLIST = o w\n" + base)
    assert s.poll(0) == [Step("start", "o"), Step("start", "w")]
    s.started("o")
    s.started("w")
    s.exited("o", 1)
    steps, gone = s.reconfig(_params("STARTD_CRON_JOBLIST = o w\n" + base), 50)
    assert steps == [Step("hup", "w")] and gone == []
    assert s.poll(50) == [Step("start", "o")]
    _, gone = s.reconfig(_params("STARTD_CRON_JOBLIST = o\n" + base), 60)
    assert gone == ["w"]
