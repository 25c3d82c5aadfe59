"""The records of HTCondor's ClassAd transaction log (job_queue.log), one per line.

How this works: every record is a small frozen dataclass; `format_record` turns one
into its line and `parse_record` turns a line (without its newline) back into one,
raising `RecordError` for a line HTCondor's reader would refuse. The line layout is
HTCondor's (`LogRecord::WriteHeader/WriteBody/WriteTail`):

    101 <key> <MyType> <TargetType>        NewClassAd
    102 <key>                              DestroyClassAd
    103 <key> <Attr> <expression text>     SetAttribute (the text runs to end of line)
    104 <key> <Attr>                       DeleteAttribute
    105                                    BeginTransaction (op, a space, nothing else)
    106                                    EndTransaction
    107 <seq> CreationTimestamp <time>     LogHistoricalSequenceNumber

Keys: the header ad `0.0`, a cluster ad `0<cluster>.-1` (note the leading 0), a
proc ad `<cluster>.<proc>`. Expression text is kept as text; this module never
parses ClassAd expressions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

OP_NEW_CLASSAD = 101
OP_DESTROY_CLASSAD = 102
OP_SET_ATTRIBUTE = 103
OP_DELETE_ATTRIBUTE = 104
OP_BEGIN_TRANSACTION = 105
OP_END_TRANSACTION = 106
OP_HISTORICAL_SEQUENCE_NUMBER = 107

# What HTCondor writes in place of an empty MyType/TargetType (EMPTY_CLASSAD_TYPE_NAME).
EMPTY_CLASSAD_TYPE_NAME = "(empty)"

HEADER_KEY = "0.0"


class JobQueueLogError(Exception):
    """A job queue log that cannot be used, or an operation we refuse to write."""


class JobQueueWriteError(JobQueueLogError):
    """The disk refused a write (ENOSPC, EIO, EACCES, a short write): `path` and `errno`
    say which file and why. Nothing of the refused change is in the log or the state."""

    def __init__(self, message: str, path: str, errno: int) -> None:
        super().__init__(message)
        self.path, self.errno = path, errno


class RecordError(JobQueueLogError):
    """One line that is not a valid record; `reason` says what is wrong with it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class NewAd:
    """101 NewClassAd: create the ad `key`."""

    key: str
    mytype: str = "Job"
    targettype: str = "Machine"


@dataclass(frozen=True)
class DestroyAd:
    """102 DestroyClassAd: remove the ad `key` and all its attributes."""

    key: str


@dataclass(frozen=True)
class SetAttr:
    """103 SetAttribute: set `name` in ad `key` to the ClassAd expression `text`."""

    key: str
    name: str
    text: str


@dataclass(frozen=True)
class DeleteAttr:
    """104 DeleteAttribute: remove `name` from ad `key`."""

    key: str
    name: str


@dataclass(frozen=True)
class BeginTransaction:
    """105 BeginTransaction."""


@dataclass(frozen=True)
class EndTransaction:
    """106 EndTransaction."""


@dataclass(frozen=True)
class HistoricalSequenceNumber:
    """107 LogHistoricalSequenceNumber: the first record of a log.

    `sequence_number` grows by one at each compaction; `creation_timestamp` is when
    the first log of the series was started (kept across compactions).
    """

    sequence_number: int
    creation_timestamp: int


Op = NewAd | DestroyAd | SetAttr | DeleteAttr
LogRecord = Op | BeginTransaction | EndTransaction | HistoricalSequenceNumber

_OPS = (SetAttr, DeleteAttr, NewAd, DestroyAd)
_VALID_OPS = frozenset(range(OP_NEW_CLASSAD, OP_HISTORICAL_SEQUENCE_NUMBER + 1))


# ---------------------------------------------------------------------------- keys


def cluster_key(cluster: int) -> str:
    """The key of a cluster ad: `cluster_key(21) == "021.-1"`."""
    return f"0{cluster}.-1"


def proc_key(cluster: int, proc: int) -> str:
    """The key of a proc ad: `proc_key(21, 3) == "21.3"`."""
    return f"{cluster}.{proc}"


def parse_key(key: str) -> tuple[int, int]:
    """(cluster, proc) of a key, as HTCondor's `%d.%d` scan reads it.

    `"021.-1"` gives (21, -1), `"21.3"` gives (21, 3), `"0.0"` gives (0, 0).
    Raises `JobQueueLogError` for a key that is not two integers joined by a dot.
    """
    left, dot, right = key.partition(".")
    try:
        if not dot:
            raise ValueError(key)
        return int(left, 10), int(right, 10)
    except ValueError:
        raise JobQueueLogError(f"not a job queue key: {key!r}") from None


