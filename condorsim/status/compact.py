"""condor_status -compact: one row per machine (and slot type), its slots folded together.

How this works
--------------
HTCondor 24's condor_status states its compact views as print formats in
``src/condor_status.V6/prettyPrint.cpp`` (``startdCompact_PrintFormat`` for the slot
view and ``-avail``, ``serverCompact_``, ``stateCompact_``, ``claimedCompact_``) and
folds the rows in ``status.cpp`` (``process_ads_callback``, ``reduce_slot_results``,
``fold_slot_result``). This module does the same, in that order:

1. The query keeps partitionable and static slots (``PartitionableSlot =?= true ||
   DynamicSlot =!= true``; ``-avail`` also ``State == "Unclaimed" && Cpus > 0 &&
   Memory > 0``; ``-claimed`` the claimed static slots and the partitionable slots with
   dynamic children) -- :data:`WHERE`.
2. The ads are sorted by ``join(":", Machine, SlotTypeId)`` then ``Name``, and each is
   rendered into a row. A partitionable slot's ST column becomes the consensus of its
   children's states and activities (``ChildState``, ``ChildActivity``): one letter when
   they agree, ``#`` when they do not, ``*`` when the consensus differs from the slot's
   own (a Preempting or Vacating child wins).
3. Rows of the same machine and slot type are folded into the first: it counts the slots
   (a static slot is 1, a partitionable slot 1 plus its dynamic slots), adds the free
   cpus and memory of the slots that are not busy, keeps the largest slot's memory
   (MaxSlotGb), adds the job starts, and shows ``*`` for a state or activity letter the
   slots do not share. A second slot type of the same machine gets its own row, named by
   the slot (``   slot1``).
4. The totals (after a blank line) are keyed by the Platform column (``x64/AlmaLinux9``):
   a partitionable slot counts its children's states, then itself unless exhausted.

As in HTCondor, a column's width is set while the rows are rendered, before they are
folded (the headings are printed with those widths), and the Cpus, Gpus and TotalGb
columns are the first slot's (they are not summed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from condorsim.classad import ClassAd, EvalContext
from condorsim.tools.printmask import Cell, Column, PrintMask
from condorsim.tools.qrender import lookup, lookup_str

from . import totals as tot

_STARTD = 'PartitionableSlot =?= true || DynamicSlot =!= true'
WHERE = {
    "slots": [_STARTD],
    "avail": ['State == "Unclaimed" && Cpus > 0 && Memory > 0', _STARTD],
    "claimed": ['(State == "Claimed" && DynamicSlot =!= true) || '
                '(NumDynamicSlots isnt undefined && NumDynamicSlots > 0)'],
    "state": [_STARTD],
    "server": [_STARTD],
}
TOTALS = {"slots": "slots", "avail": "slots", "claimed": "run", "state": "state",
          "server": "server"}

_STATE_LETTERS = {"Owner": "O", "Unclaimed": "U", "Matched": "M", "Claimed": "C",
                  "Preempting": "P", "Shutdown": "S", "Delete": "X", "Backfill": "F",
                  "Drained": "D"}
_ACTIVITY_LETTERS = {"Idle": "i", "Busy": "b", "Retiring": "r", "Vacating": "v",
                     "Suspended": "s", "Benchmarking": "e", "Killing": "k"}
_MIXED = "#"  # digest_state_and_activity's letter for _state_threshold_ / _act_threshold_


# ----------------------------------------------------------------- renderers
def render_platform(ad: ClassAd, _value: Any) -> str | None:
    """``format_platform_name``: ``x64/AlmaLinux9`` from Arch and OpSysAndVer (Windows:
    OpSysShortName)."""
    opsys = lookup_str(ad, "OpSysShortName" if lookup_str(ad, "OpSys") == "WINDOWS"
                       else "OpSysAndVer")
    if opsys is None:
        return None
    arch = lookup_str(ad, "Arch") or ""
    arch = {"X86_64": "x64", "X86": "x86"}.get(arch, arch)
    return f"{arch}/{opsys}"


def render_slot_count_tag(_ad: ClassAd, value: Any) -> str:
    """``local_render_slot_count_tag``: S for Static, blank for Partitionable."""
    text = value if type(value) is str else ""
    if text == "Static":
        return "S"
    if text == "Partitionable":
        return " "
    return text[:1]


def render_activity_code(ad: ClassAd, value: Any) -> str | None:
    """``render_activity_code``: the state letter then the activity letter (``Ui``)."""
    state, activity = lookup_str(ad, "State"), value if type(value) is str else None
    if activity not in _ACTIVITY_LETTERS and activity in _STATE_LETTERS:
        state, activity = activity, lookup_str(ad, "Activity")
    elif activity not in _ACTIVITY_LETTERS:
        return None
    return _STATE_LETTERS.get(state or "", " ") + _ACTIVITY_LETTERS.get(activity or "", " ")


def render_unique(_ad: ClassAd, value: Any) -> str | None:
    """``render_unique_strings``: the distinct items of a list, sorted, comma separated."""
    if not isinstance(value, list):
        return None
    from condorsim.tools.fmt import value_text
    return ", ".join(sorted({v if type(v) is str else value_text(v) for v in value}))


# ----------------------------------------------------------------- the formats
def _col(attr: str, heading: str, fmt: str | None = "%v", alt: str = "", **kw: Any) -> Column:
    """A print-format column with no WIDTH: as wide as its heading, growing to fit."""
    return Column(attr, heading, -len(heading), fmt=fmt, alt=alt, autowidth=True,
                  notruncate=True, **kw)


def _head() -> list[Column]:
    return [Column("Machine", "Machine", -12, autowidth=True, notruncate=True),
            _col("OpSys", "Platform", fmt=None, render=render_platform),
            _col("NumDynamicSlots", "Slot", fmt="%4d", alt=" "),
            _col("SlotType", "s", fmt=None, render=render_slot_count_tag, noprefix=True),
            _col("TotalSlotCpus", "Cpus", fmt="%4d"),
            _col("TotalSlotGpus", "Gpus", fmt="%4d"),
            _col("TotalSlotMemory/1024.0", " TotalGb", fmt="%8.2f")]


def _load() -> Column:
    return _col("TotalLoadAvg*1.0/TotalCpus", "CpuLoad", fmt="%7.2f")


def _tail() -> list[Column]:
    return [Column("Activity", "ST", 2, fmt=None, render=render_activity_code),
            _col("RecentJobStarts/20.0", "Jobs/Min", fmt="%8.2f", alt="_")]


@dataclass(frozen=True)
class Format:
    """A compact print format: its columns and where the folded columns are."""

    columns: Callable[[], list[Column]]
    free_cpus: int = -1
    free_mem: int = -1
    act_code: int = -1
    job_starts: int = -1
    max_slot_mem: int = -1


FORMATS = {
    "slots": Format(lambda: [*_head(), _col("Cpus", "FreCpu", fmt="%6d"),
                             _col("Memory/1024.0", " FreeGb ", fmt="%8.2f"), _load(),
                             *_tail(),
                             _col("Max(ChildMemory)/1024.0", "MaxSlotGb", fmt="%9.2f",
                                  alt="*")],
                    free_cpus=7, free_mem=8, act_code=10, job_starts=11, max_slot_mem=12),
    "server": Format(lambda: [*_head(), _col("Mips", " Mips  ", fmt="%7d", alt="-"),
                              _col("KFlops", " KFlops  ", fmt="%9d", alt="-"), _load(),
                              *_tail()],
                     act_code=10, job_starts=11),
    "state": Format(lambda: [*_head(), _load(), *_tail()], act_code=8, job_starts=9),
    "claimed": Format(lambda: [*_head()[:4],
                               _col("ChildRemoteUser", "Users", fmt=None, render=render_unique)]),
}
FORMATS["avail"] = FORMATS["slots"]
_MACHINE, _PLATFORM, _SLOTS = 0, 1, 2

# row flags (status.cpp's SROD_*)
PARTITIONABLE, DYNAMIC, EXHAUSTED, BACKFILL = 1, 2, 4, 8
BUSY, UNAVAIL, RESERVED, COOKED, FOLDED = 16, 32, 64, 128, 256


@dataclass
class Row:
    key: str
    ad: ClassAd
    cells: list[Cell]
    label: str = ""
    flags: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def number(self, index: int, default: float = 0.0) -> float:
        """``getNumber``: the column's value when it is a number, else ``default``."""
        if index < 0:
            return default
        value = self.cells[index][1]
        return float(value) if type(value) in (int, float, bool) else default

    def has_number(self, index: int) -> bool:
        return type(self.cells[index][1]) in (int, float, bool)

    def set(self, index: int, value: Any, valid: bool | None = None) -> None:
        old_valid, _ = self.cells[index]
        self.cells[index] = (old_valid if valid is None else valid, value)

    def code(self, index: int) -> str:
        value = self.cells[index][1]
        return (value if type(value) is str else "").ljust(2)[:2]


