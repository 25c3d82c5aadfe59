"""The body of each event type: what HTCondor's `readEvent` accepts, as JobEventLog fields.

How this works: a parser gets the body's lines -- the first is the text after the
header's date -- and returns the event's fields, named and typed as
`htcondor.JobEventLog` reports them (counts and codes as int, byte counts as
float, usages as `Usr d hh:mm:ss, Sys d hh:mm:ss` text). Where HTCondor's reader
gives up (`return 0`), the parser raises `BodyError` with the offending line's
index; where HTCondor tolerates a missing optional line, so does the parser.
Attribute values (ExecuteProps, JOB_AD_INFORMATION) are kept as ClassAd
expression text, as in job_queue.log.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from condorsim.eventlog.events import FieldValue, ToE, parse_rusage
from condorsim.eventlog.usage import ResourceTable

Fields = dict[str, FieldValue]


class BodyError(Exception):
    """A body line HTCondor's reader would refuse; `index` 0 is the header line."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.reason = reason


def _first(body: list[str], prefix: str) -> str:
    if not body[0].startswith(prefix):
        raise BodyError(0, f"expected {prefix.strip()!r}, found {body[0][:60]!r}")
    return body[0][len(prefix) :]


def _line(body: list[str], index: int, what: str) -> str:
    if index >= len(body):
        raise BodyError(len(body) - 1, f"missing {what}")
    return body[index]


def _attribute(line: str) -> tuple[str, str] | None:
    name, eq, value = line.partition("=")
    name = name.strip()
    if not eq or not name or " " in name or not value.strip():
        return None
    return name, value.strip()


def parse_submit(body: list[str]) -> Fields:
    """000 SUBMIT: SubmitHost, LogNotes, UserNotes, Warnings, StructuredNotes."""
    host = _first(body, "Job submitted from host: ")
    fields: Fields = {"SubmitHost": host} if host else {}
    for count, raw in enumerate(body[1:], start=1):
        line = raw.strip()
        if line.startswith("["):
            fields.setdefault("LogNotes", line)
        elif line.startswith("DAG Node: "):
            fields["LogNotes"] = line
            fields["StructuredNotes"] = {"DAGNodeName": line[len("DAG Node: ") :].strip()}
        elif line.startswith("WARNING: "):
            fields["Warnings"] = line
        elif line and count <= 2:
            fields["LogNotes" if count == 1 else "UserNotes"] = line
    return fields


def parse_execute(body: list[str]) -> Fields:
    """001 EXECUTE: ExecuteHost, SlotName, ExecuteProps (attribute -> expression text)."""
    host = _first(body, "Job executing on host: ")
    fields: Fields = {"ExecuteHost": host} if host else {}
    props: dict[str, str] = {}
    for index, line in enumerate(body[1:]):
        if index == 0 and line.startswith("\tSlotName:"):
            slot = line.partition(":")[2].strip().strip('"')
            if slot:
                fields["SlotName"] = slot
            continue
        attribute = _attribute(line)
        if attribute is not None:
            props[attribute[0]] = attribute[1]
    if props:
        fields["ExecuteProps"] = props
    return fields


_LEADING_INT = re.compile(r"\s*(-?\d+)")
_SIZE_LINE = re.compile(r"\s*(-?\d+)\s+-\s*(\S+)")


def parse_image_size(body: list[str]) -> Fields:
    """006 IMAGE_SIZE: Size, MemoryUsage, ResidentSetSize (0 if absent), ProportionalSetSize."""
    size = _LEADING_INT.match(_first(body, "Image size of job updated: "))
    if size is None:
        raise BodyError(0, "the image size is not a number")
    fields: Fields = {"Size": int(size.group(1)), "ResidentSetSize": 0}
    labels = {
        "memoryusage": "MemoryUsage",
        "residentsetsize": "ResidentSetSize",
        "proportionalsetsize": "ProportionalSetSize",
    }
    for line in body[1:]:
        match = _SIZE_LINE.match(line)
        if match is None or match.group(2).lower() not in labels:
            break
        fields[labels[match.group(2).lower()]] = int(match.group(1))
    return fields


_CODES = re.compile(r"\s*Code (-?\d+) Subcode (-?\d+)")
_FLAG = re.compile(r"\t\((-?\d+)\) (.*)$")
_BYTES = re.compile(r"\s*([-+0-9.eE]+)  -  (\w+) Bytes (\w+) By (\w+)")


