"""The totals condor_status prints after a table (HTCondor's ``totals.cpp``).

How this works
--------------
Each kind of totals keys the ads (slots by ``Arch/OpSys``, ``-state`` by Activity,
submitters by Name, schedds all under one blank key), counts per key and over all, and
prints: the key column's width of blanks then the header line, a blank line, one line per
key (sorted), a blank line, then the ``Total`` line. The key column is 14 wide
(condor_status's ``MAX(14, max_totals_subkey)``, the sub-key width never being set), or
the longest key (at least 5) for submitters and with ``-wide``. Keys are cut to that width.
As in HTCondor 24, the ``-state`` totals never count their Total column (it shows 0), and
``-server`` counts Claimed and Unclaimed slots as Avail. ``-compact`` keys the slots by
their Platform column instead, counts a partitionable slot's children (``ChildState``) and
then the partitionable slot itself unless it is exhausted, and leaves dynamic slots out.
The formats are HTCondor's: ``%6d %5d %7d ...`` for slots, ``%18d`` for schedds (whose
per-key line is its key alone, as ``ScheddNormalTotal`` prints nothing for it), and so
on. An ad that cannot be keyed or counted makes the "(Omitted N malformed ads in
computed attribute totals)" line.
"""

# The totals are printed with the printf formats of totals.cpp, kept as % formats so that
# they read the same as HTCondor's source.
# ruff: noqa: UP031

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from condorsim.classad import ClassAd

_SLOT_STATES = ("Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drained", "Backfill")


def _string(ad: ClassAd, attr: str) -> str | None:
    value = ad.evaluate(attr) if attr in ad else None
    return value if type(value) is str else None


def _number(ad: ClassAd, attr: str) -> float | None:
    value = ad.evaluate(attr) if attr in ad else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


@dataclass
class _Count:
    values: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, amount: float = 1) -> None:
        self.values[name] = self.values.get(name, 0) + amount

    def get(self, name: str) -> float:
        return self.values.get(name, 0)


# totals.cpp's update options (TOTALS_OPTION_*), as condor_status -compact passes them
ROLLUP_PARTITIONABLE = 1  # a partitionable slot counts its children's states (ChildState)
IGNORE_DYNAMIC = 2  # a dynamic slot is not counted
BACKFILL_SLOTS = 4  # a backfill slot counts as Backfill (claimed) or BkIdle (unclaimed)


def _flag(ad: ClassAd, attr: str) -> bool:
    return attr in ad and ad.evaluate(attr) is True


def _slot_kinds(ad: ClassAd, options: int) -> tuple[bool, bool, bool]:
    """(partitionable, dynamic, backfill) as the totals look them up: only with options."""
    if not options:
        return False, False, False
    pslot = _flag(ad, "PartitionableSlot")
    dynamic = not pslot and _flag(ad, "DynamicSlot")
    return pslot, dynamic, bool(options & BACKFILL_SLOTS) and _flag(ad, "SlotBackfill")


def _state_counter(count_machines: bool) -> Callable[[_Count, ClassAd, int], bool]:
    """StartdNormalTotal::update (``count_machines``) or StartdStateTotal::update, which
    never counts its Total column (HTCondor 24 prints 0 there)."""
    def count_state(count: _Count, state: str | None, backfill: bool) -> bool:
        if backfill and state == "Unclaimed":
            count.add("BkIdle")
            return True
        if backfill and state == "Claimed":
            state = "Backfill"
        if state not in _SLOT_STATES:
            return False
        count.add(state)
        if count_machines:
            count.add("machines")
        return True

    def add(count: _Count, ad: ClassAd, options: int = 0) -> bool:
        pslot, dynamic, backfill = _slot_kinds(ad, options)
        if dynamic and options & IGNORE_DYNAMIC:
            return True
        if pslot and options & ROLLUP_PARTITIONABLE:
            children = ad.evaluate("ChildState") if "ChildState" in ad else None
            for child in children if isinstance(children, list) else ():
                if type(child) is str:
                    count_state(count, child, backfill)
            return True
        return count_state(count, _string(ad, "State"), backfill)
    return add


_slots = _state_counter(True)


def _states(order: tuple[str, ...], widths: tuple[int, ...]
            ) -> tuple[Callable[[_Count, bool], str], str]:
    """The row and the header of a table of slot states (StartdNormalTotal's order, or
    StartdStateTotal's): ``%Nd`` counts under ``%N.Ns`` headings."""
    heads = {"machines": "Total", "Drained": "Drain", "BkIdle": "BkIdle"}

    def row(c: _Count, top: bool) -> str:
        return " ".join("%*d" % (w, int(c.get(k))) for k, w in zip(order, widths, strict=True)) + "\n"

    head = " ".join("%*.*s" % (w, w, heads.get(k, k)) for k, w in zip(order, widths, strict=True))
    return row, head + "\n"


_slot_row, _SLOT_HEAD = _states(
    ("machines", "Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drained",
     "Backfill", "BkIdle"), (6, 5, 7, 9, 7, 10, 6, 8, 6))
_state_row, _STATE_HEAD = _states(
    ("machines", "Owner", "Unclaimed", "Claimed", "Preempting", "Matched", "Drained",
     "Backfill", "BkIdle"), (6, 5, 9, 7, 10, 7, 6, 8, 6))


