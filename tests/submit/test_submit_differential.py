"""condorsim's submit against HTCondor's (``htcondor.Submit`` 24.0) on the same text.

Three suites: every description in corpus/*.sub must give the same job ads; every one
in corpus/errors/*.sub must be refused by both, with the same message where the binding
gives one; and generated descriptions (random combinations of the supported commands)
must do either the same ads or an error in both. Runs in the corpus directory, which
holds the data files the descriptions name. See _submit_reference.IGNORED for the
attributes not compared and why.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import classad2
import htcondor
import pytest
from _submit_reference import (
    CLUSTER,
    HOST,
    OWNER,
    QDATE,
    differences,
    normalize,
    reference_jobs,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.submit import Submit, SubmitError

CORPUS = Path(__file__).parent / "corpus"
GOOD = sorted(CORPUS.glob("*.sub"))
BAD = sorted((CORPUS / "errors").glob("*.sub"))


@pytest.fixture(autouse=True)
def _in_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CORPUS)


def ours(text: str) -> list[ClassAd]:
    sub = Submit(text)
    return list(
        sub.jobs(
            clusterid=CLUSTER,
            qdate=QDATE,
            owner=OWNER,
            iwd=str(CORPUS),
            config={"FULL_HOSTNAME": HOST},
        )
    )


def assert_same(text: str) -> None:
    theirs, their_error = reference_jobs(text)
    try:
        mine: list[ClassAd] | None = ours(text)
        my_error = None
    except SubmitError as exc:
        mine, my_error = None, exc.message
    if theirs is None or mine is None:
        assert theirs is None and mine is None, (their_error, my_error)
        return
    assert len(mine) == len(theirs)
    for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        diffs = differences(a, b)
        assert not diffs, f"proc {index}: {diffs}"


def test_the_corpus_is_large_enough() -> None:
    assert len(GOOD) >= 40
    assert len(BAD) >= 20


@pytest.mark.parametrize("path", GOOD, ids=[p.name for p in GOOD])
def test_corpus_gives_the_same_job_ads(path: Path) -> None:
    text = path.read_text()
    theirs, their_error = reference_jobs(text)
    assert their_error is None, their_error
    assert theirs is not None
    mine = ours(text)
    assert len(mine) == len(theirs)
    for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert differences(a, b) == [], f"proc {index}"


SINGLE_QUEUE = [p for p in GOOD if Submit(p.read_text()).queue_count() == 1]


@pytest.mark.parametrize("path", SINGLE_QUEUE, ids=[p.name for p in SINGLE_QUEUE])
def test_procs_split_cluster_and_proc_attributes_as_the_binding(path: Path) -> None:
    text = path.read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = list(htcondor.Submit(text).procs(clusterid=CLUSTER, qdate=QDATE, owner=OWNER))
    mine = Submit(text).procs(
        clusterid=CLUSTER, qdate=QDATE, owner=OWNER, iwd=str(CORPUS), config={"FULL_HOSTNAME": HOST}
    )
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        assert differences(a, b) == []


@pytest.mark.parametrize("path", GOOD, ids=[p.name for p in GOOD])
def test_our_ads_print_as_text_htcondor_reads(path: Path) -> None:
    for ad in ours(path.read_text()):
        theirs = classad2.ClassAd(str(ad))
        assert {k.lower() for k in theirs.keys()} == {k.lower() for k in ad}
        for name in ad:
            assert str(theirs.lookup(name)) == str(classad2.ExprTree(str(ad[name])))


@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_corpus_errors_are_refused_by_both(path: Path) -> None:
    text = path.read_text()
    theirs, their_error = reference_jobs(text)
    assert theirs is None, "the binding accepted it"
    with pytest.raises(SubmitError) as caught:
        ours(text)
    assert caught.value.line > 0
    if their_error:
        assert normalize(caught.value.message) == normalize(their_error)


# -- generated descriptions ------------------------------------------------------------

WORD = st.sampled_from(["a", "bb", "x1", "data", "-v", "--opt=3", "$(Process)", "$(Item)"])
ATTR = st.sampled_from(
    ["Memory", "Disk", "Cpus", "Arch", "OpSys", "HasFileTransfer", "FileSystemDomain", "Foo",
     "TARGET.Memory", "MY.Foo", "GPUs", "OpSysAndVer", "KFlops"]
)  # fmt: skip
NUMBER = st.sampled_from(["0", "1", "2", "5", "100", "1024", "-3", "1.5"])


@st.composite
def expressions(draw: st.DrawFn) -> str:
    left = draw(ATTR)
    op = draw(st.sampled_from([">", "==", "=?=", "=!=", ">=", "<"]))
    clause = f"{left} {op} {draw(NUMBER)}"
    if draw(st.booleans()):
        joiner = draw(st.sampled_from(["&&", "||"]))
        clause = f"({clause}) {joiner} {draw(ATTR)}"
    return clause


REQUEST = st.sampled_from(
    ["1", "2", "0", "100", "2G", "1.5M", "512K", "3 GB", "x + 1", "(4)", "2.5", "-5", "true"]
)

COMMANDS: dict[str, st.SearchStrategy[str]] = {
    "universe": st.sampled_from(["vanilla", "local", "scheduler", "Vanilla", "12", "grid", "7"]),
    "arguments": st.one_of(
        st.lists(WORD, max_size=4).map(" ".join),
        st.lists(WORD, min_size=1, max_size=3).map(lambda w: '"' + " '".join(w) + "'\""),
    ),
    "environment": st.one_of(
        st.lists(st.sampled_from(["A=1", "B=two", "PATH=/bin", "A=3"]), max_size=3).map(";".join),
        st.just("\"X=1 Y='a b'\""),
    ),
    "input": st.sampled_from(["data/a.dat", "in.txt", "/dev/null", "input.txt"]),
    "output": st.sampled_from(["out.$(Process)", "o.txt"]),
    "error": st.sampled_from(["err.$(Process)", "e.txt"]),
    "log": st.sampled_from(["job.log", "/tmp/condorsim-submit.log"]),
    "initialdir": st.sampled_from(["data", "."]),
    "requirements": expressions(),
    "rank": expressions(),
    "request_cpus": REQUEST,
    "request_memory": REQUEST,
    "request_disk": REQUEST,
    "priority": st.sampled_from(["0", "5", "-3", "1 + 1", "2.5", "x"]),
    "hold": st.sampled_from(["true", "false", "1", "0"]),
    "deferral_time": st.sampled_from(["1700000000", "time() + 60", "QDate + 30", "0", "-5"]),
    "deferral_window": st.sampled_from(["0", "60", "3600"]),
    "deferral_prep_time": st.sampled_from(["0", "30", "600"]),
    "cron_minute": st.sampled_from(["*/5", "0", "1-59/2"]),
    "cron_hour": st.sampled_from(["*", "3", "0-23/4"]),
    "cron_window": st.sampled_from(["0", "60"]),
    "cron_prep_time": st.sampled_from(["10", "120"]),
    "on_exit_remove": expressions(),
    "on_exit_hold": expressions(),
    "periodic_hold": expressions(),
    "periodic_release": expressions(),
    "periodic_remove": expressions(),
    "max_retries": st.sampled_from(["0", "3", "10"]),
    "retry_until": st.sampled_from(["ExitCode == 3", "4"]),
    "success_exit_code": st.sampled_from(["0", "2"]),
    "job_lease_duration": st.sampled_from(["0", "10", "3600"]),
    "leave_in_queue": st.sampled_from(["true", "false", "JobStatus == 4"]),
    "notification": st.sampled_from(["never", "Always", "complete", "ERROR"]),
    "should_transfer_files": st.sampled_from(["YES", "NO", "IF_NEEDED"]),
    "when_to_transfer_output": st.sampled_from(["ON_EXIT", "ON_EXIT_OR_EVICT"]),
    "transfer_input_files": st.sampled_from(["data/a.dat", "data/a.dat, data/b.dat"]),
    "transfer_output_files": st.sampled_from(["out", "a, b"]),
    "concurrency_limits": st.sampled_from(["lic", "B, a:2, b"]),
    "accounting_group": st.sampled_from(["physics", "group_a.b"]),
    "accounting_group_user": st.sampled_from(["bob"]),
    "+CustomAttr": st.sampled_from(['"text"', "42", "$(Cluster) + 1", "", "(x"]),
    "env": st.sampled_from(["A=1;B=2", '"A=1 B=2"']),
    # getenv = true is not compared: the C library environment the binding reads can hold
    # variables (COLUMNS, LINES) that os.environ does not.
    "getenv": st.sampled_from(["false", "HOME", "PATH, HOME"]),
    "nice_user": st.sampled_from(["true", "false"]),
    "kill_sig": st.sampled_from(["SIGKILL", "9", "sigusr1", "TERM"]),
    "batch_name": st.sampled_from(["b1", '"quoted name"']),
    "description": st.sampled_from(["a job", "$(Process)"]),
    "request_gpus": st.sampled_from(["0", "1", "x"]),
    "grid_resource": st.sampled_from(["batch slurm", "condor a b", "arc x", "pbs"]),
    "transfer_executable": st.sampled_from(["true", "false"]),
    "stream_output": st.sampled_from(["true", "false"]),
    "log_xml": st.sampled_from(["true", "false"]),
    "cron_day_of_week": st.sampled_from(["1", "*", "0-6/2"]),
    "job_max_vacate_time": st.sampled_from(["10", "x"]),
    "max_job_retirement_time": st.sampled_from(["0", "3600"]),
}
QUEUES = st.sampled_from(
    ["queue", "queue 2", "queue x in (a, b)", "queue 2 x,y from (\n1 2\n3 4\n)",
     "queue f matching files data/*.dat"]
)  # fmt: skip


@st.composite
def descriptions(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.sampled_from(sorted(COMMANDS)), max_size=8, unique=True))
    lines = ["executable = /bin/sleep"]
    lines += [f"{key} = {draw(COMMANDS[key])}" for key in keys]
    lines.append(draw(QUEUES))
    return "\n".join(lines) + "\n"


@settings(
    deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=descriptions())
def test_generated_descriptions_give_the_same_ads(text: str) -> None:
    assert_same(text)


# -- generated macro and queue statements ----------------------------------------------------

BUILTIN_MACROS = [
    "Item",
    "Cluster",
    "Process",
    "Step",
    "Row",
    "ItemIndex",
    "ProcId",
    "ClusterId",
    "y",
]


@st.composite
def macro_values(draw: st.DrawFn, defined: list[str]) -> str:
    """Text mixing literals and macros; only names defined earlier (or itself) are used,
    because HTCondor loops for ever on macros that refer to each other."""
    names = BUILTIN_MACROS + defined
    parts = draw(
        st.lists(
            st.one_of(
                st.sampled_from(["v", "1", "-", " ", "/p", ",", "'", "w w", "a.b"]),
                st.sampled_from(names).map(lambda n: f"$({n})"),
                st.tuples(st.sampled_from(names), st.sampled_from(["d", "", "x y"])).map(
                    lambda t: f"$({t[0]}:{t[1]})"
                ),
                st.sampled_from(["$$(Memory)", "$(DOLLAR)", "$ENV(HOME)", "$$([1+2])"]),
                st.sampled_from(names).map(lambda n: f"$Fnx({n})"),
            ),
            max_size=5,
        )
    )
    return "".join(parts)


@st.composite
def queue_statements(draw: st.DrawFn) -> str:
    count = draw(st.sampled_from(["", "2 ", "1+1 "]))
    nvars = draw(st.integers(0, 3))
    names = draw(
        st.lists(st.sampled_from(["x", "y", "Item", "a", "arguments"]), min_size=nvars,
                 max_size=nvars, unique=True)
    )  # fmt: skip
    variables = draw(st.sampled_from([",", " ", ", "])).join(names)
    # Items with at least as many fields as variables: for fewer, the binding's values are
    # those of a stale buffer (see docs/submit.md).
    fields = st.sampled_from(["p", "q1", "r-s", "t,u", "v w", "x\ty", "1", "2,3 4"])
    items = draw(
        st.lists(st.lists(fields, min_size=3, max_size=4).map(" ".join), min_size=1, max_size=4)
    )
    part = draw(st.sampled_from(["", "", "[1:] ", "[::2] ", "[:-1] "]))
    form = draw(st.sampled_from(["count", "in", "in-block", "from", "from-block"]))
    if form == "count":
        return f"queue {count}".rstrip()
    if form == "in":
        return f"queue {count}{variables} in {part}(" + ", ".join(items) + ")"
    if form == "from":
        return f"queue {count}{variables} from {part}(" + items[0] + ")"
    keyword = form.split("-")[0]
    return f"queue {count}{variables} {keyword} {part}(\n" + "\n".join(items) + "\n)"


@st.composite
def macro_descriptions(draw: st.DrawFn) -> str:
    lines = ["executable = /bin/echo"]
    defined: list[str] = []
    for name in draw(st.lists(st.sampled_from(["a", "B", "cc", "x"]), max_size=4, unique=True)):
        lines.append(f"{name} = {draw(macro_values([*defined, name]))}")
        if draw(st.booleans()):  # a second value referring to the first
            lines.append(f"{name} = {draw(macro_values([*defined, name]))}")
        defined.append(name)
    lines.append(f"description = {draw(macro_values(defined))}")
    arguments = ["$(x) $(y)", "$(Item) $(a)", "$(B)", "fixed", "$(arguments)"]
    lines.append(f"arguments = {draw(st.sampled_from(arguments))}")
    lines.append(draw(queue_statements()))
    return "\n".join(lines) + "\n"


@settings(
    deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=macro_descriptions())
def test_generated_macros_and_queue_statements_give_the_same_ads(text: str) -> None:
    assert_same(text)
