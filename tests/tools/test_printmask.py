"""The print-mask engine: HTCondor's AttrListPrintMask rules, one by one
(src/condor_utils/ad_printmask.cpp), and the command-line prefix rules (cliargs)."""

from __future__ import annotations

import pytest

from condorsim.classad import ClassAd, EvalContext
from condorsim.tools.cliargs import ArgsError, ToolArgs
from condorsim.tools.columns import af_mask, collapse_escapes, parse_af_options
from condorsim.tools.fmt import format_date, format_time
from condorsim.tools.printmask import Column, PrintMask

CTX = EvalContext(now=0)


def _ad(**attrs: object) -> ClassAd:
    ad = ClassAd()
    ad.update(attrs)
    return ad


def _row(*columns: Column, ad: ClassAd | None = None, **mask: object) -> str:
    return PrintMask(list(columns), **mask).display_ad(ad or _ad(A=7, S="text"), CTX)  # type: ignore[arg-type]


def test_widths_alignment_truncation() -> None:
    assert _row(Column("S", width=6)) == "  text\n"
    assert _row(Column("S", width=-6)) == "text  \n"
    assert _row(Column("S", width=2)) == "te\n"
    assert _row(Column("S", width=2, notruncate=True)) == "text\n"
    # a numeric printf result is padded on the left to the width, even in a left column
    assert _row(Column("A", width=-5, fmt="%d")) == "    7\n"
    assert _row(Column("A", fmt="%-4d"), Column("S")) == "7    text\n"


def test_invalid_values_show_the_or_text() -> None:
    assert _row(Column("Missing", width=6, fmt="%d", alt="??")) == "[????]\n"
    assert _row(Column("Missing", width=2, fmt="%d", alt="??")) == " ?\n"
    assert _row(Column("Missing", width=6, fmt="%d", alt="_")) == "     _\n"
    assert _row(Column("Missing", width=6, fmt="%d")) == "      \n"
    assert _row(Column("Missing", fmt="%v")) == "undefined\n"  # undefined is a value
    assert _row(Column("S", fmt="%d", alt="?")) == "?\n"  # a string is not a number


def test_separators_noprefix_hidden_and_overall_width() -> None:
    cols = [Column("A", fmt="%d"), Column("S", noprefix=True), Column("A", hidden=True),
            Column("S")]
    assert _row(*cols) == "7text text\n"
    assert _row(Column("S"), Column("S"), col_suffix=",") == "text, text\n"
    assert _row(Column("S"), Column("S"), overall_width=6) == "text t\n"


def test_autowidth_grows_over_every_rendered_row_and_headings_follow() -> None:
    mask = PrintMask([Column("S", "NAME", -4, autowidth=True, notruncate=True), Column("A", "N")])
    rows = [mask.render(_ad(S=s, A=1), CTX) for s in ("ab", "abcdef")]
    assert mask.headings() == "NAME   N\n"
    assert [mask.display(r) for r in rows] == ["ab     1\n", "abcdef 1\n"]


def test_percent_s_of_a_non_string_attribute_prints_its_expression() -> None:
    ad = ClassAd.parse_old("A = 1 + 2\nB = 3")
    assert PrintMask([Column("A", fmt="%s"), Column("B", fmt="%s")]).display_ad(ad, CTX) == \
        "1 + 2 3\n"


def test_autoformat_options() -> None:
    ad = _ad(ClusterId=4, ProcId=2, S="x y")
    assert af_mask(["S"], parse_af_options("j")).display_ad(ad, CTX) == "4.2 x y\n"
    assert af_mask(["S", "ProcId"], parse_af_options("V,")).display_ad(ad, CTX) == '"x y", 2\n'
    assert af_mask(["S", "ProcId"], parse_af_options("g")).display_ad(ad, CTX) == "\nx y2\n"
    assert af_mask(["S", "ProcId"], parse_af_options("n")).display_ad(ad, CTX) == "x y\n 2\n"


def test_format_helpers() -> None:
    assert format_time(0) == "  0+00:00:00"
    assert format_time(90061) == "  1+01:01:01"
    assert format_time(1000 * 86400) == "1000+00:00:00"
    assert format_date(1767225600, "UTC") == " 1/1  00:00"
    assert format_date(1767225600 + 86400 * 300, "UTC") == "10/28 00:00"
    assert format_date(-1, "UTC") == "    ???    "
    assert collapse_escapes(r"%d\n\t\101") == "%d\n\tA"


def test_options_match_from_their_shortest_prefix_first_declared_wins() -> None:
    t = ToolArgs("t")
    t.option("constraint", 3, action="append", default=[])
    t.option("collector", 3, action="store_true")
    t.option("compact", 3, action="store_true")
    t.option("af", 2, colon="af", nargs="+", action="append")
    args = t.parse(["w", "-cons", "A", "--constraint", "B", "-col", "-com", "-af:jh", "X", "Y"])
    assert (args.constraint, args.collector, args.compact) == (["A", "B"], True, True)
    assert (args.af, args.colons, args.words) == ([["X", "Y"]], {"af": "jh"}, ["w"])
    for bad in (["-co"], ["-constraintx"], ["-cons"]):
        with pytest.raises(ArgsError):
            t.parse(bad)
