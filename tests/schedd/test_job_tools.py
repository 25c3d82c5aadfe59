"""The job tools that act on the queue (submit, hold, release, rm, qedit) against the
schedd's own queue logic (no pool needed); condor_q's and condor_history's formats are
tests/tools/test_q_format.py and test_history_format.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.tools import jobs
from condorsim.tools.jobs import COMMANDS, UsageError, selection
from condorsim.tools.submit import main as submit_main
from condorsim.wire import Message
from condorsim.wire import messages as m
from daemons.schedd.queue import JobQueue

T0 = 1_767_225_600  # 2026-01-01 00:00 UTC


def test_selection_of_ids_owners_and_constraints() -> None:
    assert selection(["1.0", "2", "bob"]) == (["1.0", "2"], '(Owner == "bob")')
    assert selection(["-constraint", "JobStatus == 5"]) == ([], "(JobStatus == 5)")
    with pytest.raises(UsageError):
        selection(["-constraint", "JobStatus =="])
    with pytest.raises(UsageError):
        selection(["-bogus"])


def test_tools_tell_the_pools_time_from_its_clock(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A live pool's clock runs SIM_SPEED times real time from `up`; tools read it, not the
    host clock; with no pool, the host clock (as HTCondor's tools)."""
    import io
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
    out = io.StringIO()
    assert classad_eval(["time()"], out=out, now=T0) == 0
    assert out.getvalue().splitlines()[-1] == str(T0)


def test_the_commands_table_names_every_tool() -> None:
    assert set(COMMANDS) == {"hold", "release", "rm", "qedit", "suspend", "continue", "vacate"}
    assert all(callable(fn) and summary for fn, summary in COMMANDS.values())


class _QueueSchedd:
    """The schedd's own queue logic behind the tools' one network call (the edge)."""

    def __init__(self, tmp_path: Path, user: str = "alice") -> None:
        self.user = user  # whom the tools authenticate as (the schedd's side of FS)
        self.q = JobQueue(tmp_path / "spool")
        self.q.open(T0)
        self.iwd = str(tmp_path)

    def ask(self, msg: Message) -> tuple[str, str, Message | None]:
        now = T0 + 5
        reply: Message
        if isinstance(msg, m.SUBMIT_JOBS):
            ids = self.q.submit(self.q.acting_user(self.user, msg.owner), msg.text, msg.iwd, msg.source, now)
            reply = m.SUBMIT_RESULT(cluster=ids[0][0], procs=len(ids))
        elif isinstance(msg, m.ACT_ON_JOBS):
            out = self.q.act(msg.action, list(msg.ids), msg.constraint, msg.reason,
                             self.q.acting_user(self.user, msg.owner), now)
            reply = m.ACT_RESULT(done=out.done, errors=out.errors)
        elif isinstance(msg, m.QEDIT):
            out = self.q.qedit(list(msg.ids), msg.constraint, msg.attr, msg.value,
                               self.q.acting_user(self.user, msg.owner), now)
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
    sub = tmp_path / "job.sub"
    sub.write_text("executable = /bin/sleep\nqueue 3\n")
    assert submit_main([str(sub)]) == 0
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


def test_submit_options_append_batch_name_terse_and_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """condor_submit's -a (before each queue statement), -batch-name, -terse (id ranges
    only), and a description on standard input (each job's ad, as condor_submit -)."""
    import io

    schedd = _QueueSchedd(tmp_path)
    monkeypatch.setattr(jobs, "_ask", schedd.ask)
    sub = tmp_path / "job.sub"
    sub.write_text("executable = /bin/sleep\nqueue 2\n")
    assert submit_main(["-a", "+Color = \"red\"", "-batch-name", "nightly", "-terse",
                        str(sub)]) == 0
    assert capsys.readouterr().out == "1.0 - 1.1\n"
    assert schedd.q.jobs[(1, 1)].evaluate("Color") == "red"
    assert schedd.q.jobs[(1, 0)].evaluate("JobBatchName") == "nightly"
    monkeypatch.setattr("sys.stdin", io.StringIO("executable = /bin/true\nqueue\n"))
    assert submit_main(["-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("\n** Proc 2.0:\n")
    assert 'Cmd = "/bin/true"' in out and "submitted" not in out
    assert submit_main(["-queue", "3", "executable=/bin/true"]) == 0
    assert capsys.readouterr().out == "Submitting job(s)...\n3 job(s) submitted to cluster 3.\n"


def test_submit_help_lists_dry_run_and_runs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert submit_main(["-help"]) == 0
    assert "-dry-run <filename>" in capsys.readouterr().out
