"""The job tools' output formats and argument handling (no pool needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd
from condorsim.tools import jobs
from condorsim.tools.jobs import (
    COMMANDS,
    UsageError,
    format_af,
    format_batch,
    format_hold,
    format_nobatch,
    format_totals,
    selection,
    server_time,
)
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.schedd.queue import JobQueue

T0 = 1_767_225_600  # 2026-01-01 00:00 UTC


def _job(c: int, p: int, status: int = 1, owner: str = "alice", **extra: object) -> ClassAd:
    ad = ClassAd()
    ad.update({"ClusterId": c, "ProcId": p, "JobStatus": status, "Owner": owner, "QDate": T0,
               "Cmd": "/bin/sleep", "Args": "60", "EnteredCurrentStatus": T0 + 60, **extra})
    return ad


def test_batch_view_groups_a_cluster_and_shows_hold_only_when_needed() -> None:
    ads = [_job(1, 0), _job(1, 1, 2), _job(1, 2)]
    text = format_batch(ads, "UTC")
    assert text.splitlines()[0].split() == [
        "OWNER", "BATCH_NAME", "SUBMITTED", "DONE", "RUN", "IDLE", "TOTAL", "JOB_IDS"]
    assert text.splitlines()[1].split() == ["alice", "ID:", "1", "1/1", "00:00", "_", "1", "2",
                                            "3", "1.0-2"]
    held = format_batch([_job(1, 0, 5), _job(2, 0)], "UTC").splitlines()
    assert "HOLD" in held[0].split()
    assert held[1].split()[-3:] == ["1", "1", "1.0"]


def test_nobatch_hold_and_totals_lines() -> None:
    ads = [_job(1, 0), _job(2, 3, 5, HoldReason="via condor_hold (by user alice)")]
    rows = format_nobatch(ads, T0 + 100, "UTC").splitlines()
    assert rows[0].split() == ["ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "PRI", "SIZE",
                               "CMD"]
    assert rows[2].split() == ["2.3", "alice", "1/1", "00:00", "0+00:00:00", "H", "0", "0.0",
                               "sleep", "60"]
    hold = format_hold(ads[1:], "UTC").splitlines()
    assert hold[1].split()[:4] == ["2.3", "alice", "1/1", "00:01"]
    assert hold[1].endswith("via condor_hold (by user alice)")
    totals = format_totals(ads[1:], [*ads, _job(3, 0, owner="bob")], "alice").splitlines()
    assert totals[1:] == [
        "Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 0 running, 1 held, "
        "0 suspended ",
        "Total for alice: 2 jobs; 0 completed, 0 removed, 1 idle, 0 running, 1 held, "
        "0 suspended ",
        "Total for all users: 3 jobs; 0 completed, 0 removed, 2 idle, 0 running, 1 held, "
        "0 suspended "]


def test_autoformat_and_selection() -> None:
    assert format_af([_job(1, 0)], ["ClusterId", "Owner", "ProcId + 1"]) == "1 alice 1\n"
    assert selection(["1.0", "2", "bob"]) == (["1.0", "2"], '(Owner == "bob")')
    assert selection(["-constraint", "JobStatus == 5"]) == ([], "(JobStatus == 5)")
    with pytest.raises(UsageError):
        selection(["-constraint", "JobStatus =="])
    with pytest.raises(UsageError):
        selection(["-bogus"])


def test_time_in_autoformat_is_the_schedds_time_of_the_answer() -> None:
    """`q -af 'time() - JobCurrentStartDate'` gives the job's run time, not a 1970 figure."""
    ad = _job(1, 0, 2, ServerTime=T0 + 90, JobCurrentStartDate=T0 + 30)
    assert format_af([ad], ["time() - JobCurrentStartDate", "time()"]) == f"60 {T0 + 90}\n"
    assert format_af([_job(1, 0)], ["time()"], now=T0) == f"{T0}\n"


