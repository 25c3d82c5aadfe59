"""The transform language: every statement, against the manual's examples and the facts
HTCondor 24.0.24's own condor_transform_ads showed (htcondor-facts.md §3.2, §3.5)."""

from __future__ import annotations

import pytest

from condorsim.classad import UNDEFINED, ClassAd
from condorsim.transform import TransformError, TransformMacros, apply, apply_all, parse_transform

JOB = ClassAd.parse_old(
    """\
Owner = "alice"
Cmd = "/bin/sleep"
JobUniverse = 5
RequestMemory = 1024
Rank = Memory * 2
WantJobRouter = true
Undef = undefined
"""
)


def run(rules: str, ad: ClassAd = JOB) -> ClassAd:
    result = apply(parse_transform(rules, source="rules"), ad)
    assert result.ok, result.error
    return result.ad


def value(rules: str, attr: str = "A", ad: ClassAd = JOB) -> object:
    return run(rules, ad).evaluate(attr)


# -- the manual's example (man-pages/condor_transform_ads.rst) ---------------------------------

def test_the_condor_transform_ads_manual_example() -> None:
    rules = """\
EVALSET MemoryUsage ( ResidentSetSize / 100 )
EVALMACRO WantDisk = ( DiskUsage * 2 )
SET RequestDisk ( $(WantDisk) / 1024 )
RENAME NumCkpts NumCheckPoints
DELETE /(.+)Err/
"""
    ad = ClassAd.parse_old(
        'ResidentSetSize = 500\nDiskUsage = 2500000\nNumCkpts = 0\nTransferrErr = false\n'
        'Err = "/dev/null"\n'
    )
    out = run(rules, ad)
    # The manual prints "( 5000000 / 1024 )"; HTCondor 24's unparser (and classad2) print
    # the parentheses without the inner spaces, as condorsim does.
    assert sorted(out.to_long().splitlines(), key=str.lower) == [
        "DiskUsage = 2500000",
        'Err = "/dev/null"',
        "MemoryUsage = 5",
        "NumCheckPoints = 0",
        "RequestDisk = (5000000 / 1024)",
        "ResidentSetSize = 500",
    ]


# -- the commands -----------------------------------------------------------------------------

def test_set_default_evalset_evalmacro() -> None:
    out = run("SET A 1 + 2\nSET B = strcat(Owner, \"x\")\nEVALSET C 1 + 2\n"
              "EVALMACRO m Owner\nSET D \"$(m)\"\nDEFAULT RequestMemory 1\nDEFAULT E 7\n")
    assert str(out["A"]) == "1 + 2"
    assert out.evaluate("B") == "alicex"
    assert str(out["C"]) == "3"
    assert out.evaluate("D") == "alice"
    assert out.evaluate("RequestMemory") == 1024
    assert out.evaluate("E") == 7


def test_default_replaces_only_an_absent_attribute_code_over_doc() -> None:
    # The manual says "missing or undefined"; HTCondor's code checks only that it is absent.
    out = run("DEFAULT Undef 5\nDEFAULT Missing 6\n")
    assert out.evaluate("Undef") is UNDEFINED
    assert out.evaluate("Missing") == 6


def test_copy_rename_delete() -> None:
    out = run("COPY Owner OrigOwner\nRENAME Cmd Executable\nDELETE Rank\nDELETE NoSuch\n")
    assert out.evaluate("OrigOwner") == "alice" and out.evaluate("Owner") == "alice"
    assert "Cmd" not in out and out.evaluate("Executable") == "/bin/sleep"
    assert "Rank" not in out


def test_regex_forms_are_case_insensitive_with_capture_groups() -> None:
    ad = ClassAd.parse_old("ResourceA = 1\nresourceB = 2\nOther = 3\n")
    out = run(r"COPY /Resource(.+)/ OriginalResource\1", ad)
    assert out.evaluate("OriginalResourceA") == 1 and out.evaluate("OriginalResourceB") == 2
    out = run(r"RENAME /^(r)esource(.)$/ X\2\0", ad)
    assert sorted(out) == ["Other", "XAResourceA", "XBresourceB"]
    out = run("DELETE /RESOURCE/", ad)
    assert list(out) == ["Other"]


def test_a_capture_group_past_the_last_one_stays_as_written() -> None:
    result = apply(parse_transform(r"COPY /^(O)ther$/ Y\1\2"), ClassAd.parse_old("Other = 3\n"))
    assert result.messages == ["ERROR: COPY Other new name YO\\2 is not valid"]


def test_set_evalset_copy_keep_the_ads_spelling_rename_changes_it() -> None:
    out = run("SET owner \"bob\"\nEVALSET CMD 1\nCOPY Rank rank\n")
    assert "Owner" in list(out) and "Cmd" in list(out) and "Rank" in list(out)
    assert "owner" not in list(out)
    out = run("RENAME Owner owner\n")
    assert "owner" in list(out) and "Owner" not in list(out)


