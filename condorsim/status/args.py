"""condor_status's command line, read into a :class:`StatusRequest`.

How this works
--------------
The options are condor_status's, matched by the same prefixes in the same order
(:class:`~condorsim.tools.cliargs.ToolArgs`): ``-sc`` is ``-schedd``, ``-tot`` ``-total``,
``-af`` ``-autoformat``, ``-con`` ``-constraint``. An ad type flag picks the view
(``-schedd``, ``-submitters``, ``-master``, ``-negotiator``, ``-collector``, ``-any``);
a slot flag picks a slot view (``-avail``, ``-claimed``, ``-state``, ``-server``);
``-run`` is the ``-claimed`` view after a slot flag and the schedds that run jobs
otherwise (HTCondor's choice since 8.5.7). ``-long``/``-json``/``-af``/``-format`` choose
the form. The query is condor_status's: ``-constraint`` expressions ANDed, then the
view's own constraint and the names given (``Name=="n" || Machine=="n"``; RemoteUser
for ``-claimed``) ORed. Expressions are checked before anything is asked of the pool.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAdSyntaxError, parse_expr
from condorsim.tools.cliargs import ArgsError, ToolArgs
from condorsim.tools.q import Columns

from .compact import WHERE as COMPACT_WHERE
from .views import style

USAGE = """\
Usage: condorsim status [help-opt] [query-opt] [display-opt] [custom-opts ...] [name ...]
    where [help-opt] is
\t-help\t\t\tThis screen
    and [query-opt] is one of
\t-any\t\t\tDisplay any ads
\t-collector\t\tDisplay collector daemon ads
\t-master\t\t\tDisplay daemon master ads
\t-negotiator\t\tDisplay negotiator daemon ads
\t-schedd\t\t\tDisplay attributes of schedds
\t-submitters\t\tDisplay information about request submitters
\t-avail\t\t\tDisplay available (Unclaimed) slots
\t-claimed\t\tDisplay claimed slots
\t-run\t\t\tDisplay schedds running jobs (slots running jobs after a slot option)
\t-slots\t\t\tDisplay slot ads (the default)
\t-state\t\t\tDisplay slot state and times
\t-server\t\t\tDisplay slot memory, disk and speed
\t-compact\t\tDisplay one line per machine
\t-ads[:<form>] <file>\tGet ads from <file> (no pool needed)
    and [display-opt] is one of
\t-long[:<form>]\t\tDisplay entire classads (json, new or long form)
\t-json\t\t\tDisplay entire classads as JSON
\t-attributes X,Y,...\tAttributes to show with -long or -json
\t-format <fmt> <attr>\tPrint attribute attr using format fmt
\t-af[:jlhVr,tng] <attr> [attr2 [...]]
\t\t\t\tPrint attr(s) with automatic formatting
\t-total\t\t\tDisplay totals only
\t-wide\t\t\tDon't truncate data to fit in 80 columns
\t-constraint <const>\tAdd constraint on classads
\t-version\t\tPrint the version
    and [name ...] are slot or machine names (user names with -claimed)
"""


class StatusArgError(Exception):
    """Bad ``condorsim status`` arguments."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class StatusRequest:
    """What ``condorsim status`` asks for and how it shows the answer."""

    style: str = "slots"
    form: str = "table"  # table, long, json, new, custom
    constraint: str = ""
    columns: list[tuple[str, list[str]]] = field(default_factory=list)
    af_options: str = ""
    attributes: list[str] = field(default_factory=list)
    totals_only: bool = False
    wide: bool = False
    width: int = 0  # -wide:N
    compact: bool = False
    ads_file: str | None = None
    ads_form: str = "auto"
    help: bool = False
    version: bool = False

    @property
    def adtype(self) -> str:
        return style(self.style).adtype


class _Slots(argparse.Action):
    """``-slots``: the slot view, and not compact (condor_status resets -compact)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        namespace.modes = [*(namespace.modes or []), "slots"]
        namespace.compact = False


def parser() -> ToolArgs:
    """condor_status's options, in its order."""
    t = ToolArgs("condorsim status")
    flag: dict[str, Any] = {"action": "store_true"}

    def mode(name: str, shortest: int, value: str, **kw: object) -> None:
        t.option(name, shortest, action="append_const", const=value, dest="modes", **kw)  # type: ignore[arg-type]

    mode("avail", 2, "avail")
    t.option("pool", 1)
    t.option("ads", 2, colon=True)
    t.option("format", 1, nargs=2, action=Columns, dest="columns")
    t.option("autoformat", 5, aliases=[("af", 2)], colon="af", nargs="+", action=Columns,
             dest="columns")
    t.option("print-format", 2, colon=True)
    t.option("wide", 3, colon=True, **flag)
    t.option("natural", 3, colon=True, **flag)
    t.option("target", 4)
    t.option("constraint", 3, action="append", default=[])
    t.option("direct", 3)
    t.option("defrag", 3, **flag)
    t.option("help", 1, **flag)
    t.option("limit", 2, type=int)
    t.option("long", 1, colon=True, **flag)
    t.option("xml", 1, **flag)
    t.option("json", 2, **flag)
    t.option("attributes", 2, action="append", default=[])
    mode("claimed", 2, "claimed")
    mode("run", 1, "run")
    t.option("gpus", 3, **flag)
    t.option("slots", 2, action=_Slots, nargs=0, dest="modes")
    t.option("compact", 3, action="store_const", const=True, dest="compact")
    t.option("nocompact", 5, action="store_const", const=False, dest="compact")
    mode("server", 2, "server")
    mode("state", 4, "state")
    t.option("startd", 4, **flag)
    mode("schedd", 2, "schedd")
    t.option("grid", 1, **flag)
    t.option("subsystem", 4)
    mode("negotiator", 1, "negotiator")
    mode("any", 2, "any")
    t.option("sort", 2)
    mode("submitters", 4, "submitters")
    mode("master", 1, "master")
    mode("collector", 3, "collector")
    mode("world", 1, "collector")
    t.option("total", 1, **flag)
    t.option("expert", 1, **flag)
    t.option("version", 3, **flag)
    return t


