"""The command line of ``condorsim transform_ads``: its options and help texts.

How this works
--------------
:func:`parse_args` reads the arguments as condor_transform_ads does: options may be
shortened to HTCondor's minimum (``-r``, ``-jobt``, ``-conv``), ``-in`` and ``-out`` take a
``:form`` suffix, a bare ``-`` is stdin, ``KEY=VALUE`` is a macro and any other word an
input file. A bad argument raises :class:`UsageError`; ``-help`` raises :class:`HelpWanted`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorsim.config._macros import is_valid_name

from .adfiles import FORMATS

__all__ = ["CONVERT_HELP", "RULES_HELP", "USAGE", "Args", "HelpWanted", "UsageError", "parse_args"]

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


class UsageError(Exception):
    """A bad argument; the message says which."""


@dataclass
class Args:
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


def parse_args(argv: list[str]) -> Args:
    args = Args()
    i = 0

    def value(option: str) -> str:
        nonlocal i
        if i + 1 >= len(argv) or (argv[i + 1].startswith("-") and argv[i + 1] != "-"):
            raise UsageError(f"{option} requires another argument")
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
                raise HelpWanted(argv[i + 1] if i + 1 < len(argv) else "")
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
                    raise UsageError(f"-in:{form}: the form is one of {', '.join(FORMATS)}")
                args.inputs.append((value("-in"), form))
            elif is_out:
                for opt in (out_opts or "").split(","):
                    if opt == "nosort":
                        args.sort = False
                    elif opt:
                        if opt not in FORMATS:
                            raise UsageError(f"-out:{opt}: the form is one of {', '.join(FORMATS)}")
                        args.out_form = opt
                args.out = value("-out")
            elif _is(arg, "long", 1) or _is(arg, "json", 2):
                args.in_form = "json" if _is(arg, "json", 2) else "long"
                args.inputs = [(f, form or args.in_form) for f, form in args.inputs]
            elif _is(arg, "xml", 3):
                raise UsageError("the XML form of ClassAds is not supported by condorsim")
            elif is_convert:
                args.convert = ""
                if convert_opts and convert_opts.startswith("file"):
                    args.convert = value(arg)
                elif convert_opts:
                    raise UsageError(f"{arg}: unknown option")
            else:
                raise UsageError(f"unknown option {arg}")
        elif "=" in arg:
            name, _, val = arg.partition("=")
            name = name.strip()
            if name.startswith("+"):
                name = "MY." + name[1:]
            if not name or not is_valid_name(name):
                raise UsageError(f"invalid attribute name '{name}' for attrib=value assigment")
            args.keys.append((name, val.strip()))
        else:
            args.inputs.append((arg, args.in_form))
        i += 1
    return args


class HelpWanted(Exception):
    """``-help [topic]``."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
