"""``Submit``: a submit description turned into job ads, like ``htcondor.Submit``.

How this works
--------------
The text is read once into statements (``_reader``: assignments and queue statements;
``if`` blocks, ``include`` files and ``use`` templates are resolved while reading, as
HTCondor does). ``jobs()`` then replays the statements: assignments update the macro
table, and each queue statement makes its procs. For every proc the live macros
(``$(Cluster)``, ``$(Process)``, ``$(Step)``, ``$(ItemIndex)``/``$(Row)`` and the loop
variables) are set and ``build_job`` makes the ad; the first proc of a cluster is kept
as the cluster ad later procs are built on. Queue statements continue the same cluster
with the next proc ids, unless the ``executable`` (or ``cmd``) command changed since
the previous queue statement: then condor_submit starts a new cluster (the next
cluster id, proc 0).

Nothing here reads the clock: ``qdate`` is used as given. The file system is read
only where condor_submit reads it (see ``_files``) and for ``queue ... from file`` and
``queue ... matching``, which are relative to ``iwd`` (condor_submit's working
directory, as HTCondor does, not the job's initialdir).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from condorsim.classad import ClassAd, ClassAdValueError, ExprTree

from ._build import build_job
from ._checks import unused_warnings, want_factory
from ._errors import SubmitError
from ._exprs import Expr, eval_bool, parse
from ._job import Attrs, JobInput
from ._limits import JobLimit, first_exceeded
from ._lines import Assign, Queue, Statement
from ._macros import MacroError, MacroTable
from ._queue import (
    MatchOptions,
    QueueSpec,
    QueueSyntaxError,
    load_items,
    opens_block,
    parse_queue_args,
    split_item,
)
from ._reader import Reader

_CONFIG_DEFAULTS = {
    "ARCH": "X86_64",
    "OPSYS": "LINUX",
    "SCHEDD_INTERVAL": "300",
    "JOB_DEFAULT_LEASE_DURATION": "2400",
    "JOB_DEFAULT_REQUESTCPUS": "1",
    "JOB_DEFAULT_REQUESTDISK": "DiskUsage",
    "JOB_DEFAULT_REQUESTMEMORY": (
        "ifthenelse(MemoryUsage =!= UNDEFINED,MemoryUsage,(ImageSize+1023)/1024)"
    ),
    "SPOOL": "",
    "CONTAINER_SHARED_FS": "/cvmfs",
    "NICE_USER_ACCOUNTING_GROUP_NAME": "nice-user",
    "CRED_MIN_TIME_LEFT": "120",
    "DEFAULT_JOB_MAX_RETRIES": "2",
}


def effective_config(config: Mapping[str, str] | None) -> dict[str, str]:
    """The config values submit reads, with HTCondor's defaults filled in.

    ``UID_DOMAIN`` and ``FILESYSTEM_DOMAIN`` default to ``FULL_HOSTNAME``, which defaults
    to this host's fully qualified name, as the bindings do with no config.
    """
    out = dict(_CONFIG_DEFAULTS)
    for key, value in (config or {}).items():
        out[key.upper()] = value
    host = out.get("FULL_HOSTNAME") or _local_hostname()
    out["FULL_HOSTNAME"] = host
    out.setdefault("UID_DOMAIN", host)
    out.setdefault("FILESYSTEM_DOMAIN", host)
    return out


def _local_hostname() -> str:
    """This host's name as HTCondor's FULL_HOSTNAME: fully qualified when DNS knows it."""
    name = socket.gethostname() or "localhost"
    fqdn = socket.getfqdn(name)
    return fqdn if fqdn.lower().startswith(name.lower() + ".") else name


def _macro_defaults(config: Mapping[str, str], submit_file: str | None,
                    qdate: int = 0) -> dict[str, str]:  # fmt: skip
    """SubmitMacroDefaults: the macros a submit file may use without setting them."""
    stamp = time.localtime(qdate)
    return {
        "clusterid": "1", "procid": "0", "cluster": "1", "process": "0", "step": "0",
        "row": "0", "itemindex": "0", "node": "", "arch": config["ARCH"],
        "opsys": config["OPSYS"], "opsysandver": config.get("OPSYSANDVER", ""),
        "opsysmajorver": config.get("OPSYSMAJORVER", ""), "opsysver": config.get("OPSYSVER", ""),
        "islinux": "1", "iswindows": "0", "spool": config["SPOOL"],
        "submit_file": submit_file or "", "jobid": "$(ClusterId).$(ProcId)",
        "submit_time": str(qdate), "year": f"{stamp.tm_year:04d}",
        "month": f"{stamp.tm_mon:02d}", "day": f"{stamp.tm_mday:02d}",
        "request_cpus": "$(RequestCPUs)", "request_memory": "$(RequestMemory)",
        "vm_memory": "$(Request_Memory)", "vm_vcpus": "$(Request_CPUs)",
    }  # fmt: skip


class Submit:
    """A submit description: ``key = value`` commands, macros and queue statements.

    ``vars`` are commands set before the text (as ``condor_submit name=value``); the
    text may override them. Syntax errors raise ``SubmitError`` here; errors in
    command values are raised by ``jobs()``.
    """

    def __init__(
        self,
        text: str,
        *,
        source: str = "<submit>",
        vars: Mapping[str, str] | None = None,
        submit_file: str | None = None,
        iwd: str | None = None,
        config: Mapping[str, str] | None = None,
    ) -> None:
        self._source = source
        self._vars = dict(vars or {})
        self._submit_file = submit_file
        self._iwd = iwd
        self._config = dict(config) if config is not None else None
        self.warnings: list[str] = []
        """Warnings condor_submit would print (duplicate ``matching`` items, ``warning :``
        lines, and -- from a finished ``jobs(warn_unused=True)`` -- unused commands)."""
        parse_config = effective_config(config)
        table = self._table(parse_config, os.environ)

        def block_follows(args: str) -> bool:
            return opens_block(args)

        reader = Reader(table=table, source=source, cwd=iwd or os.getcwd(),
                        config=parse_config, block_follows=block_follows,
                        warnings=self.warnings)  # fmt: skip
        reader.read(text)
        self._statements: list[Statement] = reader.statements
        self._final = table

    def _table(self, config: Mapping[str, str], env: Mapping[str, str],
               qdate: int = 0) -> MacroTable:  # fmt: skip
        table = MacroTable(env=env, defaults=_macro_defaults(config, self._submit_file, qdate))
        for key, value in self._vars.items():
            table.set(key[1:] if key.startswith("+") else key, value)
        return table

    # -- the submit commands, as the binding's mapping interface --------------------------

    def __getitem__(self, key: str) -> str:
        """The raw (unexpanded) value of a submit command; KeyError when unset."""
        value = self._final.user_value(_plus_to_my(key))
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._final.user_value(_plus_to_my(key)) is not None

    def get(self, key: str, default: str | None = None) -> str | None:
        value = self._final.user_value(_plus_to_my(key))
        return default if value is None else value

    def keys(self) -> list[str]:
        """The submit commands set, as first spelled."""
        return [spelling for spelling, _ in self._final.user.values()]

    def expand(self, key: str) -> str:
        """The macro-expanded value of a submit command ("" when unset)."""
        raw = self._final.user_value(_plus_to_my(key))
        try:
            return self._final.expand(raw) if raw is not None else ""
        except MacroError as exc:
            raise SubmitError(str(exc), source=self._source, command=key) from None

    def queue_count(self) -> int:
        """How many queue statements the description has."""
        return sum(1 for s in self._statements if isinstance(s, Queue))

    # -- job ads ----------------------------------------------------------------------

    def jobs(
        self,
        count: int = 0,
        clusterid: int = 1,
        procid: int = 0,
        qdate: int = 0,
        owner: str = "condor",
        itemdata: Iterable[Any] | None = None,
        iwd: str | None = None,
        env: Mapping[str, str] | None = None,
        config: Mapping[str, str] | None = None,
        submit_method: int | None = 2,
        checks: bool = False,
        warn_unused: bool = False,
        limits: Sequence[JobLimit] = (),
    ) -> Iterator[ClassAd]:
        """Full job ads (cluster and proc attributes merged), one per proc.

        ``count`` replaces the count of a bare ``queue`` statement (or of the implied one
        when the text has no queue statement); it is ignored for ``queue N`` or a foreach
        queue statement, as in ``htcondor.Submit.jobs``. With ``itemdata`` (strings,
        dicts or lists, as the binding takes) the queue statements are ignored and one
        cluster of ``count`` (or 1) procs per item is made from the commands before the
        first queue statement. ``owner`` is the submitting user: it becomes ``Owner`` and,
        with ``UID_DOMAIN`` from ``config``, ``User``. ``iwd`` is the directory
        condor_submit runs in (default: the current one); ``env`` its environment
        (default: this process's). ``submit_method`` is ``JobSubmitMethod`` (2 for the
        Python bindings, 0 for condor_submit, None for none). ``checks`` runs
        condor_submit's own file checks (the executable must exist...); ``warn_unused``
        adds its unused-command warnings to ``warnings`` once every job has been made.
        ``iwd`` and ``config`` default to the constructor's. ``limits`` (the schedd's,
        :func:`submission_limits`) refuse a queue statement that would make more jobs
        than one of them allows, before any job of it is built.
        """
        if clusterid < 0 or procid < 0:
            raise SubmitError("Job id out of range", source=self._source)
        if not owner or any(ch.isspace() for ch in owner):
            raise SubmitError("Invalid characters in Owner", source=self._source)
        run = _Run(self, count, clusterid or 1, procid, qdate, owner, iwd or self._iwd, env,
                   config if config is not None else self._config, submit_method,
                   checks, tuple(limits))  # fmt: skip
        made = run.from_itemdata(itemdata) if itemdata is not None else run.from_statements()
        return run.finish(made) if warn_unused else made

    def count_jobs(self, count: int = 0, clusterid: int = 1, qdate: int = 0,
                   owner: str = "condor", iwd: str | None = None,
                   env: Mapping[str, str] | None = None, config: Mapping[str, str] | None = None,
                   limits: Sequence[JobLimit] = ()) -> int:
        """How many jobs ``jobs()`` with these arguments would make, without building
        them: the queue statements' counts and items are evaluated (and ``limits``
        checked), the job commands are not (an error in them is not found here)."""
        run = _Run(self, count, clusterid or 1, 0, qdate, owner, iwd or self._iwd, env,
                   config if config is not None else self._config, None, False,
                   tuple(limits), counting=True)  # fmt: skip
        for _ in run.from_statements():
            pass
        return run.made

    def procs(self, **kwargs: Any) -> list[ClassAd]:
        """The job ads as the schedd stores them, like the binding's ``procs()``.

        The first proc of each cluster has every attribute (it is the cluster ad plus
        ``ProcId``); each later proc has only ``ProcId``, ``JobStatus`` and the attributes
        whose expression differs from its cluster's. Takes the arguments of ``jobs()``.
        """
        out: list[ClassAd] = []
        cluster_ad: ClassAd | None = None
        for ad in self.jobs(**kwargs):
            if cluster_ad is None or ad["ClusterId"] != cluster_ad["ClusterId"]:
                cluster_ad = ad
                out.append(ad)
                continue
            base = cluster_ad
            out.append(
                ClassAd(
                    (name, tree)
                    for name, tree in ad.pairs()
                    if name.lower() in ("procid", "jobstatus") or base.lookup(name) != tree
                )
            )
        return out


_MATCH_FLAGS = (
    ("SubmitWarnEmptyMatches", "submit_warn_empty_matches", True),
    ("SubmitFailEmptyMatches", "submit_fail_empty_matches", False),
    ("SubmitWarnDuplicateMatches", "submit_warn_duplicate_matches", True),
    ("SubmitAllowDuplicateMatches", "submit_allow_duplicate_matches", False),
)


_PER_PROC = ("process", "procid", "step", "row", "itemindex", "item", "$volatile")
"""Macro names whose value is not the same for every proc of a cluster."""


def _plus_to_my(key: str) -> str:
    return "MY." + key[1:] if key.startswith("+") else key


class _Run:
    """One replay of the statements: the state of ``jobs()``."""

    def __init__(
        self,
        submit: Submit,
        count: int,
        cluster: int,
        proc: int,
        qdate: int,
        owner: str,
        iwd: str | None,
        env: Mapping[str, str] | None,
        config: Mapping[str, str] | None,
        submit_method: int | None,
        checks: bool,
        limits: tuple[JobLimit, ...] = (),
        *,
        counting: bool = False,
    ) -> None:
        self.submit = submit
        self.limits = limits
        self.counting = counting
        """Count the jobs (``made``) without building them (``Submit.count_jobs``)."""
        self.count = count
        self.cluster = cluster
        self.proc = proc
        self.config = effective_config(config)
        self.env = dict(os.environ) if env is None else env
        self.table = submit._table(self.config, self.env, qdate)
        self.lines: dict[str, tuple[str | None, int]] = {}
        self.variables: dict[str, str] = {}
        self.made = 0
        self.cluster_ad: Attrs | None = None
        self.cluster_of_ad = -1
        self.cluster_flags: tuple[int, bool, bool, str, str] | None = None
        self.template: tuple[tuple[int, int], ClassAd] | None = None
        """A later proc's ad that depended on no per-proc value, with (cluster, serial)."""
        self.partial: tuple[tuple[int, int], JobInput, Attrs] | None = None
        """A later proc as it was at the +Attr step, when nothing before that step depended
        on a per-proc value: later procs of (cluster, serial) run only the last steps."""
        self.serial = 0
        self.trees: dict[tuple[object, str], ExprTree] = {}
        """The tree of each attribute value made so far, shared by the procs that have it."""
        """Counts the queue statements (and itemdata runs) replayed: a template is good for
        the procs of one of them only (the commands may change between two)."""
        self.per_proc = set(_PER_PROC)
        """The names whose values differ from proc to proc (plus the loop variables)."""
        self.base = JobInput(
            table=self.table, cluster=cluster, proc=proc, qdate=qdate, owner=owner,
            cwd=iwd or os.getcwd(), env=self.env, config=self.config,
            source=submit._source, lines=self.lines, submit_method=submit_method,
            warnings=submit.warnings, checks=checks,
        )  # fmt: skip

    def finish(self, made: Iterator[ClassAd]) -> Iterator[ClassAd]:
        """Pass the ads through, then add condor_submit's unused-command warnings."""
        yield from made
        if self.made:
            self.submit.warnings.extend(unused_warnings(self.table, self.variables))

    def assign(self, statement: Assign) -> None:
        self.table.set(statement.key, statement.value, expand_self=not statement.raw)
        self.lines[statement.key.lower()] = (statement.source, statement.line)

    def from_statements(self) -> Iterator[ClassAd]:
        last_exe: tuple[str | None, str | None] | None = None
        saw_queue = False
        for statement in self.submit._statements:
            if isinstance(statement, Assign):
                self.assign(statement)
                continue
            exe = (self.table.user_value("executable"), self.table.user_value("cmd"))
            if last_exe is not None and exe != last_exe:
                self.cluster, self.proc = self.cluster + 1, 0
            last_exe = exe
            if self.base.checks and not saw_queue:
                want_factory(dataclasses.replace(self.base, queue_line=statement.line))
            saw_queue = True
            yield from self._queue(statement)
        if not saw_queue:
            yield from self._queue(Queue("", 0))

    def _queue(self, statement: Queue) -> Iterator[ClassAd]:
        self.serial += 1
        source = self.submit._source
        try:
            spec = parse_queue_args(self.table.expand(statement.args))
            if spec.mode is None and not statement.args.strip() and self.count > 0:
                spec.count = self.count
            items: list[str | None] = [None]
            if spec.mode is not None:
                options = self._match_options(spec, statement.line)
                items = list(load_items(spec, statement.block, self.base.cwd,
                                        self.submit.warnings.append, options))  # fmt: skip
        except (QueueSyntaxError, MacroError) as exc:
            raise SubmitError(str(exc), source=source, line=statement.line) from None
        # A queue statement without loop variables still sets $(Item) to "" (the binding does).
        variables = spec.variables or ["Item"]
        selected = sum(1 for i in range(len(items)) if spec.slice.selected(i, len(items)))
        self._check_limits(selected * spec.count, statement.line)
        if self.counting:
            self.made += selected * spec.count
            return
        for name in variables:
            self.table.live[name.lower()] = ""
            self.per_proc.add(name.lower())
        if spec.mode is not None:
            for name in variables:
                self.variables.setdefault(name.lower(), name)
        try:
            for index, item in enumerate(items):
                if not spec.slice.selected(index, len(items)):
                    continue
                if item is not None:
                    fields = split_item(item, len(variables))
                    for name, value in zip(variables, fields, strict=True):
                        self.table.live[name.lower()] = value
                for step in range(spec.count):
                    yield self._make(index, step, statement.line)
        finally:
            for name in variables:
                self.table.live.pop(name.lower(), None)

    def _check_limits(self, more: int, line: int) -> None:
        """Refuse ``more`` jobs on top of those made when a limit does not allow them."""
        limit = first_exceeded(self.limits, self.made + more)
        if limit is not None:
            raise SubmitError(limit.message, source=self.submit._source, line=line)

    def _match_options(self, spec: QueueSpec, line: int) -> MatchOptions | None:
        """The ``SubmitWarnEmptyMatches`` family, read when the items come from a file or
        from ``matching`` (``load_external_q_foreach_items``)."""
        if spec.mode != "matching" and not (spec.mode == "from" and spec.filename):
            return None
        values = []
        for key, alt, default in _MATCH_FLAGS:
            text = self.table.param(key, alt)
            value = default if text is None else eval_bool(text)
            if value is None:
                raise SubmitError(f"{key}={text} is invalid, must eval to a boolean.",
                                  source=self.submit._source, line=line)  # fmt: skip
            values.append(value)
        files = dirs = True
        match = self.table.param("SubmitMatchDirectories", "submit_match_directories")
        if match is not None:
            word = match.lower()
            if word in ("never", "no", "false"):
                dirs = False
            elif word == "only":
                files = False
            elif word not in ("yes", "true"):
                raise SubmitError(f"{match} is not a valid value for SubmitMatchDirectories",
                                  source=self.submit._source, line=line)  # fmt: skip
        warn_empty, fail_empty, warn_dups, allow_dups = values
        return MatchOptions(warn_empty, fail_empty, warn_dups, allow_dups, files, dirs)

    def from_itemdata(self, itemdata: Iterable[Any]) -> Iterator[ClassAd]:
        self.serial += 1
        for statement in self.submit._statements:
            if isinstance(statement, Queue):
                break
            self.assign(statement)
        variables: list[str] = []
        for index, item in enumerate(itemdata):
            if isinstance(item, Mapping):
                values = {str(k): str(v) for k, v in item.items()}
            elif isinstance(item, (list, tuple)):
                names = variables or ["Item"] + [f"Item{i}" for i in range(1, len(item))]
                values = dict(zip(names, (str(v) for v in item), strict=False))
            else:
                names = variables or ["Item"]
                fields = split_item(str(item), len(names))
                values = dict(zip(names, fields, strict=True))
            if not variables:
                variables = [_plus_to_my(k) for k in values]
            self.per_proc.update(_plus_to_my(k).lower() for k in values)
            for name, value in values.items():
                self.table.live[_plus_to_my(name).lower()] = value
            for step in range(self.count or 1):
                yield self._make(index, step)

    def _make(self, index: int, step: int, line: int = 0) -> ClassAd:
        self._check_limits(1, line)
        table = self.table
        table.live["cluster"] = str(self.cluster)
        table.live["process"] = str(self.proc)
        table.defaults.update(
            clusterid=str(self.cluster), procid=str(self.proc), step=str(step),
            row=str(index), itemindex=str(index),
        )  # fmt: skip
        first = self.cluster_ad is None or self.cluster_of_ad != self.cluster
        template = self.template
        if not first and template is not None and template[0] == (self.cluster, self.serial):
            # a later proc of a cluster whose procs depend on no per-proc macro: the same
            # ad as the proc before it but for ProcId (the trees shared, as HTCondor's proc
            # ads chain to one cluster ad)
            ad = template[1].copy()
            ad["ProcId"] = self.proc
            self.proc += 1
            self.made += 1
            return ad
        warned = len(self.submit.warnings)
        partial = self.partial
        at_forced: Callable[[JobInput, Attrs], None] | None = None
        if not first and partial is not None and partial[0] == (self.cluster, self.serial):
            # only the +Attr step and those after it depend on per-proc values: run them
            # on the earlier proc's ad as it was there
            job = dataclasses.replace(partial[1], proc=self.proc)
            attrs = build_job(job, resume=partial[2].copy())
            trace = None
        else:
            split: list[tuple[JobInput, Attrs, bool]] = []
            if not first:
                traced: set[str] = set()
                table.trace = traced

                def at_forced(at: JobInput, ad: Attrs) -> None:
                    clean = not traced & self.per_proc and \
                        len(self.submit.warnings) == warned
                    split.append((dataclasses.replace(at), ad.copy(), clean))

            job = dataclasses.replace(
                self.base, cluster=self.cluster, proc=self.proc, queue_line=line,
                cluster_ad=None if first else self.cluster_ad,
                cluster_flags=self.cluster_flags or self.base.cluster_flags,
            )  # fmt: skip
            try:
                attrs = build_job(job, at_forced=at_forced)
            finally:
                trace, table.trace = table.trace, None
            self.partial = None
            if split and split[0][2] and not self.base.checks:
                self.partial = ((self.cluster, self.serial), split[0][0], split[0][1])
        if first:
            self.cluster_ad, self.cluster_of_ad = attrs, self.cluster
            self.cluster_flags = (job.universe, job.is_docker, job.is_container, job.grid_type,
                                  job.vm_type)  # fmt: skip
        try:
            ad = _to_classad(attrs, self.trees)
        except ClassAdValueError as exc:  # a NUL from an item file, itemdata or vars
            raise SubmitError(f"a job attribute cannot hold that value: {exc}",
                              source=self.submit._source, line=line) from None
        self.template = None
        if trace is not None and not trace & self.per_proc and \
                len(self.submit.warnings) == warned and not self.base.checks:
            self.template = ((self.cluster, self.serial), ad.copy())
        self.proc += 1
        self.made += 1
        return ad


def _to_classad(attrs: Attrs, trees: dict[tuple[object, str], ExprTree]) -> ClassAd:
    """The ClassAd of ``attrs``; ``trees`` keeps the tree of each value made so far (the
    procs of one submit share them: trees are immutable)."""
    pairs: list[tuple[str, ExprTree]] = []
    for name, value in attrs.items():
        key: tuple[object, str] = ("expr", value.text) if isinstance(value, Expr) \
            else (type(value), repr(value))
        tree = trees.get(key)
        if tree is None:
            if isinstance(value, Expr):
                tree = parse(value.text)
                assert tree is not None, value.text  # every Expr was checked when it was set
            else:
                holder = ClassAd()
                holder["v"] = value  # refused here as before (a NUL, an int too large)
                tree = holder.lookup("v")
                assert tree is not None
            trees[key] = tree
        pairs.append((name, tree))
    return ClassAd(pairs)
