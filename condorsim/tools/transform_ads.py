"""``condorsim transform_ads``: transform ClassAds with rules, like condor_transform_ads.

How this works
--------------
The arguments are read as condor_transform_ads reads them (``-rules FILE``,
``-jobtransforms NAMES``, ``-jobroute NAME``, ``-in[:form] FILE``, ``-out[:form[,nosort]]
FILE``, ``-long``, ``-json``, ``KEY=VALUE``, ``-verbose``, ``-terse``,
``-convertoldroutes[:file FILE]``, ``-help [rules|convert]``; options may be shortened as
in HTCondor). Rules files are parsed with :func:`condorsim.transform.parse_transform`; a
rules file with no command only declares macros (``JOB_TRANSFORM_x = ...``) for a later
``-jobtransforms``/``-jobroute``, which otherwise read the pool's configuration (as
``condorsim config_val`` finds it). Each input ad is transformed by every rule set whose
REQUIREMENTS match it so far, sharing one macro table (``KEY=VALUE`` macros first), and
written out sorted by attribute (long form by default). A ``TRANSFORM`` statement with
arguments in the last rules file makes several ads from each input ad, as a submit
``queue`` statement makes jobs.

Where HTCondor 24's tool crashes or misbehaves, this one gives a clear error or does the
evident thing (docs/router.md): it exits 0 after writing ads (HTCondor: 1), refuses to run
with no transform to apply (HTCondor: SIGSEGV), and reads ``KEY=VALUE`` whole
(HTCondor drops the first character of the value).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from condorsim.classad import ClassAd
from condorsim.config import Config, ConfigError, find_config_file
from condorsim.config._macros import is_valid_name
from condorsim.submit._macros import MacroError
from condorsim.submit._queue import QueueSyntaxError, load_items, parse_queue_args, split_item
from condorsim.transform import (
    Transform,
    TransformError,
    TransformMacros,
    apply,
    convert_route_ad,
    declared_macros,
    defaults_ad,
    load_named_transform,
    parse_transform,
    split_route_ads,
)

from .adfiles import FORMATS, AdFileError, AdWriter, detect_format, read_ads

__all__ = ["main"]

USAGE = """\
Usage: condorsim transform_ads [transforms] [options] [<key>=<value>] <infile> [<infile>]
    Read ClassAd(s) from <infile> and transform based on rules from <rules-file>

    [transforms] are one or more of
\t-rules <rules-file>          Read transform rules from <rules-file>. see -help for the format
\t-jobtransforms <xform-names> Apply the Schedd JOB_TRANSFORM_* transforms listed in <xform-names>
\t-jobroute <route-name>       Apply the JOB_ROUTER_ROUTE_* transform listed in <route-name>

    [options] are
\t-help [rules | convert]\t\t Display this screen or rules or convert documentation and exit
\t-out[:<form>,nosort] <outfile>
\t\t\t\t Write transformed ClassAd(s) to <outfile> in format <form>
\t           ClassAd(s) are sorted by attribute unless nosort is specified
\t           <form> can be is one of:
\t       long    The traditional -long form. This is the default
\t       json    JSON classad form, the same as -json
\t       new     'new' classad form without newlines
\t       auto    For input, guess the format from reading the input stream
\t               For output, use the same format as the first input
\t-in[:<form>] <infile>\t Read ClassAd(s) to transform from <infile> in format <form>
\t-long\t\t\t Use long form for both input and output ClassAd(s)
\t-json\t\t\t Use JSON form for both input and output ClassAd(s)
\t-verbose\t\t Verbose mode, echo transform rules to stderr as they are executed
\t-convertoldroutes[:file <f>] Print JOB_ROUTER_ENTRIES (of the configuration, or of the
\t\t\t\t configuration summary <f>) as transforms

    <key>=<value> Arguments are assigned before the rules file is parsed and can be used
                  to pass arguments or enable optional behavior in the rules

    If <rules-file> is -, transform rules are read from stdin
    If <infile> is -, ClassAd(s) are read from stdin.
    Transformed ads are written to stdout unless an -out argument is provided
"""

RULES_HELP = """
condorsim transform_ads rules:

Transform rules files consist of lines containing key=value pairs or
transform commands such as SET, RENAME, etc. Transform commands execute
as they are read and can make use of values set up until that point using
the $(key) macro substitution commands that HTCondor configuration files and
condor_submit files use. Most constructs that work in these files will also
work in rules files such as if/else. Macro substitution will fetch attributes of
the ClassAd to be transformed when $(MY.attr) is used.

