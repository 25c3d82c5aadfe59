"""Which hooks a daemon runs for a job: keywords, paths, arguments, timeouts.

How this works
--------------
Hooks are configured as ``<Keyword>_HOOK_<TYPE>`` (:data:`HOOK_TYPES` are HTCondor's
type names). A :data:`Lookup` reads a knob (usually ``Config.get``; the startd and the
starter read through :func:`machine_lookup`, so that one simulated machine can have
hooks another has not).

:func:`job_hooks` is HTCondor's ``JobHookClientMgr::initialize`` for a daemon whose knobs
start with ``prefix`` (``STARTER``, ``SHADOW``; later ``JOB_ROUTER``):

1. ``<PREFIX>_JOB_HOOK_KEYWORD``, when set, is the keyword;
2. else the job's ``HookKeyword``, if the configuration defines at least one usable hook
   of any type for it (a job cannot pick hooks the administrator never defined);
3. else ``<PREFIX>_DEFAULT_JOB_HOOK_KEYWORD``.

Then every hook type the daemon uses is looked up and checked (:mod:`.paths`). A hook
that is configured but unusable (missing, not executable, world-writable) makes
HTCondor's ``reconfig()`` fail: the result's ``failed`` says which, and the daemon decides
what that means for the job (the starter does not start it; the shadow runs without
hooks). Arguments are ``<K>_HOOK_<TYPE>_ARGS`` (HTCondor's V2 raw syntax) and the timeout
is ``<K>_HOOK_<TYPE>_TIMEOUT`` (real seconds; HTCondor reads it for JOB_EXIT and
SHADOW_PREPARE_JOB, condorsim for every hook), else ``SIM_HOOK_TIMEOUT``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from condorsim.classad import ClassAd
from condorsim.config import Config
from condorsim.submit._argsenv import ArgsError, split_v2_raw

from .paths import check_hook_path
from .runner import DEFAULT_TIMEOUT

HOOK_TYPES = (
    "FETCH_WORK", "REPLY_FETCH", "EVICT_CLAIM", "PREPARE_JOB", "UPDATE_JOB_INFO", "JOB_EXIT",
    "EVICT_JOB", "TRANSLATE_JOB", "JOB_CLEANUP", "JOB_FINALIZE", "PREPARE_JOB_BEFORE_TRANSFER",
    "SHADOW_PREPARE_JOB",
)
"""HTCondor's hook types (``HookTypeTranslation`` in enum_utils.cpp), in its order."""

Lookup = Callable[[str], str | None]
"""Reads a knob: its expanded value, or None when it is not set."""


def machine_lookup(config: Config, machine: str | None) -> Lookup:
    """Knobs of one simulated machine: ``SIM_MACHINE_<machine>_<KNOB>`` wins over ``<KNOB>``."""
    if not machine:
        return config.get

    def get(name: str) -> str | None:
        value = config.get(f"SIM_MACHINE_{machine}_{name}")
        return value if value is not None else config.get(name)

    return get


def hook_knob(keyword: str, hook_type: str) -> str:
    return f"{keyword}_HOOK_{hook_type}"


def _positive(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else 0.0
    except ValueError:
        return None
    return value if value > 0 else None


def default_timeout(lookup: Lookup) -> float:
    """SIM_HOOK_TIMEOUT: real seconds any hook may run (60 when unset or not a number)."""
    return _positive(lookup("SIM_HOOK_TIMEOUT")) or DEFAULT_TIMEOUT


def hook_timeout(lookup: Lookup, keyword: str | None, hook_type: str,
                 default: float | None = None) -> float:
    """``<K>_HOOK_<TYPE>_TIMEOUT``, else ``default`` (HTCondor's), else SIM_HOOK_TIMEOUT."""
    if keyword:
        own = _positive(lookup(f"{hook_knob(keyword, hook_type)}_TIMEOUT"))
        if own is not None:
            return own
    return default if default is not None else default_timeout(lookup)


def hook_args(lookup: Lookup, keyword: str, hook_type: str) -> tuple[list[str], str | None]:
    """``<K>_HOOK_<TYPE>_ARGS`` split as HTCondor's ``AppendArgsV2Raw``; (args, error)."""
    knob = f"{hook_knob(keyword, hook_type)}_ARGS"
    text = lookup(knob)
    if text is None:
        return [], None
    try:
        return split_v2_raw(text), None
    except ArgsError as e:
        return [], f"{knob} = {text!r}: {e}"


@dataclass
class JobHooks:
    """The hooks a daemon runs for one job.

    ``keyword`` is None when the job gets no hooks; ``paths`` maps each usable hook type to
    its path; ``failed`` names an unusable configured hook (HTCondor's initialization then
    fails); ``notes`` are (event, fields) pairs to log.
    """

    keyword: str | None = None
    paths: dict[str, str] = field(default_factory=dict)
    failed: str | None = None
    notes: list[tuple[str, dict[str, object]]] = field(default_factory=list)

    def path(self, hook_type: str) -> str | None:
        return self.paths.get(hook_type)


def _usable(lookup: Lookup, keyword: str, base: Path | None) -> bool:
    for hook_type in HOOK_TYPES:
        knob = hook_knob(keyword, hook_type)
        value = lookup(knob)
        if value is not None and check_hook_path(knob, value, base).path is not None:
            return True
    return False


def job_hooks(lookup: Lookup, prefix: str, job_ad: ClassAd, types: Iterable[str],
              base: Path | None = None) -> JobHooks:
    """The keyword and hook paths for ``job_ad`` (see the module doc)."""
    out = JobHooks()
    forced = lookup(f"{prefix}_JOB_HOOK_KEYWORD")
    keyword = forced.strip() if forced else None
    if keyword:
        out.notes.append(("hook_keyword", {"keyword": keyword,
                                           "source": f"{prefix}_JOB_HOOK_KEYWORD"}))
    else:
        wanted = job_ad.evaluate("HookKeyword")
        if isinstance(wanted, str) and wanted:
            if _usable(lookup, wanted, base):
                keyword = wanted
                out.notes.append(("hook_keyword", {"keyword": wanted, "source": "HookKeyword"}))
            else:
                out.notes.append(("hook_keyword_ignored", {
                    "keyword": wanted, "why": "no hook of that keyword is defined"}))
        if not keyword:
            default = lookup(f"{prefix}_DEFAULT_JOB_HOOK_KEYWORD")
            if default and default.strip():
                keyword = default.strip()
                out.notes.append(("hook_keyword", {
                    "keyword": keyword, "source": f"{prefix}_DEFAULT_JOB_HOOK_KEYWORD"}))
    if not keyword:
        return out
    out.keyword = keyword
    for hook_type in types:
        knob = hook_knob(keyword, hook_type)
        value = lookup(knob)
        if value is None:
            continue
        checked = check_hook_path(knob, value, base)
        if checked.path is not None:
            out.paths[hook_type] = checked.path
        else:
            out.notes.append(("hook_path_refused", {"knob": knob, "error": checked.error}))
            if out.failed is None:
                out.failed = checked.error
    return out
