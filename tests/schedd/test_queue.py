"""The schedd's queue logic without sockets: submit, hold, release, remove, qedit,
history, the user log, and a reload from job_queue.log."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.classad import ClassAd, parse_expr
from condorsim.classad._values import AbsTime, RelTime
from condorsim.eventlog import read_events
from daemons.schedd.history import read_history
from daemons.schedd.policy import evaluate_periodic
from daemons.schedd.queue import JobQueue
from daemons.schedd.store import ScheddError

T0 = 1_767_225_600
SUB = "executable = /bin/sleep\narguments = 60\nlog = job.log\nqueue 3\n"


def _queue(tmp_path: Path) -> JobQueue:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    return q


def _v(q: JobQueue, job: tuple[int, int], attr: str) -> object:
    return q.jobs[job].evaluate(attr)


def test_submit_makes_procs_with_next_cluster_and_writes_submit_events(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    assert q.submit("alice", SUB, str(tmp_path), "job.sub", T0) == [(1, 0), (1, 1), (1, 2)]
    assert q.submit("alice", SUB, str(tmp_path), "job.sub", T0 + 5)[0] == (2, 0)
    assert _v(q, (2, 0), "QDate") == T0 + 5 and _v(q, (1, 2), "Owner") == "alice"
    assert _v(q, (1, 1), "JobStatus") == 1
    events = read_events(tmp_path / "job.log")
    assert [(e.type, e.cluster, e.proc) for e in events][:3] == [
        ("SUBMIT", 1, 0), ("SUBMIT", 1, 1), ("SUBMIT", 1, 2)]
    assert len(events) == 6


def test_a_failed_submit_uses_up_its_cluster_id_and_queues_nothing(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    with pytest.raises(ScheddError):
        q.submit("alice", "universe = nonsense\nqueue\n", str(tmp_path), "bad.sub", T0)
    assert q.jobs == {}
    assert q.submit("alice", SUB, str(tmp_path), "job.sub", T0) [0] == (2, 0)


def test_hold_release_and_their_attributes_and_events(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    out = q.act("hold", ["1.0"], "", "", "alice", T0 + 10)
    assert out.done == ["1.0"] and out.errors == []
    job = (1, 0)
    assert _v(q, job, "JobStatus") == 5 and _v(q, job, "LastJobStatus") == 1
    assert _v(q, job, "HoldReason") == "via condor_hold (by user alice)"
    assert _v(q, job, "HoldReasonCode") == 1 and _v(q, job, "HoldReasonSubCode") == 0
    assert _v(q, job, "NumHolds") == 1 and _v(q, job, "EnteredCurrentStatus") == T0 + 10
    by_reason = _v(q, job, "NumHoldsByReason")
    assert isinstance(by_reason, ClassAd) and by_reason.evaluate("UserRequest") == 1
    assert q.act("hold", ["1.0"], "", "", "alice", T0 + 11).errors
    out = q.act("release", ["1"], "", "", "alice", T0 + 20)
    assert out.done == ["1.0"] and len(out.errors) == 2  # 1.1 and 1.2 are not held
    assert _v(q, job, "JobStatus") == 1 and _v(q, job, "LastHoldReasonCode") == 1
    assert "HoldReason" not in q.jobs[job]
    assert _v(q, job, "ReleaseReason") == "via condor_release (by user alice)"
    types = [e.type for e in read_events(tmp_path / "job.log")]
    assert types[-2:] == ["JOB_HELD", "JOB_RELEASED"]


def test_only_the_owner_or_a_queue_super_user_may_act(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    out = q.act("remove", ["1.0"], "", "", "bob", T0)
    assert out.done == [] and "Permission denied" in out.errors[0]
    assert q.act("remove", ["1.0"], "", "", "condor", T0).done == ["1.0"]


def test_remove_sends_the_job_to_history_with_an_aborted_event(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    out = q.act("remove", [], "ProcId >= 1", "", "alice", T0 + 30)
    assert out.done == ["1.1", "1.2"]
    assert sorted(q.jobs) == [(1, 0)]
    hist = read_history(tmp_path / "spool" / "history")
    assert [(a.evaluate("ClusterId"), a.evaluate("ProcId")) for a in hist] == [(1, 2), (1, 1)]
    assert hist[0].evaluate("JobStatus") == 3
    assert hist[0].evaluate("RemoveReason") == "via condor_rm (by user alice)"
    text = (tmp_path / "spool" / "history").read_text()
    assert '*** Offset = 0 ClusterId = 1 ProcId = 1 Owner = "alice" CompletionDate = -1' in text
    assert [e.type for e in read_events(tmp_path / "job.log")][-1] == "JOB_ABORTED"


def test_qedit_sets_an_expression_and_refuses_protected_attributes(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    out = q.qedit(["1.0"], "", "RequestMemory", "2 * 1024", "alice", T0)
    assert out.done == ["1.0"] and _v(q, (1, 0), "RequestMemory") == 2048
    with pytest.raises(ScheddError, match="not allowed"):
        q.qedit(["1.0"], "", "ClusterId", "7", "alice", T0)
    with pytest.raises(ScheddError, match="Parse error"):
        q.qedit(["1.0"], "", "Foo", "1 +", "alice", T0)


def test_everything_survives_a_reload_of_job_queue_log(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    q.act("hold", ["1.1"], "", "stop", "alice", T0 + 1)
    q.qedit(["1.2"], "", "Foo", '"bar"', "alice", T0 + 2)
    q.act("remove", ["1.0"], "", "", "alice", T0 + 3)
    q.store.close()
    again = _queue(tmp_path)
    assert sorted(again.jobs) == [(1, 1), (1, 2)]
    for job in again.jobs:
        assert again.jobs[job] == q.jobs[job]
    assert again.submit("alice", SUB, str(tmp_path), "job.sub", T0)[0] == (2, 0)


def test_a_time_valued_attribute_survives_a_restart_and_lands_in_history(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    deadline = 'absTime("2026-03-01T12:00:00+01:00")'
    q.qedit(["1.0"], "", "Deadline", deadline, "alice", T0 + 1)
    q.qedit(["1.0"], "", "Budget", "absTime(1767225600, 3600) - absTime(0)", "alice", T0 + 1)
    q.qedit(["1.0"], "", "Grace", 'relTime("1:30")', "alice", T0 + 1)
    q.store.close()
    again = _queue(tmp_path)  # the schedd restarts: job_queue.log is read back
    assert _v(again, (1, 0), "Deadline") == AbsTime(1772362800, 3600)
    assert str(again.jobs[(1, 0)].lookup("Deadline")) == deadline
    assert _v(again, (1, 0), "Budget") == RelTime(1767225600.0)
    assert _v(again, (1, 0), "Grace") == 90.0  # relTime("...") evaluates to a real (HTCondor 24)
    again.act("remove", ["1.0"], "", "", "alice", T0 + 30)
    hist = read_history(
        tmp_path / "spool" / "history", 'Deadline > absTime("2026-01-01T00:00:00Z")'
    )
    assert [a.evaluate("ProcId") for a in hist] == [0]
    assert hist[0].evaluate("Deadline") == AbsTime(1772362800, 3600)
    assert parse_expr("getHours(Deadline)").evaluate(hist[0]) == 11  # UTC, the default zone
    text = (tmp_path / "spool" / "history").read_text()
    assert 'Deadline = absTime("2026-03-01T12:00:00+01:00")' in text


def test_periodic_policy_hold_remove_release() -> None:
    ad = ClassAd.parse('[ JobStatus = 1; PeriodicHold = time() > 100 ]')
    assert evaluate_periodic(ad, 50) is None
    act = evaluate_periodic(ad, 150)
    assert act is not None and act.action == "hold" and act.code == 3
    assert act.reason == "The job attribute PeriodicHold expression 'time() > 100' evaluated to TRUE"
    ad = ClassAd.parse('[ JobStatus = 5; PeriodicRelease = true; PeriodicHold = true ]')
    assert evaluate_periodic(ad, 1) == evaluate_periodic(ad, 1)
    assert evaluate_periodic(ad, 1).action == "release"  # type: ignore[union-attr]
    ad = ClassAd.parse('[ JobStatus = 1; PeriodicHold = true; PeriodicHoldReason = "x";'
                       ' PeriodicHoldSubCode = 7 ]')
    act = evaluate_periodic(ad, 1)
    assert act is not None and (act.reason, act.subcode) == ("x", 7)


def test_submit_takes_the_pools_configuration_as_condor_submit_would(tmp_path: Path) -> None:
    """ScheddInterval comes from SCHEDD_INTERVAL and User/FileSystemDomain from the pool's
    UID_DOMAIN/FILESYSTEM_DOMAIN -- the same names the slots and submitter ads carry --
    not from the host the simulator happens to run on."""
    from condorsim.config import Config
    from daemons.schedd.daemon import submit_config

    cfg = Config.from_text("SCHEDD_INTERVAL = 60\nUID_DOMAIN = pool.example\n", subsystem="SCHEDD")
    q = JobQueue(tmp_path / "spool", submit_config=submit_config(cfg))
    q.open(T0)
    sub = "executable = /bin/sleep\narguments = 60\ndeferral_time = 1767226000\nqueue\n"
    q.submit("alice", sub, str(tmp_path), "job.sub", T0)
    assert _v(q, (1, 0), "ScheddInterval") == 60
    assert _v(q, (1, 0), "User") == "alice@pool.example"
    assert _v(q, (1, 0), "FileSystemDomain") == "localhost"
