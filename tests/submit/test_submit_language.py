"""The submit language itself: lines, continuations, macros, statements and queue forms."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.submit import Submit, SubmitError
from condorsim.submit._lines import logical_lines

EXE = "executable = /bin/sleep\n"


def jobs(text: str, **kwargs: object) -> list[ClassAd]:
    kwargs.setdefault("iwd", "/tmp")
    return list(Submit(text).jobs(**kwargs))  # type: ignore[arg-type]


def values(text: str, attr: str, **kwargs: object) -> list[object]:
    return [ad.evaluate(attr) for ad in jobs(text, **kwargs)]


def args(text: str, **kwargs: object) -> list[object]:
    return values(EXE + text, "Args", **kwargs)


# -- lines ---------------------------------------------------------------------------------


def test_continuation_keeps_the_space_before_the_backslash() -> None:
    assert list(logical_lines("a = one \\\n   two\\\nthree")) == [(1, "a = one twothree")]


def test_a_comment_line_does_not_continue_even_with_a_backslash() -> None:
    assert list(logical_lines("# note \\\nx = 1")) == [(1, "# note "), (2, "x = 1")]


def test_a_comment_inside_a_continuation_keeps_only_its_last_character() -> None:
    # HTCondor's off-by-one: the comment is blanked up to, not including, its last char.
    assert list(logical_lines("d = a \\\n# c\nx")) == [(1, "d = a c"), (3, "x")]
    assert list(logical_lines("d = a \\\n#c1 \\\nc2")) == [(1, "d = a c2")]


def test_keys_are_case_insensitive_and_the_last_value_wins() -> None:
    assert args("ARGUMENTS = one\nArguments = two\nqueue\n") == ["two"]


def test_a_hash_after_a_value_is_part_of_the_value() -> None:
    assert args("arguments = x # y\nqueue\n") == ["x # y"]


def test_plus_and_my_attributes_are_expressions_named_as_first_written() -> None:
    (ad,) = jobs(EXE + "+lowercase = 1\nMY.LowerCase = 2\n+Empty =\nqueue\n")
    assert ad.spelling("lowercase") == "lowercase"
    assert ad.evaluate("LowerCase") == 2
    assert str(ad["Empty"]) == "undefined"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("this is not a command", 'expected "name = value"'),
        ("= value", "Illegal Identifier: <>"),
        ("two words = 1", 'expected "name = value" or a queue statement'),
        ("a$b = 1", "Illegal Identifier: <a$b>"),
        ("name : value", 'expected "name = value" or a queue statement'),
        ("if 1 + 2", "1 + 2 is not a valid if condition because complex conditionals are not "
                     "supported"),
        ("else", "else without matching if"),
        ("include : no-such.sub", "can't open file no-such.sub: No such file or directory"),
        ("include command : echo x = 1", "include command statements are not supported"),
        ("use nosuch : x", "use nosuch: is not a known submit template category"),
        ("use template : x", "use template: does not recognise x"),
        ("error : refused $(Cluster)", "refused 1"),
    ],
)
def test_syntax_errors_name_the_line(line: str, message: str) -> None:
    with pytest.raises(SubmitError) as caught:
        Submit(f"{EXE}\n{line}\nqueue\n", source="job.sub")
    assert message in caught.value.message
    assert (caught.value.source, caught.value.line) == ("job.sub", 3)
    assert "job.sub, line 3" in str(caught.value)


# -- macros --------------------------------------------------------------------------------


def test_job_id_macros() -> None:
    text = "arguments = $(Cluster) $(ClusterId) $(Process) $(ProcId) $(Step) $(Row)\nqueue 2\n"
    assert args(text, clusterid=12, procid=3) == ["12 12 3 3 0 0", "12 12 4 4 1 0"]


def test_item_index_and_step_follow_the_items() -> None:
    text = "arguments = $(Item) $(ItemIndex) $(Row) $(Step) $(Process)\nqueue 2 in (a, b)\n"
    assert args(text) == ["a 0 0 0 0", "a 0 0 1 1", "b 1 1 0 2", "b 1 1 1 3"]


def test_defaults_and_unknown_macros() -> None:
    text = "empty =\narguments = $(nope:dflt)-$(empty:e)-[$(nope)]-$(Executable:x)\nqueue\n"
    assert args(text) == ["dflt-e-[]-/bin/sleep"]


def test_a_macro_can_build_the_name_of_another() -> None:
    assert args("x = a\nad = 5\narguments = $($(x)d)\nqueue\n") == ["5"]


def test_a_self_reference_takes_the_previous_value() -> None:
    assert args("x = 1\nx = $(x)2\narguments = $(x)\nqueue\n") == ["12"]


def test_dollar_dollar_is_left_for_the_schedd_and_dollar_is_a_literal() -> None:
    assert args("arguments = $$(Memory) $$([a+b]) $(DOLLAR)(x)\nqueue\n") == [
        "$$(Memory) $$([a+b]) $(x)"
    ]


def test_env_macros_read_the_submitter_environment() -> None:
    text = "arguments = $ENV(HOME) $ENV(NOPE) $ENV(NOPE:d) $(ENV(HOME))\nqueue\n"
    assert args(text, env={"HOME": "/home/u"}) == ["/home/u UNDEFINED d $(ENV(HOME))"]


def test_file_name_macros() -> None:
    text = (
        EXE + "f = /p/q/r.tar.gz\ndescription = $Fn(f) $Fx(f) $Fp(f) $Fd(f) $Fnx(f) $Fq(f)\nqueue\n"
    )
    assert values(text, "JobDescription") == ['r.tar .gz /p/q/ q/ r.tar.gz "/p/q/r.tar.gz"']


def test_a_runaway_macro_is_an_error_at_its_command() -> None:
    text = EXE + "a = $(b)\nb = x$(a)\narguments = $(a)\nqueue\n"
    with pytest.raises(SubmitError) as caught:
        jobs(text)
    assert "does not terminate" in caught.value.message
    assert caught.value.line == 4


def test_vars_are_set_before_the_text() -> None:
    sub = Submit(
        EXE + "arguments = $(who) $(what)\nwhat = file\nqueue\n", vars={"who": "v", "what": "v"}
    )
    assert [ad.evaluate("Args") for ad in sub.jobs(iwd="/tmp")] == ["v file"]


def test_mapping_interface_is_the_bindings() -> None:
    sub = Submit(EXE + "name = $(base)_x\nbase = b\n+Attr = 1\nqueue\n")
    assert sub["name"] == "$(base)_x"
    assert sub.expand("name") == "b_x"
    assert sub["+Attr"] == "1"
    assert sub.expand("missing") == ""
    assert "NAME" in sub and "missing" not in sub
    assert sub.get("missing", "d") == "d"
    assert sub.keys() == ["executable", "name", "base", "MY.Attr"]
    with pytest.raises(KeyError):
        sub["missing"]


# -- queue statements -------------------------------------------------------------------------


def test_queue_forms_count_their_jobs() -> None:
    assert len(jobs(EXE + "queue\n")) == 1
    assert len(jobs(EXE + "QUEUE 3\n")) == 3
    assert len(jobs(EXE + "N = 2\nqueue $(N) * 2\n")) == 4
    assert len(jobs(EXE + "queue 0\n")) == 0
    assert len(jobs(EXE + "queue x in ()\n")) == 0
    assert len(jobs(EXE)) == 1  # no queue statement: one job, as the binding


def test_queue_in_splits_on_spaces_and_commas_even_across_lines() -> None:
    assert args("arguments = $(x)\nqueue x in (a b,c\n  d\n)\n") == ["a", "b", "c", "d"]
    assert args("arguments = $(x)\nqueue x in e, f\n") == ["e", "f"]


def test_queue_from_gives_each_variable_a_field_and_the_last_the_rest() -> None:
    text = "arguments = $(x)|$(y)\nqueue x,y from (\n  1 2\n  3, 4\n  5  6 7\n# no\n  8\n)\n"
    assert args(text) == ["1|2", "3|4", "5|6 7", "8|"]


def test_queue_from_a_file_is_relative_to_the_submit_directory(tmp_path: Path) -> None:
    (tmp_path / "items.txt").write_text("one 1\ntwo 2\n")
    (tmp_path / "sub").mkdir()
    text = "initialdir = sub\narguments = $(a) $(b)\nqueue a b from items.txt\n"
    assert args(text, iwd=str(tmp_path)) == ["one 1", "two 2"]


def test_queue_matching_files_dirs_and_duplicates(tmp_path: Path) -> None:
    for name in ("b.txt", "a.txt", "c.dat"):
        (tmp_path / name).write_text("x")
    (tmp_path / "d.txt").mkdir()
    iwd = str(tmp_path)
    assert args("arguments = $(Item)\nqueue matching *.txt\n", iwd=iwd) == [
        "a.txt",
        "b.txt",
        "d.txt/",
    ]
    assert args("arguments = $(f)\nqueue f matching files *.txt\n", iwd=iwd) == ["a.txt", "b.txt"]
    assert args("arguments = $(f)\nqueue f matching dirs *\n", iwd=iwd) == ["d.txt/"]
    sub = Submit(EXE + "arguments = $(f)\nqueue f matching a.* nomatch* *.txt no2*\n")
    assert [ad.evaluate("Args") for ad in sub.jobs(iwd=iwd)] == ["a.txt", "b.txt", "d.txt/"]
    # HTCondor warns about an empty pattern only when a match comes after it.
    assert sub.warnings == [
        "'nomatch*' does not match any files",
        "'a.txt' matching pattern '*.txt' is a duplicate of item 0, skipping",
    ]


def test_slices_select_items_but_keep_their_index() -> None:
    text = "arguments = $(x) $(ItemIndex)\nqueue x in [1::2] (a, b, c, d, e)\n"
    assert args(text) == ["b 1", "d 3"]
    assert args("arguments = $(x)\nqueue x in [-2:] (a, b, c)\n") == ["b", "c"]


def test_more_queue_statements_continue_the_cluster() -> None:
    text = "arguments = $(Process)\nqueue 2\narguments = again $(Process)\nqueue\n"
    ads = jobs(EXE + text, clusterid=5)
    assert [(ad.evaluate("ClusterId"), ad.evaluate("ProcId")) for ad in ads] == [
        (5, 0),
        (5, 1),
        (5, 2),
    ]
    assert [ad.evaluate("Args") for ad in ads] == ["0", "1", "again 2"]


def test_a_new_executable_starts_a_new_cluster() -> None:
    text = EXE + "queue 2\nexecutable = /bin/echo\nqueue\nexecutable = /bin/echo\nqueue\n"
    ads = jobs(text, clusterid=5)
    assert [(ad.evaluate("ClusterId"), ad.evaluate("ProcId")) for ad in ads] == [
        (5, 0), (5, 1), (6, 0), (6, 1)
    ]  # fmt: skip


def test_loop_variables_override_commands_of_the_same_name() -> None:
    assert args("arguments = x\nqueue arguments in (1s, 10s)\n") == ["1s", "10s"]


def test_count_replaces_only_a_bare_queue() -> None:
    assert len(jobs(EXE + "queue\n", count=3)) == 3
    assert len(jobs(EXE, count=2)) == 2
    assert len(jobs(EXE + "queue 2\n", count=5)) == 2
    assert len(jobs(EXE + "queue x in (a, b)\n", count=5)) == 2


def test_itemdata_replaces_the_queue_statement() -> None:
    text = EXE + "arguments = $(Item)\nqueue 5\n"
    assert args_of(Submit(text).jobs(itemdata=["p", "q"], iwd="/tmp")) == ["p", "q"]
    assert args_of(Submit(text).jobs(count=2, itemdata=iter(["p"]), iwd="/tmp")) == ["p", "p"]
    text = EXE + "arguments = $(a)-$(b)\n"
    items = [{"a": "1", "b": "2"}, {"a": "3"}]
    assert args_of(Submit(text).jobs(itemdata=items, iwd="/tmp")) == ["1-2", "3-2"]


def args_of(ads: object) -> list[object]:
    return [ad.evaluate("Args") for ad in ads]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("queue", "message"),
    [
        ("queue x y", "Invalid Queue count expression"),
        ("queue 2 3", "Invalid Queue count expression"),
        ("queue -1", "Queue count out of range"),
        ("queue x in files (a)", "Queue keyword conflict"),
        ("queue x in [a] (b)", "Invalid [::] statement"),
        ("queue x in (a, b) extra", "Reached end of file without finding closing brace ')'"),
        ("queue x from nope.txt", "Failed to open queue item file nope.txt"),
    ],
)
def test_queue_errors(queue: str, message: str) -> None:
    with pytest.raises(SubmitError) as caught:
        jobs(EXE + queue + "\n")
    assert caught.value.message.startswith(message)
    assert caught.value.line == 2


# -- robustness -----------------------------------------------------------------------------

ODD = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["99999999999999999999999", "-99999999999999999999", "1e400", "(" * 300, "$(", "$$(",
         "\\", '"', "'", "\x00", "9223372036854775808T", "\x1f", "\u00b3"]
    ),
)  # fmt: skip
KEYS = st.sampled_from(
    ["executable", "arguments", "priority", "request_memory", "request_cpus", "universe",
     "job_lease_duration", "kill_sig_timeout", "kill_sig", "+A", "deferral_time", "hold",
     "environment", "max_retries", "requirements", "cron_minute", "initialdir", "x", "queue"]
)  # fmt: skip


@st.composite
def odd_descriptions(draw: st.DrawFn) -> str:
    lines = [EXE.strip()]
    for _ in range(draw(st.integers(0, 6))):
        key = draw(KEYS)
        lines.append(f"queue {draw(ODD)}" if key == "queue" else f"{key} = {draw(ODD)}")
    if draw(st.booleans()):
        lines.append(draw(st.text(max_size=40)))
    return "\n".join(lines) + "\n"


@settings(deadline=None, max_examples=300)
@given(text=odd_descriptions())
def test_odd_input_gives_job_ads_or_a_submit_error(text: str) -> None:
    try:
        for ad in Submit(text).jobs(iwd="/tmp", count=2):
            assert ad.evaluate("ProcId") is not None
    except SubmitError as exc:
        assert exc.message


def test_procs_are_the_cluster_ad_then_what_differs() -> None:
    sub = Submit(EXE + "arguments = $(x)\nqueue x in (a, a, b)\nexecutable = /bin/echo\nqueue\n")
    ads = sub.procs(iwd="/tmp", clusterid=3)
    full = list(sub.jobs(iwd="/tmp", clusterid=3))
    assert [dict(ad.pairs()) == dict(f.pairs()) for ad, f in zip(ads, full, strict=True)] == [
        True, False, False, True
    ]  # fmt: skip
    assert [sorted(ad) for ad in ads[1:3]] == [
        ["JobStatus", "ProcId"],
        ["Args", "JobStatus", "ProcId"],
    ]
    assert ads[2].evaluate("Args") == "b"