_SUBSYSTEMS = {"schedd": "schedd", "submitters": "submitters", "slots": "slots",
               "machine": "slots", "negotiator": "negotiator", "master": "master",
               "collector": "collector", "accounting": "accounting"}


def _check(text: str, what: str) -> None:
    try:
        parse_expr(text)
    except ClassAdSyntaxError as err:
        raise StatusArgError(f"{what} {text!r} is not a valid ClassAd expression: {err}") from None


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _style(modes: Sequence[str]) -> str:
    """The view the mode flags pick, as condor_status's ``setMode`` does."""
    chosen: str | None = None
    for name in modes:
        if name == "run":
            chosen = "claimed" if chosen in ("slots", "claimed") else "schedd_run"
        elif name == "schedd":
            chosen = "schedd_run" if chosen == "claimed" else (
                chosen if chosen in ("schedd", "schedd_run") else "schedd")
        else:
            chosen = name
    return chosen or "slots"


def parse_status_args(argv: Sequence[str]) -> StatusRequest:
    """Parse condor_status-style arguments; raises :class:`StatusArgError`."""
    try:
        args: argparse.Namespace = parser().parse(argv)
    except ArgsError as e:
        raise StatusArgError(str(e)) from None
    if args.help:
        return StatusRequest(help=True)
    if args.version:
        return StatusRequest(version=True)
    for name in ("pool", "print_format", "target", "direct", "defrag", "gpus", "startd",
                 "grid", "sort", "xml"):
        if getattr(args, name, None):
            raise StatusArgError(f"-{name.replace('_', '-')} is not supported by condorsim")
    modes = list(args.modes or [])
    if args.subsystem:
        sub = _SUBSYSTEMS.get(args.subsystem.lower())
        if sub is None:
            raise StatusArgError(f"-subsystem {args.subsystem} is not supported by condorsim")
        modes.append(sub)
    req = StatusRequest(style=_style(modes))
    st = style(req.style)
    req.compact = bool(args.compact)
    if req.compact and req.style not in COMPACT_WHERE:
        raise StatusArgError("-compact is only for slot ads (the slot, -avail, -claimed, "
                             "-state and -server views)")
    ands = list(args.constraint)
    for text in ands:
        _check(text, "-constraint")
    if st.where:
        ands.append(st.where)
    ors = [st.constraint] if st.constraint and not req.compact else []
    if req.compact:  # condor_status ANDs the compact views' own constraints
        ands.extend(COMPACT_WHERE[req.style])
    for name in args.words:
        if req.style == "claimed":
            ors.append(f"RemoteUser == {_quote(name)}")
        else:
            ors.append(f"Name=={_quote(name)} || Machine=={_quote(name)}")
    parts = []
    for items, op in ((ands, " && "), (ors, " || ")):
        if items:
            parts.append("(" + "".join((" " if i == 0 else op) + f"({c})"
                                       for i, c in enumerate(items)) + " )")
    req.constraint = " && ".join(parts)
    req.attributes = [a for spec in args.attributes for a in spec.split(",") if a]
    req.totals_only = bool(args.total)
    req.wide = bool(args.wide)
    wide_suffix = args.colons.get("wide")
    if args.wide and wide_suffix and wide_suffix.isdigit():
        req.width = int(wide_suffix)
        req.wide = req.width > 100
    if args.ads:
        req.ads_file = args.ads
        req.ads_form = args.colons.get("ads") or "auto"
    if args.columns:
        req.form = "custom"
        req.columns = list(args.columns)
        req.af_options = args.colons.get("af", "")
        for kind, values in args.columns:
            for text in (values[1:] if kind == "format" else values):
                _check(text, "-af argument" if kind == "af" else "-format attribute")
    elif args.json:
        req.form = "json"
    elif args.long:
        form = args.colons.get("long") or "long"
        req.form = form if form in ("long", "json", "new") else "long"
    return req
