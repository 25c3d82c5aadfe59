"""Expectations checked against hand-built pool views: PASS and FAIL of each kind."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from condorsim.classad import ClassAd
from condorsim.scenario import END, ExpectSpec, Scenario, SubmitSpec
from condorsim.scenario.checks import (
    ExpectResult,
    check_expectation,
    check_submit_error,
    format_results,
    results_json,
)

NOW = 1767226500


def job(cluster: int, proc: int, **attrs: object) -> ClassAd:
    return ClassAd({"ClusterId": cluster, "ProcId": proc, "Owner": "alice", **attrs})


def slot(name: str, state: str) -> ClassAd:
    return ClassAd({"MyType": "Machine", "Name": name, "State": state})


@dataclass
class StubPool:
    """A PoolView over plain lists (the replay runner's is over the real pool)."""

    jobs: list[ClassAd] = field(default_factory=list)
    events: dict[str, list[str]] = field(default_factory=dict)
    ads: dict[str, list[ClassAd]] = field(default_factory=dict)

    def job_ad(self, job_id: str) -> ClassAd | None:
        for ad in self.jobs:
            if f"{ad.evaluate('ClusterId')}.{ad.evaluate('ProcId')}" == job_id:
                return ad
        return None

    def all_job_ads(self) -> list[ClassAd]:
        return list(self.jobs)

    def job_events(self, job_id: str) -> list[str]:
        return self.events.get(job_id, [])

    def collector_ads(self, adtype: str) -> list[ClassAd]:
        return self.ads.get(adtype, [])


def expect(**fields: object) -> ExpectSpec:
    return ExpectSpec(index=1, at=END, at_text="end", **fields)  # type: ignore[arg-type]


def check(view: StubPool, **fields: object) -> ExpectResult:
    return check_expectation(expect(**fields), view, NOW)


HELD = "JobStatus == 5 && HoldReasonCode == 20"


def test_job_that_pass() -> None:
    view = StubPool([job(1, 0, JobStatus=5, HoldReasonCode=20)])
    result = check(view, job="1.0", that=HELD)
    assert result == ExpectResult(True, f"job 1.0: {HELD}", "JobStatus = 5, HoldReasonCode = 20",
                                  entry="[[expect]] #1", at="end")


def test_job_that_fail_shows_the_values_it_refers_to() -> None:
    view = StubPool([job(1, 0, JobStatus=2)])
    result = check(view, job="1.0", that=HELD)
    assert not result.ok
    assert result.line == \
        f"job 1.0: {HELD} is false (JobStatus = 2, HoldReasonCode = undefined)"
    assert result.found == "JobStatus = 2, HoldReasonCode = undefined"


def test_that_must_be_true_not_just_defined() -> None:
    view = StubPool([job(1, 0, JobPrio=3)])
    assert check(view, job="1.0", that="JobPrio").line == "job 1.0: JobPrio is 3 (JobPrio = 3)"
    assert check(view, job="1.0", that="Missing == 1").line == \
        "job 1.0: Missing == 1 is undefined (Missing = undefined)"
    assert check(view, job="1.0", that="MY.JobPrio + 1 == 4 && TARGET.X =?= undefined").ok


def test_that_sees_the_simulated_time() -> None:
    view = StubPool([job(1, 0, QDate=NOW - 100)])
    assert check(view, job="1.0", that="time() - QDate == 100").ok
    assert not check_expectation(expect(job="1.0", that="time() - QDate == 100"), view,
                                 NOW + 1).ok


def test_a_job_that_does_not_exist() -> None:
    result = check(StubPool(), job="3.0", that="true")
    assert not result.ok
    assert result.line == "job 3.0: no such job (neither in the queue nor in the history)"
    assert result.found == "no such job"


def test_events_in_order_with_others_between() -> None:
    view = StubPool([job(1, 0)], {"1.0": ["SUBMIT", "EXECUTE", "IMAGE_SIZE", "JOB_HELD"]})
    result = check(view, job="1.0", events=("SUBMIT", "EXECUTE", "JOB_HELD"))
    assert result.ok
    assert result.line == "job 1.0: events SUBMIT, EXECUTE, JOB_HELD in order"


def test_events_fail() -> None:
    view = StubPool([job(1, 0)], {"1.0": ["SUBMIT", "EXECUTE", "JOB_TERMINATED"]})
    result = check(view, job="1.0", events=("SUBMIT", "EXECUTE", "JOB_HELD"))
    assert not result.ok
    assert result.line == ("job 1.0: events: expected SUBMIT, EXECUTE, JOB_HELD in order; "
                           "found SUBMIT, EXECUTE, JOB_TERMINATED")
    assert result.found == "events SUBMIT, EXECUTE, JOB_TERMINATED"


def test_events_out_of_order_fail() -> None:
    view = StubPool([job(1, 0)], {"1.0": ["SUBMIT", "JOB_HELD", "EXECUTE"]})
    assert not check(view, job="1.0", events=("SUBMIT", "EXECUTE", "JOB_HELD")).ok
    assert not check(view, job="1.0", events=("SUBMIT", "SUBMIT")).ok


def test_that_and_events_together() -> None:
    view = StubPool([job(1, 0, JobStatus=4)], {"1.0": ["SUBMIT"]})
    result = check(view, job="1.0", that="JobStatus == 4", events=("SUBMIT", "JOB_TERMINATED"))
    assert not result.ok
    assert result.line == ("job 1.0: JobStatus == 4; events: expected SUBMIT, JOB_TERMINATED "
                           "in order; found SUBMIT")


def test_constraint_count_pass_and_fail() -> None:
    view = StubPool([job(1, 0), job(1, 2), job(2, 0, Owner="bob"), job(1, 1, Owner="carol")])
    result = check(view, constraint='Owner == "alice"', count=2)
    assert result.ok
    assert result.line == '2 jobs matching Owner == "alice" (1.0, 1.2)'
    result = check(view, constraint='Owner == "alice"', count=3)
    assert not result.ok
    assert result.line == 'expected 3 jobs matching Owner == "alice", found 2 (1.0, 1.2)'
    assert result.found == "jobs 1.0, 1.2"
    assert check(view, constraint='Owner == "dave"', count=0).ok


def test_constraint_that_holds_for_each_matching_job() -> None:
    view = StubPool([job(1, 0, JobStatus=4), job(1, 1, JobStatus=2), job(1, 2, JobStatus=4)])
    result = check(view, constraint="ClusterId == 1", count=3, that="JobStatus == 4")
    assert not result.ok
    assert result.line == ("3 jobs matching ClusterId == 1 (1.0, 1.1, 1.2); jobs matching "
                           "ClusterId == 1: JobStatus == 4 is not true for 1.1 (JobStatus = 2)")
    view.jobs[1]["JobStatus"] = 4
    result = check(view, constraint="ClusterId == 1", that="JobStatus == 4")
    assert result.ok
    assert result.line == "jobs matching ClusterId == 1: JobStatus == 4 (all 3)"


def test_constraint_without_count_needs_a_match() -> None:
    result = check(StubPool([job(1, 0)]), constraint="ClusterId == 7", that="true")
    assert not result.ok
    assert result.line == "no job matches ClusterId == 7"


def test_constraint_events_for_each_job() -> None:
    view = StubPool([job(1, 0), job(1, 1)],
                    {"1.0": ["SUBMIT", "EXECUTE"], "1.1": ["SUBMIT"]})
    result = check(view, constraint="ClusterId == 1", events=("SUBMIT", "EXECUTE"))
    assert not result.ok
    assert result.line == ("jobs matching ClusterId == 1: events: expected SUBMIT, EXECUTE in "
                           "order; not in 1.1 (found SUBMIT)")
    view.events["1.1"].append("EXECUTE")
    assert check(view, constraint="ClusterId == 1", events=("SUBMIT", "EXECUTE")).ok


def test_many_ids_are_shortened() -> None:
    view = StubPool([job(1, p) for p in range(12)])
    result = check(view, constraint="true", count=11)
    assert result.line == ("expected 11 jobs matching true, found 12 (1.0, 1.1, 1.2, 1.3, 1.4, "
                           "1.5, 1.6, 1.7, 1.8, 1.9, ... (12 in all))")


def test_collector_ads_count() -> None:
    view = StubPool(ads={"Machine": [slot("slot2@exec1", "Claimed"),
                                     slot("slot1@exec1", "Claimed"),
                                     slot("slot1@exec2", "Unclaimed")]})
    result = check(view, ads="Machine", where='State == "Claimed"', count=2)
    assert result.ok
    assert result.line == '2 Machine ads where State == "Claimed" (slot1@exec1, slot2@exec1)'
    result = check(view, ads="Machine", where='State == "Claimed"', count=4)
    assert not result.ok
    assert result.line == ('expected 4 Machine ads where State == "Claimed", found 2 '
                           "(slot1@exec1, slot2@exec1)")
    assert check(view, ads="Machine", count=3).ok
    assert not check(view, ads="Scheduler", count=1).ok


def test_collector_ads_that() -> None:
    view = StubPool(ads={"Machine": [slot("slot1@exec1", "Claimed"),
                                     slot("slot1@exec2", "Unclaimed")]})
    result = check(view, ads="Machine", that='State == "Claimed"')
    assert not result.ok
    assert result.line == ('Machine ads: State == "Claimed" is not true for slot1@exec2 '
                           '(State = "Unclaimed")')
    assert not check(StubPool(), ads="Machine", that="true").ok


def test_submit_errors() -> None:
    wanted = SubmitSpec(index=2, at=0, at_text="0s", text="", expect_error="scheduler universe")
    result = check_submit_error(wanted, "ERROR: the Scheduler Universe is not allowed")
    assert result.ok
    assert result.line == 'submit: refused with "ERROR: the Scheduler Universe is not allowed"'
    assert result.entry == "[[submit]] #2"
    result = check_submit_error(wanted, None)
    assert not result.ok
    assert result.line == 'submit: expected it refused with "scheduler universe"; it was accepted'
    result = check_submit_error(wanted, "no executable")
    assert result.line == ('submit: expected it refused with "scheduler universe"; it was '
                           'refused with "no executable"')
    plain = SubmitSpec(index=1, at=0, at_text="0s", text="")
    assert check_submit_error(plain, None).ok
    assert not check_submit_error(plain, "no executable").ok


def test_format_results() -> None:
    view = StubPool([job(1, 0, JobStatus=2)])
    ok = check_expectation(ExpectSpec(index=1, at=NOW, at_text="15m", job="1.0",
                                      that="JobStatus == 2", description="not shown"),
                           view, NOW)
    bad = check_expectation(ExpectSpec(index=2, at=END, at_text="end", job="1.0",
                                       that="JobStatus == 4", description="it completes"),
                            view, NOW)
    assert format_results([ok, bad]) == (
        "PASS at 15m: job 1.0: JobStatus == 2\n"
        "FAIL at end: it completes: job 1.0: JobStatus == 4 is false (JobStatus = 2)\n"
        "1 passed, 1 failed\n"
    )
    assert format_results([]) == "0 passed, 0 failed\n"


def test_results_json() -> None:
    scenario = Scenario(name="s", start=0, source="s.toml")
    view = StubPool([job(2, 0, JobStatus=4), job(1, 0, JobStatus=2, Cmd="/bin/sleep")])
    result = check(view, job="1.0", that="JobStatus == 4")
    data = results_json(scenario, [result], view.jobs)
    assert json.loads(json.dumps(data)) == data
    assert data == {
        "scenario": "s", "file": "s.toml", "ok": False, "passed": 0, "failed": 1,
        "results": [{"entry": "[[expect]] #1", "at": "end", "description": "", "ok": False,
                     "line": "job 1.0: JobStatus == 4 is false (JobStatus = 2)",
                     "found": "JobStatus = 2"}],
        "jobs": {
            "1.0": {"ClusterId": "1", "ProcId": "0", "Owner": '"alice"', "JobStatus": "2",
                    "Cmd": '"/bin/sleep"'},
            "2.0": {"ClusterId": "2", "ProcId": "0", "Owner": '"alice"', "JobStatus": "4"},
        },
    }
    assert list(data["jobs"]) == ["1.0", "2.0"]
