"""``classad_eval``: evaluate ClassAd expressions in a context ad, like HTCondor's tool.

How this works
--------------
Arguments are taken left to right. An argument that starts with ``[`` is a ClassAd
whose attributes replace those of the context ad; one that reads as ``Name = expr``
(one or more, separated by ``;``) is an assignment; anything else is an expression,
evaluated with the context ad as MY (and the ``-target-file`` ad as TARGET). Before the
first expression after a change of the context ad, the ad is printed (new syntax, one
line) unless ``-quiet`` was given. Values print as ClassAd text (``undefined``,
``"a string"``, ``{ 1,2 }``).

Exit status: 0 on success, 1 when an ad, assignment, expression or file cannot be
read, 255 for a bad option, as HTCondor's ``classad_eval``.
"""

from __future__ import annotations

import sys
import time as _time
from typing import TextIO

from ._classad import ClassAd
from ._errors import ClassAdSyntaxError
from ._parser import looks_like_new_syntax, parse_expression, parse_new_ad
from ._unparse import unparse_value
from ._values import EvalContext

USAGE = """\
Usage: classad_eval [options] <ad | assignment | expression | -quiet>+

Evaluate ClassAd expressions in the context of a ClassAd built from the arguments.

Options:
  -help                    print this message and exit
  -quiet                   do not print the context ad before the results that follow
  -debug                   accepted, for compatibility
  -[my-|ad-]file <file>    read the context (MY) ad from a file (replaces the context)
  -target-file <file>      read the TARGET ad from a file

Examples:
  classad_eval 'a = 2' 'a * 2'
  classad_eval '[ a = 2; b = 2 ]' 'a + b'
  classad_eval -quiet -file job.ad -target-file slot.ad 'MY.Requirements'
"""

_MY_FILE_OPTIONS = frozenset({"-file", "-my-file", "-ad-file", "-myfile", "-adfile"})
_TARGET_FILE_OPTIONS = frozenset({"-target-file", "-target-ad", "-targetfile"})


def _first_ad(text: str, path: str) -> ClassAd:
    """The first ClassAd of a file (new or old syntax)."""
    if looks_like_new_syntax(text):
        start = text.index("[")
        depth = 0
        in_string = False
        i = start
        while i < len(text):
            ch = text[i]
            if in_string:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        return ClassAd._from_pairs(parse_new_ad(text[start : i + 1]))
    lines: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            if any(existing.strip() for existing in lines):
                break
            continue
        lines.append(line)
    return ClassAd.parse_old("\n".join(lines))


def _read_ad(path: str, err: TextIO) -> ClassAd | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError as exc:
        err.write(f"classad_eval: cannot read {path}: {exc.strerror}\n")
        return None
    try:
        return _first_ad(text, path)
    except ClassAdSyntaxError as exc:
        err.write(f"classad_eval: {path}: {exc}\n")
        return None


def _as_assignment(arg: str) -> ClassAd | None:
    """The attributes of ``arg`` read as ``a = 1; b = 2``, or None if it is not that."""
    try:
        pairs = parse_new_ad("[" + arg + "]")
    except ClassAdSyntaxError:
        return None
    return ClassAd._from_pairs(pairs) if pairs else None


def main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None,
         now: int | None = None) -> int:
    """Run ``classad_eval`` with the given arguments (without the program name).

    ``time()`` is ``now``: the pool's time when the command line passes it, else the host's
    clock, as HTCondor's classad_eval has it.
    """
    ctx = EvalContext(now=int(_time.time()) if now is None else now)
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if not argv:
        err.write(USAGE)
        return 255
    context = ClassAd()
    target: ClassAd | None = None
    quiet = False
    changed = True
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg in ("-help", "-h", "--help"):
            out.write(USAGE)
            return 0
        if arg == "-quiet":
            quiet = True
            continue
        if arg == "-debug":
            continue
        if arg in _MY_FILE_OPTIONS or arg in _TARGET_FILE_OPTIONS:
            if i >= len(argv):
                err.write(f"classad_eval: {arg} needs a file name\n")
                return 255
            ad = _read_ad(argv[i], err)
            i += 1
            if ad is None:
                return 1
            if arg in _MY_FILE_OPTIONS:
                context = ad
                changed = True
            else:
                target = ad
            continue
        if arg.startswith("-") and len(arg) > 1 and arg[1].isalpha():
            err.write(f"classad_eval: unknown option {arg}\n{USAGE}")
            return 255
        if arg.lstrip().startswith("["):
            try:
                update = ClassAd.parse_new(arg)
            except ClassAdSyntaxError as exc:
                err.write(f"classad_eval: cannot parse ClassAd {arg!r}: {exc}\n")
                return 1
            context.update(update)
            changed = True
            continue
        assignment = _as_assignment(arg)
        if assignment is not None:
            context.update(assignment)
            changed = True
            continue
        try:
            tree = parse_expression(arg)
        except ClassAdSyntaxError as exc:
            err.write(f"classad_eval: cannot parse expression {arg!r}: {exc}\n")
            return 1
        if changed and not quiet:
            out.write(str(context) + "\n")
        changed = False
        out.write(unparse_value(tree.evaluate(context, target, ctx=ctx)) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