def test_tools_tell_the_pools_time_from_its_clock(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A live pool's clock runs SIM_SPEED times real time from `up`; tools read it, not the
    host clock; with no pool, the host clock (as HTCondor's tools)."""
    import os
    import time

    from condorsim import pool as poolmod
    from condorsim.classad.tool import main as classad_eval

    (tmp_path / "log").mkdir()
    assert abs(poolmod.pool_time(tmp_path) - time.time()) < 5  # no pool
    wall = time.time() - 10
    poolmod.clock_file(tmp_path).write_text(
        f'{{"start": {T0}, "wall": {wall}, "speed": 60}}\n')
    (tmp_path / "master.pid").write_text(f"{os.getpid()}\n")  # a live master
    assert abs(poolmod.pool_time(tmp_path) - (T0 + 600)) <= 60
    import io
    out = io.StringIO()
    assert classad_eval(["time()"], out=out, now=T0) == 0
    assert out.getvalue().splitlines()[-1] == str(T0)


def test_dates_and_run_times_use_the_schedds_simulated_time() -> None:
    ads = [_job(1, 0, 2, ServerTime=T0 + 3725, ShadowBday=T0 + 100)]
    now = server_time(ads)
    assert now == T0 + 3725
    assert format_nobatch(ads, now, "UTC").splitlines()[1].split()[4:6] == ["0+01:00:25", "R"]


def test_the_commands_table_names_every_tool() -> None:
    assert set(COMMANDS) == {"submit", "q", "history", "hold", "release", "rm", "qedit",
                             "suspend", "continue", "vacate"}
    assert all(callable(fn) and summary for fn, summary in COMMANDS.values())


class _QueueSchedd:
    """The schedd's own queue logic behind the tools' one network call (the edge)."""

    def __init__(self, tmp_path: Path) -> None:
        self.q = JobQueue(tmp_path / "spool")
        self.q.open(T0)
        self.iwd = str(tmp_path)

    def ask(self, msg: Message) -> tuple[str, str, Message | None]:
        now = T0 + 5
        reply: Message
        if isinstance(msg, m.SUBMIT_JOBS):
            ids = self.q.submit(msg.owner, msg.text, msg.iwd, msg.source, now)
            reply = m.SUBMIT_RESULT(cluster=ids[0][0], procs=len(ids))
        elif isinstance(msg, m.ACT_ON_JOBS):
            out = self.q.act(msg.action, list(msg.ids), msg.constraint, msg.reason, msg.owner,
                             now)
            reply = m.ACT_RESULT(done=out.done, errors=out.errors)
        elif isinstance(msg, m.QEDIT):
            out = self.q.qedit(list(msg.ids), msg.constraint, msg.attr, msg.value, msg.owner,
                               now)
            reply = m.ACT_RESULT(done=out.done, errors=out.errors)
        else:
            assert isinstance(msg, m.QUERY_JOB_ADS)
            reply = m.QUERY_RESULT(ads=self.q.query(msg.constraint, list(msg.projection), now))
        return "schedd@localhost", "<127.0.0.1:1>", reply


def test_tools_print_what_condor_hold_and_rm_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    schedd = _QueueSchedd(tmp_path)
    monkeypatch.setattr(jobs, "_ask", schedd.ask)
    monkeypatch.setattr("getpass.getuser", lambda: "alice")
    sub = tmp_path / "job.sub"
    sub.write_text("executable = /bin/sleep\nqueue 3\n")
    assert COMMANDS["submit"][0]([str(sub)]) == 0
    assert capsys.readouterr().out == "Submitting job(s)...\n3 job(s) submitted to cluster 1.\n"
    assert COMMANDS["hold"][0](["1.0", "-reason", "wait"]) == 0
    assert capsys.readouterr().out == "Job 1.0 held\n"
    assert schedd.q.jobs[(1, 0)].evaluate("HoldReason") == "wait (by user alice)"
    assert COMMANDS["hold"][0](["1.0"]) == 1
    assert capsys.readouterr().err == "Job 1.0 already held\n"
    assert COMMANDS["release"][0](["alice"]) == 1  # 1.1 and 1.2 were not held
    assert capsys.readouterr().err == 'Couldn\'t find/release all jobs of user "alice"\n'
    assert COMMANDS["qedit"][0](["1", "Foo", "2"]) == 0
    assert capsys.readouterr().out == 'Set attribute "Foo" for 3 matching jobs.\n'
    assert COMMANDS["rm"][0](["-constraint", "Foo == 2"]) == 0
    assert capsys.readouterr().out == \
        "All jobs matching constraint (Foo == 2) have been marked for removal\n"
    assert COMMANDS["rm"][0](["7"]) == 1
    assert capsys.readouterr().err == "Couldn't find/remove all jobs in cluster 7\n"
    assert COMMANDS["rm"][0]([]) == 1
