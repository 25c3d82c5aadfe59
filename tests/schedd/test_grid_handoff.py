"""The schedd's side of grid-universe jobs, without sockets: never negotiated for, never
requeued at a restart, held and removed without an event while the gridmanager manages them,
and the gridmanager's updates applied as qmgmt's SetAttribute and DestroyProc do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from condorsim.classad import ClassAd
from condorsim.eventlog import read_events
from condorsim.jobs.managed import gridmanager_owns
from condorsim.wire import messages as m
from daemons.schedd.grid import apply_gridmanager_update, unmanaged_grid_jobs
from daemons.schedd.history import read_history
from daemons.schedd.negotiation import Negotiations
from daemons.schedd.queue import JobQueue
from daemons.schedd.running import recover_after_restart

T0 = 1_767_225_600
GRID = ("universe = grid\ngrid_resource = batch slurm\nexecutable = /bin/sleep\n"
        "arguments = 60\nlog = job.log\nqueue 2\n")
VANILLA = "executable = /bin/sleep\narguments = 60\nlog = job.log\nqueue\n"


def _queue(tmp_path: Path) -> JobQueue:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    q.submit("alice", GRID, str(tmp_path), "grid.sub", T0)
    q.submit("alice", VANILLA, str(tmp_path), "v.sub", T0)
    return q


def _update(q: JobQueue, job: tuple[int, int], text: str, destroy: bool = False,
            now: int = T0 + 10) -> None:
    apply_gridmanager_update(q, job, ClassAd.parse(text), destroy, now)


def _events(tmp_path: Path, job: tuple[int, int]) -> list[str]:
    return [e.type for e in read_events(tmp_path / "job.log") if (e.cluster, e.proc) == job]


def test_grid_jobs_are_not_negotiated_for(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    seen: list[Any] = []
    n = Negotiations(q, matched=lambda *a: seen.append(a), pending=set(),
                     before=lambda now: None, ended=lambda: None, log=None)
    n.handle("c", m.NEGOTIATE(submitter="alice@x", ad=ClassAd()), T0)
    reply = n.handle("c", m.SEND_RESOURCE_REQUEST_LIST(count=10), T0)
    assert isinstance(reply, m.RESOURCE_REQUEST_LIST)
    assert [r.evaluate("JobUniverse") for r in reply.requests] == [5]
    assert sorted(unmanaged_grid_jobs(q)) == [(1, 0), (1, 1)]


def test_the_gridmanagers_updates_are_set_with_the_queues_own_bookkeeping(
        tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _update(q, (1, 0), '[ Managed = "External" ]')
    assert unmanaged_grid_jobs(q) == [(1, 1)] and gridmanager_owns(q.jobs[(1, 0)])
    _update(q, (1, 0), "[ JobStatus = 2; EnteredCurrentStatus = 1767225675 ]")
    ad = q.jobs[(1, 0)]
    assert (ad.evaluate("JobStatus"), ad.evaluate("LastJobStatus")) == (2, 1)
    _update(q, (1, 0), '[ JobStatus = 5; HoldReason = "x"; HoldReasonCode = 3; '
                       'HoldReasonSubCode = 0; NumSystemHolds = 1 ]')
    ad = q.jobs[(1, 0)]
    assert ad.evaluate("NumHolds") == 1 and ad.evaluate("LastJobStatus") == 2
    assert ad.evaluate("NumHoldsByReason").evaluate("JobPolicy") == 1
    assert _events(tmp_path, (1, 0)) == ["SUBMIT"]  # the gridmanager writes JOB_HELD


def test_a_removed_job_stays_removed_and_leaves_when_the_gridmanager_is_done(
        tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _update(q, (1, 0), '[ Managed = "External"; GridJobId = "batch slurm sb slurm/1" ]')
    out = q.act("remove", ["1.0"], "", "", "alice", T0 + 20)
    assert out.to_gridmanager == [((1, 0), "remove")]
    assert (1, 0) in q.jobs and _events(tmp_path, (1, 0)) == ["SUBMIT"]
    _update(q, (1, 0), "[ JobStatus = 4 ]")  # a completion that crossed the removal
    assert q.jobs[(1, 0)].evaluate("JobStatus") == 3
    _update(q, (1, 0), '[ Managed = "ScheddDone" ]', destroy=True, now=T0 + 30)
    assert (1, 0) not in q.jobs
    [gone] = [a for a in read_history(q.history_path, "ProcId == 0 && ClusterId == 1", [],
                                      0, T0)]
    assert gone.evaluate("JobStatus") == 3 and gone.evaluate("Managed") == "ScheddDone"


def test_a_completed_job_leaves_with_its_completion_date(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _update(q, (1, 1), '[ Managed = "External"; JobStatus = 4 ]')
    _update(q, (1, 1), '[ Managed = "ScheddDone" ]', destroy=True, now=T0 + 700)
    [gone] = read_history(q.history_path, "ProcId == 1", [], 0, T0)
    assert gone.evaluate("CompletionDate") == T0 + 700


def test_hold_of_a_managed_job_writes_no_event_of_an_unmanaged_one_does(
        tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _update(q, (1, 0), '[ Managed = "External" ]')
    managed = q.act("hold", ["1.0"], "", "", "alice", T0 + 5)
    unmanaged = q.act("hold", ["1.1"], "", "", "alice", T0 + 5)
    assert managed.to_gridmanager == [((1, 0), "hold")] and unmanaged.to_gridmanager == []
    assert _events(tmp_path, (1, 0)) == ["SUBMIT"]
    assert _events(tmp_path, (1, 1)) == ["SUBMIT", "JOB_HELD"]
    removed = q.act("remove", ["1.1"], "", "", "alice", T0 + 6)
    assert removed.to_gridmanager == [] and (1, 1) not in q.jobs
    assert _events(tmp_path, (1, 1)) == ["SUBMIT", "JOB_HELD", "JOB_ABORTED"]


def test_a_restarted_schedd_leaves_running_grid_jobs_alone(tmp_path: Path) -> None:
    q = _queue(tmp_path)
    _update(q, (1, 0), '[ Managed = "External"; JobStatus = 2 ]')
    _update(q, (1, 1), '[ Managed = "External"; GridJobId = "batch slurm sb slurm/2" ]')
    q.act("remove", ["1.1"], "", "", "alice", T0 + 5)
    q.store.close()
    again = JobQueue(tmp_path / "spool")
    again.open(T0 + 100)
    recovery = recover_after_restart(again, T0 + 100)
    assert recovery.requeued == [] and recovery.reconnect == []
    assert again.status((1, 0)) == 2 and again.status((1, 1)) == 3  # still the gridmanager's
