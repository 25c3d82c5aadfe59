"""Command lines as HTCondor's tools read them, on argparse.

How this works
--------------
HTCondor's tools match an option by prefix with a shortest length of its own
(``is_dash_arg_prefix(arg, "constraint", 3)``: ``-con`` ... ``-constraint``, one dash or
two), and some take a ``:suffix`` (``-af:jh``, ``-long:json``, ``-wide:120``). The tools
test the options in a fixed order, so a prefix two options share goes to the first.

:class:`ToolArgs` builds an ``argparse`` parser with exactly those spellings: an option
declared with ``option("constraint", 3, ...)`` registers ``-con``, ``-cons`` ...
``-constraint`` and their ``--`` forms, skipping any spelling an earlier option took.
A ``colon=True`` option also accepts ``-name:suffix``; the suffix is kept in
``args.colons[dest]`` (``colon="key"``: under that key). Job ids and user names mixed with the options are the
positional ``words``. An unknown option, a missing value or a bad number raises
:class:`ArgsError` with a one-line reason; each tool words it as HTCondor's does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn


class ArgsError(Exception):
    """The command line cannot be read; the message says why."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgsError(message)


class ToolArgs:
    """An argparse parser matching options by HTCondor's prefix rules."""

    def __init__(self, prog: str, words: str | None = "words") -> None:
        self.parser = _Parser(prog=prog, add_help=False, allow_abbrev=False)
        self._spellings: dict[str, argparse.Action] = {}
        self._colon: dict[str, str] = {}  # full spelling -> dest, for -opt:suffix
        if words:
            self.parser.add_argument(words, nargs="*", default=[])

    def option(self, name: str, shortest: int, *, colon: bool | str = False,
               aliases: Sequence[tuple[str, int]] = (), **kwargs: Any) -> argparse.Action:
        """Declare ``-name`` (matched from ``shortest`` characters on), with argparse's
        keyword arguments (``action``, ``nargs``, ``dest`` ...)."""
        spellings: list[str] = []
        for word, least in ((name, shortest), *aliases):
            for k in range(max(1, least), len(word) + 1):
                for dash in ("-", "--"):
                    text = dash + word[:k]
                    if text not in self._spellings and text not in spellings:
                        spellings.append(text)
        kwargs.setdefault("dest", name.replace("-", "_"))
        action = self.parser.add_argument(*spellings, **kwargs)
        for text in spellings:
            self._spellings[text] = action
            if colon:
                self._colon[text] = colon if isinstance(colon, str) else action.dest
        return action

    def parse(self, argv: Sequence[str]) -> argparse.Namespace:
        """Parse ``argv``; ``args.colons`` maps an option's dest to its ``:suffix``."""
        colons: dict[str, str] = {}
        tokens: list[str] = []
        expecting = 0
        for arg in argv:
            if expecting:
                tokens.append(arg)
                expecting -= 1
                continue
            if arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
                head, sep, tail = arg.partition(":")
                if sep and head in self._colon:
                    colons[self._colon[head]] = tail
                    arg = head
                action = self._spellings.get(arg)
                if action is None:
                    raise ArgsError(f"unrecognized argument {arg}")
                nargs = action.nargs
                expecting = nargs if isinstance(nargs, int) else (
                    1 if nargs is None and action.option_strings and _takes_value(action) else 0)
            tokens.append(arg)
        if expecting:
            raise ArgsError(f"{tokens[-expecting - 1] if len(tokens) > expecting else argv[-1]} "
                            "needs a value")
        args = self.parser.parse_intermixed_args(tokens)
        args.colons = colons
        return args


def read_args(tool: ToolArgs, argv: Sequence[str], usage: str,
              error: str = "Error: ") -> argparse.Namespace | int:
    """The parsed arguments, or the exit status when there is nothing to run: 1 after
    ``<error><reason>`` on stderr and the usage on stdout (as HTCondor's tools do), 0 after
    the usage for ``-help`` (an option every tool declares as ``help``)."""
    try:
        args = tool.parse(argv)
    except ArgsError as e:
        print(f"{error}{e}", file=sys.stderr)
        sys.stdout.write(usage)
        return 1
    if getattr(args, "help", False):
        sys.stdout.write(usage)
        return 0
    return args


def _takes_value(action: argparse.Action) -> bool:
    return not isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                                   argparse._StoreConstAction, argparse._AppendConstAction,
                                   argparse._CountAction))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
