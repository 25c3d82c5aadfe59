"""job_queue.log: HTCondor's ClassAd transaction log, as the schedd writes it and the
job router follows it.

How this works: `records` knows the line format, `state` the queue the records
describe, `replay` how a log is loaded after a crash, `writer` the schedd's side
(transactions made durable before they are acknowledged, compaction), and
`follower` the job router's mirror. See docs/formats.md.
"""

from condorsim.jobqueue.follower import FollowKind, FollowResult, JobQueueLogFollower
from condorsim.jobqueue.records import (
    HEADER_KEY,
    BeginTransaction,
    DeleteAttr,
    DestroyAd,
    EndTransaction,
    HistoricalSequenceNumber,
    JobQueueLogError,
    JobQueueWriteError,
    LogRecord,
    NewAd,
    Op,
    SetAttr,
    cluster_key,
    format_record,
    parse_key,
    parse_record,
    proc_key,
)
from condorsim.jobqueue.replay import ReplayResult, replay_bytes, replay_file
from condorsim.jobqueue.state import QueueAd, QueueState, job_attrs
from condorsim.jobqueue.writer import JobQueueLog, should_compact, write_log_file

__all__ = [
    "HEADER_KEY",
    "BeginTransaction",
    "DeleteAttr",
    "DestroyAd",
    "EndTransaction",
    "FollowKind",
    "FollowResult",
    "HistoricalSequenceNumber",
    "JobQueueLog",
    "JobQueueLogError",
    "JobQueueLogFollower",
    "JobQueueWriteError",
    "LogRecord",
    "NewAd",
    "Op",
    "QueueAd",
    "QueueState",
    "ReplayResult",
    "SetAttr",
    "cluster_key",
    "format_record",
    "job_attrs",
    "parse_key",
    "parse_record",
    "proc_key",
    "replay_bytes",
    "replay_file",
    "should_compact",
    "write_log_file",
]