# ------------------------------------------------------------------- the rows
def _flag(ad: ClassAd, attr: str) -> bool:
    return lookup(ad, attr) is True


def _key(ad: ClassAd) -> str:
    """The sort key: ``join(":", Machine, SlotTypeId)`` then Name (a negative SlotTypeId
    counts as positive, as condor_status's hack has it)."""
    parts = []
    for attr in ("Machine", "SlotTypeId"):
        value = lookup(ad, attr)
        if type(value) is int and attr == "SlotTypeId":
            value = abs(value)
        if type(value) is str:
            parts.append(value)
        elif type(value) in (int, float):
            from condorsim.tools.fmt import value_text
            parts.append(value_text(value))
    name = lookup(ad, "Name")
    return ":".join(parts) + "\n" + (name if type(name) is str else "")


_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple((1, int(part), "") if i % 2 else (0, 0, part)
                 for i, part in enumerate(_DIGITS.split(text)) if part)


def _consensus(ad: ClassAd, attr: str, known: dict[str, str], wins: str) -> str | None:
    """The children's common letter; ``#`` when they differ (``wins`` wins); None: no child."""
    values = lookup(ad, attr)
    found: str | None = None
    for value in values if isinstance(values, list) else ():
        letter = known.get(value) if type(value) is str else None
        if letter is None or letter == found:
            continue
        if found is None:
            found = letter
        elif letter == wins:
            return letter
        else:
            found = _MIXED
    return found


