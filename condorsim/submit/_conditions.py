"""The conditions of ``if`` and ``elif`` lines in a submit file.

How this works
--------------
HTCondor's config reader (which reads submit files too) accepts a small language after
``if``/``elif``, not ClassAd expressions: the condition is macro-expanded (an expansion to
nothing is false), a leading ``!`` negates it, and what remains must be one of

* a number (true when not zero) or ``true``/``false``, ``yes``/``no``, ``t``/``f``;
* ``defined <name>`` -- true when the macro has a non-empty value (a number or boolean
  is always defined); ``defined use <category>[:<name>]`` asks about the config's
  metaknobs;
* ``version <op> <major>.<minor>[.<sub>]`` -- compares HTCondor's version (24.0.24 for
  condorsim) with ``<``, ``<=``, ``==``, ``=``, ``>=``, ``>`` or ``!=``.

Anything else is refused with HTCondor's reason ("complex conditionals are not
supported", "expression is not a conditional"). The text is first characterized by
the kinds of characters it holds, as HTCondor's ``Characterize_config_if_expression``.
"""

from __future__ import annotations

from collections.abc import Callable

VERSION = (24, 0, 24)

# The config's metaknob categories and names (HTCondor 24.0 param_info.in), for
# ``if defined use CATEGORY[:NAME]``; submit's own tables (STRICT, TEMPLATE) are not
# consulted there, as in HTCondor.
_CONFIG_METAKNOBS = {
    "role": "personal execute submit centralmanager get_htcondor_central_manager "
    "get_htcondor_submit get_htcondor_execute",
    "feature": "policy_expr_fragments policy_hours_to_start testingmode_policy_values "
    "uwcs_desktop_policy_values assignaccountinggroup setjobattrfromusermap "
    "scheddusermapfile remote_runtime_config remote_config gpus monitor gpusmonitor "
    "pelicancache partitionableslot staticslots oneshotcronhook periodiccronhook "
    "continuouscronhook startdcronperiodic scheddcronperiodic startdcrononeshot "
    "scheddcrononeshot startdcroncontinuous scheddcroncontinuous "
    "childcollector krb oauth adstash commoncloudattributesgoogle jobshaveinstanceids "
    "commoncloudattributesaws hpc_annex ganglia",
    "security": "host_based with_authentication strong user_based get_htcondor_idtokens "
    "recommended_v9_0 recommended_v24_0 recommended fips",
    "policy": "desktop desktop_idle desktop_hours always_run_jobs uwcs_desktop "
    "limit_job_runtimes preempt_if_runtime_exceeds hold_if_runtime_exceeds "
    "startd_publish_cpususage preempt_if_cpus_exceeded hold_if_cpus_exceeded "
    "preempt_if_disk_exceeded hold_if_disk_exceeded preempt_if_memory_exceeded "
    "hold_if_memory_exceeded preempt_if want_hold_if onlyregisteredcheckpointdestinations",
    "experimental": "collectornode had hadsharedport hadfixedport hadreplication",
    "upgrade": "discard discardx discardif discardifx discard_vmware",
}

# Character classes of Characterize_config_if_expression.
_SPACE, _DIGIT, _ALPHA, _IDENT, _CMP, _SUM = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
_LOGIC, _GROUP, _MONEY, _COLON, _OTHER, _FLOAT, _MACRO = (
    0x40, 0x80, 0x100, 0x200, 0x400, 0x1000, 0x2000)  # fmt: skip
_WS = " \t\n\r\v\f"
_IFDEF_KINDS = frozenset(
    _ALPHA | _SPACE | extra
    for extra in (0, _COLON, _IDENT, _IDENT | _COLON, _DIGIT, _DIGIT | _IDENT, _DIGIT | _FLOAT,
                  _DIGIT | _IDENT | _FLOAT)
)  # fmt: skip


class ConditionError(Exception):
    """A condition HTCondor cannot evaluate; the text is its reason."""


