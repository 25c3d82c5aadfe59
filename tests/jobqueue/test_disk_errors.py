"""job_queue.log on a disk that refuses writes (full, broken, read-only): the refused
transaction is in neither the file nor the state, what was written before replays intact,
and once the disk takes writes again the log goes on. The disk is made to fail by
injection (`writer.disk_write`, `writer.disk_datasync`), as a full disk or EIO would."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from condorsim.jobqueue import (
    JobQueueLog,
    JobQueueLogFollower,
    JobQueueWriteError,
    NewAd,
    SetAttr,
    replay_file,
    writer,
)

T0 = 1_767_225_600


@contextmanager
def full_disk(monkeypatch: pytest.MonkeyPatch, *, takes: int = 0,
              code: int = errno.ENOSPC) -> Iterator[None]:
    """Every write takes at most ``takes`` bytes in all, then fails with ``code``."""
    left = [takes]
    real = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        if left[0] <= 0:
            raise OSError(code, os.strerror(code))
        n = real(fd, bytes(data[: left[0]]))
        left[0] -= n
        return n

    with monkeypatch.context() as m:
        m.setattr(writer, "disk_write", write)
        yield


def _failing_datasync(code: int) -> Callable[[int], None]:
    def datasync(fd: int) -> None:
        raise OSError(code, os.strerror(code))
    return datasync


def _log(tmp_path: Path) -> tuple[JobQueueLog, Path]:
    path = tmp_path / "job_queue.log"
    log = JobQueueLog(path)
    log.open(T0)
    log.commit([NewAd("1.0"), SetAttr("1.0", "JobStatus", "1")])
    return log, path


def _attrs(path: Path) -> dict[str, dict[str, str]]:
    state = replay_file(path, now=T0).state
    return {key: dict(ad.items()) for key, ad in state.ads.items()}


@pytest.mark.parametrize("takes", [0, 1, 7, 20])
def test_a_full_disk_refuses_the_transaction_and_keeps_what_was_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, takes: int) -> None:
    log, path = _log(tmp_path)
    before = path.read_bytes()
    with full_disk(monkeypatch, takes=takes), pytest.raises(JobQueueWriteError) as info:
        log.commit([SetAttr("1.0", "JobStatus", "2")])
    assert str(info.value) == f"write to {path} failed, errno = 28 (No space left on device)"
    assert (info.value.path, info.value.errno) == (str(path), errno.ENOSPC)
    assert path.read_bytes() == before  # the partial transaction was cut off
    assert log.state["1.0"]["JobStatus"] == "1"
    assert _attrs(path) == {"1.0": {"JobStatus": "1"}}
    # the disk has room again: the next transaction goes in, the refused one never does
    log.commit([SetAttr("1.0", "Foo", "3")])
    log.close()
    assert _attrs(path) == {"1.0": {"JobStatus": "1", "Foo": "3"}}
    assert replay_file(path, now=T0).torn is False


def test_a_failed_fdatasync_takes_the_whole_transaction_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log, path = _log(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(writer, "disk_datasync", _failing_datasync(errno.EIO))
    with pytest.raises(JobQueueWriteError, match=r"fdatasync of .*job_queue.log failed, "
                                                 r"errno = 5 \(Input/output error\)"):
        log.commit([SetAttr("1.0", "JobStatus", "2")])
    # every byte of it had reached the file: a replay would have taken the refused change
    assert path.read_bytes() == before
    monkeypatch.undo()
    log.commit([SetAttr("1.0", "JobStatus", "3")])
    log.close()
    assert _attrs(path) == {"1.0": {"JobStatus": "3"}}


def test_commits_are_refused_while_the_disk_stays_full_and_the_log_is_untouched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log, path = _log(tmp_path)
    before = path.read_bytes()
    with full_disk(monkeypatch, takes=3):
        for _ in range(3):
            with pytest.raises(JobQueueWriteError):
                log.commit([SetAttr("1.0", "JobStatus", "2")])
    assert path.read_bytes() == before
    assert not (tmp_path / "job_queue.log.tmp").exists()  # no half copy left taking space
    log.commit([SetAttr("1.0", "JobStatus", "4")])
    log.close()
    assert _attrs(path) == {"1.0": {"JobStatus": "4"}}


def test_a_follower_reloads_after_a_rolled_back_transaction(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job router may have read part of the refused transaction: the log is rewritten
    (a new 107) before the next one, so its next poll reads the log whole."""
    log, path = _log(tmp_path)
    follower = JobQueueLogFollower(path)
    follower.poll()
    with full_disk(monkeypatch, takes=40):  # "105 \n103 1.0 Refused 1\n" and a bit
        with pytest.raises(JobQueueWriteError):
            log.commit([SetAttr("1.0", "Refused", "1"), SetAttr("1.0", "Other", "2")])
    log.commit([SetAttr("1.0", "JobStatus", "2")])
    follower.poll()
    assert dict(follower.state["1.0"].items()) == {"JobStatus": "2"}
    log.close()


def test_a_compaction_that_fails_leaves_the_old_log_in_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log, path = _log(tmp_path)
    with full_disk(monkeypatch), pytest.raises(JobQueueWriteError, match=r"\.tmp failed"):
        log.compact()
    assert not (tmp_path / "job_queue.log.tmp").exists()
    log.commit([SetAttr("1.0", "JobStatus", "2")])
    log.close()
    assert _attrs(path) == {"1.0": {"JobStatus": "2"}}


def test_a_new_log_on_a_read_only_disk_names_the_file_and_the_errno(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "job_queue.log"
    with full_disk(monkeypatch, code=errno.EROFS), pytest.raises(
            JobQueueWriteError, match=rf"write to {path}.tmp failed, errno = 30 "
                                      r"\(Read-only file system\)"):
        JobQueueLog(path).open(T0)
    assert not path.exists() and not (tmp_path / "job_queue.log.tmp").exists()
