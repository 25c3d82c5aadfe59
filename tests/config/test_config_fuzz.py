"""Whatever the text, reading and querying a configuration raises nothing but ConfigError."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.config import Config, ConfigError

NOWHERE = Path("/nonexistent-condorsim-fuzz-dir")

NAMES = ["A", "B", "SCHEDD.A", "SCHEDD_INTERVAL", "DAEMON_LIST", "X.Y", "$(A)", "@include", "use", "if"]
FRAGMENTS = [
    "$(A)", "$(B:def)", "$(A:$(B))", "$(DOLLAR)", "$$(A)", "$ENV(HOME)", "$ENV(X:y)", "$INT(A)",
    "$REAL(B,%.2f)", "$SUBSTR(A,1,2)", "$CHOICE(1,a,b)", "$CHOICE(A)", "$Fnx(A)", "$EVAL(A)",
    "$STRING(A,%s)", "$RANDOM_INTEGER(1,2)", "5 * 60", "true", "-1", "1e400", "\\", "#", "(", ")",
    ":", "=", "@=end", "@end", " ", ",", "'", '"',
]
KEYWORDS = [
    "if ", "elif ", "else", "endif", "include : ", "include ifexist : ", "use ROLE : ",
    "use POLICY : ", "error : ", "warning : ", "defined ", "version >= ", "!", "[section]", ":",
]

piece = st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(NAMES), st.text(max_size=6))
value = st.lists(piece, max_size=6).map("".join)
line = st.one_of(
    st.tuples(st.sampled_from(NAMES), st.sampled_from([" = ", "=", " : ", " @=end", " "]), value).map("".join),
    st.tuples(st.sampled_from(KEYWORDS), value).map("".join),
    value,
    st.text(max_size=20),
)
config_text = st.lists(line, max_size=12).map("\n".join)


def query(config: Config) -> None:
    for name in [*config.names(), "A", "B", "SCHEDD_INTERVAL", "LOG", "SIM_SPEED"]:
        for read in (config.get, config.get_raw, config.where, config.get_list):
            try:
                read(name)
            except ConfigError:
                pass
        for typed in (
            lambda n: config.get_int(n, 0),
            lambda n: config.get_float(n, 0.0),
            lambda n: config.get_bool(n, False),
        ):
            try:
                typed(name)
            except ConfigError:
                pass


@settings(deadline=None, max_examples=400)
@given(text=config_text, subsystem=st.sampled_from([None, "SCHEDD", "MASTER"]))
def test_random_text_raises_only_config_error(text: str, subsystem: str | None) -> None:
    try:
        config = Config.from_text(
            text, subsystem=subsystem, base_dir=NOWHERE, env={"HOME": "/h", "_CONDOR_B": "$(A)"},
            overrides={"OVER": "$(A)"},
        )
    except ConfigError as exc:
        assert str(exc)
        return
    query(config)
    try:
        query(config.with_subsystem("STARTD"))
    except ConfigError:
        pass
