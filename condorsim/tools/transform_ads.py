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
from condorsim.submit._macros import MacroError
from condorsim.submit._queue import QueueSyntaxError, load_items, parse_queue_args, split_item
from condorsim.transform import (
    Transform,
    TransformError,
    TransformMacros,
    apply,
    declared_macros,
    load_named_transform,
    parse_transform,
)

from .adfiles import AdFileError, AdWriter, detect_format, read_ads
from .convert_routes import convert_old_routes
from .transform_ads_args import (
    CONVERT_HELP,
    RULES_HELP,
    USAGE,
    Args,
    HelpWanted,
    UsageError,
    parse_args,
)

__all__ = ["main"]

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


def _load_rules(args: Args, config: Config, err: TextIO) -> _Rules:
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
    def __init__(self, args: Args, rules: _Rules, base: TransformMacros, writer: AdWriter,
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


def main(argv: list[str], now: Callable[[], int] | None = None) -> int:
    """Run ``condorsim transform_ads``; return the exit status."""
    if not argv:
        print(USAGE, end="", file=sys.stderr)
        return 1
    try:
        args = parse_args(argv)
    except HelpWanted as wanted:
        if wanted.topic == "rules":
            print(RULES_HELP)
            return 0
        if wanted.topic.startswith("conv"):
            print(CONVERT_HELP)
        print(USAGE, end="")
        return 0
    except UsageError as exc:
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
            return convert_old_routes(args.convert, config)
        return _transform(args, config, int(now() if now else __import__("time").time()))
    except (TransformError, AdFileError, ConfigError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1


def _transform(args: Args, config: Config, now: int) -> int:
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
        files = ", ".join(v for k, v in args.rules if k == "rules")
        raise TransformError(f"no transform to apply: the rules ({files}) have no transform "
                             "command (they only set macros)")  # fmt: skip
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
