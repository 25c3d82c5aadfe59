"""How well condorsim agrees with test suites HTCondor's developers wrote for their own code.

``python -m benchmarks.htcondor_suites classad|submit <htcondor source>`` where the source is
a checkout of htcondor/htcondor (a directory) or a bare clone (read with ``git show HEAD:``).

How this works
--------------
classad: ``src/classad/functional_tests.txt`` is HTCondor's ClassAd test script. Its
``eval x = ...`` lines store a value, ``$x`` is replaced by the value's text, ``same a, b``
passes when both evaluate to the same value (``Value::SameAs``; here ``(a) =?= (b)``, and the
printed values for lists and ads, compared element by element) and
``diff a, b`` when they do not. Each check runs on our evaluator and on HTCondor's C++ one
(``classad2`` with ``htcondor2`` imported, as the daemons run), each with its own printing of
the stored values; a check *agrees* when both pass or both fail. ``writexml``/``readxml`` and
the checks that use their variables are skipped (no XML here).

submit: every submit description of ``src/condor_tests`` that is not DAGMan's (``*.cmd``,
``*.sub``) and the 43 of ``cmd_submit_regress_dry.subs`` go through
``htcondor.Submit(text).jobs()`` and through ``condorsim.submit.Submit``, one Submit per
queue statement for the binding (condor_submit continues the cluster), with
``CONDOR_CONFIG=/dev/null``. For every proc the attributes either side writes (but those in
``IGNORED``: clocks, versions, what condor_submit adds beyond the binding) are compared by
value. A description is *refused* by a side that raises on it.

Nothing here is asserted: the figures go to docs/classad.md and docs/submit.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# ----------------------------------------------------------------------------- sources


def _reader(source: str) -> tuple[Callable[[str], str], Callable[[], list[str]]]:
    """read(path) and names() over a checkout or a bare clone."""
    root = Path(source)
    if (root / "src").is_dir():
        def read(path: str) -> str:
            return (root / path).read_text(encoding="utf-8", errors="surrogateescape")

        def names() -> list[str]:
            return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
        return read, names

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", source, *args], capture_output=True, check=True,
                              text=True, errors="surrogateescape").stdout

    return (lambda path: git("show", f"HEAD:{path}"),
            lambda: git("ls-tree", "-r", "--name-only", "HEAD").splitlines())


# ----------------------------------------------------------------------------- classad


def _top_level_split(text: str, sep: str = ",") -> list[str]:
    parts, depth, quote, start, i = [], 0, False, 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


def _balance(text: str) -> int:
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


def classad_statements(script: str) -> Iterator[tuple[int, str, str]]:
    """(line, command, rest) of the tester's script, multi-line expressions joined."""
    lines = script.splitlines()
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i].strip()
        i += 1
        if not line or line.startswith("//") or line.startswith("#"):
            continue
        command, _, rest = line.partition(" ")
        while _balance(rest) > 0 and i < len(lines):
            rest += "\n" + lines[i]
            i += 1
        yield number, command, rest.strip()


class _Ours:
    name = "condorsim"

    def __init__(self) -> None:
        from condorsim.classad import ClassAd
        from condorsim.classad._parser import parse_expression
        from condorsim.classad._unparse import unparse_value
        from condorsim.classad._values import EvalContext

        self._parse, self._unparse = parse_expression, unparse_value
        self._ad, self._ctx = ClassAd(), EvalContext(now=0)

    def value_text(self, text: str) -> str:
        return str(self._unparse(self._parse(text).evaluate(self._ad, ctx=self._ctx)))

    def same(self, a: str, b: str) -> bool:
        left, right = self.value_text(a), self.value_text(b)
        if left[:1] in "[{" or right[:1] in "[{":  # lists and ads: element by element
            return left == right
        return self._parse(f"({a}) =?= ({b})").evaluate(self._ad, ctx=self._ctx) is True


