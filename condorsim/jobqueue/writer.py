"""The schedd's side of job_queue.log: load, append transactions, compact.

How this works (HTCondor's `ClassAdLog`, classad_log.h/.cpp):

* `open(now)` replays the file. A missing or empty file becomes a new log whose
  first record is `107 1 CreationTimestamp <now>`. A log that held any
  transaction, a torn tail or no 107 header is rewritten at once (compacted), as
  `ClassAdLog` does with a log that was not shut down cleanly; this also drops a
  torn tail before anything is appended after it.
* `commit(ops)` writes one transaction -- 105, the records, 106 -- in a single
  `write`, then `fdatasync`s it before returning, so a change the schedd has
  acknowledged survives a crash. Only then is the in-memory state changed.
* A write the disk refuses (ENOSPC, EIO, EACCES, a short write, a failed
  fdatasync) raises `JobQueueWriteError` naming the file and the errno, and the
  transaction is rolled back: the file is truncated to where it ended before, so
  what was written earlier replays intact and the refused change is in neither
  the file nor the state. The next commit first compacts the log (a job router
  following it then reloads it whole, as after HTCondor's rollback), and is
  refused while that is not possible; once the disk takes writes again, commits
  go on as before. HTCondor's schedd EXCEPTs instead (`write to %s failed, errno
  = %d`, log_transaction.cpp) and its master restarts it; see docs/reliability.md.
* `compact()` writes the whole state to `<log>.tmp` (107 with the next sequence
  number and the original creation timestamp, then each ad's 101 and 103
  records, outside any transaction, as `WriteClassAdLogState` does), fsyncs it,
  renames it over the log and fsyncs the directory. With `max_historical_logs`
  (the MAX_JOB_QUEUE_LOG_ROTATIONS knob) the old log is kept as `<log>.<seq>`.
  A compaction that fails leaves the old log open and in use.

The disk calls go through `disk_write` and `disk_datasync`, so that a test can
make them fail as a full or broken disk would.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterable
from types import TracebackType

from condorsim.jobqueue.records import (
    OP_SET_ATTRIBUTE,
    BeginTransaction,
    DestroyAd,
    EndTransaction,
    HistoricalSequenceNumber,
    JobQueueLogError,
    JobQueueWriteError,
    NewAd,
    Op,
    SetAttr,
    check_op,
    format_record,
    transaction_text,
)
from condorsim.jobqueue.replay import ENCODING, ERRORS, replay_file
from condorsim.jobqueue.state import QueueState

DEFAULT_COMPACT_MIN_BYTES = 1 << 20
DEFAULT_COMPACT_GROWTH = 4.0


def should_compact(
    size: int,
    compacted_size: int,
    *,
    min_bytes: int = DEFAULT_COMPACT_MIN_BYTES,
    growth: float = DEFAULT_COMPACT_GROWTH,
) -> bool:
    """Whether a log of `size` bytes, `compacted_size` right after its last compaction, is due.

    condorsim's rule (HTCondor compacts on a timer, QUEUE_CLEAN_INTERVAL, instead):
    compact once the log is at least `min_bytes` long and at least `growth` times
    its size after the last compaction.
    """
    return size >= min_bytes and size >= growth * compacted_size


disk_write = os.write
disk_datasync = os.fdatasync

fsync_on = True
"""HTCondor's CONDOR_FSYNC (default true), process-wide as HTCondor's ``condor_fsync_on``:
false makes every sync here a no-op -- the job queue log's commits and compactions --
trading durability on a power loss for speed. The writes
themselves, and their errors, are as before."""


def sync(fd: int) -> None:
    """`disk_datasync` ``fd``, unless CONDOR_FSYNC is false."""
    if fsync_on:
        disk_datasync(fd)


def write_failed(what: str, path: str, exc: OSError) -> JobQueueWriteError:
    """HTCondor's words for a failed write: `write to <path> failed, errno = 28 (...)`."""
    code = exc.errno or errno.EIO
    reason = exc.strerror or os.strerror(code)
    return JobQueueWriteError(f"{what} {path} failed, errno = {code} ({reason})", path, code)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` through `disk_write`; OSError if the disk takes less."""
    view = memoryview(data)
    while view:
        written = disk_write(fd, view)
        if written <= 0:  # a regular file never does this; a broken disk might
            raise OSError(errno.EIO, "short write: the disk took no more bytes")
        view = view[written:]


def _fsync_directory(path: str) -> None:
    # POSIX gives no durability for rename() until the directory itself is synced.
    if not fsync_on:
        return
    with contextlib.suppress(OSError):
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def state_records(state: QueueState, sequence_number: int) -> str:
    """The text of a compacted log holding `state`, headed by `sequence_number`."""
    header = HistoricalSequenceNumber(sequence_number, state.creation_timestamp)
    parts = [format_record(header)]
    for key, ad in state.ads.items():
        parts.append(format_record(NewAd(key, ad.mytype, ad.targettype)))
        # format_record(SetAttr(key, name, text)) of each attribute, the line made at once
        # (a compaction writes every attribute of every job)
        head = f"{OP_SET_ATTRIBUTE} {key} "
        parts.extend([f"{head}{name} {text}\n" for name, text in ad.spelled_items()])
    return "".join(parts)


def write_log_file(path: str | os.PathLike[str], state: QueueState, sequence_number: int) -> int:
    """Atomically replace the log at `path` by a compacted one; return its size in bytes."""
    target = os.fspath(path)
    data = state_records(state, sequence_number).encode(ENCODING, ERRORS)
    temp = f"{target}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise write_failed("write to", temp, exc) from None
    try:
        try:
            write_all(fd, data)
            sync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)  # a half-written copy would only take the space a retry needs
        raise write_failed("write to", temp, exc) from None
    _fsync_directory(target)
    return len(data)


class JobQueueLog:
    """The schedd's job_queue.log: its in-memory state and the file that makes it durable."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_historical_logs: int = 0,
        durable: bool = True,
    ) -> None:
        self.path = os.fspath(path)
        self.max_historical_logs = max_historical_logs
        self.durable = durable
        self.warnings: list[str] = []
        self._state: QueueState | None = None
        self._fd: int | None = None
        self._size = 0
        self._compacted_size = 0
        self._broken = False

    # -- life cycle

    def open(self, now: int) -> QueueState:
        """Replay the log and return the queue it holds (see the module comment).

        `now` (simulated epoch seconds) stamps a new log's CreationTimestamp.
        Raises `JobQueueLogError` for a log that cannot be replayed.
        """
        if self._fd is not None:
            raise JobQueueLogError(f"{self.path} is already open")
        result = replay_file(self.path, now=now)
        self.warnings = result.warnings
        self._state = result.state
        if result.record_count == 0 and not result.torn:
            self._compacted_size = self._size = write_log_file(
                self.path, self._state, self._state.sequence_number
            )
            self._open_for_append()
        elif result.clean and result.has_header:
            self._open_for_append()
            self._size = self._compacted_size = os.fstat(self._require_fd()).st_size
        else:
            self.compact()
        return self._state

    def close(self) -> None:
        """Close the file; the log can be opened again later."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> JobQueueLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- reading

    @property
    def state(self) -> QueueState:
        """The current queue. Change it only through `commit`."""
        if self._state is None:
            raise JobQueueLogError(f"{self.path} is not open")
        return self._state

    @property
    def size(self) -> int:
        """Bytes in the log file now."""
        return self._size

    @property
    def compacted_size(self) -> int:
        """Bytes in the log file right after it was last written whole."""
        return self._compacted_size

    def should_compact(
        self,
        *,
        min_bytes: int = DEFAULT_COMPACT_MIN_BYTES,
        growth: float = DEFAULT_COMPACT_GROWTH,
    ) -> bool:
        """Whether the log has grown enough to be compacted (see `should_compact`)."""
        return should_compact(self._size, self._compacted_size, min_bytes=min_bytes, growth=growth)

    # -- writing

    def commit(self, ops: Iterable[Op], *, durable: bool | None = None) -> None:
        """Write `ops` as one transaction, make it durable, then apply it to `state`.

        `durable=False` skips the fdatasync for this transaction (HTCondor's
        non-durable commit); by default the log's own `durable` setting holds.

        Raises `JobQueueLogError`, writing nothing, for an op that cannot be
        written (a newline in a value, a space in a key) or that names an ad
        that does not exist at that point (or creates one that does).
        """
        batch = tuple(ops)
        state = self.state
        if not self._broken:
            self._require_fd()
        if not batch:
            return
        text = transaction_text(state.ads, batch)
        if text is None:  # something in it is refused, or valid but not plain: check it all
            for op in batch:
                check_op(op)
            self._check_keys(state, batch)
            text = "".join(
                [
                    format_record(BeginTransaction()),
                    *(format_record(op) for op in batch),
                    format_record(EndTransaction()),
                ]
            )
        if self._broken:
            # an earlier transaction was rolled back: rewrite the log before appending
            self.compact()
        fd = self._require_fd()
        data = text.encode(ENCODING, ERRORS)
        what = "write to"
        try:
            write_all(fd, data)
            if self.durable if durable is None else durable:
                what = "fdatasync of"
                sync(fd)
        except OSError as exc:
            self._roll_back(fd)
            raise write_failed(what, self.path, exc) from None
        self._size += len(data)
        ads = state.ads
        for op in batch:
            if isinstance(op, SetAttr):  # most records: on an ad the checks found there
                ads[op.key][op.name] = op.text
            else:
                state.apply(op)

    def compact(self) -> None:
        """Rewrite the log as its current state, with the next sequence number."""
        state = self.state
        if self.max_historical_logs > 0 and os.path.exists(self.path):
            self._save_historical(state.sequence_number)
        sequence_number = state.sequence_number + 1
        # the old log stays open (and in use) until the new one has replaced it
        size = write_log_file(self.path, state, sequence_number)
        self.close()
        state.sequence_number = sequence_number
        self._size = self._compacted_size = size
        self._broken = False
        self._open_for_append()

    # -- helpers

    def _roll_back(self, fd: int) -> None:
        """Cut what a failed commit wrote; the next commit compacts first (see module)."""
        self._broken = True
        with contextlib.suppress(OSError):
            # Should this fail too, the replay after a crash still drops a torn tail;
            # the compaction the next commit makes rewrites the log from the state.
            os.ftruncate(fd, self._size)

    def _require_fd(self) -> int:
        if self._fd is None:
            raise JobQueueLogError(f"{self.path} is not open")
        return self._fd

    def _open_for_append(self) -> None:
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            self._broken = True  # open or not, the next commit rewrites it first
            raise write_failed("open of", self.path, exc) from None

    def _save_historical(self, sequence_number: int) -> None:
        kept = f"{self.path}.{sequence_number}"
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(kept)
            try:
                os.link(self.path, kept)
            except OSError:
                shutil.copyfile(self.path, kept)
        except OSError as exc:
            raise write_failed("save of", kept, exc) from None
        with contextlib.suppress(OSError):
            os.unlink(f"{self.path}.{sequence_number - self.max_historical_logs}")

    @staticmethod
    def _check_keys(state: QueueState, batch: tuple[Op, ...]) -> None:
        alive: dict[str, bool] = {}
        for op in batch:
            exists = alive.get(op.key, op.key in state)
            if isinstance(op, NewAd):
                if exists:
                    raise JobQueueLogError(f"refusing to create ad {op.key}: it exists")
                alive[op.key] = True
            elif not exists:
                raise JobQueueLogError(
                    f"refusing {type(op).__name__} on ad {op.key}: it does not exist"
                )
            elif isinstance(op, DestroyAd):
                alive[op.key] = False