# ----------------------------------------------------------------------- writing


def check_word(what: str, word: str) -> None:
    """Refuse a key, attribute name or type that would not survive as one word."""
    if word.isascii() and word.isprintable() and " " not in word and word:
        return  # the common case, without a step per character: no space, tab, NUL...
    if not word or any(ch.isspace() or ch == "\0" for ch in word):
        raise JobQueueLogError(f"{what} {word!r} must be a non-empty word without spaces")


def check_text(key: str, name: str, text: str) -> None:
    """Refuse expression text that cannot be one line (HTCondor refuses newlines too)."""
    if "\n" in text or "\r" in text or "\0" in text:
        raise JobQueueLogError(
            f"refusing to set {name} in ad {key}: the value contains a newline or NUL"
        )
    if not text.strip():
        raise JobQueueLogError(f"refusing to set {name} in ad {key}: the value is empty")


def check_op(op: Op) -> None:
    """Raise `JobQueueLogError` if `op` cannot be written as one valid record."""
    if isinstance(op, NewAd):
        check_word("key", op.key)
        # An empty type is written as a placeholder, so only spaces are a problem.
        for what, word in (("MyType", op.mytype), ("TargetType", op.targettype)):
            if word:
                check_word(what, word)
    elif isinstance(op, DestroyAd):
        check_word("key", op.key)
    elif isinstance(op, SetAttr):
        check_word("key", op.key)
        check_word("attribute name", op.name)
        check_text(op.key, op.name, op.text)
    elif isinstance(op, DeleteAttr):
        check_word("key", op.key)
        check_word("attribute name", op.name)
    else:
        raise JobQueueLogError(f"not a job queue operation: {op!r}")


_PLAIN_WORDS: set[str] = set()
"""Keys, attribute names and types already found plain (see `transaction_text`): each is
checked once, not at every record that names it. Cleared when it grows past
`_PLAIN_WORDS_MAX` (a schedd names a key per job)."""
_PLAIN_WORDS_MAX = 200_000


def _plain(word: str) -> bool:
    """``word`` is one word as `check_word` wants it, and plain ASCII (remembered)."""
    if word in _PLAIN_WORDS:
        return True
    if not (word and word.isascii() and word.isprintable() and " " not in word):
        return False  # perhaps still a valid word: `check_word` says
    if len(_PLAIN_WORDS) >= _PLAIN_WORDS_MAX:
        _PLAIN_WORDS.clear()
    _PLAIN_WORDS.add(word)
    return True


def transaction_text(ads: Mapping[str, object], batch: tuple[Op, ...]) -> str | None:
    """The lines of `batch` as one transaction (105, the records, 106), when every op in
    it is plainly writable against the ads `ads` holds: words `_plain`, value text
    printable and not blank, each op on an ad that exists then (a NewAd on one that
    does not). None otherwise: the caller then runs `check_op` and the key checks,
    which say what is wrong (or accept what is valid but not plain, a tab in a value
    say) and formats with `format_record` -- the same text this makes.

    One pass, once per record, of what `check_op`, the key check and `format_record`
    do in three (the schedd commits some ten records per transaction)."""
    lines = [f"{OP_BEGIN_TRANSACTION} \n"]
    alive: dict[str, bool] = {}
    for op in batch:
        if not isinstance(op, _OPS):
            return None
        key = op.key
        if not _plain(key):
            return None
        exists = alive.get(key)
        if exists is None:
            exists = key in ads
        if isinstance(op, SetAttr):
            name, text = op.name, op.text
            if not exists or not _plain(name) or not text or text.isspace() \
                    or not text.isprintable():
                return None
            lines.append(f"{OP_SET_ATTRIBUTE} {key} {name} {text}\n")
        elif isinstance(op, DeleteAttr):
            if not exists or not _plain(op.name):
                return None
            lines.append(f"{OP_DELETE_ATTRIBUTE} {key} {op.name}\n")
        elif isinstance(op, NewAd):
            mytype = op.mytype or EMPTY_CLASSAD_TYPE_NAME
            targettype = op.targettype or EMPTY_CLASSAD_TYPE_NAME
            if exists or not _plain(mytype) or not _plain(targettype):
                return None
            alive[key] = True
            lines.append(f"{OP_NEW_CLASSAD} {key} {mytype} {targettype}\n")
        else:  # a DestroyAd
            if not exists:
                return None
            alive[key] = False
            lines.append(f"{OP_DESTROY_CLASSAD} {key}\n")
    lines.append(f"{OP_END_TRANSACTION} \n")
    return "".join(lines)