class _HTCondor:
    name = "classad2"

    def __init__(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import classad2
            import htcondor2  # noqa: F401  (HTCondor's functions, as the daemons have them)
        self._c = classad2

    def value_text(self, text: str) -> str:
        return repr(self._c.ExprTree(text).simplify())

    def same(self, a: str, b: str) -> bool:
        left, right = self.value_text(a), self.value_text(b)
        if left[:1] in "[{" or right[:1] in "[{":  # lists and ads: element by element
            return left == right
        return self._c.ExprTree(f"({a}) =?= ({b})").eval() is True


def run_classad_script(script: str, side: Any) -> dict[int, bool | None]:
    """Each check's outcome (True passed, False failed, None not run) on one evaluator."""
    variables: dict[str, str] = {}
    results: dict[int, bool | None] = {}
    for number, command, rest in classad_statements(script):
        if command not in ("eval", "same", "diff"):
            continue
        unknown = [v for v in re.findall(r"\$([A-Za-z]\w*)", rest) if v not in variables]
        text = re.sub(r"\$([A-Za-z]\w*)", lambda mo: variables.get(mo.group(1), "error"), rest)
        if command == "eval":
            name, _, expr = text.partition("=")
            try:
                variables[name.strip()] = side.value_text(expr.strip().rstrip(";"))
            except Exception:  # a value the side cannot read: no variable
                variables.pop(name.strip(), None)
            continue
        if unknown:  # the XML variables
            results[number] = None
            continue
        parts = _top_level_split(text.rstrip().rstrip(";"))
        second = ",".join(parts[1:]).strip()
        while _balance(second) < 0 and second.endswith(")"):  # the tester reads one expression
            second = second[:-1].rstrip()
        try:
            same = side.same(parts[0].strip(), second)
        except Exception:  # an expression the side refuses fails the check
            results[number] = False
            continue
        results[number] = same if command == "same" else not same
    return results


def classad_figures(source: str) -> list[str]:
    read, _ = _reader(source)
    script = read("src/classad/functional_tests.txt")
    ours = run_classad_script(script, _Ours())
    theirs = run_classad_script(script, _HTCondor())
    run = [n for n in ours if ours[n] is not None and theirs[n] is not None]
    agree = [n for n in run if ours[n] == theirs[n]]
    lines = [
        f"checks: {len(ours)} (same/diff), run: {len(run)} (the others need writexml/readxml)",
        f"passed: condorsim {sum(bool(ours[n]) for n in run)}, "
        f"HTCondor {sum(bool(theirs[n]) for n in run)}",
        f"agree with HTCondor: {len(agree)} of {len(run)}",
    ]
    for n in run:
        if ours[n] != theirs[n]:
            lines.append(f"  differs at line {n}: condorsim {ours[n]}, HTCondor {theirs[n]}")
    both = [n for n in run if not ours[n] and not theirs[n]]
    lines.append("failed by both (HTCondor 24 disagrees with its test file): lines "
                 + ", ".join(map(str, both)))
    return lines


# ----------------------------------------------------------------------------- submit

IGNORED = frozenset(name.lower() for name in (
    "QDate", "EnteredCurrentStatus", "CondorVersion", "CondorPlatform", "JobSubmitMethod",
    "Owner", "User", "ClusterId", "ProcId", "Iwd", "JobSubmitFile",
))
"""Attributes that name the run, not the translation (the clock, the build, who and where)."""


def submit_descriptions(source: str) -> list[tuple[str, str]]:
    """(name, text) of the submit descriptions of HTCondor's condor_tests."""
    read, names = _reader(source)
    out: list[tuple[str, str]] = []
    for name in sorted(names()):
        if not name.startswith("src/condor_tests/") or "/" in name[len("src/condor_tests/"):]:
            continue
        if not name.endswith((".cmd", ".sub")) or "dag" in name.lower():
            continue
        text = read(name)
        if re.search(r"^\s*(queue|iterate)\b", text, re.I | re.M):
            out.append((name.rsplit("/", 1)[1], text))
    subs = read("src/condor_tests/cmd_submit_regress_dry.subs")  # "==name.sub" then its text
    chunks = re.split(r"^==(\S+)[ \t]*$", subs, flags=re.M)
    for sub_name, chunk in zip(chunks[1::2], chunks[2::2], strict=True):
        out.append((f"cmd_submit_regress_dry.subs:{sub_name}", chunk))
    return out


def _queue_statements(text: str) -> list[str]:
    """The text cut after each queue statement (one Submit of the binding each)."""
    pieces: list[str] = []
    current: list[str] = []
    block: list[str] | None = None  # the lines of a "queue ... (" block
    for line in text.splitlines(keepends=True):
        if block is not None:
            block.append(line)
            if line.strip() == ")":
                pieces.append("".join(current + block))
                block = None
            continue
        if re.match(r"\s*(queue|iterate)\b", line, re.I):
            if line.rstrip().endswith("("):
                block = [line]
            else:
                pieces.append("".join([*current, line]))
            continue
        current.append(line)
    return pieces or [text]


def _text(expr: object) -> str:
    """An expression's text without the line breaks and padding of HTCondor's PrettyPrint."""
    return re.sub(r"\s*([{},])\s*", r"\1", re.sub(r"\s*\n\s*", "", str(expr)))


def _binding_jobs(text: str) -> list[dict[str, str]]:
    import htcondor

    jobs: list[dict[str, str]] = []
    for piece in _queue_statements(text):
        for ad in htcondor.Submit(piece).jobs():
            jobs.append({k.lower(): _text(ad.lookup(k)) for k in ad.keys()})
    return jobs


def _our_jobs(text: str, cwd: str) -> list[dict[str, str]]:
    from condorsim.submit import Submit

    return [{k.lower(): _text(ad.lookup(k)) for k in ad.keys()}
            for ad in Submit(text, iwd=cwd).jobs(iwd=cwd)]


def submit_figures(source: str) -> list[str]:
    import tempfile

    os.environ.setdefault("CONDOR_CONFIG", "/dev/null")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import htcondor  # noqa: F401
    equal = total = 0
    refused_ours = refused_theirs = refused_both = 0
    diffs: list[str] = []
    descriptions = submit_descriptions(source)
    with tempfile.TemporaryDirectory() as cwd:
        here = os.getcwd()
        os.chdir(cwd)
        try:
            for name, text in descriptions:
                try:
                    theirs: list[dict[str, str]] | None = _binding_jobs(text)
                except Exception:
                    theirs = None
                try:
                    ours: list[dict[str, str]] | None = _our_jobs(text, cwd)
                except Exception as e:
                    ours = None
                    if theirs is not None:
                        diffs.append(f"  {name}: refused by condorsim only: {e}")
                if theirs is None and ours is None:
                    refused_both += 1
                    diffs.append(f"  {name}: refused by both")
                    continue
                if theirs is None:
                    refused_theirs += 1
                    diffs.append(f"  {name}: refused by HTCondor only")
                    continue
                if ours is None:
                    refused_ours += 1
                    continue
                for mine, ref in zip(ours, theirs, strict=False):
                    for attr in (set(mine) | set(ref)) - IGNORED:
                        total += 1
                        if mine.get(attr) == ref.get(attr):
                            equal += 1
                        else:
                            diffs.append(f"  {name}: {attr}: condorsim {mine.get(attr)!r}, "
                                         f"HTCondor {ref.get(attr)!r}")
                if len(ours) != len(theirs):
                    diffs.append(f"  {name}: {len(ours)} jobs, HTCondor {len(theirs)}")
        finally:
            os.chdir(here)
    share = 100.0 * equal / total if total else 0.0
    return [
        f"descriptions: {len(descriptions)}",
        f"attributes equal: {equal:,} of {total:,} ({share:.2f}%)",
        f"refused by condorsim, accepted by HTCondor: {refused_ours}",
        f"accepted by condorsim, refused by HTCondor: {refused_theirs}",
        f"refused by both: {refused_both}",
        *diffs,
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("classad", "submit"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    figures = classad_figures if argv[0] == "classad" else submit_figures
    for line in figures(argv[1]):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
