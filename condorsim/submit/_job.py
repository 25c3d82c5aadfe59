"""The state one job ad is built from, shared by the attribute setters.

How this works
--------------
``JobInput`` bundles what ``make_job_ad`` reads: the macro table (with the live
variables of this proc already set), the job id, the submit time and user, the
submitter's working directory and environment, the few config values submit uses,
and where each command was written (for error messages). It also carries what the
setters learn on the way (the universe and its toppings, the grid and VM types, the
Iwd) and, for procs after the first of a cluster, the first proc's ad: HTCondor builds
those jobs on top of the cluster ad, and a few setters look there (``lookup``).

``Attrs`` is the job ad under construction: an insertion-ordered map with
case-insensitive names whose values are ``Expr`` (ClassAd text) or Python literals.
Re-assigning an attribute keeps its first spelling, as a ClassAd does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ._errors import SubmitError
from ._exprs import Expr
from ._macros import MacroError, MacroTable

AttrValue = Expr | bool | int | float | str

# HTCondor universe numbers (condor_universe.h).
VANILLA, SCHEDULER, MPI, GRID, JAVA, PARALLEL, LOCAL, VM = 5, 7, 8, 9, 10, 11, 12, 13


class Attrs:
    """A job ad being built: name -> Expr or literal, case-insensitive, ordered."""

    def __init__(self) -> None:
        self._values: dict[str, tuple[str, AttrValue]] = {}

    def __setitem__(self, name: str, value: AttrValue) -> None:
        lower = name.lower()
        old = self._values.get(lower)
        self._values[lower] = (old[0] if old else name, value)

    def __getitem__(self, name: str) -> AttrValue:
        return self._values[name.lower()][1]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._values

    def get(self, name: str) -> AttrValue | None:
        entry = self._values.get(name.lower())
        return entry[1] if entry else None

    def pop(self, name: str) -> None:
        self._values.pop(name.lower(), None)

    def items(self) -> Iterator[tuple[str, AttrValue]]:
        return iter(self._values.values())

    def copy(self) -> Attrs:
        out = Attrs()
        out._values = dict(self._values)
        return out


@dataclass
class JobInput:
    """Everything ``make_job_ad`` reads for one proc."""

    table: MacroTable
    cluster: int
    proc: int
    qdate: int
    owner: str
    cwd: str
    env: Mapping[str, str]
    config: Mapping[str, str]
    source: str = "<submit>"
    lines: Mapping[str, tuple[str | None, int]] = field(default_factory=dict)
    """Where each command was set: (included file or None, line)."""
    submit_method: int | None = 2
    universe: int = VANILLA
    is_docker: bool = False
    is_container: bool = False
    grid_type: str = ""
    vm_type: str = ""
    use_default_resources: bool = True
    iwd: str = ""
    warned: set[str] = field(default_factory=set)
    """Warnings already given in this submission (shared by its jobs; some of condor_submit's
    behaviour depends on it, see ``report_common_mistakes``)."""
    warnings: list[str] = field(default_factory=list)
    """The submission's warnings (shared by its jobs), as condor_submit prints them."""
    queue_line: int = 0
    """Line of the queue statement making this job: where an error without a command is."""
    cluster_ad: Attrs | None = None
    """The first proc's ad of this cluster, for procs after it (HTCondor's chained ad)."""
    cluster_flags: tuple[int, bool, bool, str, str] = (VANILLA, False, False, "", "")
    """The cluster's universe, docker and container toppings, grid and VM types."""
    checks: bool = False
    """Run condor_submit's own file checks (an executable that does not exist...)."""
    checks_warn: bool = False
    """``skip_filechecks = warn``: the file checks warn instead of refusing."""
    pending: SubmitError | None = None
    """An error recorded by the current setter, raised when it ends (see ``_commands``)."""
    executable: tuple[str | None, bool] | None = None
    """The executable as written and whether it is transferred (for the file checks)."""

    def param(self, key: str, alt: str | None = None) -> str | None:
        """Expanded value of a submit command (None when unset or empty, and once an error
        is pending: condor_submit's ``submit_param`` returns nothing after an error)."""
        if self.pending is not None:
            return None
        try:
            return self.table.param(key, alt)
        except MacroError as exc:
            raise self.error(str(exc), key) from None

    def has(self, key: str, alt: str | None = None) -> bool:
        return self.param(key, alt) is not None

    def key_used(self, key: str, alt: str | None = None) -> str:
        """The spelling of the command that supplied a value (for messages)."""
        for k in (key, alt):
            if k and self.table.user_value(k) is not None:
                return k
        return key

    def error(self, message: str, key: str | None = None, alt: str | None = None) -> SubmitError:
        """A SubmitError located at the line that set ``key`` (or ``alt``), else at the
        queue statement."""
        source, line = None, self.queue_line
        command = None
        for k in (key, alt):
            if k and k.lower() in self.lines:
                source, line = self.lines[k.lower()]
                command = self.table.user.get(k.lower(), (k, ""))[0]
                break
        return SubmitError(message, source=source or self.source, line=line,
                           command=command or key)  # fmt: skip

    def warn(self, message: str) -> None:
        """Record a warning of condor_submit's."""
        self.warnings.append(message)

    def lookup(self, ad: Attrs, attr: str) -> AttrValue | None:
        """An attribute of this job, else of its cluster's first proc (a chained lookup)."""
        value = ad.get(attr)
        if value is None and self.cluster_ad is not None:
            value = self.cluster_ad.get(attr)
        return value

    def conf(self, name: str, default: str) -> str:
        """A config value submit reads (``config`` has upper-case names), else ``default``."""
        return self.config.get(name.upper(), default)

    def knob(self, name: str) -> str | None:
        """A config value submit reads, None when unset (HTCondor's ``param``)."""
        return self.config.get(name.upper())

    def knob_bool(self, name: str, default: bool) -> bool:
        """A boolean config value (``param_boolean``): ``default`` when unset or not boolean."""
        value = self.config.get(name.upper())
        if value is None:
            return default
        word = value.strip().lower()
        if word in ("true", "t", "yes", "y", "1"):
            return True
        if word in ("false", "f", "no", "n", "0"):
            return False
        return default