def _roll_up(row: Row, fmt: Format) -> None:
    """A partitionable slot's ST: its own code merged with its children's consensus."""
    state = _consensus(row.ad, "ChildState", _STATE_LETTERS, "P")
    activity = _consensus(row.ad, "ChildActivity", _ACTIVITY_LETTERS, "v")
    bsc, bac = state or " ", activity or " "
    own = row.code(fmt.act_code)
    asc, aac = own[0], own[1]
    if (asc, aac) == ("U", "i") and row.flags & EXHAUSTED:
        asc, aac = bsc, bac
    elif asc == "D" and bsc == "C":
        asc = bsc
    if bsc == "P":
        asc = bsc
    if bac == "v":
        aac = bac
    if state is not None and asc != bsc:
        asc = "*"
    if activity is not None and aac != bac:
        aac = "*"
    if own != asc + aac:
        row.set(fmt.act_code, asc + aac)


def _flags(ad: ClassAd) -> int:
    flags = BACKFILL if _flag(ad, "SlotBackfill") else 0
    pslot = _flag(ad, "PartitionableSlot")
    if pslot:
        flags |= PARTITIONABLE
        cpus = lookup(ad, "Cpus")
        if type(cpus) in (int, float) and cpus < 0.1:
            flags |= EXHAUSTED
    elif _flag(ad, "DynamicSlot"):
        flags |= DYNAMIC
    state = lookup_str(ad, "State")
    if pslot and state == "Claimed":
        flags |= RESERVED
    elif state in ("Matched", "Claimed", "Preempting"):
        flags |= BUSY
    elif state in ("Drained", "Owner", "Shutdown", "Delete"):
        flags |= UNAVAIL
    return flags


