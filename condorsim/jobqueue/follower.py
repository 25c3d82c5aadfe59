"""Following job_queue.log from another process, as the job router does.

How this works (HTCondor's `JobLogMirror`, `ClassAdLogReader::Poll`,
`ClassAdLogProber::probe` and `NewClassAdJobLogConsumer`): each `poll()` opens the
file and probes it.

* BULK: the first poll, or the log was compacted or replaced (its 107 header
  changed, it is a different file, it shrank, or the last record we read is no
  longer where we read it). The mirror is cleared and the whole file is read.
* INCREMENTAL: the file grew; the records after the last one read are applied.
* NO_CHANGE: nothing new. MISSING: there is no file (the mirror is kept).

Records are applied as they are read: 105 and 106 are ignored, so the mirror can
show part of a transaction the schedd is still writing (if the schedd then drops
that transaction it rewrites the log, and the next poll is a bulk reload). A last
line without its newline is left for the next poll. A line that is not a valid
record, or a record naming a missing ad, is skipped with a warning. A new proc ad
whose cluster ad is not there yet gets an empty cluster ad to chain to.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import BinaryIO

from condorsim.jobqueue.records import (
    HistoricalSequenceNumber,
    JobQueueLogError,
    LogRecord,
    RecordError,
    parse_record,
)
from condorsim.jobqueue.replay import ENCODING, ERRORS
from condorsim.jobqueue.state import QueueState


class FollowKind(enum.Enum):
    """What one poll of the log found."""

    BULK = "bulk"
    INCREMENTAL = "incremental"
    NO_CHANGE = "no_change"
    MISSING = "missing"


@dataclass(frozen=True)
class FollowResult:
    """The outcome of one poll.

    For BULK, `state` is a new mirror built from the whole file and `records` is
    every record in it; for INCREMENTAL, `records` are the records appended since
    the last poll, already applied to `state`.
    """

    kind: FollowKind
    state: QueueState
    records: tuple[LogRecord, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Probe:
    file_id: tuple[int, int]
    header: HistoricalSequenceNumber
    last_offset: int  # where the last record read starts
    last_line: bytes  # that record's bytes, newline included
    end_offset: int  # just after it
    lines: int  # complete lines read so far


class JobQueueLogFollower:
    """A mirror of a job queue log, brought up to date by `poll()`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.state = QueueState()
        self._probe: _Probe | None = None

    def poll(self) -> FollowResult:
        """Bring `state` up to date with the file (see the module comment).

        Raises `JobQueueLogError` if the file cannot be read or does not start
        with a 107 record (HTCondor's prober refuses such a log).
        """
        try:
            stream = open(self.path, "rb")
        except FileNotFoundError:
            return FollowResult(FollowKind.MISSING, self.state)
        except OSError as exc:
            raise JobQueueLogError(f"cannot read {self.path}: {exc.strerror}") from None
        try:
            with stream:
                return self._poll(stream)
        except OSError as exc:
            raise JobQueueLogError(f"cannot read {self.path}: {exc.strerror}") from None

    def _poll(self, stream: BinaryIO) -> FollowResult:
        info = os.fstat(stream.fileno())
        file_id = (info.st_dev, info.st_ino)
        header = self._header(stream.readline())
        if header is None:
            # An empty log (HTCondor: a probe error, then a bulk load of nothing).
            self._probe = None
            self.state = QueueState()
            return FollowResult(FollowKind.BULK, self.state)
        previous = self._probe
        if (
            previous is not None
            and previous.file_id == file_id
            and previous.header == header
            and info.st_size >= previous.end_offset
        ):
            stream.seek(previous.last_offset)
            if stream.read(len(previous.last_line)) == previous.last_line:
                tail = stream.read()
                if b"\n" not in tail:
                    return FollowResult(FollowKind.NO_CHANGE, self.state)  # at most a partial line
                return self._load(FollowKind.INCREMENTAL, tail, previous, file_id, header)
        # First poll, or the log was compacted, replaced or rewritten: read it all.
        stream.seek(0)
        self.state = QueueState()
        return self._load(FollowKind.BULK, stream.read(), None, file_id, header)

    def _header(self, first: bytes) -> HistoricalSequenceNumber | None:
        if not first.endswith(b"\n"):
            if first:
                raise JobQueueLogError(f"{self.path}: line 1: the first record is incomplete")
            return None
        try:
            record = parse_record(first[:-1].decode(ENCODING, ERRORS))
        except RecordError as exc:
            raise JobQueueLogError(f"{self.path}: line 1: {exc.reason}") from None
        if not isinstance(record, HistoricalSequenceNumber):
            raise JobQueueLogError(f"{self.path}: line 1: the first record is not a 107")
        return record

    def _load(
        self,
        kind: FollowKind,
        data: bytes,
        previous: _Probe | None,
        file_id: tuple[int, int],
        header: HistoricalSequenceNumber,
    ) -> FollowResult:
        """Apply the complete lines of `data`, which starts where `previous` ended."""
        base = previous.end_offset if previous else 0
        lineno = previous.lines if previous else 0
        records: list[LogRecord] = []
        warnings: list[str] = []
        offset = last = 0
        while True:
            end = data.find(b"\n", offset)
            if end < 0:
                break  # a partial last line waits for the next poll
            lineno += 1
            line = data[offset:end].decode(ENCODING, ERRORS)
            last, offset = offset, end + 1
            try:
                record = parse_record(line)
            except RecordError as exc:
                warnings.append(f"{self.path}: line {lineno}: skipped ({exc.reason})")
                continue
            records.append(record)
            warning = self.state.apply(record, chain_procs=True)
            if warning is not None:
                warnings.append(f"{self.path}: line {lineno}: {warning}")
        self._probe = _Probe(
            file_id=file_id,
            header=header,
            last_offset=base + last,
            last_line=data[last:offset],
            end_offset=base + offset,
            lines=lineno,
        )
        return FollowResult(kind, self.state, tuple(records), tuple(warnings))
