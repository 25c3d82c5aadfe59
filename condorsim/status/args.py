"""condor_status's command-line arguments, parsed into a :class:`StatusRequest`.

How this works
--------------
One pass over the arguments: a type flag (``-schedd``, ``-submitters``, ``-master``,
``-negotiator``, ``-collector``, ``-any``; a flag may be shortened as condor_status
allows) picks the ad type and its table view; ``-long``/``-l`` and ``-af`` pick the long
and autoformat views instead; ``-constraint`` expressions are ANDed; bare names become
``Name == n || Machine == n``, ORed. Expressions are syntax-checked here so a typo is
reported before any query. The projection is what the view reads plus the sort keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from condorsim.classad import ClassAdSyntaxError, parse_expr

from . import views as _views

USAGE = """\
Usage: condorsim status [options] [name ...]
    Ad types (default: slot ads)
        -schedd             schedd ads
        -submitters         submitter ads
        -master             master ads
        -negotiator         negotiator ads
        -collector          collector ads
        -any                ads of every type
    Views
        -long, -l           every attribute of each ad
        -autoformat, -af attr [attr ...]
                            one line per ad: the values of the attributes or expressions
    Selection
        -constraint expr    only ads for which expr is true (may be repeated: all must hold)
        name                only ads whose Name or Machine is name (may be repeated)
"""


class StatusArgError(Exception):
    """Bad ``condorsim status`` arguments; the message ends with the usage text."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{message}\n{USAGE}" if message else USAGE)
        self.reason = message


@dataclass(frozen=True)
class StatusRequest:
    """What ``condorsim status`` asks the collector for, and how it shows the answer."""

    adtype: str = "Machine"
    mode: str = "default"
    constraint: str | None = None
    projection: list[str] | None = None
    attrs: list[str] | None = None  # the -af attributes/expressions
    help: bool = False


_TYPE_FLAGS = {  # flag -> (shortest accepted prefix, ad type, view)
    "schedd": (2, "Scheduler", "schedd"),
    "submitters": (3, "Submitter", "submitters"),
    "master": (2, "DaemonMaster", "master"),
    "negotiator": (3, "Negotiator", "negotiator"),
    "collector": (3, "Collector", "collector"),
    "any": (3, "Any", "any"),
}


def _dash_word(arg: str) -> str | None:
    """"-schedd" / "--schedd" -> "schedd"; None for an argument that is not an option."""
    if not arg.startswith("-") or arg == "-":
        return None
    return arg[2:] if arg.startswith("--") else arg[1:]


def _is_prefix(word: str, full: str, shortest: int) -> bool:
    return len(word) >= shortest and full.startswith(word)


def _check_expr(text: str, what: str) -> None:
    try:
        parse_expr(text)
    except ClassAdSyntaxError as err:
        raise StatusArgError(f"{what} {text!r} is not a valid ClassAd expression: {err}") from None


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_status_args(argv: Sequence[str]) -> StatusRequest:
    """Parse condor_status-style arguments; raises :class:`StatusArgError` on bad ones."""
    adtype, view = "Machine", "default"
    form: str | None = None  # "long" or "af" when asked for
    constraints: list[str] = []
    names: list[str] = []
    af_attrs: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        word = _dash_word(arg)
        i += 1
        if word is None:
            names.append(arg)
        elif word in ("h", "help") or _is_prefix(word, "help", 2):
            return StatusRequest(help=True)
        elif word == "l" or _is_prefix(word, "long", 2):
            form = "long"
        elif word == "af" or _is_prefix(word, "autoformat", 5):
            form = "af"
            while i < len(args) and _dash_word(args[i]) is None:
                _check_expr(args[i], "-af argument")
                af_attrs.append(args[i])
                i += 1
            if not af_attrs:
                raise StatusArgError(f"{arg} needs at least one attribute")
        elif _is_prefix(word, "constraint", 4):
            if i >= len(args):
                raise StatusArgError(f"{arg} needs an expression")
            _check_expr(args[i], "-constraint")
            constraints.append(args[i])
            i += 1
        else:
            for flag, (shortest, flag_type, flag_view) in _TYPE_FLAGS.items():
                if _is_prefix(word, flag, shortest):
                    adtype, view = flag_type, flag_view
                    break
            else:
                raise StatusArgError(f"unknown option {arg}")

    parts = [f"({c})" for c in constraints]
    if names:
        parts.insert(0, "(" + " || ".join(
            f"(Name == {_quote(n)}) || (Machine == {_quote(n)})" for n in names) + ")")
    constraint = " && ".join(parts) if parts else None
    if len(parts) == 1:
        constraint = parts[0][1:-1]

    mode = form or view
    projection: list[str] | None
    if mode == "long":
        projection = None
    elif mode == "af":
        refs = [name for a in af_attrs for scope, name in sorted(parse_expr(a).references(),
                                                                  key=lambda r: r[1].lower())
                if scope in (None, "MY")]
        projection = _merge(refs, _views.SORT_ATTRS)
    else:
        projection = _merge(_views.projection_of(mode), _views.SORT_ATTRS)
    return StatusRequest(adtype, mode, constraint, projection, af_attrs or None)


def _merge(first: Sequence[str], second: Sequence[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for attr in (*first, *second):
        if attr.lower() not in seen:
            seen.add(attr.lower())
            out.append(attr)
    return out
