"""The report of a real run of the tour: the replay keeps result.json, and the report's
data -- each job's runs, states and slots -- is what the tour did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condorsim.replay.progress import sim_datetime
from condorsim.report.rundata import load_run
from condorsim.report.series import read_startd_history
from condorsim.report.stories import build_stories

pytestmark = pytest.mark.pool


def _hms(t: float) -> str:
    return sim_datetime(t, "UTC")[11:]


def test_the_kept_run_has_a_result_file_with_when_and_why_it_stopped(tour_run: Path) -> None:
    result = json.loads((tour_run / "result.json").read_text())
    assert (result["passed"], result["failed"]) == (6, 0)
    run = result["run"]
    assert run["start"] == 1767603600 and run["end"] == 1767603600 + 45 * 60
    assert run["until"] == 45 * 60 and not run["stopped_at_max"]
    assert run["jobs_left"] == ["3.0 (Running)"]  # the cron job stays in the queue
    assert set(result["jobs"]) == {"1.0", "2.0", "3.0"}


def test_each_job_s_runs_states_and_slots(tour_run: Path) -> None:
    data = load_run(tour_run)
    assert data.problems == []
    stories = build_stories(data.events, data.logs, data.ads, data.end,
                            read_startd_history(tour_run / "spool" / "startd_history"))
    plain, deferred, cron = stories["1.0"], stories["2.0"], stories["3.0"]
    assert [(s.state, _hms(s.start), _hms(s.end)) for s in plain.spans] == [
        ("idle", "09:00:00", "09:00:20"), ("running", "09:00:20", "09:05:20"),
        ("completed", "09:05:20", "09:45:00")]
    # job 2.0 takes the claim 1.0 leaves at 09:05:20 and waits for its DeferralTime, 09:15
    assert [(s.state, _hms(s.start), _hms(s.end)) for s in deferred.spans] == [
        ("idle", "09:00:00", "09:05:20"), ("waiting", "09:05:20", "09:15:00"),
        ("running", "09:15:00", "09:16:00"), ("completed", "09:16:00", "09:45:00")]
    assert [(r.place, r.outcome) for r in deferred.runs] == [("slot1@exec1", "completed")]
    # the cron job: four runs requeued on exit, each waiting for its next CronMinute, and
    # a fifth stopped with the pool at the end. At 09:20:30 its claim on exec2 is past
    # CLAIM_WORKLIFE and goes; the job waits for a new match until the schedd's next
    # regular collector update (09:25:05: every SCHEDD_INTERVAL from 09:00:05, the submits'
    # reschedule) says bob has an idle job, and the cycle after it (09:25:20) matches it
    assert [(r.place, _hms(r.start), _hms(r.executing or 0), r.outcome) for r in cron.runs] == [
        ("slot1@exec2", "09:00:20", "09:10:00", "requeued"),
        ("slot1@exec2", "09:10:30", "09:20:00", "requeued"),
        ("slot1@exec1", "09:25:20", "09:30:00", "requeued"),
        ("slot1@exec1", "09:30:30", "09:40:00", "requeued"),
        ("slot1@exec1", "09:40:30", "00:00:00", "")]  # still waiting on its slot at the end
    assert cron.owner == "bob" and cron.final == "waiting"


def test_the_page_names_every_job_and_carries_their_flows(tour_run: Path) -> None:
    html = (tour_run / "report.html").read_text()
    for job in ("1.0", "2.0", "3.0"):
        assert f'<td class="mono"><b>{job}</b></td>' in html
    assert "tour: plain, deferred and cron jobs" in html
    assert "PERMISSION_AND_AD" in html and "BEGIN_EXECUTION" in html  # the flows' arrows
    assert "slot1@exec1" in html and "Running, not yet executing" in html
    # nothing to fetch: no script, style or image is loaded from anywhere
    assert ' src="http' not in html and ' href="http' not in html and "url(http" not in html
