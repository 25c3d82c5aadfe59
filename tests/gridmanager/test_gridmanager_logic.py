"""The gridmanager's decisions against the schedd's real queue, without sockets: what each event
(a submit, a poll, a hold, a removal, an outage, a restart) makes it do, and when.

Times are seconds after the submit at 0. With HTCondor's defaults the schedd signals 3 s after
a submit, the gridmanager contacts it at most every 5 s (adopts at 5, saves the sandbox id at
10 and submits, saves the remote id at 15) and polls a submitted job every 60 s (75, 135, ...).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _grid_harness import SLURM, T0, Harness, grid_job

from condorsim.classad import ClassAd, EvalContext, parse_expr
from condorsim.eventlog import read_events

SANDBOX = r"localhost_schedd_localhost_{job}_1767225600"


def holds(ad: ClassAd, expr: str, now: float) -> bool:
    return parse_expr(expr).evaluate(my=ad, ctx=EvalContext(now=int(now))) is True


def schedd_events(tmp_path: Path, job: str) -> list[str]:
    """The events the schedd itself wrote into the job's log (the harness keeps the
    gridmanager's apart)."""
    cluster, proc = map(int, job.split("."))
    path = tmp_path / "grid.log"
    if not path.exists():
        return []
    return [e.type for e in read_events(path) if (e.cluster, e.proc) == (cluster, proc)]


# (what happens, the submit's extra commands, the sites, the gridmanager's events of 1.0
#  by 1800 s, what is true of 1.0 then)
FLOWS = [
    ("a job runs at its site and completes", "", SLURM,
     [("grid_submit", 10), ("execute", 75), ("terminated", 675)],
     'JobStatus == 4 && Managed == "ScheddDone" && GridJobStatus == "COMPLETED" && '
     'ExitCode == 0 && JobStartDate == 1767225675 && RemoteWallClockTime == 600.0 && '
     'NumJobStarts == 1 && CompletionDate == 1767226280'),
    ("a failing site ends the job with ExitCode 1; it completes", "",
     '[ Resource = "batch slurm"; Slots = 2; StartDelay = 30; FailureRate = 1.0 ]',
     [("grid_submit", 10), ("execute", 75), ("terminated", 675)],
     "JobStatus == 4 && ExitCode == 1"),
    ("OnExitHold holds a job that failed there", "on_exit_hold = ExitCode != 0",
     '[ Resource = "batch slurm"; Slots = 2; StartDelay = 30; FailureRate = 1.0 ]',
     [("grid_submit", 10), ("execute", 75), ("held", 675)],
     'JobStatus == 5 && HoldReasonCode == 3 && Managed == "Schedd" && GridJobId is undefined '
     '&& NumSystemHolds == 1 && ExitCode is undefined'),
    ("OnExitRemove false: evicted and submitted again", "on_exit_remove = false", SLURM,
     [("grid_submit", 10), ("execute", 75), ("evicted", 675), ("grid_submit", 680),
      ("execute", 745), ("evicted", 1345), ("grid_submit", 1350), ("execute", 1415)],
     'JobStatus == 2 && Managed == "External" && NumJobStarts == 3 && ExitCode is undefined'),
    ("no site serves the GridResource: held", "", '[ Resource = "batch pbs" ]',
     [("held", 5)],
     'JobStatus == 5 && HoldReasonCode == 0 && Managed == "Schedd" && '
     'regexp("^Attempts to submit failed: no site serves GridResource", HoldReason)'),
    ("the gridmanager's periodic policy removes a job", "periodic_remove = "
     "RemoteWallClockTime > 100", SLURM,
     [("grid_submit", 10), ("execute", 75), ("aborted", 185)],  # policy at 65, 125, 185
     'JobStatus == 3 && Managed == "ScheddDone" && regexp("PeriodicRemove", RemoveReason)'),
]


@pytest.mark.parametrize(("what", "extra", "sites", "events", "that"), FLOWS,
                         ids=[f[0] for f in FLOWS])