def format_record(record: LogRecord) -> str:
    """The line of `record`, with its trailing newline."""
    if isinstance(record, NewAd):
        mytype = record.mytype or EMPTY_CLASSAD_TYPE_NAME
        targettype = record.targettype or EMPTY_CLASSAD_TYPE_NAME
        return f"{OP_NEW_CLASSAD} {record.key} {mytype} {targettype}\n"
    if isinstance(record, DestroyAd):
        return f"{OP_DESTROY_CLASSAD} {record.key}\n"
    if isinstance(record, SetAttr):
        return f"{OP_SET_ATTRIBUTE} {record.key} {record.name} {record.text}\n"
    if isinstance(record, DeleteAttr):
        return f"{OP_DELETE_ATTRIBUTE} {record.key} {record.name}\n"
    if isinstance(record, BeginTransaction):
        return f"{OP_BEGIN_TRANSACTION} \n"
    if isinstance(record, EndTransaction):
        return f"{OP_END_TRANSACTION} \n"
    return (
        f"{OP_HISTORICAL_SEQUENCE_NUMBER} {record.sequence_number} "
        f"CreationTimestamp {record.creation_timestamp}\n"
    )


# ----------------------------------------------------------------------- reading


def _is_number(word: str) -> bool:
    return bool(word) and all("0" <= ch <= "9" for ch in word)


def _words(text: str, count: int) -> tuple[list[str], str]:
    """Split off `count` whitespace-separated words; return them and the rest.

    Like HTCondor's `readword`, leading blanks are skipped and the one blank that
    ends a word is consumed; the rest keeps any further blanks.
    """
    words: list[str] = []
    pos = 0
    for _ in range(count):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        start = pos
        while pos < len(text) and not text[pos].isspace():
            pos += 1
        if start == pos:
            break
        words.append(text[start:pos])
        pos += 1  # the blank that ended the word
    return words, text[pos:]


def op_number(line: str) -> int | None:
    """The op code a line starts with, or None if it does not start with a valid one."""
    words, _ = _words(line, 1)
    if not words or not _is_number(words[0]):
        return None
    number = int(words[0])
    return number if number in _VALID_OPS else None


def parse_record(line: str) -> LogRecord:
    """Parse one line (without its newline) into a record, or raise `RecordError`."""
    words, rest = _words(line, 1)
    if not words:
        raise RecordError("empty line")
    if not _is_number(words[0]) or int(words[0]) not in _VALID_OPS:
        raise RecordError(f"unknown op code {words[0]!r}")
    op = int(words[0])
    if op in (OP_BEGIN_TRANSACTION, OP_END_TRANSACTION):
        # HTCondor writes "105 " / "106 "; newer versions may add "#comment" to 106.
        tail = rest.strip()
        if tail and not (op == OP_END_TRANSACTION and tail.startswith("#")):
            raise RecordError(f"unexpected text after {op}: {tail!r}")
        return BeginTransaction() if op == OP_BEGIN_TRANSACTION else EndTransaction()
    if op == OP_SET_ATTRIBUTE:
        args, text = _words(rest, 2)
        if len(args) < 2:
            raise RecordError("103 needs a key, an attribute name and a value")
        if not text.strip():
            raise RecordError(f"103 {args[0]} {args[1]} has no value")
        return SetAttr(args[0], args[1], text)
    wanted = {
        OP_NEW_CLASSAD: 3,
        OP_DESTROY_CLASSAD: 1,
        OP_DELETE_ATTRIBUTE: 2,
        OP_HISTORICAL_SEQUENCE_NUMBER: 3,
    }[op]
    args, extra = _words(rest, wanted)
    if len(args) < wanted:
        raise RecordError(f"{op} needs {wanted} fields, found {len(args)}")
    if extra.strip():
        raise RecordError(f"unexpected text after {op} record: {extra.strip()!r}")
    if op == OP_NEW_CLASSAD:
        mytype, targettype = ("" if word == EMPTY_CLASSAD_TYPE_NAME else word for word in args[1:])
        return NewAd(args[0], mytype, targettype)
    if op == OP_DESTROY_CLASSAD:
        return DestroyAd(args[0])
    if op == OP_DELETE_ATTRIBUTE:
        return DeleteAttr(args[0], args[1])
    if not _is_number(args[0]) or not _is_number(args[2]):
        raise RecordError("107 needs a sequence number and a creation timestamp")
    return HistoricalSequenceNumber(int(args[0]), int(args[2]))