# -- macros -----------------------------------------------------------------------------------

def test_my_attr_macros() -> None:
    out = run('SET A "$(MY.Owner)"\nSET B $(MY.Rank) + 1\nSET C "[$(MY.Missing)]"\n'
              'SET D "$(Owner)"\n')
    assert out.evaluate("A") == "alice"  # a string expands without quotes
    assert str(out["B"]) == "Memory * 2 + 1"  # an expression expands unevaluated
    assert out.evaluate("C") == "[]"  # a missing attribute is empty
    assert out.evaluate("D") == ""  # $(Owner) is a macro, not the attribute


def test_macro_lines_and_multi_line_values() -> None:
    rules = """\
x = 1
y = $(x) 2
x = 3
text @=end
   first
   # a comment inside the block is dropped
   second
@end
SET A "$(y)|$(x)"
SET B "$(text)"
"""
    result = apply(parse_transform(rules), JOB)
    assert result.ad.evaluate("A") == "3 2|3"  # macros expand when used, with their value then
    assert result.macros.values()["text"] == "first\nsecond"


def test_env_and_macro_functions() -> None:
    assert value('SET A "$ENV(CONDORSIM_NO_SUCH_VAR)"') == "UNDEFINED"
    assert value("SET A $REAL(17)") == 17
    assert value('SET A "$SUBSTR(MY.Cmd,-5)"') == "sleep"
    assert value("SET A $INT(MY.RequestMemory) * 2") == 2048
    assert value("SET A $EVAL(RequestMemory + 1)") == 1025  # evaluated against the ad
    assert value('n = 1\nSET A "$CHOICE(n,a,b,c)"') == "b"


def test_a_macro_function_error_fails_the_transform() -> None:
    result = apply(parse_transform("SET A $INT(abc)"), JOB)
    assert not result.ok
    assert "$INT() macro: abc does not evaluate to an integer!" in result.error


def test_config_values_are_macros_too() -> None:
    config = {"JOB_ROUTER_NAME": "jobrouter", "X": "$(JOB_ROUTER_NAME)-x"}
    result = apply(parse_transform('SET A "$(X)"'), JOB,
                   macros=TransformMacros.create(config=config.get))
    assert result.ad.evaluate("A") == "jobrouter-x"


def test_the_first_argument_is_not_expanded_the_rest_is() -> None:
    assert value("n = A\nCOPY RequestMemory $(n)\n") == 1024
    with pytest.raises(TransformError, match=r"COPY: '\$\(n\)' is not an attribute name"):
        parse_transform("n = Owner\nCOPY $(n) X\n")


# -- if / elif / else ----------------------------------------------------------------------------

def test_if_defined_my_attr_and_simple_conditions() -> None:
    rules = """\
if defined MY.WantJobRouter
  SET A 1
elif defined MY.Owner
  SET A 2
else
  SET A 3
endif
if ! defined MY.Missing
  SET B true
endif
if version >= 8.0
  SET C 1
endif
if 0
  SET D 1
elif yes
  SET D 2
endif
"""
    out = run(rules)
    assert (out.evaluate("A"), out.evaluate("B"), out.evaluate("C"), out.evaluate("D")) == (
        1, True, 1, 2)


def test_a_complex_condition_is_refused_with_htcondors_reason() -> None:
    with pytest.raises(TransformError) as caught:
        parse_transform("if MY.RequestMemory > 10\nSET A 1\nendif\n", source="JOB_TRANSFORM_x")
    assert str(caught.value) == (
        "JOB_TRANSFORM_x, line 1: MY.RequestMemory > 10 is not a valid if condition "
        "because complex conditionals are not supported")


def test_a_complex_condition_made_by_a_macro_is_taken_only_when_true() -> None:
    rules = "c = RequestMemory > $(limit)\nif $(c)\n SET A 1\nelse\n SET A 2\nendif\n"
    assert value("limit = 10\n" + rules) == 1
    result = apply(parse_transform("limit = 5000\n" + rules), JOB)
    assert not result.ok and "is not a valid if condition" in result.error


# -- hoisted statements ----------------------------------------------------------------------

def test_requirements_name_universe_are_hoisted_the_last_requirements_wins() -> None:
    xform = parse_transform(
        "SET A 1\nREQUIREMENTS false\nif true\n REQUIREMENTS JobUniverse == 5\nendif\n"
        "UNIVERSE grid\nNAME other\n", name="route")
    assert xform.requirements_text == "JobUniverse == 5"
    assert xform.universe == 9 and xform.name == "route"
    assert xform.matches(JOB)
    assert parse_transform("NAME other\n", name_from_text=True).name == "other"


