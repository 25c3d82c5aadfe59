"""The schedd on a disk that refuses writes: what it cannot make durable in job_queue.log
(or the history file) it refuses, with the file and the errno in the tool's error and in
SchedLog; it keeps serving; what was written before stays intact; once the disk takes
writes again, everything works. The disk fails by injection (`writer.disk_write`), as a
full disk would: a test cannot fill a real one."""

from __future__ import annotations

import errno
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import htcondor
import pytest
import trio
import trio.testing

from condorsim.config import Config
from condorsim.eventlog import writer as event_writer
from condorsim.jobqueue import replay_file, writer
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.security import create_key
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.negotiator.daemon import Negotiator
from daemons.schedd.daemon import Schedd
from daemons.schedd.history import read_history
from daemons.shadow.daemon import Shadow
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

T0 = 1_767_225_600
CONFIG = "COLLECTOR_HOST = 127.0.0.1:9300\nUID_DOMAIN = example.org\nPERIODIC_EXPR_INTERVAL = 60\n"
POOL = CONFIG + """SIM_MACHINES = exec1
SIM_MACHINE_exec1_CPUS = 1
SIM_MACHINE_exec1_MEMORY = 1024
NEGOTIATOR_INTERVAL = 60
"""
JOB = "executable = /bin/sleep\narguments = 60\nlog = job.log\nqueue\n"
NO_SPACE = "errno = 28 (No space left on device)"


@contextmanager
def full(monkeypatch: pytest.MonkeyPatch, name: str, *, only: bytes = b"") -> Iterator[None]:
    """Writes to the file called ``name`` (of them, those holding ``only``) take 5 bytes (a
    short write, a torn start that must not stay), then fail with ENOSPC, as write(2) on a
    disk filling up."""
    real = os.write
    short: set[int] = set()

    def write(fd: int, data: bytes | memoryview) -> int:
        if not os.readlink(f"/proc/self/fd/{fd}").endswith(name) or \
                (fd not in short and only not in bytes(data)):
            return real(fd, data)
        if fd in short or len(data) <= 5:
            short.discard(fd)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        short.add(fd)
        return real(fd, bytes(data[:5]))

    with monkeypatch.context() as mp:
        mp.setattr(writer, "disk_write", write)
        mp.setattr(event_writer, "disk_write", write)
        yield


async def _ask(pool: object, msg: m.Message) -> m.Message:
    async with await pool.connect("schedd") as conn:  # type: ignore[attr-defined]
        return await conn.request(msg)


def _submit(tmp_path: Path) -> m.Message:
    return m.SUBMIT_JOBS(owner="alice", text=JOB, iwd=str(tmp_path), source="job.sub")


def _queue(path: Path) -> dict[str, dict[str, str]]:
    replayed = replay_file(path, now=T0)
    assert not replayed.torn and replayed.warnings == []
    return {key: dict(ad.items()) for key, ad in replayed.state.ads.items()}


def _pool(tmp_path: Path, clock: trio.testing.MockClock,
          daemons: list[tuple[str, Any]] | None = None) -> Any:
    """An in-process pool (the schedd alone by default) at T0, its logs in tmp_path/log."""
    clock.jump(T0)
    config = Config.from_text((POOL if daemons else CONFIG) + f"LOCAL_DIR = {tmp_path}\n")
    return open_inprocess_pool(config, tmp_path, daemons or [("schedd", Schedd)],
                               log_dir=tmp_path / "log")


def _sched_log(tmp_path: Path) -> str:
    return (tmp_path / "log" / "SchedLog").read_text()