def _run(count: _Count, ad: ClassAd, options: int = 0) -> bool:
    good = True
    for attr in ("Mips", "KFlops", "LoadAvg"):
        value = _number(ad, attr)
        if value is None:
            good = False
        else:
            count.add(attr, int(value) if attr != "LoadAvg" else value)
    count.add("machines")
    return good


def _run_row(c: _Count, top: bool) -> str:
    machines = int(c.get("machines"))
    load = c.get("LoadAvg") / machines if machines else 0.0
    return "%9d  %11d  %11d   %-.3f\n" % (machines, c.get("Mips"), c.get("KFlops"), load)


def _server(count: _Count, ad: ClassAd, options: int = 0) -> bool:
    state = _string(ad, "State")
    if state is None:
        return False
    good = True
    for attr in ("Memory", "Disk", "Mips", "KFlops"):
        value = _number(ad, attr)
        if value is None:
            good = False
        else:
            count.add(attr, int(value))
    count.add("machines")
    if state in ("Claimed", "Unclaimed"):  # StartdServerTotal's "Avail"
        count.add("avail")
    return good


def _server_row(c: _Count, top: bool) -> str:
    return "%9d %5d %11d %11d %11d %11d\n" % (c.get("machines"), c.get("avail"),
                                              c.get("Memory"), c.get("Disk"), c.get("Mips"),
                                              c.get("KFlops"))


def _jobs(attrs: tuple[str, str, str]) -> Callable[[_Count, ClassAd, int], bool]:
    def add(count: _Count, ad: ClassAd, options: int = 0) -> bool:
        good = True
        for attr in attrs:
            value = _number(ad, attr)
            if value is None:
                good = False
            else:
                count.add(attr, int(value))
        return good
    return add


_SCHEDD = ("TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs")
_SUBMITTER = ("RunningJobs", "IdleJobs", "HeldJobs")


@dataclass(frozen=True)
class _Kind:
    key: Callable[[ClassAd], str | None]
    add: Callable[[_Count, ClassAd, int], bool]
    row: Callable[[_Count, bool], str]
    head: str
    auto_width: bool = False


def _arch_opsys(ad: ClassAd) -> str | None:
    arch, opsys = _string(ad, "Arch"), _string(ad, "OpSys")
    return f"{arch}/{opsys}" if arch is not None and opsys is not None else None


KINDS = {
    "slots": _Kind(_arch_opsys, _slots, _slot_row, _SLOT_HEAD),
    "state": _Kind(lambda ad: _string(ad, "Activity"), _state_counter(False), _state_row,
                   _STATE_HEAD),
    "run": _Kind(_arch_opsys, _run, _run_row,
                 "%9.9s  %11.11s  %11.11s  %11.11s\n" % ("Machines", "MIPS", "KFLOPS",
                                                         "AvgLoadAvg")),
    "server": _Kind(_arch_opsys, _server, _server_row,
                    "%9.9s %5.5s %7.7s %11.11s %11.11s %11.11s\n" % (
                        "Machines", "Avail", "Memory", "Disk", "MIPS", "KFLOPS")),
    "schedd": _Kind(lambda ad: " ", _jobs(_SCHEDD),
                    lambda c, top: ("%18d %18d %18d\n" % tuple(c.get(a) for a in _SCHEDD))
                    if top else "",
                    "%18s %18s %18s\n" % _SCHEDD),
    "submitters": _Kind(lambda ad: _string(ad, "Name"), _jobs(_SUBMITTER),
                        lambda c, top: "%11d %10d %10d\n" % tuple(c.get(a) for a in _SUBMITTER),
                        "%11s %10s %10s\n" % _SUBMITTER, auto_width=True),
}


Update = tuple[str | None, ClassAd, int]  # a key (None: the kind's own), an ad, options


def summary(ads: Sequence[ClassAd], kind_name: str, wide: bool = False,
            updates: Iterable[Update] | None = None) -> str:
    """The totals block of ``kind_name`` for ``ads`` (``displayTotals``).

    ``updates``, when given, replaces the one update per ad: each names its key (None for
    the kind's own key of the ad) and the update options (condor_status -compact keys the
    slots by their Platform column and rolls partitionable slots up)."""
    kind = KINDS[kind_name]
    groups: dict[str, _Count] = {}
    top = _Count()
    malformed = 0
    for key, ad, options in updates if updates is not None else ((None, ad, 0) for ad in ads):
        key = key or kind.key(ad)
        if key is None:
            malformed += 1
            continue
        ok = kind.add(groups.setdefault(key, _Count()), ad, options)
        kind.add(top, ad, options)
        if not ok:
            malformed += 1
    if wide or kind.auto_width:
        width = max([5, *(len(k) for k in groups)])
    else:
        width = 14
    def cell(text: str) -> str:
        return text[:width].rjust(width)
    lines = [" " * width + kind.head, "\n"]
    for key in sorted(groups):
        lines.append(cell(key) + kind.row(groups[key], False))
    if groups:
        lines.append("\n")
    lines.append(cell("Total") + kind.row(top, True))
    if malformed:
        lines.append(f"\n{'':{width}}(Omitted {malformed} malformed ads in computed "
                     "attribute totals)\n\n")
    return "".join(lines)
