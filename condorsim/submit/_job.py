"""The state one job ad is built from, shared by the attribute setters.

How this works
--------------
``JobInput`` bundles what ``make_job_ad`` reads: the macro table (with the live
variables of this proc already set), the job id, the submit time and user, the
submitter's working directory and environment, the few config values submit uses,
and where each command was written (for error messages).

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
VANILLA, SCHEDULER, GRID, LOCAL = 5, 7, 9, 12


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
    lines: Mapping[str, int] = field(default_factory=dict)
    submit_method: int | None = 2
    universe: int = VANILLA
    warned: set[str] = field(default_factory=set)
    """Warnings already given in this submission (shared by its jobs; some of condor_submit's
    behaviour depends on it, see ``set_job_lease``)."""
    queue_line: int = 0
    """Line of the queue statement making this job: where an error without a command is."""

    def param(self, key: str, alt: str | None = None) -> str | None:
        """Expanded value of a submit command (None when unset or empty)."""
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
        line = self.queue_line
        command = None
        for k in (key, alt):
            if k and k.lower() in self.lines:
                line = self.lines[k.lower()]
                command = self.table.user.get(k.lower(), (k, ""))[0]
                break
        return SubmitError(message, source=self.source, line=line, command=command or key)

    def conf(self, name: str, default: str) -> str:
        """A config value submit reads (``config`` mapping, names case-insensitive)."""
        for k, v in self.config.items():
            if k.upper() == name:
                return v
        return default
