"""job_queue.log: HTCondor's transaction log as the schedd writes it and the router follows it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from condorsim.jobqueue import (
    DeleteAttr,
    DestroyAd,
    FollowKind,
    JobQueueLog,
    JobQueueLogError,
    JobQueueLogFollower,
    NewAd,
    Op,
    QueueAd,
    QueueState,
    SetAttr,
    cluster_key,
    format_record,
    job_attrs,
    parse_key,
    parse_record,
    proc_key,
    replay_file,
    should_compact,
)

T0 = 1_700_000_000

# The example of htcondor-facts.md section 6, built from HTCondor's writer code
# (105 and 106 are followed by a space, added below to keep the source free of it).
_FACTS_EXAMPLE = """\
107 1 CreationTimestamp 1700000000
105
103 0.0 NextClusterNum 2
101 01.-1 Job Machine
103 01.-1 ClusterId 1
103 01.-1 Owner "alice"
103 01.-1 Cmd "/bin/sleep"
101 1.0 Job Machine
103 1.0 ProcId 0
103 1.0 JobStatus 1
106
105
103 1.0 JobStatus 2
103 1.0 EnteredCurrentStatus 1700000100
103 1.0 LastJobStatus 1
106
"""
FACTS_EXAMPLE = "".join(
    line + (" \n" if line in ("105", "106") else "\n") for line in _FACTS_EXAMPLE.splitlines()
)


def submit_ops(cluster: int, procs: int = 1) -> list[Op]:
    """The ops of a small submit: a cluster ad and its proc ads."""
    ck = cluster_key(cluster)
    ops: list[Op] = [
        NewAd(ck),
        SetAttr(ck, "ClusterId", str(cluster)),
        SetAttr(ck, "Owner", '"alice"'),
        SetAttr(ck, "Cmd", '"/bin/sleep"'),
    ]
    for proc in range(procs):
        pk = proc_key(cluster, proc)
        ops += [NewAd(pk), SetAttr(pk, "ProcId", str(proc)), SetAttr(pk, "JobStatus", "1")]
    return ops


def open_log(path: Path, now: int = T0, **kwargs: object) -> JobQueueLog:
    log = JobQueueLog(path, **kwargs)  # type: ignore[arg-type]
    log.open(now)
    return log


# --------------------------------------------------------------------------- keys


def test_keys_follow_htcondor_spelling() -> None:
    assert cluster_key(21) == "021.-1"
    assert proc_key(21, 3) == "21.3"
    assert parse_key("021.-1") == (21, -1)
    assert parse_key("21.3") == (21, 3)
    assert parse_key("0.0") == (0, 0)
    with pytest.raises(JobQueueLogError, match="not a job queue key"):
        parse_key("job7")


@pytest.mark.parametrize(
    ("line", "record"),
    [
        ("101 01.-1 Job Machine", NewAd("01.-1", "Job", "Machine")),
        ("101 0.0 (empty) (empty)", NewAd("0.0", "", "")),
        ("102 1.0", DestroyAd("1.0")),
        ('103 1.0 Owner "alice smith"', SetAttr("1.0", "Owner", '"alice smith"')),
        ("103 1.0 Requirements  (a == b)", SetAttr("1.0", "Requirements", " (a == b)")),
        ("104 1.0 HoldReason", DeleteAttr("1.0", "HoldReason")),
    ],
)
def test_records_read_and_write_the_same_line(line: str, record: Op) -> None:
    assert parse_record(line) == record
    assert format_record(record) == line + "\n"


def test_transaction_markers_are_op_and_space() -> None:
    assert FACTS_EXAMPLE.splitlines()[1] == "105 "
    assert parse_record("106 #a comment") == parse_record("106 ")


# ------------------------------------------------------------------ write / replay


def test_the_facts_example_replays_to_the_expected_queue(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    path.write_text(FACTS_EXAMPLE)
    # The example has no 101 for the header ad: HTCondor ignores that 103 too.
    result = replay_file(path, now=0)
    assert result.state.sequence_number == 1
    assert result.state.creation_timestamp == T0
    assert "0.0" not in result.state
    assert dict(result.state["1.0"]) == {
        "ProcId": "0",
        "JobStatus": "2",
        "EnteredCurrentStatus": "1700000100",
        "LastJobStatus": "1",
    }
    assert result.warnings == [f"{path}: line 3: SetAttr NextClusterNum in missing ad 0.0"]


def test_a_new_log_starts_with_its_creation_record(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path, now=T0 + 5)
    log.close()
    assert path.read_text() == f"107 1 CreationTimestamp {T0 + 5}\n"


def test_commit_appends_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    log.commit([SetAttr("1.0", "JobStatus", "2"), SetAttr("1.0", "LastJobStatus", "1")])
    log.close()
    lines = path.read_text().splitlines()
    assert lines[-4:] == ["105 ", "103 1.0 JobStatus 2", "103 1.0 LastJobStatus 1", "106 "]
    assert lines[1] == "105 "
    assert lines.count("105 ") == lines.count("106 ") == 2


def test_replay_after_restart_gives_the_committed_queue(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1, procs=2))
    log.commit(submit_ops(2))
    log.commit([SetAttr("1.1", "JobStatus", "5"), DeleteAttr("1.0", "JobStatus")])
    log.commit([DestroyAd("2.0"), DestroyAd(cluster_key(2))])
    expected = log.state.copy()
    log.close()

    again = JobQueueLog(path)
    state = again.open(T0 + 999)
    assert state.ads == expected.ads
    assert state.creation_timestamp == T0  # kept from the first log, not the restart time
    assert list(state) == ["01.-1", "1.0", "1.1"]
    assert state["1.1"]["JobStatus"] == "5"
    assert "JobStatus" not in state["1.0"]


def test_attribute_names_are_case_insensitive_and_keep_their_spelling(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    log.commit([SetAttr("1.0", "JOBSTATUS", "2")])
    ad = log.state["1.0"]
    assert ad["jobstatus"] == "2"
    assert list(ad) == ["ProcId", "JobStatus"]
    log.close()
    assert JobQueueLog(path).open(T0)["1.0"] == ad


def test_restart_rewrites_a_log_that_holds_transactions(tmp_path: Path) -> None:
    # HTCondor's ClassAdLog rotates a log that was not shut down cleanly.
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    log.close()
    again = JobQueueLog(path)
    state = again.open(T0)
    again.close()
    text = path.read_text()
    assert text.splitlines()[0] == f"107 2 CreationTimestamp {T0}"
    assert "105 " not in text.splitlines()
    assert state.sequence_number == 2


def test_refused_ops_write_nothing(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    size = path.stat().st_size
    with pytest.raises(JobQueueLogError, match="newline"):
        log.commit([SetAttr("1.0", "Args", '"a\nb"')])
    with pytest.raises(JobQueueLogError, match="does not exist"):
        log.commit([SetAttr("1.0", "JobStatus", "2"), SetAttr("7.0", "JobStatus", "2")])
    with pytest.raises(JobQueueLogError, match="it exists"):
        log.commit([NewAd("1.0")])
    with pytest.raises(JobQueueLogError, match="without spaces"):
        log.commit([SetAttr("1.0", "Job Status", "2")])
    with pytest.raises(JobQueueLogError, match="empty"):
        log.commit([SetAttr("1.0", "JobStatus", "  ")])
    assert path.stat().st_size == size
    assert log.state["1.0"]["JobStatus"] == "1"
    # An ad destroyed and created again in one transaction is fine.
    log.commit([DestroyAd("1.0"), NewAd("1.0"), SetAttr("1.0", "ProcId", "0")])
    assert dict(log.state["1.0"]) == {"ProcId": "0"}


# ----------------------------------------------------------------- damaged logs


def _two_transaction_log(path: Path) -> tuple[QueueState, int]:
    """A log, the state before its last transaction, and where that transaction starts."""
    log = open_log(path)
    log.commit(submit_ops(1))
    before = log.state.copy()
    start = path.stat().st_size
    log.commit([SetAttr("1.0", "JobStatus", "2"), NewAd("1.1"), SetAttr("1.1", "ProcId", "1")])
    log.close()
    return before, start


def test_a_torn_last_transaction_is_discarded_at_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    before, start = _two_transaction_log(path)
    data = path.read_bytes()
    for cut in range(start, len(data)):
        path.write_bytes(data[:cut])
        result = replay_file(path, now=0)
        assert result.state.ads == before.ads, f"cut at byte {cut}"
        assert result.torn == (cut > start), f"cut at byte {cut}"
    path.write_bytes(data)
    assert replay_file(path, now=0).state["1.0"]["JobStatus"] == "2"


def test_open_repairs_a_torn_log_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    before, start = _two_transaction_log(path)
    data = path.read_bytes()
    path.write_bytes(data[: start + 9])  # "105 \n103 " : a partial line
    log = JobQueueLog(path)
    assert log.open(T0).ads == before.ads
    assert any("incomplete" in warning for warning in log.warnings)
    log.commit([SetAttr("1.0", "JobStatus", "5")])
    log.close()
    assert JobQueueLog(path).open(T0)["1.0"]["JobStatus"] == "5"


def test_a_transaction_without_its_end_is_discarded(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    path.write_text(
        FACTS_EXAMPLE.replace("103 0.0 NextClusterNum 2\n", "")
        + "105 \n103 1.0 JobStatus 5\n103 1.0 HoldReasonCode 1\n"
    )
    result = replay_file(path, now=0)
    assert result.state["1.0"]["JobStatus"] == "2"
    assert "HoldReasonCode" not in result.state["1.0"]
    assert result.torn
    assert result.warnings == [f"{path}: the last transaction has no 106; ignoring it"]


def test_a_corrupt_record_inside_a_committed_transaction_is_fatal(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    path.write_text(FACTS_EXAMPLE.replace("103 1.0 ProcId 0", "103 1.0 ProcId"))
    with pytest.raises(JobQueueLogError) as info:
        replay_file(path, now=0)
    message = str(info.value)
    assert str(path) in message
    assert "line 9" in message
    assert "has no value" in message
    with pytest.raises(JobQueueLogError, match="line 9"):
        JobQueueLog(path).open(T0)


def test_a_corrupt_record_after_the_last_commit_ends_the_log(tmp_path: Path) -> None:
    # HTCondor: a bad record not followed by any 106 is an unfinished write; it and
    # everything after it are ignored.
    path = tmp_path / "job_queue.log"
    path.write_text(FACTS_EXAMPLE + "105 \n999 garbage\n103 1.0 JobStatus 4\n")
    result = replay_file(path, now=0)
    assert result.state["1.0"]["JobStatus"] == "2"
    assert result.torn
    assert f"{path}: line 18: corrupt record (unknown op code '999')" in result.warnings[1]


def test_records_outside_transactions_apply_at_once(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    path.write_text(
        "107 3 CreationTimestamp 5\n101 0.0 (empty) (empty)\n103 0.0 NextClusterNum 7\n"
    )
    result = replay_file(path, now=0)
    assert result.clean
    assert result.state.sequence_number == 3
    assert result.state["0.0"] == QueueAd("", "", {"NextClusterNum": "7"})


# ------------------------------------------------------------------- compaction


def test_compaction_keeps_the_queue_and_starts_with_107(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path, max_historical_logs=1)
    log.commit(submit_ops(1, procs=2))
    for status in ("2", "1", "2", "4"):
        log.commit([SetAttr("1.0", "JobStatus", status)])
    log.commit([DestroyAd("1.1")])
    expected = log.state.copy()
    old_text = path.read_text()
    log.compact()
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0] == f"107 2 CreationTimestamp {T0}"
    assert "105 " not in lines and "106 " not in lines
    assert lines[1:4] == [
        "101 01.-1 Job Machine",
        "103 01.-1 ClusterId 1",
        '103 01.-1 Owner "alice"',
    ]
    assert len(text) < len(old_text)
    assert log.size == log.compacted_size == len(text)
    assert log.state.ads == expected.ads
    assert (tmp_path / "job_queue.log.1").read_text() == old_text
    log.commit([SetAttr("1.0", "JobStatus", "3")])
    log.compact()
    assert not (tmp_path / "job_queue.log.1").exists()  # only one historical log is kept
    assert (tmp_path / "job_queue.log.2").exists()
    log.close()
    state = JobQueueLog(path).open(T0 + 50)
    assert state.ads["1.0"]["JobStatus"] == "3"
    assert not (tmp_path / "job_queue.log.tmp").exists()


def test_should_compact_rule() -> None:
    assert not should_compact(500, 100, min_bytes=1000, growth=4)
    assert not should_compact(3999, 1000, min_bytes=1000, growth=4)
    assert should_compact(4000, 1000, min_bytes=1000, growth=4)
    assert should_compact(1000, 0, min_bytes=1000, growth=4)


def test_log_tracks_its_growth_for_compaction(tmp_path: Path) -> None:
    log = open_log(tmp_path / "job_queue.log")
    log.commit(submit_ops(1))
    log.compact()
    assert not log.should_compact(min_bytes=100, growth=3)
    while log.size < 3 * log.compacted_size or log.size < 100:
        log.commit([SetAttr("1.0", "JobStatus", "2")])
    assert log.should_compact(min_bytes=100, growth=3)
    log.compact()
    assert not log.should_compact(min_bytes=100, growth=3)


# --------------------------------------------------------------------- follower


def test_follower_reads_incrementally_then_reloads_after_compaction(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    follower = JobQueueLogFollower(path)
    first = follower.poll()
    assert first.kind is FollowKind.BULK
    assert len(follower.state) == 0

    log.commit(submit_ops(1))
    result = follower.poll()
    assert result.kind is FollowKind.INCREMENTAL
    assert result.records[0] == parse_record("105 ")
    assert follower.state.ads == log.state.ads
    assert follower.poll().kind is FollowKind.NO_CHANGE

    log.commit([SetAttr("1.0", "JobStatus", "2")])
    result = follower.poll()
    assert result.kind is FollowKind.INCREMENTAL
    assert [r for r in result.records if isinstance(r, SetAttr)] == [
        SetAttr("1.0", "JobStatus", "2")
    ]

    log.compact()
    result = follower.poll()
    assert result.kind is FollowKind.BULK
    assert result.state is follower.state
    assert follower.state.ads == log.state.ads
    assert follower.state.sequence_number == 2

    log.commit([DestroyAd("1.0")])
    assert follower.poll().kind is FollowKind.INCREMENTAL
    assert "1.0" not in follower.state


def test_follower_reloads_when_the_file_is_replaced_at_the_same_sequence(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    follower = JobQueueLogFollower(path)
    follower.poll()
    log.close()
    path.write_text(f"107 1 CreationTimestamp {T0}\n101 05.-1 Job Machine\n")
    assert follower.poll().kind is FollowKind.BULK
    assert list(follower.state) == ["05.-1"]


def test_follower_applies_open_transactions_but_not_partial_lines(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    log.close()
    follower = JobQueueLogFollower(path)
    follower.poll()
    with open(path, "a") as stream:
        stream.write("105 \n103 1.0 JobStatus 5\n103 1.0 HoldRea")
    result = follower.poll()
    assert result.kind is FollowKind.INCREMENTAL
    assert follower.state["1.0"]["JobStatus"] == "5"  # as read, like HTCondor's router
    assert "HoldReason" not in follower.state["1.0"]
    assert follower.poll().kind is FollowKind.NO_CHANGE
    with open(path, "a") as stream:
        stream.write('son "via condor_hold"\n')
    follower.poll()
    assert follower.state["1.0"]["HoldReason"] == '"via condor_hold"'
    # replay (the schedd's view) drops the unfinished transaction
    assert replay_file(path, now=0).state["1.0"]["JobStatus"] == "1"


def test_follower_chains_procs_to_their_cluster(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    # Written out of order, as a rewritten log may be: the proc before its cluster.
    path.write_text(
        f"107 1 CreationTimestamp {T0}\n"
        "101 3.0 Job Machine\n"
        "103 3.0 ProcId 0\n"
        '103 3.0 Cmd "/bin/true"\n'
        "101 03.-1 Job Machine\n"
        '103 03.-1 Cmd "/bin/sleep"\n'
        '103 03.-1 Owner "alice"\n'
        '103 3.0 owner "bob"\n'
    )
    follower = JobQueueLogFollower(path)
    follower.poll()
    attrs = job_attrs(follower.state, 3, 0)
    assert attrs is not None
    assert dict(attrs) == {"Cmd": '"/bin/true"', "owner": '"bob"', "ProcId": "0"}
    assert follower.state["03.-1"] == QueueAd(
        "Job", "Machine", {"Cmd": '"/bin/sleep"', "Owner": '"alice"'}
    )
    assert job_attrs(follower.state, 3, 1) is None


def test_follower_skips_bad_lines_and_reports_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "job_queue.log"
    follower = JobQueueLogFollower(path)
    assert follower.poll().kind is FollowKind.MISSING
    path.write_text(f"107 1 CreationTimestamp {T0}\n101 1.0 Job Machine\nbogus\n103 9.0 A 1\n")
    result = follower.poll()
    assert result.kind is FollowKind.BULK
    assert list(follower.state) == ["01.-1", "1.0"]
    assert len(result.warnings) == 2
    assert "line 3: skipped" in result.warnings[0]
    path.write_text("101 1.0 Job Machine\n")
    with pytest.raises(JobQueueLogError, match="line 1: the first record is not a 107"):
        follower.poll()


# ------------------------------------------------------------------- properties

KEYS = ["0.0", cluster_key(1), proc_key(1, 0), proc_key(1, 1), cluster_key(2), proc_key(2, 0)]
NAMES = ["JobStatus", "jobstatus", "Owner", "Args", "HoldReason"]
TEXTS = st.sampled_from(["1", "2", '"alice"', '"a b  c"', "x + 1", "{ 1, 2 }", '"é"', "a\\"])


@st.composite
def op_sequences(draw: st.DrawFn) -> list[Op]:
    """Ops that make sense in order: no op on a missing ad, no second ad with one key."""
    alive: list[str] = []
    ops: list[Op] = []
    for _ in range(draw(st.integers(0, 40))):
        dead = [key for key in KEYS if key not in alive]
        kinds = (["new"] if dead else []) + (["set", "set", "delete", "destroy"] if alive else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "new":
            key = draw(st.sampled_from(dead))
            ops.append(NewAd(key, draw(st.sampled_from(["Job", ""])), "Machine"))
            alive.append(key)
            continue
        key = draw(st.sampled_from(alive))
        if kind == "destroy":
            ops.append(DestroyAd(key))
            alive.remove(key)
        elif kind == "set":
            ops.append(SetAttr(key, draw(st.sampled_from(NAMES)), draw(TEXTS)))
        else:
            ops.append(DeleteAttr(key, draw(st.sampled_from(NAMES))))
    return ops


def _model(ops: list[Op]) -> dict[str, tuple[str, dict[str, str]]]:
    """Apply ops in plain Python: key -> (MyType, folded name -> value)."""
    ads: dict[str, tuple[str, dict[str, str]]] = {}
    for op in ops:
        if isinstance(op, NewAd):
            ads[op.key] = (op.mytype, {})
        elif isinstance(op, DestroyAd):
            del ads[op.key]
        elif isinstance(op, SetAttr):
            ads[op.key][1][op.name.lower()] = op.text
        else:
            ads[op.key][1].pop(op.name.lower(), None)
    return ads


def _as_model(state: QueueState) -> dict[str, tuple[str, dict[str, str]]]:
    return {
        key: (ad.mytype, {name.lower(): text for name, text in ad.items()})
        for key, ad in state.items()
    }


@settings(deadline=None, max_examples=150)
@given(ops=op_sequences(), cuts=st.lists(st.integers(1, 6), max_size=12))
def test_replay_and_follower_match_applying_the_ops_in_memory(
    ops: list[Op], cuts: list[int]
) -> None:
    expected = _model(ops)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "job_queue.log")
        log = JobQueueLog(path, durable=False)
        log.open(T0)
        follower = JobQueueLogFollower(path)
        follower.poll()
        position = 0
        for size in [*cuts, len(ops)]:
            batch = ops[position : position + size]
            position += len(batch)
            log.commit(batch)
            follower.poll()
            if position >= len(ops):
                break
        assert _as_model(log.state) == expected
        mirrored = _as_model(follower.state)
        # the router's mirror may hold empty cluster ads made for chaining
        implicit = {key for key in mirrored.keys() - expected.keys() if mirrored[key] == ("", {})}
        assert {k: v for k, v in mirrored.items() if k not in implicit} == expected
        log.close()
        assert _as_model(replay_file(path, now=0).state) == expected
        again = JobQueueLog(path, durable=False)
        assert _as_model(again.open(T0)) == expected
        again.close()
        assert _as_model(replay_file(path, now=0).state) == expected


# ------------------------------------------- the one-pass transaction against the checks

_WORDS = st.sampled_from(["1.0", "1.1", "01.-1", "0.0", "JobStatus", "Args", "Job Status",
                          "", "Jöb", "a\tb", "x\0y", "(empty)", "Job", "Machine"])
_TEXTS = st.sampled_from(["2", '"a b"', '"ü"', "  ", "", '"a\nb"', "a\rb", "\t1", "1\t",
                          "x\0", "undefined", " 3 "])


@st.composite
def _batches(draw: st.DrawFn) -> list[Op]:
    ops: list[Op] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["set", "set", "delete", "new", "destroy", "other"]))
        key = draw(_WORDS)
        if kind == "set":
            ops.append(SetAttr(key, draw(_WORDS), draw(_TEXTS)))
        elif kind == "delete":
            ops.append(DeleteAttr(key, draw(_WORDS)))
        elif kind == "new":
            ops.append(NewAd(key, draw(st.sampled_from(["Job", "", "My Type", "Täg"])),
                             draw(st.sampled_from(["Machine", "", "a\tb"]))))
        elif kind == "destroy":
            ops.append(DestroyAd(key))
        else:
            ops.append(("not", "an", "op"))  # type: ignore[arg-type]
    return ops


_EVERY_KIND: list[Op] = [NewAd("2.0"), SetAttr("2.0", "A", "1"), DeleteAttr("1.0", "JobStatus"),
                         DestroyAd("01.-1"), NewAd("01.-1", "", ""), SetAttr("01.-1", "B", '"ü"')]


@settings(deadline=None, max_examples=400)
@given(batch=_batches())
@example(batch=_EVERY_KIND)
def test_one_pass_transaction_text_is_what_the_checks_and_format_give(batch: list[Op]) -> None:
    """`transaction_text` writes exactly the lines `check_op`, the key checks and
    `format_record` make, and gives up (None) on every batch they refuse, so a commit
    still raises their error, naming the ad, attribute or value."""
    from condorsim.jobqueue.records import (
        BeginTransaction,
        EndTransaction,
        check_op,
        transaction_text,
    )

    state = QueueState()
    for key in ("1.0", "01.-1"):
        state.ads[key] = QueueAd()
    fast = transaction_text(state.ads, tuple(batch))
    try:
        for op in batch:
            check_op(op)
        JobQueueLog._check_keys(state, tuple(batch))
    except JobQueueLogError:
        assert fast is None
        return
    slow = "".join([format_record(BeginTransaction()),
                    *(format_record(op) for op in batch),
                    format_record(EndTransaction())])
    assert fast in (None, slow)
    if batch is _EVERY_KIND:
        assert fast == slow  # the plain way, each kind of record


def test_commit_of_a_valid_value_that_is_not_plain_is_written_as_before(tmp_path: Path) -> None:
    """A tab in a value or a non-ASCII attribute name is valid: the slow path writes it."""
    path = tmp_path / "job_queue.log"
    log = open_log(path)
    log.commit(submit_ops(1))
    from condorsim.jobqueue.records import transaction_text

    assert transaction_text(log.state.ads, tuple(submit_ops(2))) is not None  # the plain way
    log.commit([SetAttr("1.0", "Args", '"a\tb"'), SetAttr("1.0", "Nämé", "1"),
                DeleteAttr("1.0", "ProcId")])
    log.close()
    assert path.read_text(encoding="utf-8").endswith(
        '105 \n103 1.0 Args "a\tb"\n103 1.0 Nämé 1\n104 1.0 ProcId\n106 \n')
    state = replay_file(path, now=0).state
    assert state["1.0"]["Args"] == '"a\tb"' and state["1.0"]["nämé"] == "1"
    assert "ProcId" not in state["1.0"]