def _termination(body: list[str], index: int, fields: Fields) -> int:
    """Read `(1) Normal termination ...` or `(0) Abnormal ...` and its core line."""
    flag = _FLAG.match(_line(body, index, "the termination line"))
    if flag is None:
        raise BodyError(index, "expected a (1) Normal or (0) Abnormal termination line")
    if int(flag.group(1)):
        fields["TerminatedNormally"] = True
        value = re.match(r"Normal termination \(return value (-?\d+)\)", flag.group(2))
        if value is None:
            raise BodyError(index, "expected 'Normal termination (return value N)'")
        if int(value.group(1)) >= 0:
            fields["ReturnValue"] = int(value.group(1))
        return index + 1
    fields["TerminatedNormally"] = False
    signal = re.match(r"Abnormal termination \(signal (-?\d+)\)", flag.group(2))
    if signal is None:
        raise BodyError(index, "expected 'Abnormal termination (signal N)'")
    if int(signal.group(1)) >= 0:
        fields["TerminatedBySignal"] = int(signal.group(1))
    core = _line(body, index + 1, "the core file line").strip()
    if core.startswith("(1) Corefile in: "):
        fields["CoreFile"] = core[len("(1) Corefile in: ") :]
    elif not core.startswith("(0)"):
        raise BodyError(index + 1, "expected '(0) No core file' or '(1) Corefile in: ...'")
    return index + 2


def _usages(body: list[str], index: int, names: list[str], fields: Fields) -> int:
    for offset, name in enumerate(names):
        usage = parse_rusage(_line(body, index + offset, name))
        if usage is None:
            raise BodyError(index + offset, f"expected the {name} line")
        fields[name] = str(usage)
    return index + len(names)


def parse_evicted(body: list[str]) -> Fields:
    """004 JOB_EVICTED: checkpointed, requeued, usage, bytes, termination, Reason."""
    codes = _CODES.match(_first(body, "Job was evicted."))
    fields: Fields = {}
    if codes is not None:
        for name, value in zip(("ReasonCode", "ReasonSubCode"), codes.groups(), strict=True):
            if int(value):
                fields[name] = int(value)
    kind = re.match(r"\t\((-?\d+)\) ([a-zA-Z ]+)", _line(body, 1, "the eviction kind"))
    if kind is None:
        raise BodyError(1, "expected '(0) CPU times', '(1) Job was checkpointed.' or a requeue")
    requeued = kind.group(2).startswith("Job terminated and was requeued")
    fields.update(
        Checkpointed=bool(int(kind.group(1))),
        TerminatedAndRequeued=requeued,
        TerminatedNormally=False,
        SentBytes=0.0,
        ReceivedBytes=0.0,
    )
    index = _usages(body, 2, ["RunRemoteUsage", "RunLocalUsage"], fields)
    for name, label in (("SentBytes", "Sent"), ("ReceivedBytes", "Received")):
        match = _BYTES.match(body[index]) if index < len(body) else None
        if match is None or match.group(2, 3, 4) != ("Run", label, "Job"):
            return fields  # older logs stop here
        fields[name] = float(match.group(1))
        index += 1
    if requeued:
        index = _termination(body, index, fields)
    if index < len(body) and not body[index].startswith("\tPartitionable Resources"):
        line = body[index]
        reason = line[len("\tReason: ") :] if line.startswith("\tReason: ") else line.strip()
        if reason:
            fields["Reason"] = reason
    return fields


def parse_terminated(body: list[str]) -> Fields:
    """005 JOB_TERMINATED: termination, four usages, four byte counts, resource table."""
    _first(body, "Job terminated.")
    fields: Fields = {}
    table_fields: Fields = {}
    index = _termination(body, 1, fields)
    names = ["RunRemoteUsage", "RunLocalUsage", "TotalRemoteUsage", "TotalLocalUsage"]
    index = _usages(body, index, names, fields)
    byte_names = {
        ("Run", "Sent"): "SentBytes",
        ("Run", "Received"): "ReceivedBytes",
        ("Total", "Sent"): "TotalSentBytes",
        ("Total", "Received"): "TotalReceivedBytes",
    }
    for name in byte_names.values():
        fields[name] = 0.0
    table: ResourceTable | None = None
    rest = body[index:]
    stop = len(rest)
    for at, line in enumerate(rest):
        stop = at
        if table is not None:
            row = table.parse_row(line)
            if row is None:
                break
            table_fields.update(row)
            continue
        match = _BYTES.match(line)
        if match is not None:
            byte_name = byte_names.get((match.group(2), match.group(3)))
            if byte_name is not None and match.group(4) == "Job":
                fields[byte_name] = float(match.group(1))
        elif line.startswith(("\tPartitionable ", "\tResources")):
            table = ResourceTable(line)
        else:
            break
    else:
        stop = len(rest)
    for line in rest[stop:]:
        toe = parse_toe(line)
        if toe is not None:
            fields["ToE"] = toe.fields()
            break
    return {**table_fields, **fields}


_OWN_ACCORD = re.compile(
    r"\s*Job terminated of its own accord at (\S+?)(?: with (signal|exit-code) (-?\d+))?\.\s*$")
_TERMINATED_BY = re.compile(
    r"\s*Job terminated by (.*) at (\S+) \(using method (-?\d+): (.*)\)\.\s*$")


def _utc_seconds(text: str) -> int | None:
    try:
        moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None
    return int(moment.replace(tzinfo=UTC).timestamp())


