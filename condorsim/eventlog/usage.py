"""The `Partitionable Resources` table that ends a termination or eviction event.

How this works: the writer lays the table out as HTCondor's `formatUsageAd` does --
rows sorted by resource name, a label column at least 20 wide, right-aligned
Usage/Request/Allocated columns at least 8/8/9 wide, real numbers with a fraction
as `%.2f` and integers padded to line up with them. The reader finds the columns
from the header line, as HTCondor's `UsageLineParser` does (a value is whatever
lies under its column heading), and names the values as JobEventLog does:
`<Res>Usage`, `Request<Res>`, `<Res>` and `Assigned<Res>`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from condorsim.eventlog.events import FieldValue, ResourceUsage

if TYPE_CHECKING:
    from condorsim.classad import ClassAd

_UNITS = {
    "Memory": " (MB)",
    "Disk": " (KB)",
    "Gpus": " (Average)",
    "GpusMemory": " (MB)",
    "TimeExecute": " (s)",
    "TimeSlotBusy": " (s)",
}


def _cell(value: int | float | None) -> tuple[str, bool]:
    """The text of one value and whether it shows a fractional part."""
    if value is None:
        return "", False
    if isinstance(value, float):
        if math.modf(value)[0] > 0:
            return f"{value:.2f}", True
        return str(int(value)), False
    return str(value), False


def _number(ad: ClassAd, name: str) -> int | float | None:
    value = ad.evaluate(name)
    return value if type(value) in (int, float) else None


def event_usage_rows(job: ClassAd) -> list[ResourceUsage]:
    """The table's rows for a job, as HTCondor's ``setEventUsageAd`` builds them (the shadow,
    the job router and the gridmanager all use it): one row per resource named by the job's
    ProvisionedResources (default ``Cpus, Disk, Memory``) -- usage ``<Res>Usage``, request
    ``Request<Res>``, allocated ``<Res>Provisioned`` (the starter copies the slot's values
    there) -- then TimeExecute (ActivationExecutionDuration) and TimeSlotBusy
    (ActivationDuration), usage only."""
    names = job.evaluate("ProvisionedResources")
    rows = []
    for name in (names if isinstance(names, str) else "Cpus, Disk, Memory").replace(
            ",", " ").split():
        res = name[:1].upper() + name[1:].lower()
        usage, request = _number(job, f"{res}Usage"), _number(job, f"Request{res}")
        allocated = _number(job, f"{res}Provisioned")
        if usage is not None or request is not None or allocated is not None:
            rows.append(ResourceUsage(name, usage, request, allocated))
    for attr, label in (("ActivationExecutionDuration", "TimeExecute"),
                        ("ActivationDuration", "TimeSlotBusy")):
        value = job.evaluate(attr)
        if type(value) is int:
            rows.append(ResourceUsage(label, value, None, None))
    return rows


def format_resources(rows: Sequence[ResourceUsage]) -> str:
    """The table lines for `rows` (nothing for no rows)."""
    if not rows:
        return ""
    columns = [
        [_cell(getattr(row, part)) for row in rows] for part in ("usage", "request", "allocated")
    ]
    texts: list[list[str]] = []
    for cells in columns:
        fractional = any(has_fraction for _, has_fraction in cells)
        texts.append([text + "   " if fractional and text.isdigit() else text for text, _ in cells])
    use_w = max(8, *(len(text) for text in texts[0]))
    req_w = max(8, *(len(text) for text in texts[1]))
    alloc_len = max(len(text) for text in texts[2])
    alloc_w = max(alloc_len, 9)
    res_w = max(len("Memory (MB)") + 1, *(len(row.name) for row in rows)) + 8
    heading = "Allocated" if alloc_len else ""
    lines = [
        f"\tPartitionable Resources : {'Usage':>{use_w}} {'Request':>{req_w}} {heading:>{alloc_w}}"
    ]
    order = sorted(range(len(rows)), key=lambda index: rows[index].name.lower())
    for index in order:
        name = rows[index].name
        label = name + _UNITS.get(name, "")
        lines.append(
            f"\t   {label:<{res_w}} : {texts[0][index]:>{use_w}} "
            f"{texts[1][index]:>{req_w}} {texts[2][index]:>{alloc_w}}"
        )
    return "".join(line.rstrip() + "\n" for line in lines)


def _value(text: str) -> FieldValue | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


class ResourceTable:
    """Reads table rows using the column positions of the table's header line."""

    def __init__(self, header: str) -> None:
        table = header[header.index(":") + 1 :] if ":" in header else header
        pos = 0

        def skip_word() -> int:
            nonlocal pos
            while pos < len(table) and table[pos] == " ":
                pos += 1
            while pos < len(table) and table[pos] != " ":
                pos += 1
            return pos + 1

        self.use_end = skip_word()
        self.req_end = skip_word()
        allocated = table.find("Allocated", pos)
        self.alloc_end = allocated + len("Allocated") if allocated >= 0 else -1
        assigned = table.find("Assigned", max(allocated, 0)) if allocated >= 0 else -1
        self.assigned_start = assigned

    def parse_row(self, line: str) -> dict[str, FieldValue] | None:
        """The attributes of one row; None if the line is not a row (the table ended)."""
        colon = line.find(":")
        if colon < 0:
            return None
        tag = line[:colon].strip().split(" ")[0]
        cells = line[colon + 1 :]
        found: dict[str, FieldValue] = {}
        parts = [
            (f"{tag}Usage", cells[: self.use_end]),
            (f"Request{tag}", cells[self.use_end : self.req_end]),
        ]
        if self.alloc_end > 0:
            parts.append((tag, cells[self.req_end : self.alloc_end]))
        if self.assigned_start > 0:
            parts.append((f"Assigned{tag}", cells[self.assigned_start :]))
        for name, text in parts:
            value = _value(text)
            if value is not None:
                found[name] = value
        return found