def test_a_flow(tmp_path: Path, what: str, extra: str, sites: str,
                events: list[tuple[str, int]], that: str) -> None:
    h = Harness(tmp_path, sites)
    h.run_until(0)
    h.submit(grid_job(600, extra=extra))
    h.run_until(1800)
    assert [(k, t - T0) for j, k, t in h.events if j == "1.0"] == events
    ad = h.ad("1.0")
    assert holds(ad, that, h.now), \
        {a: str(ad.lookup(a)) for a in ("JobStatus", "Managed", "GridJobId", "ExitCode",
                                        "HoldReason", "RemoteWallClockTime", "JobStartDate")}


def test_the_schedd_sees_each_step_when_the_gridmanager_has_pushed_it(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600))
    h.run_until(4)
    assert h.ad("1.0").lookup("Managed") is None  # not adopted yet
    h.run_until(5)
    assert h.ad("1.0").evaluate("Managed") == "External"
    h.run_until(10)
    assert h.ad("1.0").evaluate("GridJobId") == "batch slurm " + SANDBOX.format(job="1.0")
    h.run_until(15)
    assert h.ad("1.0").evaluate("GridJobId") == \
        f"batch slurm {SANDBOX.format(job='1.0')} slurm/20260101/1"
    assert h.ad("1.0").evaluate("JobStatus") == 1
    h.run_until(75)
    ad = h.ad("1.0")
    assert (ad.evaluate("JobStatus"), ad.evaluate("GridJobStatus")) == (2, "RUNNING")
    assert ad.evaluate("EnteredCurrentStatus") == T0 + 75 and ad.evaluate("LastJobStatus") == 1
    assert schedd_events(tmp_path, "1.0") == ["SUBMIT"]


def test_a_full_site_queues_the_rest_and_reports_them_idle(tmp_path: Path) -> None:
    h = Harness(tmp_path)  # 2 slots, 30 s start delay
    h.run_until(0)
    h.submit(grid_job(600, count=3))
    h.run_until(200)
    assert [h.ad(j).evaluate("GridJobStatus") for j in ("1.0", "1.1", "1.2")] == \
        ["RUNNING", "RUNNING", "IDLE"]
    assert h.ad("1.2").evaluate("JobStatus") == 1
    h.run_until(1400)
    # 1.0 and 1.1 ran 40..640 at the site; 1.2 got a slot at 640 and started at 670
    assert h.when("1.2", "execute") - T0 == 675
    assert h.when("1.2", "terminated") - T0 == 1275


def test_a_user_hold_cancels_the_remote_job_and_release_submits_it_again(
        tmp_path: Path) -> None:
    h = Harness(tmp_path, '[ Resource = "batch slurm"; Slots = 1 ]')
    h.run_until(0)
    h.submit(grid_job(600, count=2))
    h.run_until(300)
    h.act("hold", "1.0", "checking")
    assert h.ad("1.0").evaluate("JobStatus") == 5  # at once in the queue, but no event
    assert schedd_events(tmp_path, "1.0") == ["SUBMIT"]
    h.run_until(310)
    ad = h.ad("1.0")
    assert h.kinds("1.0") == ["grid_submit", "execute", "held"]
    assert h.when("1.0", "held") - T0 == 302  # the schedd's signal came 2 s after the hold
    assert holds(ad, 'Managed == "Schedd" && GridJobId is undefined && '
                     'GridJobStatus is undefined', h.now)
    assert ad.evaluate("RemoteWallClockTime") == 302 - 75
    assert ad.evaluate("HoldReasonCode") == 1 and ad.evaluate("NumHolds") == 1
    site = h.logic.resources["batch slurm"].site
    assert [(r.job, r.state, r.started) for r in site.jobs.values()] == \
        [("1.1", "RUNNING", T0 + 302)]  # 1.0 cancelled (and forgotten): 1.1 got its slot
    h.act("release", "1.0")
    h.run_until(2000)
    assert h.kinds("1.0") == ["grid_submit", "execute", "held", "grid_submit", "execute",
                              "terminated"]
    assert schedd_events(tmp_path, "1.0") == ["SUBMIT", "JOB_RELEASED"]
    ad = h.ad("1.0")
    assert ad.evaluate("JobStatus") == 4 and ad.evaluate("NumJobStarts") == 2
    assert ad.evaluate("GridJobId").endswith("slurm/20260101/3")


