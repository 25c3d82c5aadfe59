"""A simulated site: slots and its queue, start delay, run time, failures, outages, its state."""

from __future__ import annotations

import json

from condorsim.classad import ClassAd
from daemons.gridmanager.site import COMPLETED, IDLE, REMOVED, RUNNING, Site, SiteSpec

T0 = 1_767_225_600


def _ad(runtime: int | None = None, exit_code: int | None = None, **extra: str) -> ClassAd:
    ad = ClassAd({"Cmd": "/bin/sleep", "Args": "600"})
    if runtime is not None:
        ad["SimRuntime"] = runtime
    if exit_code is not None:
        ad["SimExitCode"] = exit_code
    for name, text in extra.items():
        ad[name] = text
    return ad


def _site(slots: int = 1, delay: float = 0, rate: float = 0.0, seed: int = 1) -> Site:
    return Site(SiteSpec("batch slurm", slots, delay, rate), seed=seed, default_runtime=600)


def test_a_site_runs_its_slots_at_once_and_queues_the_rest_first_come_first_served() -> None:
    site = _site(slots=2, delay=30)
    jobs = [site.submit(f"1.{i}", f"sb{i}", _ad(100), "slurm", T0 + i) for i in range(3)]
    assert [j.remote_id for j in jobs] == ["slurm/20260101/1", "slurm/20260101/2",
                                           "slurm/20260101/3"]
    site.advance(T0 + 31)
    assert [j.state for j in jobs] == [RUNNING, RUNNING, IDLE]  # the first in its delay at 30
    assert jobs[0].started == T0 + 30 and jobs[1].started == T0 + 31
    site.advance(T0 + 130)
    assert jobs[0].state == COMPLETED and jobs[0].finished == T0 + 130
    assert jobs[2].slot and jobs[2].state == IDLE  # its slot, then its start delay
    site.advance(T0 + 1000)
    assert jobs[2].started == T0 + 160 and jobs[2].finished == T0 + 260
    assert site.next_due() is None


def test_run_time_and_exit_code_follow_the_starters_rules() -> None:
    site = _site(slots=3)
    by_attr = site.submit("1.0", "a", _ad(42, exit_code=3), "slurm", T0)
    by_sleep = site.submit("1.1", "b", _ad(), "slurm", T0)
    default = site.submit("1.2", "c", ClassAd({"Cmd": "/bin/true"}), "slurm", T0)
    site.advance(T0 + 10_000)
    assert (by_attr.runtime, by_attr.exit_code) == (42, 3)
    assert (by_sleep.runtime, by_sleep.exit_code) == (600, 0)
    assert default.runtime == 600  # SIM_DEFAULT_RUNTIME


def test_failures_come_from_the_seed_and_fail_with_exit_code_1() -> None:
    def failed(seed: int) -> list[bool]:
        site = _site(slots=100, rate=0.5, seed=seed)
        jobs = [site.submit(f"1.{i}", f"s{i}", _ad(10), "slurm", T0) for i in range(40)]
        site.advance(T0 + 100)
        assert all(j.exit_code == (1 if j.fails else 0) for j in jobs)
        return [j.fails for j in jobs]

    assert failed(7) == failed(7)
    assert failed(7) != failed(8)
    assert 10 < sum(failed(7)) < 30
    never = _site(rate=0.0)
    always = _site(rate=1.0)
    assert not never.submit("1.0", "x", _ad(1), "slurm", T0).fails
    assert always.submit("1.0", "x", _ad(1), "slurm", T0).fails


def test_while_down_nothing_progresses_and_nothing_starts() -> None:
    site = _site(slots=1, delay=10)
    first = site.submit("1.0", "a", _ad(100), "slurm", T0)
    second = site.submit("1.1", "b", _ad(100), "slurm", T0)
    site.down(T0 + 60)  # first ran 50 of its 100 s
    assert site.next_due() is None
    site.advance(T0 + 10_000)
    assert first.state == RUNNING and second.state == IDLE
    site.up(T0 + 500)
    site.advance(T0 + 10_000)
    assert first.finished == T0 + 550
    assert second.started == T0 + 560 and second.finished == T0 + 660


def test_an_outage_during_the_start_delay_keeps_what_was_left_of_it() -> None:
    site = _site(slots=1, delay=30)
    job = site.submit("1.0", "a", _ad(10), "slurm", T0)
    site.down(T0 + 20)
    site.up(T0 + 100)
    site.advance(T0 + 200)
    assert job.started == T0 + 110


def test_cancel_frees_the_slot_and_a_resubmission_gets_the_job_it_has() -> None:
    site = _site(slots=1)
    job = site.submit("1.0", "a", _ad(100), "slurm", T0)
    assert site.submit("1.0", "a", _ad(100), "slurm", T0 + 5) is job  # the same sandbox
    waiting = site.submit("1.1", "b", _ad(100), "slurm", T0)
    site.cancel(job.remote_id, T0 + 20)
    assert job.state == REMOVED
    site.advance(T0 + 20)
    assert waiting.state == RUNNING and waiting.started == T0 + 20
    again = site.submit("1.0", "a", _ad(100), "slurm", T0 + 30)
    assert again is not job and again.remote_id.endswith("/3")
    site.forget_sandbox("a")
    assert again.remote_id in site.jobs and job.remote_id not in site.jobs


def test_catching_up_at_once_plays_the_same_steps_as_living_through_them() -> None:
    def run(steps: list[int]) -> list[tuple[float | None, float | None]]:
        site = _site(slots=2, delay=7)
        jobs = [site.submit(f"1.{i}", f"s{i}", _ad(50 + i), "slurm", T0) for i in range(5)]
        for t in steps:
            site.advance(T0 + t)
        return [(j.started, j.finished) for j in jobs]

    assert run(list(range(0, 400))) == run([400])


def test_the_state_survives_json() -> None:
    site = _site(slots=1, delay=5)
    site.submit("1.0", "a", _ad(100), "slurm", T0)
    site.submit("1.1", "b", _ad(100), "slurm", T0)
    site.down(T0 + 50)
    copy = _site(slots=1, delay=5)
    copy.load_json(json.loads(json.dumps(site.to_json())))
    for s in (site, copy):
        s.up(T0 + 80)
        s.advance(T0 + 1000)
    assert [(j.started, j.finished) for j in copy.jobs.values()] == \
        [(j.started, j.finished) for j in site.jobs.values()]
    assert copy.counter == 2
