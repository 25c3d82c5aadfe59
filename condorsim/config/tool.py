"""``condorsim config_val``: print configuration values, like condor_config_val.

How this works
--------------
The configuration is read from :func:`find_config_file` (``$CONDORSIM_CONFIG``, else
``~/.condorsim/condor_config``; none means condorsim's defaults only).  Then:

* ``config_val NAME ...`` prints each value; an undefined one gives
  ``Not defined: NAME`` on stderr and exit status 1, plus a note when condorsim
  does not honour the knob at all (it is not in config/knobs.toml);
* ``-verbose`` prints ``NAME = value`` followed by ``# description:``, ``# at:``,
  ``# raw:`` and ``# default:`` lines and a blank line, as condor_config_val -verbose;
* ``-raw`` prints values unexpanded;
* ``-dump [PATTERN ...]`` prints every set name (matching any of the regular
  expressions) as ``NAME = raw value`` and then the contributing files;
  ``-expand`` prints expanded values instead;
* ``-config`` prints the files read;
* ``-subsystem NAME`` and ``-local-name NAME`` read the configuration as that daemon.

Options may be shortened to any unambiguous prefix (``-v``, ``-sub``), as in HTCondor.
"""

from __future__ import annotations

import re
import sys

from ._config import Config, find_config_file
from ._errors import ConfigError
from ._knobs import find_knob

__all__ = ["main"]

USAGE = """\
usage: condorsim config_val [-subsystem NAME] [-local-name NAME] [-verbose] [-raw] NAME ...
       condorsim config_val [-verbose] [-expand] -dump [PATTERN ...]
       condorsim config_val -config

Print the values of HTCondor configuration knobs as condorsim reads them.
The file read is $CONDORSIM_CONFIG, else ~/.condorsim/condor_config if it exists.

  -subsystem NAME    read the configuration as this subsystem (SCHEDD, STARTD, ...)
  -local-name NAME   read the configuration with this local name
  -verbose           also print where each value was set, its raw value and default
  -raw               print values without expanding $(...) macros
  -dump [PATTERN]    print every name set (whose name matches a PATTERN)
  -expand            with -dump, print expanded values
  -config            print the configuration files read
  -help              print this message
"""

_FLAGS = ("verbose", "raw", "dump", "expand", "config", "help")
_WITH_VALUE = ("subsystem", "local-name")


class _UsageError(Exception):
    pass


def _option(arg: str) -> str | None:
    """The full option name ``arg`` abbreviates, None if it is not an option."""
    if not arg.startswith("-") or arg == "-":
        return None
    word = arg.lstrip("-").lower()
    matches = [o for o in (*_FLAGS, *_WITH_VALUE) if o.startswith(word)]
    if len(matches) == 1:
        return matches[0]
    if word in matches:
        return word
    raise _UsageError(f"unknown or ambiguous option {arg}")


def _parse(argv: list[str]) -> tuple[dict[str, str | bool], list[str]]:
    opts: dict[str, str | bool] = {}
    names: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        option = _option(arg)
        if option is None:
            names.append(arg)
        elif option in _WITH_VALUE:
            if i + 1 >= len(argv):
                raise _UsageError(f"{arg} needs a value")
            i += 1
            opts[option] = argv[i]
        else:
            opts[option] = True
        i += 1
    return opts, names


def _print_value(value: str, indent: str, close: str = "") -> str:
    """``= value``, or a ``@=end`` block for a multi-line value (RemotePrintValue).

    ``indent`` starts each line of the block and ``close`` the closing ``@end``.
    """
    if "\n" not in value:
        return f"= {value}"
    body = "\n".join(indent + line for line in value.split("\n"))
    return f"@=end\n{body}\n{close}@end"


