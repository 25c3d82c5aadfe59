"""The configuration language: assignments, expansion, multi-line values, prefixes, if/else."""

from __future__ import annotations

import pytest

from condorsim.config import Config, ConfigError


def cfg(text: str, **kwargs: object) -> Config:
    return Config.from_text(text, name="pool.conf", **kwargs)  # type: ignore[arg-type]


# -- assignments -------------------------------------------------------------------------


def test_names_are_case_insensitive_and_keep_their_first_spelling() -> None:
    c = cfg("My_Knob = one\nMY_KNOB=two\n")
    assert c.get("my_knob") == "two"
    assert c.names() == ["My_Knob"]
    assert c.where("MY_KNOB") == "pool.conf, line 2"


def test_value_keeps_inner_spaces_and_hashes_but_not_outer_spaces() -> None:
    c = cfg("A   =    x  y # not a comment   \n")
    assert c.get("A") == "x  y # not a comment"


def test_empty_value_is_not_defined_but_is_set() -> None:
    c = cfg("A =\n")
    assert c.get("A") is None
    assert c.get_raw("A") == ""
    assert c.names() == ["A"]


def test_comments_blank_lines_and_ini_headers_are_ignored() -> None:
    c = cfg("# a comment\n\n   # indented comment\n[HTCondor Settings]\nA = 1\n")
    assert c.names() == ["A"]


def test_name_may_contain_macros() -> None:
    c = cfg("PREFIX = MY\n$(PREFIX)_KNOB = 5\n")
    assert c.get("MY_KNOB") == "5"


def test_obsolete_colon_assignment_is_accepted_with_a_warning() -> None:
    c = cfg("A : 1\n")
    assert c.get("A") == "1"
    assert c.warnings == ("pool.conf, line 1: warning: obsolete use of ':' for parameter assignment at A : 1",)


def test_line_continuation_joins_lines() -> None:
    c = cfg("A = x \\\n   y \\\n z\nB = 1\n")
    assert c.get("A") == "x y z"
    assert c.where("B") == "pool.conf, line 4"


def test_continuation_without_space_joins_words() -> None:
    assert cfg("A = ab\\\ncd\n").get("A") == "abcd"


def test_comment_inside_a_continuation_is_dropped() -> None:
    # The manual's two examples: both give A = $(B) $(D).
    one = cfg("A = $(B) \\\n# $(C)\n$(D)\n")
    two = cfg("A = $(B) \\\n# $(C) \\\n$(D)\n")
    assert one.get_raw("A") == two.get_raw("A") == "$(B) $(D)"


def test_comment_ending_in_backslash_does_not_continue() -> None:
    c = cfg("# a comment \\\nA = 1\n")
    assert c.get("A") == "1"


# -- expansion -------------------------------------------------------------------------


def test_expansion_is_lazy() -> None:
    c = cfg("C = $(A)\nA = xxx\nA = yyy\n")
    assert c.get("C") == "yyy"
    assert c.get_raw("C") == "$(A)"


def test_self_reference_appends_to_the_previous_value() -> None:
    # The manual's example: the result of A is xxxyyyzzz, and B (bound to $(A)) too.
    c = cfg("A = xxx\nB = $(A)\nA = $(A)yyy\nA = $(A)zzz\n")
    assert c.get("A") == "xxxyyyzzz"
    assert c.get("B") == "xxxyyyzzz"


def test_self_reference_uses_the_table_default() -> None:
    assert cfg("DAEMON_LIST = $(DAEMON_LIST) SCHEDD\n").get("DAEMON_LIST") == "MASTER SCHEDD"


def test_self_reference_keeps_other_references_raw() -> None:
    c = cfg("A = $(B)\nA = $(A) more\nB = late\n")
    assert c.get_raw("A") == "$(B) more"
    assert c.get("A") == "late more"


def test_undefined_reference_expands_to_nothing() -> None:
    assert cfg("MAX_ALLOC_CPUS = $(NUMCPUS_X)-1\n").get("MAX_ALLOC_CPUS") == "-1"


def test_default_value_when_undefined_or_empty() -> None:
    c = cfg("EMPTY =\nA = $(NOPE:4)-1\nB = $(EMPTY:4)\nC = $(SET:4)\nSET = 7\n")
    assert (c.get("A"), c.get("B"), c.get("C")) == ("4-1", "4", "7")


