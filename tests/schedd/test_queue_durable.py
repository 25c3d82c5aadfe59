"""Any sequence of queue changes survives a reload of job_queue.log (hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daemons.schedd.queue import JobQueue
from daemons.schedd.store import ScheddError

T0 = 1_767_225_600

_op = st.one_of(
    st.tuples(st.just("submit"), st.integers(1, 3)),
    st.tuples(st.sampled_from(["hold", "release", "remove"]), st.integers(1, 4),
              st.integers(0, 2)),
    st.tuples(st.just("qedit"), st.integers(1, 4), st.sampled_from(["Foo", "JobPrio"]),
              st.sampled_from(["1", '"x y"', "Foo + 1", "[ a = 1 ]", "{ 1, 2 }"])),
)


def _attrs(q: JobQueue) -> dict[tuple[int, int], dict[str, str]]:
    return {job: {n.lower(): str(t) for n, t in ad.pairs()} for job, ad in q.jobs.items()}


@settings(deadline=None, max_examples=40)
@given(st.lists(_op, max_size=12))
def test_reload_gives_the_same_queue(ops: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spool = Path(tmp) / "spool"
        q = JobQueue(spool)
        q.open(T0)
        now = T0
        for op in ops:
            now += 7
            if op[0] == "submit":
                q.submit("alice", f"executable = /bin/true\nqueue {op[1]}\n", tmp, "s", now)
            elif op[0] == "qedit":
                q.qedit([f"{op[1]}.0"], "", str(op[2]), str(op[3]), "alice", now)
            else:
                q.act(str(op[0]), [f"{op[1]}.{op[2]}"], "", "", "alice", now)
        before, next_cluster = _attrs(q), q.store.next_cluster
        q.store.close()
        again = JobQueue(spool)
        again.open(now + 100)
        assert _attrs(again) == before
        assert again.store.next_cluster == next_cluster
        again.store.close()


def test_a_constraint_that_does_not_parse_is_refused(tmp_path: Path) -> None:
    q = JobQueue(tmp_path / "spool")
    q.open(T0)
    with pytest.raises(ScheddError, match="bad constraint"):
        q.act("hold", [], "Owner ==", "", "alice", T0)
