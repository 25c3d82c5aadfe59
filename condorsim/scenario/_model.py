"""What a scenario file says, as typed frozen dataclasses.

How this works
--------------
``condorsim.scenario._parse`` builds these from the TOML file after checking every
field; nothing here parses or checks. Times are already simulated epoch seconds
(``at``), or durations in seconds (``until``, ``max``, ``start_delay``,
``clock_offset``); ``at_text`` keeps what the file said, for messages. Each entry of
an array section remembers its 1-based position in the file (``index``), which is
how messages name it (``[[action]] #2``).

:meth:`Scenario.events_in_order` is the timeline the replay runner follows: at one
moment, submits come first, then actions, then expectations (so an action at 10m
finds the jobs submitted at 10m, and an expectation at 10m sees what the actions at
10m did); within a kind, the order of the file. ``"end"`` comes after every moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Final, Literal

from ._messages import MessageSelector
from ._times import END, Moment

__all__ = [
    "ActionSpec",
    "ExpectSpec",
    "FileSpec",
    "MachineSpec",
    "Scenario",
    "SiteSpec",
    "SubmitSpec",
    "TimelineEntry",
]

QUIET: Final = "quiet"
"""``until = "quiet"``: stop once the queue is empty and every action has run."""


def _label(kind: str, index: int, at_text: str) -> str:
    return f'[[{kind}]] #{index} (at "{at_text}")'


@dataclass(frozen=True)
class MachineSpec:
    """One ``[[machine]]``: ``count`` simulated execute machines alike.

    ``cpus``, ``memory`` (MB) and ``disk`` (KB) are per machine and split evenly over
    its ``slots`` static slots (rounded down: see ``slot_cpus``). ``clock_offset`` is
    our extension: the machine's clock minus the pool's, in seconds (positive: the
    machine's clock runs ahead).
    """

    index: int
    name: str = "exec"
    count: int = 1
    slots: int = 1
    cpus: int = 1
    memory: int = 1024
    disk: int = 10485760
    start: str = "TRUE"
    rank: str = "0"
    attrs: Mapping[str, str] = field(default_factory=dict)
    clock_offset: int = 0

    kind: ClassVar[str] = "machine"

    def machine_names(self) -> list[str]:
        """The Machine names: ``name`` alone, or ``name1 .. nameN`` when count > 1."""
        if self.count == 1:
            return [self.name]
        return [f"{self.name}{i}" for i in range(1, self.count + 1)]

    @property
    def slot_cpus(self) -> int:
        """Cpus of each slot."""
        return self.cpus // self.slots

    @property
    def slot_memory(self) -> int:
        """Memory (MB) of each slot."""
        return self.memory // self.slots

    @property
    def slot_disk(self) -> int:
        """Disk (KB) of each slot."""
        return self.disk // self.slots

    @property
    def label(self) -> str:
        return f'[[machine]] #{self.index} (name "{self.name}")'


@dataclass(frozen=True)
class SiteSpec:
    """One ``[[site]]``: a remote resource that routed (grid universe) jobs run on."""

    index: int
    resource: str
    slots: int = 1
    start_delay: int = 0
    failure_rate: float = 0.0

    kind: ClassVar[str] = "site"

    @property
    def label(self) -> str:
        return f'[[site]] #{self.index} (resource "{self.resource}")'


@dataclass(frozen=True)
class FileSpec:
    """One ``[[file]]``: ``content`` written at ``path`` (relative to the run directory,
    already normalized) before any daemon starts; mode 0755 when ``executable``."""

    index: int
    path: str
    content: bytes
    executable: bool = False
    source_file: Path | None = None

    kind: ClassVar[str] = "file"

    @property
    def mode(self) -> int:
        return 0o755 if self.executable else 0o644

    @property
    def label(self) -> str:
        return f'[[file]] #{self.index} (path "{self.path}")'


@dataclass(frozen=True)
class SubmitSpec:
    """One ``[[submit]]``: a condor_submit of ``text`` (read from ``file`` if given).

    With ``expect_error``, the submit must be refused with a message containing it
    (checked when the scenario runs).
    """

    index: int
    at: int
    at_text: str
    text: str
    owner: str = "condor"
    file: Path | None = None
    expect_error: str | None = None

    kind: ClassVar[str] = "submit"

    @property
    def label(self) -> str:
        return _label(self.kind, self.index, self.at_text)


@dataclass(frozen=True)
class ActionSpec:
    """One ``[[action]]``: what a user or an admin does at ``at``.

    ``job`` is ``"cluster.proc"`` or ``"cluster"``; ``config`` (our extension, only
    with ``do = "reconfig"``) holds knobs set just before the reconfig; ``site`` (only
    with ``site_down`` and ``site_up``) is a ``[[site]]``'s resource.
    """

    index: int
    at: int
    at_text: str
    do: str
    job: str | None = None
    constraint: str | None = None
    reason: str | None = None
    attr: str | None = None
    value: str | None = None
    daemon: str | None = None
    config: Mapping[str, str] = field(default_factory=dict)
    site: str | None = None

    kind: ClassVar[str] = "action"

    @property
    def label(self) -> str:
        return _label(self.kind, self.index, self.at_text)


@dataclass(frozen=True)
class ExpectSpec:
    """One ``[[expect]]``: what must be true at ``at`` (epoch seconds, or END).

    Exactly one of ``job`` (``"cluster.proc"``), ``constraint`` (over all jobs) and
    ``ads`` (collector ads of this MyType) is set -- or ``messages`` (our extension:
    trace records), which ``job`` or ``constraint`` may restrict to their jobs'
    messages; ``after``, ``first``, ``every`` (seconds) and ``intervals`` go with it.
    """

    index: int
    at: Moment
    at_text: str
    job: str | None = None
    constraint: str | None = None
    that: str | None = None
    count: int | None = None
    events: tuple[str, ...] = ()
    ads: str | None = None
    where: str | None = None
    description: str = ""
    messages: MessageSelector | None = None
    after: MessageSelector | None = None
    first: int | None = None
    every: int | None = None
    intervals: tuple[int, ...] | None = None

    kind: ClassVar[str] = "expect"

    @property
    def label(self) -> str:
        return _label(self.kind, self.index, self.at_text)


TimelineEntry = SubmitSpec | ActionSpec | ExpectSpec

_KIND_ORDER: Final = {"submit": 0, "action": 1, "expect": 2}


@dataclass(frozen=True)
class Scenario:
    """A whole scenario file. ``until`` and ``max`` are seconds from ``start``."""

    name: str
    start: int
    description: str = ""
    timezone: str = "UTC"
    until: int | Literal["quiet"] = QUIET
    max: int = 7 * 86400
    seed: int = 1
    clock: Literal["virtual", "wall"] = "virtual"
    speed: float = 1.0
    config: Mapping[str, str] = field(default_factory=dict)
    config_file: Path | None = None
    machines: tuple[MachineSpec, ...] = ()
    sites: tuple[SiteSpec, ...] = ()
    files: tuple[FileSpec, ...] = ()
    submits: tuple[SubmitSpec, ...] = ()
    actions: tuple[ActionSpec, ...] = ()
    expects: tuple[ExpectSpec, ...] = ()
    source: str = "<string>"
    base_dir: Path = Path(".")

    def events_in_order(self) -> list[TimelineEntry]:
        """Submits, actions and expectations by (moment, kind, order in the file).

        At one moment: submits, then actions, then expectations. ``"end"`` is last.
        """
        entries: list[TimelineEntry] = [*self.submits, *self.actions, *self.expects]

        def key(entry: TimelineEntry) -> tuple[int, int, int, int]:
            at_end = entry.at == END
            moment = 0 if at_end else int(entry.at)
            return (int(at_end), moment, _KIND_ORDER[entry.kind], entry.index)

        return sorted(entries, key=key)

    @property
    def deadline(self) -> int:
        """The simulated time the run stops at the latest (``start + max``)."""
        return self.start + self.max