def _is_alpha(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _literal(text: str, word: str, alone: bool = True) -> bool:
    """``matches_literal_ignore_case``: ``text`` (spaces around allowed) starts with
    ``word``; with ``alone`` nothing else follows, otherwise no letter or digit does."""
    s = text.lstrip(_WS)
    if s[: len(word)].lower() != word:
        return False
    rest = s[len(word) :]
    if alone:
        return not rest.strip(_WS)
    return not (rest[:1].isascii() and rest[:1].isalnum())


def characterize(expr: str, keyword_check: bool) -> str:
    """empty, number, bool, identifier, macro, version, ifdef or complex."""
    s = expr.lstrip(_WS)
    if not s:
        return "empty"
    begin = s
    p = 1 if s[0] == "-" else 0
    kinds = 0
    n = len(s)
    while p < n:
        ch = s[p]
        nxt = s[p + 1] if p + 1 < n else ""
        if "0" <= ch <= "9":
            kinds |= _DIGIT
        elif ch == ".":
            if kinds == _DIGIT or not nxt or "0" <= nxt <= "9":
                kinds |= _FLOAT
            else:
                kinds |= _IDENT
        elif ch in "eE":
            kinds |= _FLOAT if (kinds & ~_FLOAT) == _DIGIT else _ALPHA
        elif ch in "-+":
            if kinds != (_DIGIT | _FLOAT):
                kinds |= _SUM
        elif _is_alpha(ch):
            kinds |= _ALPHA
        elif ch in "_/":
            kinds |= _IDENT
        elif "<" <= ch <= ">" or (ch == "!" and nxt == "="):
            kinds |= _CMP
        elif ch == "$":
            kinds |= _MONEY | (_MACRO if nxt == "(" else 0)
        elif ch in _WS:
            if nxt and nxt not in _WS:
                kinds |= _SPACE
        elif ch in "&|":
            kinds |= _LOGIC
        elif ch in "{|}()[]":
            kinds |= _GROUP
        elif ch == ":":
            kinds |= _COLON
        else:
            kinds |= _OTHER
        p += 1
    if kinds == 0:
        return "empty"
    if kinds in (_DIGIT, _DIGIT | _FLOAT):
        return "number"
    if kinds == _ALPHA:
        if _literal(expr, "false") or _literal(expr, "true"):
            return "bool"
        if keyword_check and _literal(begin, "version"):
            return "version"
        if keyword_check and _literal(begin, "defined"):
            return "ifdef"
        return "identifier"
    if kinds in (_ALPHA | _DIGIT, _ALPHA | _DIGIT | _FLOAT, _ALPHA | _IDENT,
                 _ALPHA | _IDENT | _DIGIT, _ALPHA | _IDENT | _DIGIT | _FLOAT):  # fmt: skip
        return "identifier"
    if kinds in (_ALPHA | _SPACE | _CMP | _DIGIT, _ALPHA | _SPACE | _CMP | _DIGIT | _FLOAT):
        return "version" if keyword_check and _literal(begin, "version", False) else "complex"
    if kinds in _IFDEF_KINDS:
        return "ifdef" if keyword_check and _literal(begin, "defined", False) else "complex"
    if kinds & _MACRO and not kinds & ~(_MONEY | _IDENT | _ALPHA | _DIGIT | _MACRO | _COLON):
        return "macro"
    return "complex"


def _crufty_bool(text: str) -> bool | None:
    for word, value in (("yes", True), ("t", True), ("no", False), ("f", False)):
        if _literal(text, word):
            return value
    return None


def _c_atof(text: str) -> float:
    """C ``atof`` of a text the characterizer called a number."""
    s = text.strip(_WS)
    for end in range(len(s), 0, -1):
        try:
            return float(s[:end])
        except ValueError:
            continue
    return 0.0


def _version(expr: str) -> bool:
    s = expr.lstrip(_WS)[len("version") :].lstrip(_WS)
    negated = s[:1] == "!"
    s = s[1:] if negated else s
    op = 0
    if s[:1] and "<" <= s[0] <= ">":
        op = ord(s[0]) - ord("=")
        s = s[1:]
    or_equal = s[:1] == "="
    s = (s[1:] if or_equal else s).lstrip(_WS)
    if s[:1] in ("v", "V"):
        s = s[1:]
    fields: list[int] = []
    for part in s.split(".")[:3]:
        digits = ""
        for ch in part:
            if not "0" <= ch <= "9":
                break
            digits += ch
        if not digits:
            break
        fields.append(int(digits))
        if digits != part:
            break
    if len(fields) < 2 or fields[0] < 6:
        raise ConditionError("the version literal is invalid")
    given = (fields[0], fields[1], fields[2] if len(fields) > 2 else VERSION[2])
    diff = (VERSION > given) - (VERSION < given)
    result = diff == op or (or_equal and diff == 0)
    return not result if negated else result


def _defined(expr: str, lookup: Callable[[str], str | None]) -> bool:
    s = expr.lstrip(_WS)[len("defined") :].lstrip(_WS)
    if not s:
        return False
    kind = characterize(s, False)
    if kind == "identifier":
        value = lookup(s.strip(_WS))
        if value is None and _crufty_bool(s) is not None:
            return True
        return bool(value)
    if kind in ("number", "bool"):
        return True
    if s[:4].lower() == "use ":
        meta = s[4:].lstrip(_WS)
        if any(ch in meta for ch in " \t\r"):
            raise ConditionError("defined use meta argument with internal spaces will never match")
        category, colon, name = meta.partition(":")
        names = _CONFIG_METAKNOBS.get(category.lower())
        if names is None:
            return False
        return not colon or not name or name.lower() in names.split()
    raise ConditionError("defined argument must be param name, boolean, or number")


def evaluate(expr: str, lookup: Callable[[str], str | None]) -> bool:
    """``Evaluate_config_if`` of an expanded condition without its ``!``."""
    kind = characterize(expr, True)
    if kind == "number":
        return _c_atof(expr) != 0
    if kind == "bool":
        return _literal(expr, "true")
    if kind == "identifier":
        crufty = _crufty_bool(expr)
        if crufty is not None:
            return crufty
    if kind == "version":
        return _version(expr)
    if kind == "ifdef":
        return _defined(expr, lookup)
    if kind == "complex":
        raise ConditionError("complex conditionals are not supported")
    raise ConditionError("expression is not a conditional")


def test_condition(
    expr: str, expand: Callable[[str], str], lookup: Callable[[str], str | None]
) -> bool:
    """``Test_config_if_expression``: expand, honour a leading ``!``, evaluate."""
    expanded = False
    if "$" in expr:
        expr = expand(expr).rstrip(_WS)
        expanded = True
    expr = expr.lstrip(_WS)
    inverted = expr[:1] == "!"
    if inverted:
        expr = expr[1:].lstrip(_WS)
    value = False if expanded and not expr else evaluate(expr, lookup)
    return not value if inverted else value
