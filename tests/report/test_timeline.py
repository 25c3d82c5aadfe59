"""The report's job stories from hand-made runs: user logs written by our EventLogWriter and
read back by our reader, daemon log records as the daemons write them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from condorsim.eventlog import EventLogWriter, read_events
from condorsim.report.series import (
    job_status_series,
    negotiation_cycles,
    read_startd_history,
    route_counts,
    slot_state_series,
)
from condorsim.report.stories import build_stories
from condorsim.report.timeline import JobStory, StartdRun, paint

T0 = 1_767_603_600  # 2026-01-05 09:00:00 UTC
END = T0 + 3600


def rec(t: int, daemon: str, event: str, **fields: object) -> dict[str, Any]:
    return {"daemon": daemon, "event": event, "sim_time": float(T0 + t),
            "wall_time": float(t), **fields}


def events_of(tmp_path: Path, write: Any) -> dict[str, list[Any]]:
    log = EventLogWriter(tmp_path / "u.log")
    write(log)
    by_job: dict[str, list[Any]] = {}
    for e in read_events(tmp_path / "u.log"):
        by_job.setdefault(f"{e.cluster}.{e.proc}", []).append(e)
    return by_job


def spans(story: JobStory) -> list[tuple[str, int, int]]:
    return [(s.state, int(s.start - T0), int(s.end - T0)) for s in story.spans]


def test_a_deferred_job_is_running_but_waiting_until_it_executes(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        log.submit(1, 0, T0, "<schedd>")
        log.execute(1, 0, T0 + 600, "<startd>", slot_name="slot1@exec2")
        log.terminated(1, 0, T0 + 660, return_value=0)
    logs = [rec(20, "schedd", "shadow_started", job="1.0"),
            rec(20, "starter", "job_deferred", job="1.0", seconds=580),
            rec(600, "starter", "job_started", job="1.0", runtime=60.0),
            rec(660, "schedd", "shadow_exited", job="1.0", code=100, outcome="completed")]
    story = build_stories(events_of(tmp_path, write), logs, {}, END)["1.0"]
    assert spans(story) == [("idle", 0, 20), ("waiting", 20, 600), ("running", 600, 660),
                            ("completed", 660, 3600)]
    [run] = story.runs
    assert (run.place, run.outcome, run.start, run.executing) == \
        ("slot1@exec2", "completed", T0 + 20, T0 + 600)
    assert [(m.kind, m.detail) for m in story.marks] == [("completed", "exit code 0")]


def test_without_a_user_log_the_daemons_logs_and_the_startd_history_tell_the_story() -> None:
    # job 2.0 takes the claim 1.0 left (no match of its own): only the startd knows the slot
    logs = [rec(0, "schedd", "submitted", cluster=1, procs=1, owner="alice"),
            rec(0, "schedd", "submitted", cluster=2, procs=1, owner="bob"),
            rec(20, "schedd", "match_received", job="1.0", slot="slot3@exec1"),
            rec(20, "schedd", "shadow_started", job="1.0"),
            rec(20, "starter", "job_started", job="1.0"),
            rec(320, "schedd", "shadow_exited", job="1.0", outcome="completed"),
            rec(320, "starter", "job_started", job="2.0"),  # logged first, the same second
            rec(320, "schedd", "shadow_started", job="2.0"),
            rec(400, "schedd", "shadow_exited", job="2.0", outcome="requeued"),
            rec(500, "schedd", "shadow_started", job="2.0"),
            rec(500, "starter", "job_started", job="2.0"),
            rec(900, "schedd", "shadow_exited", job="2.0", outcome="completed")]
    history = [StartdRun("2.0", "slot3@exec1", T0 + 320, T0 + 400),
               StartdRun("2.0", "slot1@exec2", T0 + 500, T0 + 900)]
    stories = build_stories({}, logs, {}, END, history)
    assert [(r.place, r.outcome) for r in stories["1.0"].runs] == [("slot3@exec1", "completed")]
    assert [(r.place, r.outcome) for r in stories["2.0"].runs] == [
        ("slot3@exec1", "evicted"), ("slot1@exec2", "completed")]
    assert stories["2.0"].owner == "bob"
    assert spans(stories["2.0"]) == [("idle", 0, 320), ("running", 320, 400),
                                     ("idle", 400, 500), ("running", 500, 900),
                                     ("completed", 900, 3600)]


def test_holds_of_idle_and_running_jobs_and_a_removal(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        log.submit(3, 0, T0, "<schedd>")
        log.held(3, 0, T0 + 100, "via condor_hold (by user condor)", code=1)
        log.released(3, 0, T0 + 200)
        log.execute(3, 0, T0 + 220, "<startd>", slot_name="slot1@exec1")
        log.held(3, 0, T0 + 400, "The job attribute PeriodicHold expression ...", code=3)
        log.aborted(3, 0, T0 + 700, "via condor_rm")
    logs = [rec(220, "schedd", "shadow_started", job="3.0"),
            rec(400, "schedd", "shadow_exited", job="3.0", outcome="held")]
    story = build_stories(events_of(tmp_path, write), logs, {}, END)["3.0"]
    assert spans(story) == [("idle", 0, 100), ("held", 100, 200), ("idle", 200, 220),
                            ("running", 220, 400), ("held", 400, 700), ("removed", 700, 3600)]
    assert [(m.kind, int(m.t - T0)) for m in story.marks] == [
        ("held", 100), ("released", 200), ("held", 400), ("removed", 700)]
    assert story.marks[2].detail.startswith("The job attribute PeriodicHold")
    assert story.runs[0].outcome == "held"


def test_a_requeue_on_exit_is_told_from_an_eviction(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        log.submit(4, 0, T0, "<schedd>")
        log.execute(4, 0, T0 + 20, "<startd>", slot_name="slot1@exec1")
        log.evicted(4, 0, T0 + 50, terminated_and_requeued=True, return_value=0,
                    reason="The job attribute OnExitRemove expression 'false' evaluated to FALSE")
        log.execute(4, 0, T0 + 600, "<startd>", slot_name="slot1@exec1")
        log.evicted(4, 0, T0 + 700)
    logs = [rec(20, "schedd", "shadow_started", job="4.0"),
            rec(50, "schedd", "shadow_exited", job="4.0", outcome="requeued"),
            rec(60, "schedd", "shadow_started", job="4.0"),
            rec(700, "schedd", "shadow_exited", job="4.0", outcome="requeued")]
    story = build_stories(events_of(tmp_path, write), logs, {}, END)["4.0"]
    assert [r.outcome for r in story.runs] == ["requeued", "evicted"]
    assert spans(story) == [("idle", 0, 20), ("running", 20, 50), ("idle", 50, 60),
                            ("waiting", 60, 600), ("running", 600, 700), ("idle", 700, 3600)]
    assert [m.kind for m in story.marks] == ["requeued", "evicted"]


def test_a_suspension_is_cut_out_of_the_run(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        log.submit(5, 0, T0, "<schedd>")
        log.execute(5, 0, T0 + 20, "<startd>", slot_name="slot1@exec1")
        log.suspended(5, 0, T0 + 100, 1)
        log.unsuspended(5, 0, T0 + 400)
        log.terminated(5, 0, T0 + 500, return_value=0)
    logs = [rec(20, "schedd", "shadow_started", job="5.0"),
            rec(500, "schedd", "shadow_exited", job="5.0", outcome="completed")]
    story = build_stories(events_of(tmp_path, write), logs, {}, END)["5.0"]
    assert [(s.state, int(s.start - T0), int(s.end - T0)) for s in story.runs[0].spans()] == [
        ("running", 20, 100), ("suspended", 100, 400), ("running", 400, 500)]


def test_a_grid_job_runs_on_its_site_row(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        log.submit(6, 0, T0, "<schedd>")
        log.grid_submit(6, 0, T0 + 8, "batch slurm", "batch slurm sandbox slurm/1")
        log.execute(6, 0, T0 + 68, "batch slurm")
        log.terminated(6, 0, T0 + 668, return_value=0)
    ads = {"6.0": {"JobUniverse": "9", "GridResource": '"batch slurm"', "Owner": '"alice"'}}
    story = build_stories(events_of(tmp_path, write), [], ads, END)["6.0"]
    [run] = story.runs
    assert (run.place, run.grid, run.outcome) == ("site: batch slurm", True, "completed")
    assert spans(story) == [("idle", 0, 8), ("site_queued", 8, 68), ("running", 68, 668),
                            ("completed", 668, 3600)]
    assert story.owner == "alice"


def test_a_local_universe_job_runs_at_the_schedd() -> None:
    logs = [rec(0, "schedd", "submitted", cluster=7, procs=1, owner="carol"),
            rec(0, "schedd", "local_job_started", job="7.0", universe=12),
            rec(600, "schedd", "local_job_executing", job="7.0", runtime=30.0),
            rec(630, "schedd", "local_job_exited", job="7.0", became="completed")]
    [run] = build_stories({}, logs, {}, END)["7.0"].runs
    assert (run.place, run.executing, run.outcome) == ("schedd: local universe", T0 + 600,
                                                       "completed")


def test_painting_keeps_the_strongest_state_and_merges_neighbours() -> None:
    painted = paint([("running", 10, 50), ("held", 30, 80), ("waiting", 0, 10),
                     ("running", 50, 60)], 0, 100)
    assert [(s.state, s.start, s.end) for s in painted] == [
        ("waiting", 0, 10), ("running", 10, 30), ("held", 30, 80), ("idle", 80, 100)]


def test_counts_over_time(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        for c in (1, 2):
            log.submit(c, 0, T0, "<schedd>")
        log.execute(1, 0, T0 + 20, "<startd>", slot_name="slot1@e")
        log.terminated(1, 0, T0 + 80, return_value=0)
        log.held(2, 0, T0 + 30, "via condor_hold")
    stories = build_stories(events_of(tmp_path, write), [
        rec(20, "schedd", "shadow_started", job="1.0"),
        rec(80, "schedd", "shadow_exited", job="1.0", outcome="completed")], {}, END)
    series = job_status_series(stories.values())
    assert [series.at(c, T0 + 25) for c in ("idle", "running", "held", "completed")] == \
        [1, 1, 0, 0]
    assert [series.at(c, T0 + 90) for c in ("idle", "running", "held", "completed")] == \
        [0, 0, 1, 1]
    slots, names = slot_state_series([
        rec(0, "startd", "slot_state_changed", slot="slot2@e", state="Unclaimed", activity="Idle"),
        rec(0, "startd", "slot_state_changed", slot="slot10@e", state="Unclaimed",
            activity="Idle"),
        rec(20, "startd", "slot_state_changed", slot="slot2@e", state="Claimed", activity="Idle"),
        rec(20, "startd", "slot_state_changed", slot="slot2@e", state="Claimed", activity="Busy")])
    assert names == ["slot2@e", "slot10@e"]
    assert (slots.at("Claimed/Busy", T0 + 20), slots.at("Unclaimed", T0 + 20),
            slots.at("Claimed/Idle", T0 + 20)) == (1, 1, 0)
    cycles = negotiation_cycles([
        rec(0, "negotiator", "cycle_started", cycle=1, slots=2, submitters=0),
        rec(0, "negotiator", "cycle_finished", cycle=1, matches=0),
        rec(60, "negotiator", "cycle_started", cycle=2, slots=2, submitters=1),
        rec(60, "negotiator", "cycle_finished", cycle=2, matches=2)])
    assert [(c.number, c.matches, int(c.t - T0)) for c in cycles] == [(1, 0, 0), (2, 2, 60)]


def test_routes_are_counted_from_the_routed_copies() -> None:
    ads = {"1.0": {"JobStatus": "2", "RoutedToJobId": '"2.0"'},
           "2.0": {"JobStatus": "2", "RouteName": '"Site1"', "RoutedFromJobId": '"1.0"'},
           "3.0": {"JobStatus": "4", "RouteName": '"Site1"'},
           "4.0": {"JobStatus": "1", "RouteName": '"Site2"'}}
    assert route_counts(ads) == (["Idle", "Running", "Completed"],
                                 [("Site1", {"Running": 1, "Completed": 1}),
                                  ("Site2", {"Idle": 1})])
    assert route_counts({"1.0": {"JobStatus": "1"}}) == ([], [])


def test_the_startd_history_names_each_run_s_slot(tmp_path: Path) -> None:
    path = tmp_path / "startd_history"
    path.write_text(
        'ClusterId = 3\nProcId = 0\nJobCurrentStartDate = 1767604230\nRemoteHost = "slot1@exec2"\n'
        '*** Offset = 0 ClusterId = 3 ProcId = 0 Owner = "bob" CompletionDate = 1767604830\n'
        'ClusterId = 3\nProcId = 1\n'
        '*** Offset = 90 ClusterId = 3 ProcId = 1 Owner = "bob" CompletionDate = 1767604900\n')
    assert read_startd_history(path) == [
        StartdRun("3.0", "slot1@exec2", 1767604230.0, 1767604830.0)]


def test_on_the_wall_clock_the_log_s_end_and_the_schedd_s_make_one_mark(tmp_path: Path) -> None:
    def write(log: EventLogWriter) -> None:
        log.submit(8, 0, T0, "<schedd>")
        log.execute(8, 0, T0 + 20, "<startd>", slot_name="slot1@exec1")
        log.terminated(8, 0, T0 + 80, return_value=0)
    logs = [rec(20, "schedd", "shadow_started", job="8.0"),
            {**rec(80, "schedd", "shadow_exited", job="8.0", outcome="completed"),
             "sim_time": T0 + 80.4}]  # the schedd's own clock, a fraction later
    story = build_stories(events_of(tmp_path, write), logs, {}, END)["8.0"]
    assert [(m.kind, m.t, m.detail) for m in story.marks] == [
        ("completed", T0 + 80.4, "exit code 0")]