The transform commands are:

   SET     <attr> <expr>\t- Set <attr> to <expr>
   EVALSET <attr> <expr>\t- Evaluate <expr> and then set <attr> to the result
   DEFAULT <attr> <expr>\t- Set <attr> to <expr> if <attr> is missing
   COPY    <attr> <newattr>\t- Copy the value of <attr> to <newattr>
   COPY    /<regex>/ <newattrs>\t- Copy the values of attributes matching <regex> to <newattrs>
   RENAME  <attr> <newattr>\t- Rename <attr> to <newattr>
   RENAME  /<regex>/ <newattrs>\t- Rename attributes matching <regex> to <newattrs>
   DELETE  <attr>\t\t- Delete <attr>
   DELETE  /<regex>/\t\t- Delete attributes matching <regex>
   EVALMACRO <key> <expr>\t- Evaluate <expr> and then insert it as a transform macro value
   REQUIREMENTS <expr>\t\t- Apply the transform only if <expr> evaluates to true
   TRANSFORM [<N>] [<vars>] [in <list> | from <file> | matching <pattern>] - Do the Tranform

In the above commands <attr> must be a valid attribute name and <expr> a valid ClassAd
expression or literal.  The various $() macros will be expanded in <expr>, <newattr> or
<newattrs> before they are parsed as ClassAd expressions or attribute names.

When a COPY,RENAME or DELETE with regex is used, regex capture groups are substituted in
<newattrs> after $() expansion. \\0 will expand to the entire match, \\1 to the first capture, etc.

If a TRANSFORM command is used. it must be the last command in the rules file. It takes the same
options as the QUEUE statement from a HTCONDOR submit file. There is an implicit TRANSFORM 1 at the
end of a rules file if there is no explicit TRANSFORM command.
A rules file may be a HTCondor configuration file that defines JOB_TRANSFORM_* or JOB_ROUTER_ROUTE_*
variables.  A rules file of this form will be loaded, but will have no effect unless a later
-jobtransforms or -jobroute argument refers to one of the transforms it defines.
"""

CONVERT_HELP = """
Converting old JobRouter routes:

To convert old JobRouter routes use either
   condorsim transform_ads -convert
   or
   condorsim transform_ads -convert:file {summary-file}

The first form converts routes from the current configuration. The second form
convert routes from a file containing the summary of a foreign configuration.
Use condor_config_val -summary > {summary-file} to capture the configuration summary file

The output of these commands will be the routes from the JOB_ROUTER_ENTRIES list
printed as a set of JOB_ROUTER_ROUTE_<name> transforms.
The converted routes will require hand editing to remove old syntax idioms like strcat()
and temporary variables stored in the job classad. If the CE config has a customized
JOB_ROUTER_DEFAULTS, the converted routes may be incomplete.
"""


class _Usage(Exception):
    pass


@dataclass
class _Args:
    rules: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (file, form)
    keys: list[tuple[str, str]] = field(default_factory=list)
    out: str = "-"
    out_form: str = ""
    sort: bool = True
    in_form: str = ""
    verbose: bool = False
    convert: str | None = None  # "" (configuration) or a summary file


def _is(arg: str, word: str, least: int) -> bool:
    """HTCondor's ``is_dash_arg_prefix``: ``-word`` shortened to at least ``least`` letters."""
    body = arg.lstrip("-")
    return arg.startswith("-") and len(body) >= least and word.startswith(body)


def _colon(arg: str, word: str, least: int) -> tuple[bool, str | None]:
    head, colon, opts = arg.partition(":")
    return _is(head, word, least), (opts if colon else None)