def test_a_removed_job_is_cancelled_logged_by_the_gridmanager_and_leaves(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600))
    h.run_until(100)
    h.act("remove", "1.0", "not needed")
    assert h.in_queue("1.0")  # the gridmanager must cancel the remote job first
    h.run_until(110)
    assert not h.in_queue("1.0")
    ad = h.ad("1.0")
    assert ad.evaluate("JobStatus") == 3 and ad.evaluate("Managed") == "ScheddDone"
    assert h.kinds("1.0") == ["grid_submit", "execute", "aborted"]
    assert schedd_events(tmp_path, "1.0") == ["SUBMIT"]
    assert [r.state for r in h.logic.resources["batch slurm"].site.jobs.values()] == []


def test_a_job_removed_before_the_gridmanager_took_it_is_the_schedds_to_remove(
        tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600))
    h.run_until(1)
    h.act("remove", "1.0")
    assert not h.in_queue("1.0") and schedd_events(tmp_path, "1.0") == ["SUBMIT", "JOB_ABORTED"]
    h.run_until(100)
    assert h.events == []


def test_an_outage_is_detected_at_a_poll_and_its_end_at_a_ping(tmp_path: Path) -> None:
    h = Harness(tmp_path, '[ Resource = "batch slurm"; Slots = 1 ]')
    h.run_until(0)
    h.submit(grid_job(600))
    h.at(T0 + 300, lambda: h.logic.site_down("batch slurm", h.now))
    h.at(T0 + 1200, lambda: h.logic.site_up("batch slurm", h.now))
    h.run_until(400)
    h.submit(grid_job(60))
    h.run_until(2500)
    assert [(k, t - T0) for j, k, t in h.events if j == "1.0"] == [
        ("grid_submit", 10), ("execute", 75), ("grid_resource_down", 315),  # a poll
        ("grid_resource_up", 1215),  # pings every 300 s from 315; up since 1200
        ("terminated", 1515)]  # 310 s of its run were left at 300: it ended at 1510
    assert [(k, t - T0) for j, k, t in h.events if j == "2.0"] == [
        ("grid_resource_down", 403),  # adopted while the site is known down
        ("grid_resource_up", 1215), ("grid_submit", 1215),  # not submitted before
        ("execute", 1520), ("terminated", 1580)]  # 1.0's slot was free at 1510
    assert holds(h.ad("1.0"), "GridResourceUnavailableTime is undefined", h.now)


def test_a_restarted_gridmanager_takes_its_jobs_back_and_nothing_runs_twice(
        tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600, count=2))
    h.run_until(200)
    h.restart_gridmanager()
    h.run_until(2000)
    for job in ("1.0", "1.1"):
        assert h.kinds(job) == ["grid_submit", "execute", "terminated"]
        assert h.ad(job).evaluate("NumJobStarts") == 1
    assert h.logic.resources["batch slurm"].site.counter == 2


def test_a_restart_between_submit_and_its_save_does_not_submit_twice(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600))
    h.run_until(12)  # submitted at 10; the remote id is pushed at 15
    assert re.fullmatch(r"batch slurm \S+", h.ad("1.0").evaluate("GridJobId"))
    h.restart_gridmanager()
    h.run_until(2000)
    assert h.kinds("1.0") == ["grid_submit", "grid_submit", "execute", "terminated"]
    assert h.logic.resources["batch slurm"].site.counter == 1  # the site gave the same job


def test_a_qedit_reaches_the_gridmanagers_policy_at_once(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600))
    h.run_until(100)
    h.qedit("1.0", "PeriodicHold", "true")
    h.run_until(110)
    ad = h.ad("1.0")
    assert ad.evaluate("JobStatus") == 5 and ad.evaluate("HoldReasonCode") == 3
    assert h.kinds("1.0") == ["grid_submit", "execute", "held"]


def test_a_job_removed_as_it_was_adopted_is_forgotten_and_never_submitted(
        tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run_until(0)
    h.submit(grid_job(600))
    h.logic.adopt(h.queue.query("true", [], T0), h.now)  # the adoption query has answered,
    h.act("remove", "1.0")  # ... the user removes it before Managed = "External" is set
    assert not h.in_queue("1.0") and schedd_events(tmp_path, "1.0") == ["SUBMIT", "JOB_ABORTED"]
    h.run_until(600)
    assert h.logic.jobs == {} and h.events == []
    assert h.logic.resources["batch slurm"].site.jobs == {}