def test_default_may_be_a_macro() -> None:
    c = cfg("OTHER = 3\nA = $(NUMCPUS_X:$(OTHER))-1\n")
    assert c.get("A") == "3-1"


def test_default_is_not_used_when_the_value_merely_expands_to_nothing() -> None:
    # HTCondor looks at the raw value: "$(NOTHING)" is not empty.
    assert cfg("A = $(NOTHING)\nB = $(A:dflt)\n").get("B") is None


def test_table_defaults_are_macros_too() -> None:
    c = cfg("LOCAL_DIR = /pool\n")
    assert c.get("LOG") == "/pool/log"
    assert c.get("JOB_QUEUE_LOG") == "/pool/spool/job_queue.log"
    assert c.where("LOG") == "<default>"


def test_dollar_macro_and_double_dollar() -> None:
    c = cfg("A = cost $(DOLLAR)5 and $$(Memory) and $x\n")
    assert c.get("A") == "cost $5 and $$(Memory) and $x"


def test_dollar_macro_result_is_not_expanded_again() -> None:
    assert cfg("B = b\nA = $(DOLLAR)(B)\n").get("A") == "$(B)"


def test_malformed_references_are_copied() -> None:
    assert cfg("A = $(not a name) $( $(\n").get("A") == "$(not a name) $( $("


def test_recursion_is_an_error_naming_the_chain() -> None:
    c = cfg("A = $(B)\nB = $(C)\nC = $(A)\n")
    with pytest.raises(ConfigError) as err:
        c.get("A")
    assert str(err.value) == "pool.conf, line 1: A: macro expansion is recursive: A -> B -> C -> A"


def test_very_deep_nesting_is_an_error() -> None:
    text = "".join(f"K{i} = $(K{i + 1})\n" for i in range(100)) + "K100 = end\n"
    with pytest.raises(ConfigError, match="nested more than 64 deep"):
        cfg(text).get("K0")
    assert cfg(text).get("K50") == "end"


def test_env_macro() -> None:
    c = cfg("A = $ENV(HOME)\nB = $ENV(NOT_SET)\nC = $ENV(NOT_SET:fallback)\nD = $ENV(EMPTY)\n",
            env={"HOME": "/home/u", "EMPTY": ""})
    assert (c.get("A"), c.get("B"), c.get("C"), c.get("D")) == ("/home/u", "UNDEFINED", "fallback", None)


# -- function macros ---------------------------------------------------------------------


def test_substr_and_choice() -> None:
    c = cfg(
        "Name = abcdef\nA = $SUBSTR(Name, 2)\nB = $SUBSTR(Name, 0, -2)\nC = $SUBSTR(Name, 1, 3)\n"
        "D = $SUBSTR(Name, -1)\nE = $SUBSTR(Name, 4, -3)\nL = x, y, z\nF = $CHOICE(1, L)\n"
        "G = $CHOICE(2, p, q, r)\n"
    )
    assert [c.get(k) for k in "ABCDEFG"] == ["cdef", "abcd", "bcd", "f", None, "y", "r"]


def test_filename_macros() -> None:
    c = cfg(
        "F = /tmp/dir/simulate.exe\nA = $Fn(F)\nB = $Fx(F)\nC = $Fp(F)\nD = $BASENAME(F)\n"
        "E = $DIRNAME(F)\nG = $Fnq(F)\nH = $Fdb(F)\n"
    )
    assert [c.get(k) for k in "ABCDEGH"] == [
        "simulate", ".exe", "/tmp/dir/", "simulate.exe", "/tmp/dir/", '"simulate"', "dir"
    ]


@pytest.mark.usefixtures("evaluator")
def test_int_real_string_eval_macros() -> None:
    c = cfg(
        "X = 2\nY = 6\nXYArea = $(X) * $(Y)\nA = $INT(XYArea)\nB = $INT(XYArea,%04d)\n"
        "C = $INT(XYArea,Area=%d)\nD = $REAL(XYArea)\nE = $REAL(X,%.2f)\n"
        'S = toLower("HOST.Domain")\nF = $STRING(S)\nG = $EVAL(XYArea)\nH = $EVAL(S)\n'
    )
    assert [c.get(k) for k in "ABCDEFGH"] == ["12", "0012", "Area=12", "12", "2.00", "host.domain", "12", "host.domain"]