def _parse(argv: list[str]) -> _Args:
    args = _Args()
    i = 0

    def value(option: str) -> str:
        nonlocal i
        if i + 1 >= len(argv) or (argv[i + 1].startswith("-") and argv[i + 1] != "-"):
            raise _Usage(f"{option} requires another argument")
        i += 1
        return argv[i]

    while i < len(argv):
        arg = argv[i]
        if arg == "-":
            args.inputs.append(("-", args.in_form))
        elif arg.startswith("-"):
            is_in, in_opts = _colon(arg, "in", 1)
            is_out, out_opts = _colon(arg, "out", 1)
            is_convert, convert_opts = _colon(arg, "convertoldroutes", 4)
            if _is(arg, "help", 1):
                raise _Help(argv[i + 1] if i + 1 < len(argv) else "")
            if _is(arg, "verbose", 1):
                args.verbose = True
            elif _is(arg, "terse", 3):
                args.verbose = False
            elif _is(arg, "debug", 2):
                pass
            elif _is(arg, "rules", 1):
                args.rules.append(("rules", value("-rules")))
            elif _is(arg, "jobtransforms", 4):
                args.rules.append(("jobtransforms", value("-jobtransforms")))
            elif _is(arg, "jobroute", 4):
                args.rules.append(("jobroute", value("-jobroute")))
            elif is_in:
                form = in_opts or args.in_form
                if form and form not in FORMATS:
                    raise _Usage(f"-in:{form}: the form is one of {', '.join(FORMATS)}")
                args.inputs.append((value("-in"), form))
            elif is_out:
                for opt in (out_opts or "").split(","):
                    if opt == "nosort":
                        args.sort = False
                    elif opt:
                        if opt not in FORMATS:
                            raise _Usage(f"-out:{opt}: the form is one of {', '.join(FORMATS)}")
                        args.out_form = opt
                args.out = value("-out")
            elif _is(arg, "long", 1) or _is(arg, "json", 2):
                args.in_form = "json" if _is(arg, "json", 2) else "long"
                args.inputs = [(f, form or args.in_form) for f, form in args.inputs]
            elif _is(arg, "xml", 3):
                raise _Usage("the XML form of ClassAds is not supported by condorsim")
            elif is_convert:
                args.convert = ""
                if convert_opts and convert_opts.startswith("file"):
                    args.convert = value(arg)
                elif convert_opts:
                    raise _Usage(f"{arg}: unknown option")
            else:
                raise _Usage(f"unknown option {arg}")
        elif "=" in arg:
            name, _, val = arg.partition("=")
            name = name.strip()
            if name.startswith("+"):
                name = "MY." + name[1:]
            if not name or not is_valid_name(name):
                raise _Usage(f"invalid attribute name '{name}' for attrib=value assigment")
            args.keys.append((name, val.strip()))
        else:
            args.inputs.append((arg, args.in_form))
        i += 1
    return args


class _Help(Exception):
    def __init__(self, topic: str) -> None:
        self.topic = topic


def _load_config() -> Config:
    return Config.load(find_config_file(), subsystem="TOOL")


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        return fh.read()


@dataclass
class _Rules:
    transforms: list[Transform] = field(default_factory=list)
    declared: dict[str, str] = field(default_factory=dict)  # macros of config-like rules files


def _load_rules(args: _Args, config: Config, err: TextIO) -> _Rules:
    rules = _Rules()

    def lookup(name: str) -> str | None:
        for key, raw in rules.declared.items():
            if key.lower() == name.lower():
                return raw
        return config.get_raw(name)

    for index, (kind, value) in enumerate(args.rules):
        if rules.transforms and rules.transforms[-1].iterate:
            raise TransformError(f"Error at {value}. Previous transform was an iterating transform")
        if kind == "rules":
            try:
                text = _read(value)
            except OSError as exc:
                raise TransformError(f"Can't open rules file: {value}: {exc.strerror}") from None
            name = "<stdin>" if value == "-" else value
            transform = parse_transform(text, source=name, name=name, name_from_text=True)
            if transform.iterate and index != len(args.rules) - 1:
                raise TransformError(f"{name}: a TRANSFORM statement with arguments must be in "
                                     "the last rules file")  # fmt: skip
            declared = declared_macros(transform, TransformMacros.create(config=config.get_raw))
            if transform.steps or transform.iterate:
                rules.transforms.append(transform)
            else:  # only declarations, for a later -jobtransforms / -jobroute
                rules.declared.update(declared.values())
            continue
        pattern = "JOB_TRANSFORM_{}" if kind == "jobtransforms" else "JOB_ROUTER_ROUTE_{}"
        names = [n for n in value.replace(",", " ").split() if n] or ["_"]
        for name in names:
            knob = pattern.format(name)
            raw = lookup(knob)
            if raw is None:
                raise TransformError(f"{knob} is not defined (in a rules file or the configuration)")
            rules.transforms.append(load_named_transform(raw, knob, name, config.expand))
    return rules


