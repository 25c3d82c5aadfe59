"""Arbitrary rule text either parses or raises TransformError -- never another exception --
and applying a parsed transform never raises, whatever the ad."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.transform import KEYWORDS, TransformError, apply, parse_transform

WORDS = st.sampled_from(
    [*KEYWORDS, *(k.lower() for k in KEYWORDS), "if", "elif", "else", "endif", "defined",
     "MY.Owner", "MY.x", "Owner", "A", "b_2", "x", "=", ",", "/Own(.)r/", "/x/i", "/(", "\\1",
     "\\0", "$(x)", "$(MY.Owner)", "$(y:def)", "$INT(x)", "$INT(abc)", "$CHOICE(1,a,b)",
     "$CHOICE(9,a)", "$EVAL(1+)", "$RANDOM_INTEGER(1,3)", "$ENV(HOME)", "$(DOLLAR)", "1", "2.5",
     '"s"', "'q'", "(", ")", "&&", "||", "!", "version", ">=", "8.0", "true", "false",
     "undefined", "error", "@=end", "@end", "#", ":", "+x", "error :", "warning :", "\\",
     "RequestMemory", "strcat(Owner,\"x\")", "{1,2}", "[a=1]", "time()", "x @=end"]
)
LINE = st.lists(WORDS, max_size=6).map(" ".join)
JUNK = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)
TEXT = st.lists(st.one_of(LINE, LINE, LINE, JUNK), max_size=12).map("\n".join)

ATTR = st.sampled_from(["Owner", "x", "A", "b_2", "RequestMemory", "New", "Undef"])
EXPR = st.sampled_from(["1", "x + 1", '"s"', "$(m)", "$(MY.x)", "$(MY.Owner)", "strcat(Owner)",
                        "$INT(MY.x)", "$INT(m)", "$REAL(2.5)", "{1, $(m)}", "(", "$EVAL(x*2)",
                        "$CHOICE(1,a,b)", "$SUBSTR(m,1)", "time()", "undefined", "$(y)"])
CONDITION = st.sampled_from(["defined MY.x", "! defined MY.Owner", "true", "0", "$(m)",
                             "defined m", "version > 9.0", "$(MY.x)", "defined y"])


@st.composite
def statements(draw: st.DrawFn, depth: int = 0) -> list[str]:
    out: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["set", "two", "one", "macro", "if", "regex"]))
        if kind == "set":
            word = draw(st.sampled_from(["SET", "DEFAULT", "EVALSET", "EVALMACRO"]))
            out.append(f"{word} {draw(ATTR)} {draw(st.sampled_from(['', '= ']))}{draw(EXPR)}")
        elif kind == "two":
            word = draw(st.sampled_from(["COPY", "RENAME"]))
            out.append(f"{word} {draw(ATTR)} {draw(st.sampled_from(['New', '$(m)', 'bad name']))}")
        elif kind == "one":
            out.append(f"DELETE {draw(ATTR)}")
        elif kind == "regex":
            word = draw(st.sampled_from(["COPY", "RENAME", "DELETE"]))
            out.append(f"{word} /{draw(st.sampled_from(['(.)', '^x', 'own(er)', '[']))}/ Z\\1")
        elif kind == "macro":
            out.append(f"{draw(st.sampled_from(['m', 'y']))} = {draw(EXPR)}")
        elif depth < 2:
            out.append(f"if {draw(CONDITION)}")
            out += draw(statements(depth + 1))
            if draw(st.booleans()):
                out.append(f"elif {draw(CONDITION)}")
                out += draw(statements(depth + 1))
            if draw(st.booleans()):
                out.append("else")
                out += draw(statements(depth + 1))
            out.append("endif")
    return out


VALID_TEXT = statements().map("\n".join)

ADS = st.sampled_from(
    [
        ClassAd(),
        ClassAd.parse_old('Owner = "alice"\nx = 5\nRequestMemory = 10\nA = undefined\n'),
        ClassAd.parse_old("Owner = 3\nb_2 = {1, 2}\nx = \"y\"\n"),
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(TEXT, VALID_TEXT), ad=ADS)
def test_rules_parse_or_raise_transform_error_and_apply_never_raises(text: str, ad: ClassAd) -> None:
    try:
        xform = parse_transform(text, source="rules")
    except TransformError as exc:
        assert exc.source == "rules" and exc.reason
        return
    result = apply(xform, ad)
    assert result.ok or result.error
    xform.matches(ad)
    xform.formatted()