def test_random_macros_are_refused() -> None:
    c = cfg("A = $RANDOM_INTEGER(0, 8, 2)\n")
    with pytest.raises(ConfigError, match=r"pool.conf, line 1: A: \$RANDOM_INTEGER\(\) is not supported"):
        c.get("A")


# -- multi-line values -------------------------------------------------------------------


def test_multi_line_value_with_any_tag() -> None:
    c = cfg(
        "JOB_ROUTER_DEFAULTS @=jrd\n  [\n    MaxIdleJobs = 10;\n\n    # dropped\n"
        "    MaxJobs = 200;\n  ]\n  @jrd\nAFTER = 1\n"
    )
    assert c.get("JOB_ROUTER_DEFAULTS") == "[\nMaxIdleJobs = 10;\nMaxJobs = 200;\n]"
    assert c.where("JOB_ROUTER_DEFAULTS") == "pool.conf, line 1"
    assert c.get("AFTER") == "1"


def test_multi_line_value_lines_are_not_statements() -> None:
    c = cfg("T @= end\nif defined X\nA = 1\n@other\n@end\n")
    assert c.get("T") == "if defined X\nA = 1\n@other"
    assert c.get("A") is None


def test_multi_line_value_self_reference_and_lazy_macros() -> None:
    c = cfg("T = first\nT @=end\n$(T)\n$(LATER)\n@end\nLATER = second\n")
    assert c.get("T") == "first\nsecond"


# -- subsystem and local name prefixes ------------------------------------------------------


def test_subsystem_prefix_applies_only_to_that_subsystem() -> None:
    text = "SCHEDD_INTERVAL = 120\nSCHEDD.SCHEDD_INTERVAL = 60\n"
    assert cfg(text, subsystem="SCHEDD").get("SCHEDD_INTERVAL") == "60"
    assert cfg(text, subsystem="schedd").where("SCHEDD_INTERVAL") == "pool.conf, line 2"
    assert cfg(text, subsystem="STARTD").get("SCHEDD_INTERVAL") == "120"
    assert cfg(text).get("SCHEDD_INTERVAL") == "120"


def test_with_subsystem_reads_again() -> None:
    c = cfg("X = plain\nMASTER.X = for master\n")
    assert c.with_subsystem("MASTER").get("X") == "for master"
    assert c.with_subsystem("MASTER").subsystem == "MASTER"
    assert c.with_subsystem(None).get("X") == "plain"


def test_references_see_the_subsystem_value() -> None:
    # The manual's FILESPEC example.
    text = "FILESPEC = A\nMASTER.FILESPEC = B\nUSEFILE = mydir/$(FILESPEC)\n"
    assert cfg(text, subsystem="MASTER").get("USEFILE") == "mydir/B"
    assert cfg(text, subsystem="SCHEDD").get("USEFILE") == "mydir/A"


def test_subsystem_self_reference_appends_when_read_by_that_subsystem() -> None:
    text = "X = base\nSCHEDD.X = $(X) more\n"
    assert cfg(text, subsystem="SCHEDD").get("X") == "base more"
    assert cfg(text).get("SCHEDD.X") == "base more"


def test_table_default_table_under_subsystem() -> None:
    assert cfg("", subsystem="SCHEDD").get("SCHEDD_INTERVAL") == "300"
    assert cfg("", subsystem="SCHEDD").get("SUBSYSTEM") == "SCHEDD"
    assert cfg("").get("SUBSYSTEM") is None


def test_local_name_comes_before_subsystem() -> None:
    text = "SCHEDD_NAME = a\nSCHEDD.SCHEDD_NAME = b\nXYZZY.SCHEDD_NAME = c\nSCHEDD.XYZZY.SCHEDD_NAME = d\n"
    assert cfg(text, subsystem="SCHEDD", local_name="xyzzy").get("SCHEDD_NAME") == "c"
    assert cfg(text, subsystem="SCHEDD").get("SCHEDD_NAME") == "b"