def _iterations(transform: Transform, macros: TransformMacros) -> list[list[dict[str, str]]]:
    """The ads a TRANSFORM statement asks for: per row (item), the live macros of each step."""
    try:
        spec = parse_queue_args(macros.expand(transform.iterate))
        block: tuple[str, ...] | None = None
        if spec.block:
            collected: list[str] = []
            for line in transform.iterate_items:
                if line.startswith("#"):
                    continue
                if line.startswith(")"):
                    block = tuple(collected)
                    break
                collected.append(line)
            else:
                raise TransformError("Reached end of file without finding closing brace ')' "
                                     "for TRANSFORM command")  # fmt: skip
        items: list[str | None] = [None]
        if spec.mode is not None:
            items = list(load_items(spec, block, os.getcwd(), lambda w: None))
    except (QueueSyntaxError, MacroError) as exc:
        raise TransformError(f"invalid TRANSFORM statement: {exc}", transform.source) from None
    variables = spec.variables or (["Item"] if spec.mode else [])
    if spec.mode and not items:
        items = [None] if spec.count > 1 else []
    rows: list[list[dict[str, str]]] = []
    proc = 0
    for row, item in enumerate(items):
        if item is not None and not spec.slice.selected(row, len(items)):
            continue
        fields = split_item(item or "", len(variables)) if variables else []
        steps = []
        for step in range(spec.count):
            live = {"Row": str(row), "ItemIndex": str(row), "Step": str(step),
                    "XFormId": str(proc), "Iterating": "1"}  # fmt: skip
            live.update(zip(variables, fields, strict=True))
            steps.append(live)
            proc += 1
        rows.append(steps)
    return rows


class _Run:
    def __init__(self, args: _Args, rules: _Rules, base: TransformMacros, writer: AdWriter,
                 err: TextIO, now: int) -> None:  # fmt: skip
        self.args, self.rules, self.base, self.writer, self.err = args, rules, base, writer, err
        self.now = now

    def one(self, ad: ClassAd, macros: TransformMacros) -> tuple[bool, TransformMacros]:
        """Apply the rules to ``ad`` and write it; False when a transform failed."""
        current = ad
        for transform in self.rules.transforms:
            match = transform.matches(current, self.now)
            if self.args.verbose:
                self.err.write(f"#   Transform {transform.name} {'' if match else 'Skipped'}\n")
            if not match:
                continue
            result = apply(transform, current, macros=macros, now=self.now)
            if self.args.verbose:
                sys.stdout.write("".join(step + "\n" for step in result.steps))
            for message in result.messages:
                self.err.write(message + "\n")
            current, macros = result.ad, result.macros
            if not result.ok:
                self.err.write(f"ERROR: {transform.name}: {result.error}\n")
                self.err.write("Transform of ad failed!\n")
                return False, macros
        self.writer.write(current)
        return True, macros

    def ad(self, ad: ClassAd) -> bool:
        last = self.rules.transforms[-1]
        if last.iterate:
            rows = _iterations(last, self.base)
            if rows:
                for steps in rows:
                    macros = self.base.copy()
                    for live in steps:
                        macros.live.update({k.lower(): v for k, v in live.items()})
                        ok, macros = self.one(ad, macros)
                        if not ok:
                            return False
                return True
        return self.one(ad, self.base.copy())[0]


def _identity(ad: ClassAd, number: int) -> str:
    name = ad.evaluate("Name")
    if type(name) is str:
        return name
    cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
    if type(cluster) is int and type(proc) is int:
        return f"Job {cluster}.{proc}"
    return f"Ad {number}"