def parse_toe(line: str) -> ToE | None:
    """The ToE tag of a terminate event's last line, or None if the line is not one."""
    match = _OWN_ACCORD.match(line)
    if match is not None:
        when = _utc_seconds(match.group(1))
        if when is None:
            return None
        if match.group(2) is None:
            return ToE(when=when, exit_by_signal=True, exit_value=0)
        return ToE(when=when, exit_by_signal=match.group(2) == "signal",
                   exit_value=int(match.group(3)))
    match = _TERMINATED_BY.match(line)
    if match is not None:
        when = _utc_seconds(match.group(2))
        if when is None:
            return None
        return ToE(who=match.group(1), how=match.group(4), how_code=int(match.group(3)),
                   when=when)
    return None


def _optional_reason(body: list[str], name: str) -> Fields:
    reason = body[1].strip() if len(body) > 1 else ""
    return {name: reason} if reason else {}


def parse_aborted(body: list[str]) -> Fields:
    """009 JOB_ABORTED: Reason."""
    _first(body, "Job was aborted")
    return _optional_reason(body, "Reason")


def parse_suspended(body: list[str]) -> Fields:
    """010 JOB_SUSPENDED: NumberOfPIDs."""
    _first(body, "Job was suspended.")
    line = _line(body, 1, "the number of processes suspended")
    match = re.match(r"\s*Number of processes actually suspended: (-?\d+)", line)
    if match is None:
        raise BodyError(1, "expected 'Number of processes actually suspended: N'")
    return {"NumberOfPIDs": int(match.group(1))}


def parse_unsuspended(body: list[str]) -> Fields:
    """011 JOB_UNSUSPENDED: no fields."""
    _first(body, "Job was unsuspended.")
    return {}


def parse_held(body: list[str]) -> Fields:
    """012 JOB_HELD: HoldReason, HoldReasonCode, HoldReasonSubCode."""
    _first(body, "Job was held.")
    fields: Fields = {}
    reason = body[1].strip() if len(body) > 1 else ""
    if reason and reason != "Reason unspecified":
        fields["HoldReason"] = reason
    codes = _CODES.match(body[2]) if len(body) > 2 else None
    fields["HoldReasonCode"] = int(codes.group(1)) if codes else 0
    fields["HoldReasonSubCode"] = int(codes.group(2)) if codes else 0
    return fields


def parse_released(body: list[str]) -> Fields:
    """013 JOB_RELEASED: Reason."""
    _first(body, "Job was released.")
    return _optional_reason(body, "Reason")


def parse_grid_submit(body: list[str]) -> Fields:
    """027 GRID_SUBMIT: GridResource, GridJobId."""
    _first(body, "Job submitted to grid resource")
    fields: Fields = {}
    for index, (prefix, name) in enumerate(
        (("    GridResource: ", "GridResource"), ("    GridJobId: ", "GridJobId")), start=1
    ):
        line = _line(body, index, name)
        if not line.startswith(prefix):
            raise BodyError(index, f"expected {prefix.strip()!r}")
        if line[len(prefix) :]:
            fields[name] = line[len(prefix) :]
    return fields


def _parse_grid_resource(head: str) -> Callable[[list[str]], Fields]:
    def parse(body: list[str]) -> Fields:
        _first(body, head)
        line = _line(body, 1, "GridResource")
        if not line.startswith("    GridResource: "):
            raise BodyError(1, "expected 'GridResource:'")
        value = line[len("    GridResource: "):]
        return {"GridResource": value} if value else {}
    return parse


parse_grid_resource_up = _parse_grid_resource("Grid Resource Back Up")
"""025 GRID_RESOURCE_UP: GridResource."""
parse_grid_resource_down = _parse_grid_resource("Detected Down Grid Resource")
"""026 GRID_RESOURCE_DOWN: GridResource."""


def parse_job_ad_information(body: list[str]) -> Fields:
    """028 JOB_AD_INFORMATION: one field per attribute (expression text)."""
    _first(body, "Job ad information event triggered.")
    fields: Fields = {}
    for index, line in enumerate(body[1:], start=1):
        attribute = _attribute(line)
        if attribute is None:
            raise BodyError(index, f"expected 'Attr = value', found {line[:60]!r}")
        fields[attribute[0]] = attribute[1]
    if not fields:
        raise BodyError(0, "no attributes")
    return fields


def parse_future_event(body: list[str]) -> Fields:
    """Any other event: its first line as EventHead (HTCondor's FutureEvent)."""
    return {"EventHead": body[0]} if body[0] else {}


BODY_PARSERS: dict[str, Callable[[list[str]], Fields]] = {
    "SUBMIT": parse_submit,
    "EXECUTE": parse_execute,
    "IMAGE_SIZE": parse_image_size,
    "JOB_EVICTED": parse_evicted,
    "JOB_TERMINATED": parse_terminated,
    "JOB_ABORTED": parse_aborted,
    "JOB_SUSPENDED": parse_suspended,
    "JOB_UNSUSPENDED": parse_unsuspended,
    "JOB_HELD": parse_held,
    "JOB_RELEASED": parse_released,
    "GRID_SUBMIT": parse_grid_submit,
    "GRID_RESOURCE_UP": parse_grid_resource_up,
    "GRID_RESOURCE_DOWN": parse_grid_resource_down,
    "JOB_AD_INFORMATION": parse_job_ad_information,
}