async def test_a_full_disk_refuses_changes_loudly_and_loses_nothing(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    log_path = tmp_path / "spool" / "job_queue.log"
    async with _pool(tmp_path, autojump_clock) as pool:
        assert isinstance(await _ask(pool, _submit(tmp_path)), m.SUBMIT_RESULT)
        before = _queue(log_path)
        with full(monkeypatch, "job_queue.log"):
            refused = await _ask(pool, _submit(tmp_path))
            edit = await _ask(pool, m.QEDIT(ids=["1.0"], constraint="", attr="Foo",
                                            value="1", owner="alice"))
            hold = await _ask(pool, m.ACT_ON_JOBS(action="hold", ids=["1.0"], constraint="",
                                                  reason="", owner="alice"))
        # the tool is told why, naming the file and the errno
        assert isinstance(refused, m.FAILED)
        assert f"write to {log_path} failed, {NO_SPACE}" in refused.reason
        assert isinstance(edit, m.ACT_RESULT) and edit.done == []
        assert isinstance(hold, m.ACT_RESULT) and hold.done == []
        assert NO_SPACE in edit.errors[0] and NO_SPACE in hold.errors[0]
        # nothing of it reached the log, which replays as it was
        assert _queue(log_path) == before
        # the schedd serves on, and takes changes again once the disk has room
        jobs = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(jobs, m.QUERY_RESULT)
        assert [(a.evaluate("ClusterId"), a.evaluate("JobStatus"), a.lookup("Foo"))
                for a in jobs.ads] == [(1, 1, None)]
        again = await _ask(pool, _submit(tmp_path))
        assert isinstance(again, m.SUBMIT_RESULT) and again.cluster == 2
        hold = await _ask(pool, m.ACT_ON_JOBS(action="hold", ids=["1.0"], constraint="",
                                              reason="", owner="alice"))
        assert isinstance(hold, m.ACT_RESULT) and hold.done == ["1.0"]
    # SchedLog says it loudly, with the file and the errno
    assert f"job_queue_write_failed file={log_path} errno=28" in _sched_log(tmp_path)
    replayed = replay_file(log_path, now=T0)
    assert not replayed.torn and replayed.warnings == []
    assert replayed.state["1.0"]["JobStatus"] == "5" and "2.0" in replayed.state
    assert "Foo" not in replayed.state["1.0"]


async def test_a_job_whose_history_record_cannot_be_written_leaves_the_queue_later_once(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    history = tmp_path / "spool" / "history"
    async with _pool(tmp_path, autojump_clock) as pool:
        for _ in range(2):
            assert isinstance(await _ask(pool, _submit(tmp_path)), m.SUBMIT_RESULT)
        rm = await _ask(pool, m.ACT_ON_JOBS(action="remove", ids=["1.0"], constraint="",
                                            reason="", owner="alice"))
        assert isinstance(rm, m.ACT_RESULT) and rm.done == ["1.0"]
        with full(monkeypatch, "history"):
            rm = await _ask(pool, m.ACT_ON_JOBS(action="remove", ids=["2.0"], constraint="",
                                                reason="", owner="alice"))
            assert isinstance(rm, m.ACT_RESULT)
            assert f"write to {history} failed, {NO_SPACE}" in rm.errors[0]
            await trio.sleep(130)  # periodic passes while the disk is still full
        left = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(left, m.QUERY_RESULT)
        assert [(a.evaluate("ClusterId"), a.evaluate("JobStatus")) for a in left.ads] == [(2, 3)]
        await trio.sleep(70)  # the disk has room: the next pass lets it leave
        left = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(left, m.QUERY_RESULT) and left.ads == []
    ads = read_history(history)
    assert sorted(a.evaluate("ClusterId") for a in ads) == [1, 2]
    assert history.read_text().count("*** Offset") == 2  # no doubled record
    # ... and no torn one: the two removed jobs' records hold the same attributes
    assert {n for n, _ in ads[0].pairs()} == {n for n, _ in ads[1].pairs()}
    assert f"job_queue_write_failed file={history} errno=28" in _sched_log(tmp_path)


def _schedd_process(run_dir: Path, spool: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    cfg = run_dir / "condor_config"
    cfg.write_text(CONFIG + f"LOCAL_DIR = {run_dir}\nSPOOL = {spool}\n")
    create_key(run_dir / "passwords.d" / "POOL")
    return subprocess.run(
        [*prefix, sys.executable, "-m", "daemons.schedd", "--run-dir", str(run_dir),
         "--config", str(cfg)], capture_output=True, text=True, timeout=60,
        env=dict(os.environ, CONDOR_CONFIG="/dev/null"), cwd=Path(__file__).parents[2])


def test_a_spool_the_schedd_cannot_write_is_named_and_it_exits_2(tmp_path: Path) -> None:
    (tmp_path / "not-a-directory").write_text("")
    done = _schedd_process(tmp_path, tmp_path / "not-a-directory" / "spool")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"schedd: SPOOL = {tmp_path}/not-a-directory/spool: cannot create the spool directory "
        f"{tmp_path}/not-a-directory/spool: errno = 20 (Not a directory)")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run the schedd as another user")
def test_a_read_only_spool_is_named_and_the_schedd_exits_2() -> None:
    """A schedd running as nobody, its spool root's (0755): it cannot create its log."""
    run_dir = Path(tempfile.mkdtemp(prefix="condorsim-spool-", dir="/tmp"))
    try:
        spool = run_dir / "spool"
        spool.mkdir()
        os.chmod(run_dir, 0o755)
        nobody = pwd.getpwnam("nobody")
        key = run_dir / "passwords.d" / "POOL"
        create_key(key)
        (run_dir / "log").mkdir()
        for path in (run_dir / "log", key.parent, key):  # the pool's own, as for its user
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        done = _schedd_process(run_dir, spool, "setpriv", "--reuid=nobody", "--regid=nogroup",
                               "--clear-groups")
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.strip() == (
            f"schedd: SPOOL = {spool}: cannot write in the spool directory {spool}: write to "
            f"{spool}/job_queue.log.tmp failed, errno = 13 (Permission denied)")
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


async def test_a_user_log_that_cannot_be_written_is_logged_and_left_whole(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As HTCondor's schedd: the event is lost, SchedLog says so, the job goes on; and the
    log holds no half event, so later events read back."""
    user_log = tmp_path / "job.log"
    async with _pool(tmp_path, autojump_clock) as pool:
        assert isinstance(await _ask(pool, _submit(tmp_path)), m.SUBMIT_RESULT)
        with full(monkeypatch, "job.log"):
            assert isinstance(await _ask(pool, _submit(tmp_path)), m.SUBMIT_RESULT)
        hold = await _ask(pool, m.ACT_ON_JOBS(action="hold", ids=["2.0"], constraint="",
                                              reason="", owner="alice"))
        assert isinstance(hold, m.ACT_RESULT) and hold.done == ["2.0"]
    events = [(e.cluster, e.type.name) for e in htcondor.JobEventLog(str(user_log)).events(0)]
    assert events == [(1, "SUBMIT"), (2, "JOB_HELD")]
    assert (f"Unable to log an event for job 2.0: cannot write ULOG_SUBMIT to {user_log}: "
            f"{NO_SPACE}") in _sched_log(tmp_path)


async def test_a_shadow_exit_the_disk_refuses_is_sent_again_and_the_job_ends_once(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk refuses the job's move to Completed, after the shadow's final ad and the
    end of its run were written: the schedd answers the shadow's exit FAILED, the shadow
    sends it again, and once the disk has room the job ends once."""
    daemons = [("collector", Collector), ("negotiator", Negotiator), ("startd", Startd),
               ("starter", Starter), ("shadow", Shadow), ("schedd", Schedd)]
    async with _pool(tmp_path, autojump_clock, daemons) as pool:
        assert isinstance(await _ask(pool, _submit(tmp_path)), m.SUBMIT_RESULT)
        while True:
            await trio.sleep(5)
            jobs = await _ask(pool, m.QUERY_JOB_ADS(constraint="JobStatus == 2",
                                                    projection=[]))
            if isinstance(jobs, m.QUERY_RESULT) and jobs.ads:
                break
        with full(monkeypatch, "job_queue.log", only=b" JobStatus 4\n"):
            await trio.sleep(120)  # the 60 s job ends meanwhile
            jobs = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
            assert isinstance(jobs, m.QUERY_RESULT) and len(jobs.ads) == 1
        await trio.sleep(600)
        left = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        hist = await _ask(pool, m.QUERY_HISTORY(constraint="", projection=[], limit=0))
        async with await pool.connect("collector") as conn:
            slots = await conn.request(m.QUERY_STARTD_ADS(constraint="", projection=[]))
    assert isinstance(left, m.QUERY_RESULT) and left.ads == []
    assert isinstance(hist, m.QUERY_RESULT) and len(hist.ads) == 1
    assert [hist.ads[0].evaluate(a) for a in ("JobStatus", "NumJobCompletions",
                                              "NumShadowStarts")] == [4, 1, 1]
    assert isinstance(slots, m.QUERY_RESULT) and slots.ads
    assert all(s.evaluate("State") == "Unclaimed" for s in slots.ads)
    kinds = [e.type.name for e in htcondor.JobEventLog(str(tmp_path / "job.log")).events(0)]
    assert [k for k in kinds if k != "IMAGE_SIZE"] == ["SUBMIT", "EXECUTE", "JOB_TERMINATED"]
    assert "job_queue_write_failed" in _sched_log(tmp_path)


@pytest.mark.parametrize("knob, syncs", [("", True), ("CONDOR_FSYNC = false\n", False)])
async def test_condor_fsync_false_skips_the_syncs_and_keeps_every_write(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch, knob: str, syncs: bool) -> None:
    synced: list[int] = []
    monkeypatch.setattr(writer, "disk_datasync", synced.append)
    monkeypatch.setattr(writer, "fsync_on", True)  # what the process starts with
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + knob + f"LOCAL_DIR = {tmp_path}\n")
    async with open_inprocess_pool(config, tmp_path, [("schedd", Schedd)],
                                   log_dir=tmp_path / "log") as pool:
        assert isinstance(await _ask(pool, _submit(tmp_path)), m.SUBMIT_RESULT)
        hold = await _ask(pool, m.ACT_ON_JOBS(action="hold", ids=["1.0"], constraint="",
                                              reason="", owner="alice"))
        assert isinstance(hold, m.ACT_RESULT) and hold.done == ["1.0"]
    assert bool(synced) is syncs  # HTCondor's default syncs every commit; false, none
    assert _queue(tmp_path / "spool" / "job_queue.log")["1.0"]["JobStatus"] == "5"


@pytest.mark.parametrize("recovers", [True, False])
async def test_a_local_job_exit_the_disk_refuses_is_retried_and_never_left_running(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch, recovers: bool) -> None:
    """As HTCondor's local starter (JICLocalSchedd::notifyJobExit, retryJobCleanup): an
    exit whose queue update fails is tried again every LOCAL_UNIVERSE_JOB_CLEANUP_RETRY_DELAY
    (30 s); once the disk has room the job ends once. If it never does within
    LOCAL_UNIVERSE_MAX_JOB_CLEANUP_RETRIES (5), the starter gives up (its EXCEPT) and the
    schedd requeues the job, which then runs again -- never Running for ever."""
    async with _pool(tmp_path, autojump_clock) as pool:
        job = "universe = local\nexecutable = /bin/sleep\narguments = 60\nlog = job.log\nqueue\n"
        reply = await _ask(pool, m.SUBMIT_JOBS(owner="alice", text=job, iwd=str(tmp_path),
                                               source="job.sub"))
        assert isinstance(reply, m.SUBMIT_RESULT)
        await trio.sleep(10)
        with full(monkeypatch, "job_queue.log"):
            await trio.sleep(120 if recovers else 240)  # the exit at 60 s; 5 retries to 210 s
            during = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        assert isinstance(during, m.QUERY_RESULT)
        assert [a.evaluate("JobStatus") for a in during.ads] == [2]  # the queue is unchanged
        await trio.sleep(1000 if recovers else 35)
        left = await _ask(pool, m.QUERY_JOB_ADS(constraint="", projection=[]))
        hist = await _ask(pool, m.QUERY_HISTORY(constraint="", projection=[], limit=0))
    assert isinstance(left, m.QUERY_RESULT) and isinstance(hist, m.QUERY_RESULT)
    kinds = [e.type.name for e in htcondor.JobEventLog(str(tmp_path / "job.log")).events(0)]
    if recovers:
        assert left.ads == [] and len(hist.ads) == 1
        assert hist.ads[0].evaluate("JobStatus") == 4
        assert kinds == ["SUBMIT", "EXECUTE", "JOB_TERMINATED"]
    else:  # given up at 250 s (the 5th retry's 30 s after): requeued, running again
        assert [a.evaluate("JobStatus") for a in left.ads] == [2]
        assert left.ads[0].evaluate("NumShadowStarts") == 2
        assert kinds == ["SUBMIT", "EXECUTE", "EXECUTE"]
    sched_log = _sched_log(tmp_path)
    assert "local_job_exit_not_written" in sched_log