def _convert(args: _Args, config: Config) -> int:
    """-convertoldroutes: JOB_ROUTER_ENTRIES as transforms."""
    summary = args.convert
    if summary:
        try:
            config = Config.from_text(_read(summary), name=summary)
        except (OSError, ConfigError) as exc:
            print(f"Failed to open ceconfig file '{summary}': {exc}", file=sys.stderr)
            return 1
    base = defaults_ad(config.get("JOB_ROUTER_DEFAULTS") or "", "JOB_ROUTER_DEFAULTS",
                       config.get_bool("MERGE_JOB_ROUTER_DEFAULT_ADS", False))  # fmt: skip
    if summary:
        generated = defaults_ad(config.get("JOB_ROUTER_DEFAULTS_GENERATED") or "",
                                "JOB_ROUTER_DEFAULTS_GENERATED")  # fmt: skip
        for name, tree in generated.pairs():
            if base.lookup(name) == tree:
                del base[name]
    names: list[str] = []
    entries = config.get("JOB_ROUTER_ENTRIES") or ""
    for index, ad in enumerate(split_route_ads(entries, "JOB_ROUTER_ENTRIES"), start=1):
        merged = base.copy()
        merged.update(ad)
        converted = convert_route_ad(merged, "", old_ce=bool(summary))
        transform = parse_transform(converted.text, source="JOB_ROUTER_ENTRIES", name=converted.name)
        if summary:
            tag = "".join(c if c.isalnum() or c == "_" else "_" for c in transform.name)
            if not tag:
                continue
            names.append(tag)
            shown = transform if tag != transform.name else _renamed(transform, "")
            print(f"\n##### Route {len(names)}\nJOB_ROUTER_ROUTE_{tag} @=jre")
            print(shown.formatted("   ", comments=True))
            print("@jre")
        else:
            print(f"\n##### JOB_ROUTER_ENTRIES [{index}] #####")
            print(transform.formatted("", comments=True))
    entries_file = config.get("JOB_ROUTER_ENTRIES_FILE")
    if summary and entries_file:
        print(f"need JOB_ROUTER_ENTRIES_FILE {entries_file}")
    elif entries_file:
        try:
            text = _read(entries_file)
        except OSError:
            print(f"Failed to open '{entries_file}' file specified for JOB_ROUTER_ENTRIES_FILE",
                  file=sys.stderr)  # fmt: skip
            text = ""
        for index, ad in enumerate(split_route_ads(text, entries_file), start=1):
            merged = base.copy()
            merged.update(ad)
            converted = convert_route_ad(merged, "")
            transform = parse_transform(converted.text, source=entries_file, name=converted.name)
            print(f"\n##### JOB_ROUTER_ENTRIES_FILE [{index}] #####")
            print(transform.formatted("", comments=True))
    if summary and config.get("JOB_ROUTER_ROUTE_NAMES") is None:
        print(f"\nJOB_ROUTER_ROUTE_NAMES = {' '.join(names)}")
    return 0


def _renamed(transform: Transform, name: str) -> Transform:
    from dataclasses import replace

    return replace(transform, name=name)


def main(argv: list[str], now: Callable[[], int] | None = None) -> int:
    """Run ``condorsim transform_ads``; return the exit status."""
    if not argv:
        print(USAGE, end="", file=sys.stderr)
        return 1
    try:
        args = _parse(argv)
    except _Help as wanted:
        if wanted.topic == "rules":
            print(RULES_HELP)
            return 0
        if wanted.topic.startswith("conv"):
            print(CONVERT_HELP)
        print(USAGE, end="")
        return 0
    except _Usage as exc:
        print(f"condorsim transform_ads: {exc}", file=sys.stderr)
        print(USAGE, end="", file=sys.stderr)
        return 1
    try:
        config = _load_config()
    except ConfigError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    try:
        if args.convert is not None:
            return _convert(args, config)
        return _transform(args, config, int(now() if now else __import__("time").time()))
    except (TransformError, AdFileError, ConfigError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1


def _transform(args: _Args, config: Config, now: int) -> int:
    err = sys.stderr
    if not args.rules:
        print("ERROR : no transform rules specified.", file=err)
        print(USAGE, end="", file=err)
        return 1
    rules = _load_rules(args, config, err)
    for transform in rules.transforms:
        for warning in transform.warnings:
            print(f"WARNING: {warning}", file=err)
    if not rules.transforms:
        raise TransformError("no transform to apply: the rules have no transform command "
                             "(they only set macros)")  # fmt: skip
    if not args.inputs:
        print("Warning: no input file specified - nothing to transform.", file=err)
        return 1
    base = TransformMacros.create(config=config.get_raw, env=os.environ)
    for name, value in args.keys:
        base.set(name, value)
    # -json / -long name the output form too (the manual; HTCondor 24's code keeps long)
    out_form = args.out_form or args.in_form or "long"
    close = args.out != "-"
    out = open(args.out, "w", encoding="utf-8") if close else sys.stdout
    try:
        writer = AdWriter(out, "long" if out_form == "auto" else out_form, args.sort)
        run = _Run(args, rules, base, writer, err, now)
        status = 0
        for path, form in args.inputs:
            if args.verbose:
                err.write(f"# Applying transforms to ads from {path}\n")
            try:
                text = _read(path)
            except OSError as exc:
                print(f"Can't open file of ClassAds: {path}: {exc.strerror}", file=err)
                continue
            detected = detect_format(text) if form in ("", "auto") else form
            ads = read_ads(text, detected, path)
            if out_form == "auto" and writer.count == 0 and detected in ("long", "new", "json"):
                writer.form = detected  # -out:auto: the form of the first input
            for number, ad in enumerate(ads, start=1):
                if args.verbose:
                    err.write(f"#   {_identity(ad, number)}\n")
                if not run.ad(ad):
                    status = 255
                    break
            if status:
                break
        writer.close()
    finally:
        if close:
            out.close()
    return status