# -- if / elif / else ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("true", "yes"), ("False", "no"), ("yes", "yes"), ("no", "no"), ("t", "yes"), ("f", "no"),
        ("1", "yes"), ("0", "no"), ("-2.5", "yes"), ("0.0", "no"),
        ("defined SET", "yes"), ("defined NOPE", "no"), ("defined EMPTY", "no"),
        ("defined NEGOTIATOR_INTERVAL", "yes"), ("!defined SET", "no"), ("defined 12", "yes"),
        ("defined use ROLE", "yes"), ("defined use ROLE:Personal", "yes"),
        ("defined use ROLE:Nope", "no"), ("defined use NOPE", "no"),
        ("$(SET)", "yes"), ("$(EMPTY)", "no"), ("$(NOPE)", "no"), ("! $(NOPE)", "yes"),
        ("version >= 8.1.6", "yes"), ("version < 8.1.6", "no"), ("version == 24.0", "yes"),
        ("version > 24.0", "no"), ("version >= 24.0.24", "yes"), ("version != 23.0", "yes"),
        ("version <= 99.0.0", "yes"),
    ],
)
def test_if_conditions(condition: str, expected: str) -> None:
    c = cfg(f"SET = true\nEMPTY =\nif {condition}\n  R = yes\nelse\n  R = no\nendif\n")
    assert c.get("R") == expected


def test_elif_chain_takes_the_first_true_branch() -> None:
    c = cfg("if false\nR = 1\nelif true\nR = 2\nelif true\nR = 3\nelse\nR = 4\nendif\n")
    assert c.get("R") == "2"
    c = cfg("if false\nR = 1\nelif false\nR = 2\nelse\nR = 4\nendif\n")
    assert c.get("R") == "4"


def test_nested_if_inside_a_false_branch_is_not_evaluated() -> None:
    c = cfg("if false\n  if this is not a condition\n  R = 1\n  endif\nelse\n  R = 2\nendif\n")
    assert c.get("R") == "2"


def test_if_conditions_see_values_set_so_far() -> None:
    c = cfg("if defined LATER\nR = early\nendif\nLATER = 1\nif defined LATER\nS = late\nendif\n")
    assert (c.get("R"), c.get("S")) == (None, "late")


def test_colon_prefix_in_if_body_is_ignored() -> None:
    c = cfg(":if true\n:R = 1\nendif\n")
    assert c.get("R") == "1"


# -- templates (use) and error/warning -------------------------------------------------------


def test_use_role_personal() -> None:
    c = cfg("use ROLE : Personal\n")
    assert c.get("DAEMON_LIST") == "MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD"
    assert c.get("COLLECTOR_HOST") == "127.0.0.1:0"
    assert c.where("CONDOR_HOST") == "pool.conf, line 1"


def test_use_several_roles_build_the_daemon_list() -> None:
    c = cfg("use role:centralmanager\n@use ROLE : Submit, Execute\n")
    assert c.get_list("DAEMON_LIST") == ["MASTER", "COLLECTOR", "NEGOTIATOR", "SCHEDD", "STARTD"]


def test_use_policy_always_run_jobs_and_later_lines_override_it() -> None:
    c = cfg("use POLICY : ALWAYS_RUN_JOBS\nCLAIM_WORKLIFE = 600\n")
    assert (c.get("PREEMPT"), c.get("MaxJobRetirementTime"), c.get("CLAIM_WORKLIFE")) == (
        "False", "2147483647", "600")


def test_warning_line_is_recorded() -> None:
    c = cfg("X = 7\nwarning : X is $(X)\n")
    assert c.warnings == ("pool.conf, line 2: warning: X is 7",)


# -- origins -----------------------------------------------------------------------------------


def test_where_reports_every_kind_of_origin() -> None:
    c = Config.from_text(
        "A = 1\n", name="pool.conf", overrides={"B": "2"}, env={"_CONDOR_C": "3"}, subsystem="SCHEDD"
    )
    assert [c.where(n) for n in ("A", "B", "C", "LOG", "SUBSYSTEM", "NOPE")] == [
        "pool.conf, line 1", "<overrides>", "<environment>", "<default>", "<detected>", "<undefined>"
    ]
    assert c.names() == ["A", "B", "C"]
