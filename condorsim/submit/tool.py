"""condor_submit's side of ``condorsim submit``: read, check, build, and ``-dry-run``.

How this works
--------------
``prepare`` reads a submit file (or text) and builds every job ad with ``Submit`` as
condor_submit does: ``JobSubmitMethod = 0``, ``$(SUBMIT_FILE)`` (and ``JobSubmitFile``)
the file's name as given, and condor_submit's own checks on top of the translation
(the executable must exist, not be empty, not be a CRLF script; a description without
a queue statement is refused). Its warnings -- including the unused-command ones,
which ``WARN_ON_UNUSED_SUBMIT_FILE_MACROS`` (default true) enables and ``-unused``
toggles -- go to ``err`` as ``WARNING: ...`` lines, its errors as ``ERROR: ...``
followed by ``(file, line N)``.

``dry_run`` then prints what ``condor_submit -dry-run:full -`` prints for a submit file:
the progress line, one summary line per cluster, a blank line, then each job ad in long
form (``Attr = value``, attributes sorted by name), ads separated by a blank line. The
pool's ``condorsim submit`` calls ``prepare`` before sending the description to the
schedd, so a refused description never reaches it.

This is an edge of the program: it may read the clock (for QDate), the user name and
the current directory; the submit logic itself does not.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from condorsim.classad import ClassAd
from condorsim.config import KNOBS, Config, ConfigError, find_config_file
from condorsim.security.identity import my_user_name

from ._errors import SubmitError
from ._limits import submission_limits
from ._submit import Submit, effective_config


@dataclass(frozen=True)
class Prepared:
    """A description condor_submit accepts: its text, name and job ads."""

    text: str
    source: str
    submit_file: str | None
    ads: list[ClassAd]


def submit_config(cfg: Config) -> dict[str, str]:
    """The configuration condor_submit would read on this host: every knob set or defaulted.

    condor_submit writes ScheddInterval, User (UID_DOMAIN), FileSystemDomain and its
    defaults from the submit host's configuration; in a pool the schedd translates the
    description again, with the pool's values (one UID_DOMAIN for the whole pool), and
    ``condorsim submit`` checks it with the same.
    """
    out: dict[str, str] = {}
    for name in {k for k in KNOBS if "<" not in k} | set(cfg.names()):
        if name.upper().startswith("SUBMIT_TEMPLATE_") and name.upper() != "SUBMIT_TEMPLATE_NAMES":
            raw = cfg.get_raw(name)
            if raw is not None:
                out[name] = _expand_defined(cfg, raw)
            continue
        try:
            value = cfg.get(name)
        except ConfigError:
            continue  # a value that does not expand (a transform's own $INT(...)): not submit's
        if value is not None:
            out[name] = value
    return out


_MACRO = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)\)")


def _expand_defined(cfg: Config, text: str) -> str:
    """A template's text with the config macros it uses expanded, the others (its
    ``$(1)``, ``$(Cluster)``...) kept for submit (``expand_defined_config_macros``)."""

    def one(match: re.Match[str]) -> str:
        try:
            value = cfg.get(match.group(1))
        except ConfigError:
            value = None
        return value or match.group(0)

    return _MACRO.sub(one, text)


def pool_config() -> dict[str, str]:
    """``submit_config`` of the pool's configuration file (``CONDORSIM_CONFIG``, else the
    pool directory's ``condor_config``; HTCondor's defaults when there is none). Raises
    ConfigError for a file that does not read."""
    return submit_config(Config.load(find_config_file(), subsystem="SUBMIT"))


def _read(path_or_text: str | os.PathLike[str]) -> tuple[str, str, str | None]:
    """(text, source name, submit file name): a string with a newline is the text itself,
    ``-`` is stdin (no submit file name, as condor_submit)."""
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return path_or_text, "<submit>", None
    path = os.fspath(path_or_text)
    if path == "-":
        return sys.stdin.read(), "<stdin>", None
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read(), path, path


def warn_unused_default(config: Mapping[str, str] | None) -> bool:
    """``WARN_ON_UNUSED_SUBMIT_FILE_MACROS`` (true unless the config says false)."""
    value = effective_config(config).get("WARN_ON_UNUSED_SUBMIT_FILE_MACROS", "true")
    return value.strip().lower() not in ("false", "f", "no", "n", "0")


def prepare(
    path_or_text: str | os.PathLike[str],
    *,
    err: TextIO,
    owner: str | None = None,
    clusterid: int = 1,
    qdate: int | None = None,
    config: Mapping[str, str] | None = None,
    toggle_unused: bool = False,
    source: str | None = None,
    to_schedd: bool = False,
) -> Prepared | None:
    """Read and build a description as condor_submit; None (reason on ``err``) if refused.
    ``source``: the submit file a text was read from (condor_submit -a/-batch-name add
    lines to it), named in messages and as JobSubmitFile. ``to_schedd``: the jobs are for
    the pool's schedd, whose MAX_JOBS_PER_SUBMISSION (``config``) refuses a queue count
    before its jobs are built; without it (``-dry-run``) only the simulator's
    MAX_SIM_JOBS does."""
    try:
        text, read_from, submit_file = _read(path_or_text)
    except OSError as exc:
        print(f"ERROR: Failed to open command file {exc.filename} ({exc.strerror})", file=err)
        return None
    if source is not None:
        read_from, submit_file = source, (None if source == "<stdin>" else source)
    source = read_from
    warn_unused = warn_unused_default(config) != toggle_unused
    submit: Submit | None = None
    try:
        submit = Submit(text, source=source, submit_file=submit_file, config=config)
        if submit.queue_count() == 0:
            shown = "(stdin)" if source == "<stdin>" else source
            raise SubmitError(f'"{shown}" doesn\'t contain any "queue" commands -- no jobs '
                              "queued", source=source)  # fmt: skip
        ads = list(
            submit.jobs(
                clusterid=clusterid,
                qdate=int(time.time()) if qdate is None else qdate,
                owner=owner or my_user_name(),
                config=config,
                submit_method=0,
                checks=True,
                warn_unused=warn_unused,
                limits=submission_limits(config, schedd=to_schedd),
            )
        )
    except SubmitError as exc:
        if submit is not None:
            _warnings(submit, err)
        where = f"{exc.source}, line {exc.line}" if exc.line else exc.source
        print(f"ERROR: {exc.message}\n({where})", file=err)
        return None
    _warnings(submit, err)
    if not ads:
        shown = "(stdin)" if source == "<stdin>" else source
        print(f'WARNING: "{shown}" has only empty "queue" commands -- no jobs queued', file=err)
    return Prepared(text, source, submit_file, ads)


def _warnings(submit: Submit, err: TextIO) -> None:
    for warning in submit.warnings:
        print(f"WARNING: {warning}", file=err)


def _long_form(ad: ClassAd) -> str:
    lines = ad.to_long().splitlines()
    return "".join(line + "\n" for line in sorted(lines, key=lambda s: s.split(" =")[0].lower()))


def dry_run(
    path_or_text: str | os.PathLike[str],
    out: TextIO,
    *,
    err: TextIO | None = None,
    owner: str | None = None,
    clusterid: int = 1,
    qdate: int | None = None,
    config: Mapping[str, str] | None = None,
    toggle_unused: bool = False,
    source: str | None = None,
) -> int:
    """Print the job ads of a submit description as ``condor_submit -dry-run:full -``.

    Returns 0, or 1 when the description (or the file) is refused; the reason is printed
    on ``err`` (default stderr), as are the warnings.
    """
    err = err if err is not None else sys.stderr
    prepared = prepare(path_or_text, err=err, owner=owner, clusterid=clusterid, qdate=qdate,
                       config=config, toggle_unused=toggle_unused, source=source)  # fmt: skip
    if prepared is None:
        return 1
    ads = prepared.ads
    counts: dict[int, int] = {}
    for ad in ads:
        cluster = ad.evaluate("ClusterId")
        assert isinstance(cluster, int)
        counts[cluster] = counts.get(cluster, 0) + 1
    out.write("Dry-Run job(s)" + "." * len(ads) + "\n")
    for cluster, n in counts.items():
        out.write(f"{n} job(s) dry-run to cluster {cluster}.\n")
    out.write("\n")
    out.write("\n".join(_long_form(ad) for ad in ads))
    return 0