def _fold(aa: Row, bb: Row | None, fmt: Format) -> None:
    """``fold_slot_result``: slot ``bb`` into machine row ``aa`` (None: just cook ``aa``)."""
    if not aa.flags & PARTITIONABLE and not aa.flags & COOKED:
        if fmt.free_mem >= 0 and fmt.max_slot_mem >= 0:
            aa.set(fmt.max_slot_mem, aa.number(fmt.free_mem), True)
        if aa.flags & BUSY:
            if fmt.free_cpus >= 0:
                aa.set(fmt.free_cpus, 0)
            if fmt.free_mem >= 0:
                aa.set(fmt.free_mem, 0.0)
        aa.set(_SLOTS, 1, True)
        aa.flags |= COOKED
    if bb is None:
        return
    partitionable = bool(bb.flags & PARTITIONABLE)
    bmem = 0.0
    if fmt.max_slot_mem >= 0:
        amem = aa.number(fmt.max_slot_mem)
        bmem = bb.number(fmt.max_slot_mem if partitionable else fmt.free_mem)
        aa.set(fmt.max_slot_mem, max(amem, bmem))
    if partitionable or not bb.flags & BUSY:
        if fmt.free_mem >= 0:
            aa.set(fmt.free_mem, bmem + aa.number(fmt.free_mem))
        if fmt.free_cpus >= 0:
            aa.set(fmt.free_cpus, int(aa.number(fmt.free_cpus)) + int(bb.number(fmt.free_cpus)))
    if aa.has_number(_SLOTS):
        aslots = int(aa.number(_SLOTS))
    else:
        aslots = 1
        aa.set(_SLOTS, 1, True)
    bslots = int(bb.number(_SLOTS, 1)) if partitionable else 1
    aa.set(_SLOTS, aslots + bslots)
    if fmt.job_starts >= 0:
        aa.set(fmt.job_starts, aa.number(fmt.job_starts) + bb.number(fmt.job_starts))
    if fmt.act_code >= 0:
        ast, bst = aa.code(fmt.act_code), bb.code(fmt.act_code)
        merged = (ast[0] if ast[0] == bst[0] else "*") + (ast[1] if ast[1] == bst[1] else "*")
        if merged != ast:
            aa.set(fmt.act_code, merged)


def _same_primary_key(aa: str, bb: str) -> tuple[bool, bool]:
    """``same_primary_key``: (same machine, another slot type of it)."""
    mismatch = got_colon = False
    if not aa:
        return False, False
    for ix, ch in enumerate(aa):
        other = bb[ix] if ix < len(bb) else "\0"
        if other != ch:
            if got_colon and ch.isdigit() and other.isdigit():
                mismatch = True
            else:
                return False, mismatch
        if ch == "\n":
            return True, mismatch
        got_colon = ch == ":"
    return len(bb) == len(aa), mismatch


def _reduce(rows: list[Row], fmt: Format) -> None:
    """``reduce_slot_results``: fold each machine's rows into its first."""
    if not rows:
        return
    machine = rows[0]
    fold_last = False
    for row in rows[1:]:
        same, other_type = _same_primary_key(row.key, machine.key)
        if same and not other_type:
            _fold(machine, row, fmt)
            row.flags |= FOLDED
            fold_last = False
        else:
            _fold(machine, None, fmt)
            if same and other_type and row.label:
                row.set(_MACHINE, "   " + row.label)
            machine = row
            fold_last = True
    if fold_last:  # (a lone row is left as it is, as condor_status leaves it)
        _fold(machine, None, fmt)


# ------------------------------------------------------------------- the view
def compact_table(ads: Sequence[ClassAd], style_name: str, *, now: int = 0,
                  totals_only: bool = False, cut: int = 0) -> str:
    """The compact view of ``ads`` (already filtered by :data:`WHERE`): headings, a blank
    line, one row per machine and slot type, then the totals."""
    if not ads:
        return ""
    fmt = FORMATS[style_name]
    mask = PrintMask(fmt.columns(), overall_width=cut)
    ctx = EvalContext(now=now)
    rows = []
    for ad in sorted(ads, key=lambda a: _natural(_key(a))):
        row = Row(_key(ad), ad, mask.render(ad, ctx), flags=_flags(ad))
        name = lookup_str(ad, "Name") or ""
        row.label = name.split("@", 1)[0]
        if row.flags & PARTITIONABLE and fmt.act_code >= 0:
            _roll_up(row, fmt)
        rows.append(row)
    kind = TOTALS[style_name]
    updates: list[tot.Update] = []
    for row in rows:
        platform = row.cells[_PLATFORM][1] if row.cells[_PLATFORM][0] else None
        key = None if kind == "state" else platform
        bk = tot.BACKFILL_SLOTS if row.flags & BACKFILL else 0
        updates.append((key, row.ad, bk | tot.ROLLUP_PARTITIONABLE | tot.IGNORE_DYNAMIC))
        if row.flags & (PARTITIONABLE | EXHAUSTED | BACKFILL) == PARTITIONABLE:
            updates.append((key, row.ad, bk | tot.IGNORE_DYNAMIC))
    out = ""
    if not totals_only:
        _reduce(rows, fmt)
        out = mask.headings() + "\n" + "".join(
            mask.display(row.cells) for row in rows if not row.flags & FOLDED)
    return out + "\n" + tot.summary(ads, kind, updates=updates)