@pytest.mark.parametrize(
    ("requirements", "matches"),
    [("true", True), ("Undef", False), ('"yes"', False), ("5", True), ("0", False),
     ("WantJobRouter", True), ("MY.WantJobRouter", True), ("target.WantJobRouter", False),
     ("JobUniverse == 9", False)],
)  # fmt: skip
def test_requirements_see_the_job_as_my_and_no_target(requirements: str, matches: bool) -> None:
    assert parse_transform(f"REQUIREMENTS {requirements}\n").matches(JOB) is matches


def test_transform_ends_the_rules() -> None:
    xform = parse_transform("SET A 1\nTRANSFORM 1\nSET B 2\nbogus line\n")
    out = apply(xform, JOB).ad
    assert "A" in out and "B" not in out
    assert parse_transform("TRANSFORM 2 x in (p, q)\n").iterate == "2 x in (p, q)"
    assert parse_transform("TRANSFORM 0\n").iterate == ""


# -- line syntax ----------------------------------------------------------------------------

def test_comments_and_continuations() -> None:
    rules = "# a comment\nSET A 1 + \\\n    2\n\n  SET B 3\n"
    out = run(rules)
    assert str(out["A"]) == "1 + 2" and out.evaluate("B") == 3


def test_no_trailing_comments_the_statement_is_skipped_with_htcondors_message() -> None:
    xform = parse_transform("SET A 1 # c\nSET B 2\n", source="r")
    assert [str(w) for w in xform.warnings] == ["r, line 1: SET A invalid expression : 1 # c"]
    result = apply(xform, JOB)
    assert result.ok and "A" not in result.ad and result.ad.evaluate("B") == 2
    assert result.messages == ["ERROR: SET A invalid expression : 1 # c"]


def test_set_with_equals_or_comma() -> None:
    assert value("SET A = 5") == 5
    assert value("EVALMACRO m = 2\nSET A $(m)") == 2


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("SET A 1\nFROB A 1\n", 2, "FROB is not a valid transform keyword"),
        ("SET A\n", 1, "SET needs 2 arguments"),
        ("DELETE\n", 1, "DELETE needs an attribute name"),
        ("else\n", 1, "else without matching if"),
        ("if true\nSET A 1\n", 1, "endif(s) not found before end-of-file"),
        ("if true\nelse\nelse\nendif\n", 3, "else is not allowed after else"),
        ("x @=end\nfoo\n", 1, "Found end-of-file while scanning for '@end'"),
        ("REQUIREMENTS (x\n", 1, "invalid REQUIREMENTS : (x"),
        ("DELETE /abc\n", 1, "DELETE: invalid regex"),
        ("SET A, 5\n", 1, "SET A,: write the attribute and its value apart (SET A ... or SET A = ...)"),
        ("SET 1A 5\n", 1, "SET: '1A' is not an attribute name"),
        ("if foo\nendif\n", 1, "foo is not a valid if condition because expression is not a conditional"),
        ("include : x\n", 1, "include is not allowed in a transform"),
        ("a b = 5\n", 1, "a is not a valid transform keyword"),
    ],
)  # fmt: skip
def test_errors_name_the_source_the_line_and_what_is_wrong(text: str, line: int, reason: str) -> None:
    with pytest.raises(TransformError) as caught:
        parse_transform(text, source="JOB_ROUTER_ROUTE_Site1")
    assert (caught.value.source, caught.value.line, caught.value.reason) == (
        "JOB_ROUTER_ROUTE_Site1", line, reason)


def test_error_and_warning_lines() -> None:
    result = apply(parse_transform("warning : careful $(x)\nx = 1\nerror : stop $(x)\nSET A 1\n"), JOB)
    assert result.messages == ["Warning: careful "]
    assert not result.ok and result.error == "line 3: Error: stop 1" and "A" not in result.ad


def test_apply_does_not_change_its_arguments() -> None:
    before = JOB.copy()
    run("SET Owner \"x\"\nDELETE Cmd\n")
    assert JOB == before


def test_apply_all_shares_macros_and_tests_each_requirements_on_the_ad_so_far() -> None:
    first = parse_transform("m = from-first\nSET Stage 1\n", name="first")
    second = parse_transform('REQUIREMENTS Stage == 1\nSET Got "$(m)"\n', name="second")
    third = parse_transform("REQUIREMENTS Stage == 2\nSET Never 1\n", name="third")
    result = apply_all([first, second, third], JOB)
    assert result.ok and result.applied == ["first", "second"]
    assert result.ad.evaluate("Got") == "from-first" and "Never" not in result.ad


def test_steps_are_logged_as_htcondor_prints_them() -> None:
    result = apply(parse_transform("SET A 1\nDEFAULT Owner 2\nRENAME Cmd X\n"), JOB)
    assert result.steps == ["SET A to 1", "DEFAULT Owner to 2", "RENAME Cmd to X"]
