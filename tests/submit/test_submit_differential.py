"""condorsim's submit against HTCondor's (``htcondor.Submit`` 24.0) on the same text.

Three suites: every description in corpus/*.sub must give the same job ads; every one
in corpus/errors/*.sub must be refused by both, with the same message where the binding
gives one; and generated descriptions must do either the same ads or an error in both
(with the same message where the binding gives one): every submit command of
condor_submit with its forms of value (data/submit_commands.txt), macros and queue
statements, and the statements of the language (if/elif/else, include, use, @=). Runs in the corpus directory, which
holds the data files the descriptions name. See _submit_reference.IGNORED for the
attributes not compared and why.
"""

from __future__ import annotations

import functools
import random
import warnings
from pathlib import Path

import classad2
import htcondor
import pytest
from _commands_data import description
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
        if their_error and my_error:
            assert normalize(my_error) == normalize(their_error)
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


SINGLE_QUEUE = [p for p in GOOD if Submit(p.read_text(), iwd=str(CORPUS)).queue_count() == 1]


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


# -- generated descriptions: every command of condor_submit -----------------------------------
#
# data/submit_commands.txt lists every submit command condor_submit 24.0 knows, with forms of
# value; _commands_data.description draws a kind of job and some of those commands.


@settings(
    deadline=None, max_examples=1200, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rng=st.randoms(use_true_random=False))
def test_generated_commands_give_the_same_ads(rng: random.Random) -> None:
    assert_same(description(rng))


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


# $F options (at most one d: more d's than directories is undefined in HTCondor), and
# file names with and without directories, extensions and quotes.
FILE_OPTIONS = st.lists(st.sampled_from("pnxqabfwuPNX"), max_size=3).map("".join) | st.sampled_from(
    ["d", "dn", "dx", "pb", "xb", "fq", "fpu", "fu", "qa", "w", "db"]
)
PATHS = st.sampled_from(["/a/b/c.txt", "c.txt", ".hidden", "a/b/", '"/q/r.s"', "./x", "", "a b.t"])


@st.composite
def macro_values(draw: st.DrawFn, defined: list[str]) -> str:
    """Text mixing literals and macros; only names defined earlier (or itself) are used,
    because HTCondor loops for ever on macros that refer to each other."""
    return "".join(draw(_macro_parts(tuple(BUILTIN_MACROS + defined))))


@functools.cache
def _macro_parts(names: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    """The parts of a value using ``names``: built once for each list of names (a few
    dozen), not for every value drawn (most of the cost of a draw)."""
    return st.lists(
        st.one_of(
            st.sampled_from(["v", "1", "-", " ", "/p", ",", "'", "w w", "a.b"]),
            st.sampled_from(names).map(lambda n: f"$({n})"),
            st.tuples(st.sampled_from(names), st.sampled_from(["d", "", "x y"])).map(
                lambda t: f"$({t[0]}:{t[1]})"
            ),
            st.sampled_from(["$$(Memory)", "$(DOLLAR)", "$ENV(HOME)", "$$([1+2])"]),
            st.tuples(FILE_OPTIONS, st.sampled_from(names)).map(lambda t: f"$F{t[0]}({t[1]})"),
            st.tuples(FILE_OPTIONS, PATHS).map(lambda t: f"$F{t[0]}({t[1]})"),
        ),
        max_size=5,
    )


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
    deadline=None, max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=macro_descriptions())
def test_generated_macros_and_queue_statements_give_the_same_ads(text: str) -> None:
    assert_same(text)


# -- generated statements of the language: if/elif/else, include, use, @=, +/- ------------

CONDITIONS = st.sampled_from(
    ["true", "false", "1", "0.0", "-1", "yes", "f", "defined a", "defined nothing",
     "!defined a", "defined 1.5", "version >= 8.0", "version > 99.0", "version == 24.0.24",
     "$(a)", "$(nothing)", "defined use ROLE", "defined use role:Execute", "1 + 2", "foo",
     "version >= 5.1"]
)  # fmt: skip


@st.composite
def if_block(draw: st.DrawFn, depth: int = 0) -> list[str]:
    lines = [f"if {draw(CONDITIONS)}", f"a = if{depth}"]
    if depth < 1 and draw(st.booleans()):
        lines += draw(if_block(depth + 1))
    for _ in range(draw(st.integers(0, 2))):
        lines += [f"elif {draw(CONDITIONS)}", f"a = elif{depth}"]
    if draw(st.booleans()):
        lines += ["else", draw(st.sampled_from([f":b = else{depth}", f"b = else{depth}",
                                                f": b = else{depth}"]))]
    return [*lines, "endif"]


STATEMENTS = st.one_of(
    if_block(),
    st.sampled_from(
        # (not "include ifexists" of a missing file: the binding then reports a stale
        # message of it for any later error; test_submit_language checks that form)
        [["include : include.inc"], ["include ifexists : include.inc"], ["include : no-such.inc"],
         ["use STRICT : TRUE"], ["use strict:harsh"], ["use template : nothing"],
         ["use nosuch : x"], ["b @=END", "one", "two", "@END"], ["-Custom ="], ["+Custom = 2"],
         ["warning : careful $(a)"], ["MY.Other = $(a)"], ["$(a)x = 1"], ["elif true"],
         ["endif"]]
    ),
)  # fmt: skip


@st.composite
def language_descriptions(draw: st.DrawFn) -> str:
    lines = ["executable = /bin/echo", f"a = {draw(st.sampled_from(['1', '0', 'x', '']))}"]
    for statement in draw(st.lists(STATEMENTS, max_size=4)):
        lines += statement
    lines.append("arguments = $(a) $(b) $(SubmitFailEmptyFields)")
    lines.append(draw(st.sampled_from(["queue", "iterate 2", "iter x in (p, q)", "queue 1"])))
    return "\n".join(lines) + "\n"


@settings(
    deadline=None, max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=language_descriptions())
def test_generated_language_statements_give_the_same_ads(text: str) -> None:
    assert_same(text)