def _describe(cfg: Config, name: str, shown: str) -> None:
    knob = find_knob(name)
    if knob is not None:
        print(f" # description: {knob.meaning}")
    print(f" # at: {cfg.where(name)}")
    raw = cfg.get_raw(name)
    if raw is not None:
        print(f" # raw: {shown} {_print_value(raw, ' #   ', ' # ')}")
    if knob is not None and knob.default is not None and not knob.is_template:
        print(f" # default: {knob.default}")
    if knob is None:
        print(" # condorsim: not in the knob table; no daemon reads it (it may still be used in $(...))")


def _query(cfg: Config, names: list[str], *, verbose: bool, raw: bool) -> int:
    status = 0
    for name in names:
        try:
            value = cfg.get_raw(name) if raw else cfg.get(name)
        except ConfigError as exc:
            print(f"ERROR: {exc}", file=sys.stderr)
            status = 1
            continue
        shown = cfg.name_used(name) or name.upper()
        if value is None or (raw and value == ""):
            print(f"Not defined: {name.upper()}", file=sys.stderr)
            if find_knob(name) is None:
                print(
                    f"condorsim does not honour {name.upper()}: it is not in its knob table "
                    "(config/knobs.toml)",
                    file=sys.stderr,
                )
            status = 1
            continue
        if verbose:
            print(f"{shown} {_print_value(value, '   ')}")
            _describe(cfg, name, shown)
            print()
        else:
            print(value)
    return status


def _dump(cfg: Config, patterns: list[str], *, verbose: bool, expand: bool) -> int:
    try:
        regexes = [re.compile(p, re.IGNORECASE) for p in patterns]
    except re.error as exc:
        raise _UsageError(f"bad -dump pattern: {exc}") from None
    for name, raw, origin in cfg.entries():
        if regexes and not any(r.search(name) for r in regexes):
            continue
        try:
            value = cfg.expand(raw) if expand else raw
        except ConfigError as exc:
            print(f"ERROR: {name}: {exc}", file=sys.stderr)
            return 1
        print(f"{name} {_print_value(value, '   ')}")
        if verbose:
            print(f" # at: {origin}")
            if expand:
                print(f" # raw: {_print_value(raw, ' #   ', ' # ').removeprefix('= ')}")
            if find_knob(name) is None:
                print(" # condorsim: not in the knob table")
    if not verbose:
        print("# Contributing configuration file(s):")
        for source in _sources(cfg):
            print(f"#\t{source}")
    return 0


def _sources(cfg: Config) -> list[str]:
    return ([cfg.config_source] if cfg.config_source else []) + list(cfg.local_sources)


def _config_files(cfg: Config) -> int:
    print("Configuration source:")
    if cfg.config_source:
        print(f"\t{cfg.config_source}")
    else:
        print("\t<none> (set CONDORSIM_CONFIG or create ~/.condorsim/condor_config)")
    if cfg.local_sources:
        print("Local configuration sources:")
        for source in cfg.local_sources:
            print(f"\t{source}")
    return 0


def main(argv: list[str]) -> int:
    """Run ``condorsim config_val`` with ``argv`` (without the program name); return the exit status."""
    try:
        opts, names = _parse(argv)
        if opts.get("help"):
            print(USAGE, end="")
            return 0
        if not names and not opts.get("dump") and not opts.get("config"):
            raise _UsageError("no knob names given")
        subsystem = opts.get("subsystem")
        local_name = opts.get("local-name")
        try:
            cfg = Config.load(
                find_config_file(),
                subsystem=subsystem if isinstance(subsystem, str) else None,
                local_name=local_name if isinstance(local_name, str) else None,
            )
        except ConfigError as exc:
            print(f"ERROR: {exc}", file=sys.stderr)
            return 1
        for warning in cfg.warnings:
            print(warning, file=sys.stderr)
        if opts.get("config"):
            return _config_files(cfg)
        if opts.get("dump"):
            return _dump(cfg, names, verbose=bool(opts.get("verbose")), expand=bool(opts.get("expand")))
        return _query(cfg, names, verbose=bool(opts.get("verbose")), raw=bool(opts.get("raw")))
    except _UsageError as exc:
        print(f"condorsim config_val: {exc}", file=sys.stderr)
        print(USAGE, end="", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
