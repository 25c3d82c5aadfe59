"""Replaying a job queue log at start-up, with HTCondor's rules for damaged logs.

How this works (`LoadClassAdLog` and `InstantiateLogEntry` in classad_log.cpp):

* Records between 105 and 106 are held back and applied together at 106; records
  outside any transaction are applied as soon as they are read.
* The tail of a log can be torn by a crash: a last line without its newline, or a
  last transaction without its 106. Both are discarded, and the log is marked as
  needing a rewrite before anything is appended to it.
* A record that cannot be parsed is treated as the start of a torn tail (it and
  everything after it are ignored) unless a 106 follows it somewhere later in the
  file: then the corrupt record sits inside a transaction that was committed, the
  log cannot be trusted, and replay raises `JobQueueLogError` (HTCondor's schedd
  refuses to start: "corrupt log record ... occurred inside closed transaction").
* A log that contained any transaction was not shut down cleanly; the writer
  rewrites (compacts) such a log after loading it, as `ClassAdLog` does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from condorsim.jobqueue.records import (
    OP_END_TRANSACTION,
    BeginTransaction,
    EndTransaction,
    HistoricalSequenceNumber,
    JobQueueLogError,
    LogRecord,
    RecordError,
    op_number,
    parse_record,
)
from condorsim.jobqueue.state import QueueState

# Bytes are decoded so that any byte survives a read and a rewrite unchanged.
ENCODING = "utf-8"
ERRORS = "surrogateescape"


@dataclass
class ReplayResult:
    """What replaying a log found."""

    state: QueueState
    # Records that named a missing ad, nested or unmatched transactions, dropped tails.
    warnings: list[str] = field(default_factory=list)
    # True if the log held no transaction and no torn tail: nothing to rewrite.
    clean: bool = True
    # True if a torn tail (partial line, unterminated transaction, corrupt tail) was dropped.
    torn: bool = False
    # Number of records read, and whether the first one was a 107 header.
    record_count: int = 0
    has_header: bool = False


def split_lines(data: bytes) -> tuple[list[str], bool]:
    """The complete lines of `data` (without newlines) and whether a partial line followed."""
    parts = data.split(b"\n")
    partial = parts.pop()  # after the last newline: empty unless the last line is torn
    return [part.decode(ENCODING, ERRORS) for part in parts], bool(partial)


def replay_bytes(data: bytes, *, name: str, now: int) -> ReplayResult:
    """Replay the log whose content is `data`; `name` is used in messages.

    `now` is the creation timestamp given to a log that has no 107 header.
    """
    lines, partial = split_lines(data)
    result = ReplayResult(QueueState(sequence_number=1, creation_timestamp=now))
    state = result.state
    pending: list[tuple[int, LogRecord]] | None = None  # the open transaction's records
    for index, line in enumerate(lines):
        lineno = index + 1
        try:
            record = parse_record(line)
        except RecordError as exc:
            if any(op_number(later) == OP_END_TRANSACTION for later in lines[index + 1 :]):
                raise JobQueueLogError(
                    f"{name}: line {lineno}: corrupt record inside a committed "
                    f"transaction ({exc.reason}); the log cannot be replayed"
                ) from None
            result.warnings.append(
                f"{name}: line {lineno}: corrupt record ({exc.reason}); "
                "ignoring it and the rest of the log"
            )
            result.torn = True
            break
        result.record_count += 1
        if isinstance(record, HistoricalSequenceNumber):
            if lineno == 1:
                result.has_header = True
            else:
                result.warnings.append(f"{name}: line {lineno}: 107 after the first record")
            state.apply(record)
        elif isinstance(record, BeginTransaction):
            result.clean = False
            if pending is None:
                pending = []
            else:
                result.warnings.append(f"{name}: line {lineno}: nested 105")
        elif isinstance(record, EndTransaction):
            if pending is None:
                result.warnings.append(f"{name}: line {lineno}: 106 without 105")
            else:
                for held_lineno, held in pending:
                    _play(state, held, result, f"{name}: line {held_lineno}")
                pending = None
        elif pending is not None:
            pending.append((lineno, record))
        else:
            _play(state, record, result, f"{name}: line {lineno}")
    if partial:
        result.torn = True
        result.warnings.append(f"{name}: the last line is incomplete; ignoring it")
    if pending is not None:
        result.torn = True
        result.warnings.append(f"{name}: the last transaction has no 106; ignoring it")
    if result.torn:
        result.clean = False
    return result


def _play(state: QueueState, record: LogRecord, result: ReplayResult, where: str) -> None:
    warning = state.apply(record)
    if warning is not None:
        result.warnings.append(f"{where}: {warning}")


def replay_file(path: str | os.PathLike[str], *, now: int) -> ReplayResult:
    """Replay the log at `path` (see `replay_bytes`); a missing file is an empty log."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except FileNotFoundError:
        data = b""
    except OSError as exc:
        raise JobQueueLogError(f"cannot read {os.fspath(path)}: {exc.strerror}") from None
    return replay_bytes(data, name=os.fspath(path), now=now)
