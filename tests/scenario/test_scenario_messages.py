"""``[[expect]]`` with ``messages`` (our extension): how it is read, refused and checked.

The checks run against hand-built traces: the times a scenario author states (the first
update 8 s after execution began, then every 300 s) and what a failing line says instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.scenario import END, ExpectSpec, ScenarioError, parse_scenario
from condorsim.scenario._messages import MessageSelector
from condorsim.scenario.checks import check_expectation
from condorsim.scenario.message_checks import format_intervals
from condorsim.tools.replay import main as replay_main

T0 = 1_767_225_600
H = '[scenario]\nname = "n"\n[[expect]]\n'


def _expect(text: str) -> ExpectSpec:
    (spec,) = parse_scenario(H + text, source="scenario.toml").expects
    return spec


def test_a_messages_expectation_reads_every_field() -> None:
    spec = _expect('job = "1.0"\n'
                   'messages = { cmd = "REGISTER_JOB_INFO", from = "starter", to = "shadow", '
                   'attrs = ["ImageSize"] }\n'
                   'after = { cmd = "BEGIN_EXECUTION" }\nfirst = "8s"\nevery = "5m"\n'
                   'count = 24\nintervals = ["8s", 300]\n')
    assert spec.messages == MessageSelector(cmds=("REGISTER_JOB_INFO",), sender="starter",
                                            receiver="shadow", attrs=("ImageSize",))
    assert spec.after == MessageSelector(cmds=("BEGIN_EXECUTION",))
    assert (spec.job, spec.first, spec.every, spec.count, spec.intervals) == \
        ("1.0", 8, 300, 24, (8, 300))


def test_without_job_any_message_and_several_commands() -> None:
    spec = _expect('messages = { cmd = ["NEGOTIATE", "END_NEGOTIATE"], to = "schedd" }\n')
    assert spec.messages is not None and spec.job is None and spec.constraint is None
    assert spec.messages.cmds == ("NEGOTIATE", "END_NEGOTIATE")


ERRORS = [
    ('messages = { cmd = "STARTER_UPDAT" }\n',
     "line 4: [[expect]] #1 (at \"end\"): messages.cmd: unknown command 'STARTER_UPDAT' "
     "(did you mean 'STARTER_UPDATE'?)"),
    ('messages = { cmd = "REGISTER_JOB_INFO", from = "startr" }\n',
     "line 4: [[expect]] #1 (at \"end\"): messages.from: unknown daemon 'startr' "
     "(did you mean 'starter'?)"),
    ('messages = { cmd = "OK", form = "schedd" }\n',
     "line 4: [[expect]] #1 (at \"end\"): messages.form: unknown key 'form' "
     "(did you mean 'from'?)"),
    ('messages = "OK"\n',
     'line 4: [[expect]] #1 (at "end"): messages: expected a table (messages = { cmd = '
     '"REGISTER_JOB_INFO", from = "starter", to = "shadow" }), found a string'),
    ('messages = {}\n',
     'line 4: [[expect]] #1 (at "end"): messages: empty: give cmd, from, to or attrs'),
    ('messages = { cmd = [] }\n',
     'line 4: [[expect]] #1 (at "end"): messages.cmd: expected a name or an array of names, '
     'found an empty array'),
    ('messages = { cmd = "OK", attrs = ["1x"] }\n',
     "line 4: [[expect]] #1 (at \"end\"): messages.attrs: '1x' is not a ClassAd attribute name"),
    ('messages = { cmd = "OK", to = "startd@" }\n',
     "line 4: [[expect]] #1 (at \"end\"): messages.to: unknown daemon 'startd@' "
     "(did you mean 'startd'?)"),
    ('job = "1.0"\nevery = "300s"\n',
     'line 5: [[expect]] #1 (at "end"): every: only with messages (messages = { cmd = "..." })'),
    ('messages = { cmd = "OK" }\nthat = "true"\n',
     'line 5: [[expect]] #1 (at "end"): that: not used with messages (check count, first, '
     'every or intervals)'),
    ('messages = { cmd = "OK" }\nads = "Machine"\n',
     'line 5: [[expect]] #1 (at "end"): ads: give messages or ads, not both'),
    ('messages = { cmd = "OK" }\nevery = "5 min"\n',
     "line 5: [[expect]] #1 (at \"end\"): every: '5 min' is not a duration (expected \"90s\", "
     '"15m", "2h", "1h30m", "1d" or a number of seconds)'),
    ('messages = { cmd = "OK" }\nevery = "0s"\n',
     'line 5: [[expect]] #1 (at "end"): every: must be more than 0s'),
    ('messages = { cmd = "OK" }\nintervals = []\n',
     'line 5: [[expect]] #1 (at "end"): intervals: expected an array of durations '
     '(["8s", "300s"]), found an empty array'),
    ('messages = { cmd = "OK" }\nafter = { cmd = "NOPE" }\n',
     "line 5: [[expect]] #1 (at \"end\"): after.cmd: unknown command 'NOPE' "
     "(see docs/protocol.md for the commands)"),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_a_bad_field_is_refused_naming_file_line_entry_and_field(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(H + text, source="scenario.toml")
    assert str(caught.value) == "scenario.toml, " + message


def test_replay_refuses_it_before_any_daemon_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(H + 'messages = { cmd = "STARTER_UPDAT" }\n')
    keep = tmp_path / "run"
    assert replay_main([str(bad), "--keep", str(keep)]) == 2
    assert "messages.cmd: unknown command 'STARTER_UPDAT'" in capsys.readouterr().err
    assert not keep.exists()


# ---------------------------------------------------------------------------- checking
def rec(t: int, sender: str, receiver: str, cmd: str, job: str | None = None,
        attrs: tuple[str, ...] = ()) -> tuple[dict[str, Any], set[str]]:
    return ({"t": T0 + t, "from": sender, "to": receiver, "cmd": cmd, "job": job,
             "attrs": list(attrs)}, {job} if job else set())


def _starter_trace(gaps: list[int], job: str = "1.0") -> list[tuple[dict[str, Any], set[str]]]:
    trace = [rec(0, "replay", "schedd", "SUBMIT_JOBS"),
             rec(20, "starter@exec1", "shadow", "BEGIN_EXECUTION", job)]
    t = 20
    for gap in gaps:
        t += gap
        trace.append(rec(t, "starter@exec1", "shadow", "REGISTER_JOB_INFO", job,
                         ("ImageSize", "RemoteUserCpu")))
        trace.append(rec(t, "starter@exec1", "startd@exec1", "STARTER_UPDATE", job))
    return trace


class TraceView:
    """A PoolView with a trace and jobs (the replay's reads the run's trace.jsonl)."""

    def __init__(self, trace: list[tuple[dict[str, Any], set[str]]],
                 jobs: list[ClassAd] | None = None) -> None:
        self.trace, self.jobs = trace, jobs or []

    def job_ad(self, job_id: str) -> ClassAd | None:
        return None

    def all_job_ads(self) -> list[ClassAd]:
        return self.jobs

    def job_events(self, job_id: str) -> list[str]:
        return []

    def collector_ads(self, adtype: str) -> list[ClassAd]:
        return []

    def messages(self) -> list[tuple[dict[str, Any], set[str]]]:
        return self.trace


STARTER = ('job = "1.0"\nmessages = { cmd = "REGISTER_JOB_INFO", from = "starter", '
           'to = "shadow" }\nafter = { cmd = "BEGIN_EXECUTION" }\n')


def _line(text: str, view: TraceView) -> tuple[bool, str]:
    result = check_expectation(_expect(text), view, T0 + 9000, start=T0)
    return result.ok, result.line


def test_first_then_every_holds_for_the_starter_s_updates() -> None:
    view = TraceView(_starter_trace([8] + [300] * 23))
    assert _line(STARTER + 'first = "8s"\nevery = "300s"\ncount = 24\n', view) == (
        True, "job 1.0: REGISTER_JOB_INFO starter -> shadow after BEGIN_EXECUTION: "
              "24 messages, the first 8s after it, every 300s")
    assert _line(STARTER + 'intervals = ["8s", "300s", "300s"]\n',
                 TraceView(_starter_trace([8, 300, 300]))) == (
        True, "job 1.0: REGISTER_JOB_INFO starter -> shadow after BEGIN_EXECUTION: "
              "intervals 8s, 300s (x2)")


def test_a_changed_interval_fails_saying_what_was_found() -> None:
    view = TraceView(_starter_trace([8] + [240] * 29))
    assert _line(STARTER + 'first = "8s"\nevery = "300s"\ncount = 24\n', view) == (
        False, "job 1.0: REGISTER_JOB_INFO starter -> shadow after BEGIN_EXECUTION: "
               "expected 24 messages, every 300s; found 30 messages, the first 8s after "
               "it, then intervals 240s (x29)")
    assert _line(STARTER + 'intervals = ["8s", "300s"]\n', view)[1].endswith(
        "expected intervals 8s, 300s; found 30 messages, the first 8s after it, then "
        "intervals 240s (x29)")


def test_every_needs_two_messages_and_a_missing_origin_fails() -> None:
    assert _line(STARTER + 'every = "300s"\n', TraceView(_starter_trace([8]))) == (
        False, "job 1.0: REGISTER_JOB_INFO starter -> shadow after BEGIN_EXECUTION: "
               "expected every 300s; found 1 message, the first 8s after it")
    no_start = [r for r in _starter_trace([8, 300]) if r[0]["cmd"] != "BEGIN_EXECUTION"]
    assert _line(STARTER + 'count = 2\n', TraceView(no_start)) == (
        False, "job 1.0: REGISTER_JOB_INFO starter -> shadow after BEGIN_EXECUTION: "
               "no BEGIN_EXECUTION (the origin)")


def test_job_and_constraint_keep_that_job_s_messages() -> None:
    trace = _starter_trace([8, 300]) + _starter_trace([8, 300, 300], job="2.0")[1:]
    jobs = [ClassAd({"ClusterId": 1, "ProcId": 0, "Owner": "alice"}),
            ClassAd({"ClusterId": 2, "ProcId": 0, "Owner": "bob"})]
    view = TraceView(trace, jobs)
    msgs = 'messages = { cmd = "STARTER_UPDATE", to = "startd@exec1" }\n'
    assert _line('job = "2.0"\n' + msgs + 'count = 3\n', view)[0]
    assert _line('job = "2.0"\n' + msgs, view) == (
        True, "job 2.0: STARTER_UPDATE * -> startd@exec1: 3 messages, the first at 28s, "
              "then intervals 300s (x2)")
    assert _line('constraint = \'Owner == "alice"\'\n' + msgs + 'count = 2\n', view) == (
        True, 'jobs matching Owner == "alice": STARTER_UPDATE * -> startd@exec1: 2 messages')
    assert _line(msgs + 'count = 5\n', view)[0]
    assert _line(msgs + 'count = 0\nat = "10s"\n', TraceView([]))[0]
    assert _line(msgs, TraceView([])) == (
        False, "STARTER_UPDATE * -> startd@exec1: expected at least one message; "
               "found no message")


def test_a_selector_that_finds_nothing_says_where_those_commands_went() -> None:
    view = TraceView(_starter_trace([8, 300]))
    assert _line('job = "1.0"\nmessages = { cmd = "STARTER_UPDATE", from = "starter", '
                 'to = "shadow" }\n', view) == (
        False, "job 1.0: STARTER_UPDATE starter -> shadow: expected at least one message; "
               "found no message (sent instead: STARTER_UPDATE starter -> startd x2)")


def test_first_without_after_counts_from_the_scenario_start() -> None:
    trace = [rec(t, "negotiator", "collector", "QUERY_STARTD_ADS") for t in range(0, 601, 60)]
    text = ('messages = { cmd = "QUERY_STARTD_ADS", from = "negotiator" }\n'
            'first = "0s"\nevery = "60s"\ncount = 11\n')
    assert _line(text, TraceView(trace))[0]
    assert _line(text.replace('"0s"', '"60s"'), TraceView(trace)) == (
        False, "QUERY_STARTD_ADS negotiator -> *: expected the first 60s after the start; "
               "found 11 messages, the first at 0s, then intervals 60s (x10)")


def test_a_selector_matches_every_instance_of_a_daemon_or_one() -> None:
    record = {"t": 0, "from": "startd@exec1", "to": "collector", "cmd": "UPDATE_STARTD_AD",
              "attrs": ["Name", "State"]}
    assert MessageSelector(sender="startd").matches(record)
    assert MessageSelector(sender="startd@exec1", attrs=("state",)).matches(record)
    assert not MessageSelector(sender="startd@exec2").matches(record)
    assert not MessageSelector(sender="start").matches(record)
    assert not MessageSelector(attrs=("Memory",)).matches(record)
    assert not MessageSelector(cmds=("UPDATE_SCHEDD_AD",)).matches(record)


def test_format_intervals_sums_up_runs() -> None:
    assert format_intervals([8, 300, 300, 300, 292]) == "8s, 300s (x3), 292s"
    assert format_intervals([0.5]) == "0.5s"
    assert format_intervals([]) == "none"


def test_an_expectation_at_end_is_the_default() -> None:
    assert _expect('messages = { cmd = "OK" }\n').at == END


selector_values = st.one_of(
    st.sampled_from(["OK", "REGISTER_JOB_INFO", "starter", "startd@exec1", "@", "x@y", "",
                     "ImageSize", "1x"]),
    st.integers(), st.booleans(), st.floats(allow_nan=False),
    st.lists(st.sampled_from(["OK", "NEGOTIATE", "Name", "", "bad name"]), max_size=3),
    st.lists(st.integers(), max_size=2))
selectors = st.dictionaries(st.sampled_from(["cmd", "from", "to", "attrs", "job"]),
                            selector_values, max_size=4)
durations = st.one_of(st.sampled_from(["8s", "5m", "0s", "-1s", "x"]), st.integers(-5, 900),
                      st.lists(st.sampled_from(["8s", 300, "x", -1]), max_size=3))


@settings(deadline=None, max_examples=300)
@given(selectors, st.one_of(st.none(), selectors), st.dictionaries(
    st.sampled_from(["first", "every", "intervals", "count"]), durations, max_size=3))
def test_any_messages_expectation_loads_or_is_refused_with_a_scenario_error(
        messages: dict[str, Any], after: dict[str, Any] | None, checks: dict[str, Any]) -> None:
    doc = {"messages": messages, **({"after": after} if after is not None else {}), **checks}
    text = "".join(f"{key} = {_toml(value)}\n" for key, value in doc.items())
    try:
        spec = _expect(text)
    except ScenarioError as err:
        assert str(err).startswith("scenario.toml") and err.field
    else:
        assert spec.messages is not None
        view = TraceView(_starter_trace([8, 300]))
        assert check_expectation(spec, view, T0 + 900, start=T0).line


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return repr(value)
